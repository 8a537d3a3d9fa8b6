"""`maclab replay` (lab/macsim/replay.py, shims/dispatch.py): a host answers each command a support bundle recorded
with what the bundle's node printed, and every other command with the lab's own answer; bundle nodes go to the lab
hosts of the same name, else in order; files land at their paths; --clear ends it."""
import io
import json
import os
import tarfile

import pytest
from shimlab import LAB_DIR  # noqa: F401 - puts macsim on sys.path

from macsim import replay
from macsim.faultbase import FaultError

SW_VERS = "ProductName:\t\tmacOS\nProductVersion:\t\t26.3.1\nBuildVersion:\t\t25D2128\n"


def bundle(path, nodes):
    with tarfile.open(str(path), "w:gz") as archive:
        def add(name, text):
            data = text.encode()
            info = tarfile.TarInfo("support-bundle-T/" + name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        add("MANIFEST.json", json.dumps({"nodes": {}}))
        for node, (commands, files) in nodes.items():
            add("%s/commands.json" % node, json.dumps(commands))
            for where, text in files.items():
                add("%s/files%s" % (node, where), text)
    return str(path)


class Paths(object):
    def __init__(self, root):
        self.root = root

    def host_file(self, host, *parts):
        return os.path.join(self.root, "hosts", host, *parts)


def test_a_replaying_host_prints_what_the_bundle_recorded_and_the_lab_answers_the_rest(lab, tmp_path):
    commands = [{"argv": ["/usr/bin/sw_vers"], "rc": 0, "stdout": SW_VERS, "stderr": ""},
                {"argv": ["/usr/bin/fdesetup", "status"], "rc": 1, "stdout": "", "stderr": "fdesetup: no\n"}]
    path = bundle(tmp_path / "b.tar.gz", {"studio-1": (commands, {"/Library/Logs/macops/serve.log": "hello\n"})})
    paths = Paths(os.path.dirname(os.path.dirname(lab.host_dir())))
    os.makedirs(paths.host_file("mac1", "fs"), exist_ok=True)
    assert replay.replay(paths, path, ["mac1"]) == "mac1: replays studio-1 (2 commands, 1 files)"
    assert lab.run("sw_vers").out == SW_VERS
    refused = lab.run("fdesetup", "status")
    assert (refused.rc, refused.err) == (1, "fdesetup: no\n")
    assert "26.3.1" not in lab.run("sw_vers", "-productVersion").out  # not recorded: the lab's own answer
    with open(paths.host_file("mac1", "fs") + "/Library/Logs/macops/serve.log") as handle:
        assert handle.read() == "hello\n"
    replay.clear(paths, ["mac1"])
    assert lab.run("sw_vers").out != SW_VERS


def test_bundle_nodes_go_to_hosts_of_their_name_then_in_order_and_a_bundle_too_big_is_refused(tmp_path):
    assert replay.assign(["mac2", "studio-a", "studio-b"], ["mac1", "mac2", "mac3"]) == {
        "mac2": "mac2", "studio-a": "mac1", "studio-b": "mac3"}
    with pytest.raises(FaultError):
        replay.assign(["a", "b"], ["mac1"])
    (tmp_path / "junk.tar.gz").write_text("not a bundle")
    with pytest.raises(FaultError):
        replay.read_bundle(str(tmp_path / "junk.tar.gz"))
    assert replay.bundle_size(bundle(tmp_path / "two.tar.gz", {"a": ([], {}), "b": ([], {})})) == 2
