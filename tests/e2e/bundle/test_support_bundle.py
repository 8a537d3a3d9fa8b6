"""support-bundle.yml (issue 49): what every node printed for every command the collection reads, its state files'
and logs' ends and the last reports, in one redacted archive that says what it lacks; and the lab brought to print
what the bundle's nodes printed (`maclab replay`), whose facts then equal the bundle's, though the lab's own state
has moved on."""
import json
import os
import tarfile

import yaml

from labtools import REPO, HOSTS, maclab, on_host, run_playbook, ssh, wait_until

BUNDLE = os.path.join(REPO, "support-bundle.yml")
READ = os.path.join(os.path.dirname(os.path.abspath(__file__)), "read_facts.yml")
ROLE_DEFAULTS = os.path.join(REPO, "roles", "support_bundle", "defaults", "main.yml")


def members(path):
    """{name below the top directory: text} of a bundle."""
    with tarfile.open(path, "r:gz") as archive:
        return dict((m.name.split("/", 1)[1], archive.extractfile(m).read().decode()) for m in archive.getmembers()
                    if m.isfile())


def test_a_bundle_says_what_it_lacks_hides_serials_and_replays_as_hosts_whose_facts_equal_the_original(lab, tmp_path):
    with open(ROLE_DEFAULTS) as handle:
        defaults = yaml.safe_load(handle)
    serials = dict((h, json.loads(ssh(h, "system_profiler -json SPHardwareDataType").stdout)["SPHardwareDataType"][0][
        "serial_number"]) for h in HOSTS)
    out = tmp_path / "support"
    # A log of the collection's on mac1 that holds a token, as a rank's log can: its end is collected, redacted.
    log = on_host("mac1", "/Library/Logs/macops/bundle-test.log")
    os.makedirs(os.path.dirname(log), exist_ok=True)
    with open(log, "w") as handle:
        handle.write("started\nrequest with api_key=sk-bundle-test-1234567 refused\n")
    maclab("fault", "down", "mac4")  # a node that does not answer: the bundle names it and is written anyway
    try:
        made = run_playbook(BUNDLE, "-e", json.dumps({"support_bundle_dir": str(out), "support_bundle_updates": False,
                                                      "support_bundle_reports": [str(tmp_path / "no-report")]}),
                            workdir=str(tmp_path))
    finally:
        maclab("fault", "up", "mac4")
    [name] = os.listdir(str(out))
    assert name.startswith("support-bundle-") and name.endswith(".tar.gz") and "support bundle: " in made.stdout
    assert oct(os.stat(str(out / name)).st_mode & 0o777) == "0o600"
    texts = members(str(out / name))
    manifest = json.loads(texts["MANIFEST.json"])
    assert "unreachable" in manifest["nodes"]["mac4"]["missing"][0]["why"], manifest["nodes"]["mac4"]
    assert manifest["reports"] == [{"report": str(tmp_path / "no-report"), "missing": "No such file or directory"}]
    for host in HOSTS[:3]:
        node = manifest["nodes"][host]
        # Every command the reads ran; a state path the node lacks (an unconverged lab has none) is named, not fatal.
        assert node["commands"] >= 10 and (node["files"] or node["missing"]), node
        commands = json.loads(texts["%s/commands.json" % host])
        assert [c for c in commands if os.path.basename(c["argv"][0]) == "system_profiler"]
    os.remove(log)
    kept = texts["mac1/files/Library/Logs/macops/bundle-test.log"]
    assert kept.startswith("started\n") and "sk-bundle-test-1234567" not in kept and "[redacted secret" in kept
    # Serial numbers nowhere, the same marker wherever one was.
    assert not [p for p, text in texts.items() for serial in serials.values() if serial in text]
    assert manifest["redacted"]["serial"] >= 3 and "[redacted serial" in texts["mac1/facts.json"], texts["mac1/facts.json"][:600]

    # The lab moves on (mac1 now runs another build, mac2's disk is full), then replays the bundle.
    wait_until(lambda: ssh("mac4", "true", check=False).returncode == 0, 120, 0.5, "mac4 back")
    maclab("macos", "26.4", "25E56", "mac1")
    maclab("fault", "disk-full", "mac2", "2G")
    reads = tmp_path / "reads"
    reads.mkdir()
    settings = {"read_groups": defaults["support_bundle_groups"], "read_labels": defaults["support_bundle_launchd_labels"],
                "read_dir": str(reads)}
    try:
        maclab("replay", str(out / name))
        run_playbook(READ, "-e", json.dumps(settings), workdir=str(tmp_path))
    finally:
        maclab("replay", "--clear")
        maclab("fault", "clear")
        maclab("macos", "26.2", "25C56", "mac1")
    for host in HOSTS[:3]:
        original = json.loads(texts["%s/facts.json" % host])
        with open(str(reads / ("%s.json" % host))) as handle:
            replayed = json.load(handle)
        for group in defaults["support_bundle_groups"]:
            key = {"user": "ansible_facts"}.get(group, group)
            assert replayed.get(key) == original.get(key), (host, group)
    assert json.loads(texts["mac1/facts.json"])["macos"]["version"] == "26.2"  # not the live 26.4: the bundle's
