"""`maclab replay BUNDLE` and `maclab up --from-bundle BUNDLE`: lab hosts that print what a real cluster's nodes
printed, from a support bundle (support-bundle.yml), so that an owner's failure becomes a lab case and a test fixture.

Each bundle node is given to one lab host: the host of the same name, else the lab's hosts in order (a bundle of a
cluster named studio-1..4 onto mac1..4). The host's shims then answer every command the bundle recorded with its
recorded exit status, stdout and stderr (shims/dispatch.py reads the host's replay.json); a command the bundle did
not record gets the lab's own answer. The bundle's state files and logs are written into the host's file system at
their paths (logs and big files only as far as the bundle kept their ends). `maclab replay --clear` ends the replay
(the files stay)."""
import json
import os
import tarfile

from .faultbase import FaultError
from .shims.dispatch import REPLAY_FILE, replay_key


def read_bundle(path):
    """{node: {"commands": [...], "files": {path: text}}} and the manifest of a support bundle (.tar.gz)."""
    nodes, manifest = {}, None
    try:
        archive = tarfile.open(path, "r:gz")
    except (OSError, tarfile.TarError) as exc:
        raise FaultError("%s is not a support bundle: %s" % (path, exc))
    with archive:
        for member in archive.getmembers():
            if not member.isfile():
                continue
            parts = member.name.split("/", 2)  # top / node / rest
            text = archive.extractfile(member).read().decode("utf-8", "replace")
            if len(parts) == 2 and parts[1] == "MANIFEST.json":
                manifest = json.loads(text)
            elif len(parts) == 3 and parts[1] != "reports":
                node = nodes.setdefault(parts[1], {"commands": [], "files": {}})
                if parts[2] == "commands.json":
                    node["commands"] = json.loads(text)
                elif parts[2].startswith("files/"):
                    node["files"]["/" + parts[2][len("files/"):]] = text
    if manifest is None:
        raise FaultError("%s has no MANIFEST.json: not a support bundle" % path)
    return nodes, manifest


def assign(bundle_nodes, lab_hosts):
    """{bundle node: lab host}: same names first, then the rest in order."""
    taken = dict((node, node) for node in bundle_nodes if node in lab_hosts)
    free = [host for host in lab_hosts if host not in taken.values()]
    for node in sorted(n for n in bundle_nodes if n not in taken):
        if not free:
            raise FaultError("the bundle has %d nodes, the lab %d hosts: bring it up with --from-bundle" % (
                len(bundle_nodes), len(lab_hosts)))
        taken[node] = free.pop(0)
    return taken


def replay(paths, bundle, lab_hosts):
    """Make each lab host answer as its bundle node did; a line per host."""
    nodes, _manifest = read_bundle(bundle)
    lines = []
    for node, host in sorted(assign(sorted(nodes), lab_hosts).items()):
        answers = {}
        for entry in nodes[node]["commands"]:
            argv = entry.get("argv") or []
            if argv:
                answers[replay_key(os.path.basename(argv[0]), argv[1:])] = {
                    "rc": entry.get("rc", 0), "stdout": entry.get("stdout") or "", "stderr": entry.get("stderr") or ""}
        target = paths.host_file(host, REPLAY_FILE)
        with open(target + ".tmp", "w") as handle:
            json.dump(answers, handle)
        os.chmod(target + ".tmp", 0o644)  # every user's shim calls read it
        os.rename(target + ".tmp", target)
        for path, text in sorted(nodes[node]["files"].items()):
            where = paths.host_file(host, "fs") + path
            os.makedirs(os.path.dirname(where), exist_ok=True)
            with open(where, "w") as handle:
                handle.write(text)
        lines.append("%s: replays %s (%d commands, %d files)" % (host, node, len(answers), len(nodes[node]["files"])))
    return "\n".join(lines)


def clear(paths, lab_hosts):
    for host in lab_hosts:
        try:
            os.remove(paths.host_file(host, REPLAY_FILE))
        except OSError:
            pass
    return "%s: the lab's own answers again" % ", ".join(lab_hosts)


def bundle_size(bundle):
    """How many nodes a bundle holds (for `maclab up --from-bundle`)."""
    return len(read_bundle(bundle)[0])
