# -*- coding: utf-8 -*-
# PRIVATE to the collection: what macops.cluster.ssh_check runs and how it sums up.
# Do not use this from other collections. Stdlib only, Python 3.9.
"""Build the ssh command line mlx.launch depends on, and summarise the answers.

mlx.launch starts every rank with a non-interactive ``ssh <host> ...``: a password or host key
prompt is a failure. The check asks for exactly that, with ``BatchMode=yes`` (no prompt) and
``StrictHostKeyChecking=yes`` (no unknown or changed host key), and runs ``/usr/bin/true``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from concurrent.futures import ThreadPoolExecutor

from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands
from ansible_collections.macops.cluster.plugins.module_utils._problems import problem

# Longest stderr kept per target; ssh's own errors are one line.
STDERR_LIMIT = 300


def ssh_argv(ssh, connect_timeout, address):
    """The command line of one check."""
    return [ssh, "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes",
            "-o", "ConnectTimeout=%d" % connect_timeout, address, "/usr/bin/true"]


def targets_with_labels(targets):
    """The targets as ``{address, label}``, the label defaulting to the address."""
    return [{"address": target["address"], "label": target.get("label") or target["address"]}
            for target in targets]


def trim(text, limit=STDERR_LIMIT):
    """Stripped text of at most `limit` characters, an ellipsis marking a cut."""
    text = (text or "").strip()
    return text if len(text) <= limit else text[:limit - 3].rstrip() + "..."


def result(target, rc, stderr):
    """One entry of ``results``."""
    return {"address": target["address"], "label": target["label"], "ok": rc == 0, "rc": rc,
            "stderr": trim(stderr)}


def failure_message(results, fix=""):
    """``cannot SSH to A (label: error); B (label: error). <fix>``; None when every check passed."""
    failed = [entry for entry in results if not entry["ok"]]
    if not failed:
        return None
    reasons = ["%s (%s: %s)" % (entry["address"], entry["label"],
                                " ".join(entry["stderr"].split()) or "exit status %d" % entry["rc"])
               for entry in failed]
    message = "cannot SSH to %s." % "; ".join(reasons)
    fix = (fix or "").strip()
    return "%s %s" % (message, fix) if fix else message


# Added to ConnectTimeout for the whole check: authentication and /usr/bin/true.
GRACE_SECONDS = 10


def run_ssh(argv, timeout):
    """(rc, stderr) of one check; -1 when ssh cannot start or runs past `timeout` seconds."""
    try:
        rc, dummy, stderr = commands.execute(argv, timeout)
    except OSError as exc:
        return -1, "cannot run %s: %s" % (argv[0], exc)
    if rc < 0:
        # execute() killed it at the time limit; its note on that (the last line) goes, ours says it.
        said = stderr.rsplit("\n", 1)[0] if "\n" in stderr else ""
        return -1, ("no answer within %d seconds. %s" % (timeout, said)).strip()
    return rc, stderr


def check_all(targets, ssh, connect_timeout, parallel):
    """Every target's result, in target order, at most `parallel` checks at a time."""
    def check(target):
        rc, stderr = run_ssh(ssh_argv(ssh, connect_timeout, target["address"]), connect_timeout + GRACE_SECONDS)
        return result(target, rc, stderr)

    if not targets:
        return []
    with ThreadPoolExecutor(max_workers=min(parallel, len(targets))) as pool:
        return list(pool.map(check, targets))


def mesh_targets(peers, links):
    """What a node checks: each peer by its name, then the far end of each of its cables
    (``links``: the plan's, with interface, peer_ip and peer_host), labelled so a finding names both."""
    targets = [{"address": peer, "label": "by name", "peer": peer, "port": None} for peer in peers]
    targets += [{"address": link["peer_ip"], "label": "over %s" % link["interface"], "peer": link["peer_host"],
                 "port": link["interface"]} for link in links]
    return targets


def mesh_problems(targets, results):
    """One ``ssh_peer_unreachable`` per target this node could not SSH to, on its peer and port."""
    problems = []
    for target, entry in zip(targets, results):
        if entry["ok"]:
            continue
        problems.append(problem(
            "ssh_peer_unreachable", "cannot SSH to %s %s (%s): %s" % (
                target["peer"], target["label"], target["address"],
                " ".join(entry["stderr"].split()) or "exit status %d" % entry["rc"]),
            "Check that Remote Login is on at %s and that its authorized_keys holds this node's key; run site.yml "
            "--tags ssh_mesh to install the mesh again. \"Host key verification failed\" means %s's host key "
            "changed." % (target["peer"], target["peer"]),
            port=target["port"], peer=target["peer"], details={"address": target["address"], "rc": entry["rc"]}))
    return problems
