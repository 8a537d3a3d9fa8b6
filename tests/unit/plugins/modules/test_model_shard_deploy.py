"""macops.cluster.model_shard inventory and present on real directories: the bytes really stream through the
serving program (run by a stand-in ssh that executes the remote command locally and logs the address it
was given), resume from a partial file, replace a corrupt copy, relay a file as it arrives, prune what is not
the node's, and change nothing the second time."""
import hashlib
import json
import os
import stat
import subprocess
import sys
import threading
import time

import pytest
from module_harness import FakeMac, run_module

from ansible_collections.macops.cluster.plugins.module_utils import _model_pull as pull_lib
from ansible_collections.macops.cluster.plugins.modules import model_shard

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "lab"))
from macsim import testmodel  # noqa: E402

# ssh's place: drop the options, log the address, run the remote command line through the shell.
FAKE_SSH = """#!/bin/sh
while :; do case "$1" in -o) shift 2;; -x|-a) shift;; -O) exit 0;; *) break;; esac; done
address="$1"; shift
echo "$address" >> "%(log)s"
exec /bin/sh -c "$1"
"""


def run_into(argv, path):
    """What the module's runner does: the command's stdout appended to the file."""
    with open(path, "ab") as handle:
        proc = subprocess.run(argv, stdout=handle, stderr=subprocess.PIPE)
    return proc.returncode, proc.stderr.decode()


# Runs the command in argv and passes its stdout on 64 KiB at a time, 10 ms apart.
SLOW_PIPE = """
import subprocess, sys, time
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE)
while True:
    block = proc.stdout.read(65536)
    if not block:
        break
    sys.stdout.buffer.write(block)
    sys.stdout.flush()
    time.sleep(0.01)
sys.exit(proc.wait())
"""


@pytest.fixture()
def world(tmp_path):
    source = tmp_path / "source" / "tiny-qwen2"
    testmodel.write(str(source))
    files = []
    for name in sorted(os.listdir(str(source))):
        with open(str(source / name), "rb") as handle:
            data = handle.read()
        files.append({"file": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()})
    ssh = tmp_path / "ssh"
    ssh.write_text(FAKE_SSH % {"log": str(tmp_path / "ssh.log")})
    ssh.chmod(ssh.stat().st_mode | stat.S_IXUSR)
    return {"tmp": tmp_path, "source": source, "files": files, "ssh": str(ssh), "dest": tmp_path / "node" / "m"}


def pulls_from(world, names, parent_dir=None, relay=False):
    return [dict(entry, parent="mac1", address="198.18.0.1", parent_dir=str(parent_dir or world["source"]),
                 relay=relay) for entry in world["files"] if entry["file"] in names]


class RealShell(FakeMac):
    """run_command for real: the module's pulls are shell command lines (ssh ... >> partial file)."""

    def run_command(self, args, **kwargs):
        self.calls.append(args)
        proc = subprocess.run(args, shell=bool(kwargs.get("use_unsafe_shell")), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True)
        return proc.returncode, proc.stdout, proc.stderr


def run(monkeypatch, capsys, world, state="present", check=False, **args):
    module_args = dict(state=state, dest=str(world["dest"]), files=world["files"], run_id="run-1",
                       ssh=world["ssh"], parent_python=sys.executable, stall_timeout=5,
                       checksum_cache=str(world["tmp"] / "cache.json"), _ansible_check_mode=check)
    module_args.update(args)
    return run_module(monkeypatch, capsys, model_shard.main, module_args, RealShell([]))[0]


def same_files(left, right):
    names = sorted(n for n in os.listdir(str(left)) if not n.startswith("."))
    for name in names:
        with open(str(left / name), "rb") as a, open(str(right / name), "rb") as b:
            assert a.read() == b.read(), name
    return names


def test_a_node_pulls_every_file_verified_and_a_second_run_moves_nothing(monkeypatch, capsys, world):
    names = [entry["file"] for entry in world["files"]]
    first = run(monkeypatch, capsys, world, pulls=pulls_from(world, names))
    assert first["changed"] is True and sorted(r["file"] for r in first["received"]) == names
    assert first["bytes_received"] == sum(entry["size"] for entry in world["files"])
    assert same_files(world["source"], world["dest"]) == names
    assert not [n for n in os.listdir(str(world["dest"])) if n.endswith(".macops-partial")]
    # One ssh connection per file, each to the parent's address on the shared cable.
    assert (world["tmp"] / "ssh.log").read_text().split() == ["198.18.0.1"] * len(names)
    again = run(monkeypatch, capsys, world, pulls=pulls_from(world, names))
    assert again["changed"] is False and again["bytes_received"] == 0 and again["received"] == []


def test_check_mode_names_what_it_would_pull_and_writes_nothing(monkeypatch, capsys, world):
    names = [entry["file"] for entry in world["files"]]
    result = run(monkeypatch, capsys, world, check=True, pulls=pulls_from(world, names))
    assert result["changed"] is True and result["would_pull"] == names and not world["dest"].exists()


def test_an_interrupted_pull_resumes_from_its_partial_file(monkeypatch, capsys, world):
    big = max(world["files"], key=lambda entry: entry["size"])
    os.makedirs(str(world["dest"]))
    with open(str(world["source"] / big["file"]), "rb") as handle:
        half = handle.read(big["size"] // 2)
    with open(str(world["dest"] / pull_lib.partial_name(big["file"])), "wb") as handle:
        handle.write(half)
    held = run(monkeypatch, capsys, world, state="inventory")["inventory"]
    assert held["files"][big["file"]] == {"state": "partial", "bytes": len(half)}
    result = run(monkeypatch, capsys, world, pulls=pulls_from(world, [big["file"]]),
                 local_source=str(world["source"]))
    pulled = [r for r in result["received"] if r["file"] == big["file"]][0]
    assert pulled["resumed_from"] == len(half) and pulled["received"] == big["size"] - len(half)
    same_files(world["source"], world["dest"])


def test_a_corrupt_copy_is_found_removed_and_replaced(monkeypatch, capsys, world):
    names = [entry["file"] for entry in world["files"]]
    run(monkeypatch, capsys, world, pulls=pulls_from(world, names))
    victim = world["dest"] / "model-00002-of-00004.safetensors"
    data = bytearray(victim.read_bytes())
    data[100] ^= 0xFF
    victim.write_bytes(bytes(data))
    held = run(monkeypatch, capsys, world, state="inventory")["inventory"]
    assert held["files"][victim.name]["state"] == "wrong"
    result = run(monkeypatch, capsys, world, pulls=pulls_from(world, [victim.name]))
    assert result["removed"] == [victim.name] and [r["file"] for r in result["received"]] == [victim.name]
    same_files(world["source"], world["dest"])


def test_files_that_are_not_the_node_s_are_pruned_but_never_in_the_source_itself(monkeypatch, capsys, world):
    mine = world["files"][:3]
    os.makedirs(str(world["dest"]))
    (world["dest"] / "old-model.safetensors").write_bytes(b"x")
    result = run(monkeypatch, capsys, world, files=mine, local_source=str(world["source"]))
    assert result["removed"] == ["old-model.safetensors"] and sorted(result["linked"]) == [e["file"] for e in mine]
    assert sorted(n for n in os.listdir(str(world["dest"])) if not n.startswith(".")) == [e["file"] for e in mine]
    in_place = run(monkeypatch, capsys, world, files=mine, dest=str(world["source"]),
                   local_source=str(world["source"]))
    assert in_place["changed"] is False and len(os.listdir(str(world["source"]))) > 3
    # With a record, one deployed in place says so: state absent keeps the owner's own copy.
    recorded = run(monkeypatch, capsys, world, files=mine, dest=str(world["source"]),
                   local_source=str(world["source"]), manifest={"name": "m"})
    assert recorded["manifest"] is True
    with open(str(world["source"] / ".macops-model.json")) as handle:
        assert json.load(handle)["in_place"] is True


def test_a_file_with_no_parent_and_no_local_copy_fails_before_anything_moves(monkeypatch, capsys, world):
    result = run(monkeypatch, capsys, world, pulls=[])
    assert result["failed"] is True and "gives no parent" in result["msg"] and not world["dest"].exists()


def test_a_relay_serves_a_file_while_it_is_still_arriving(world):
    """mac2 pulls from the source, mac3 pulls the same file from mac2 at the same time: mac3's copy is whole
    and right, and mac3 asked mac2 only (the relay), not the source."""
    big = max(world["files"], key=lambda entry: entry["size"])
    relay_dir, child_dir = world["tmp"] / "mac2", world["tmp"] / "mac3"
    for directory in (relay_dir, child_dir):
        os.makedirs(str(directory))
    asked = []

    def command(parent_dir, relay, slow=False):
        def command_for(entry, offset):
            asked.append(parent_dir)
            argv = pull_lib.serve_argv(sys.executable, parent_dir, entry, offset, 5, "r1", relay)
            if slow:  # let the relay's copy grow in steps, so the child really reads a growing partial file
                return [sys.executable, "-c", SLOW_PIPE] + argv
            return argv
        return command_for

    entry = dict(big, parent="mac1", address="-", parent_dir=str(world["source"]))
    child_entry = dict(big, parent="mac2", address="-", parent_dir=str(relay_dir))
    results = {}

    def child():
        results["child"] = pull_lib.pull_all([child_entry], str(child_dir), command(str(relay_dir), True),
                                             run_into, pull_lib.Progress(big["size"]), 5)

    thread = threading.Thread(target=child)
    thread.start()
    # The deploy module writes the run marker; here the relay's side writes it itself.
    (relay_dir / ".macops-run").write_text("r1\n")
    results["relay"] = pull_lib.pull_all([entry], str(relay_dir), command(str(world["source"]), False, slow=True),
                                         run_into, pull_lib.Progress(big["size"]), 5)
    thread.join(30)
    assert results["relay"][1] == [] and results["child"][1] == []
    with open(str(child_dir / big["file"]), "rb") as handle:
        assert hashlib.sha256(handle.read()).hexdigest() == big["sha256"]
    assert asked.count(str(relay_dir)) == 1 and asked.count(str(world["source"])) == 1


def pull_from_relay(world, relay_dir, child_dir, stall=1):
    """The child pulls the largest file from the relay (run r1), as the deploy module would: (done, errors)."""
    big = max(world["files"], key=lambda entry: entry["size"])

    def command_for(entry, pos):
        return pull_lib.serve_argv(sys.executable, str(relay_dir), entry, pos, stall, "r1", True)

    return pull_lib.pull_all([dict(big, parent="mac2", address="-", parent_dir=str(relay_dir))], str(child_dir),
                             command_for, run_into, pull_lib.Progress(big["size"]), stall)


def test_a_relay_that_has_not_started_this_run_is_not_read(world):
    """An old copy at the relay (from an earlier run, about to be replaced) is never served to a child."""
    big = max(world["files"], key=lambda entry: entry["size"])
    relay_dir, child_dir = world["tmp"] / "mac2", world["tmp"] / "mac3"
    os.makedirs(str(relay_dir))
    os.makedirs(str(child_dir))
    (relay_dir / big["file"]).write_bytes(b"\0" * big["size"])
    (relay_dir / ".macops-run").write_text("an-earlier-run\n")
    done, errors = pull_from_relay(world, relay_dir, child_dir)
    assert done == [] and "no byte came for 1 s" in errors[0]


def pieces_from(world, entry, parents):
    """The entry cut into one piece per parent, as the transfer plan cuts it: [(parent, parent_dir)]."""
    step = -(-entry["size"] // len(parents))
    return [dict(entry, parent=parent, address=address, parent_dir=str(directory), offset=offset,
                 length=min(step, entry["size"] - offset))
            for (parent, address, directory), offset in zip(parents, range(0, entry["size"], step))]


def test_a_file_in_pieces_from_three_parents_is_assembled_verified_and_resumed(monkeypatch, capsys, world):
    """Three pieces of the largest file, each from its own parent (its own ssh address); the file is whole and
    right; a run cut after the first piece and part of the second resumes with only the rest."""
    big = max(world["files"], key=lambda entry: entry["size"])
    parents = [("mac%d" % n, "198.18.0.%d" % n, world["source"]) for n in (1, 2, 3)]
    pieces = pieces_from(world, big, parents)
    os.makedirs(str(world["dest"]))
    with open(str(world["source"] / big["file"]), "rb") as handle:
        data = handle.read()
    first, second = pieces[0], pieces[1]
    (world["dest"] / pull_lib.partial_name(big["file"])).write_bytes(data[:first["length"]])
    cut = second["offset"] + second["length"] // 2
    (world["dest"] / pull_lib.partial_name(big["file"], second["offset"])).write_bytes(data[second["offset"]:cut])
    held = run(monkeypatch, capsys, world, state="inventory", files=[big])["inventory"]
    assert held["files"][big["file"]] == {"state": "partial", "bytes": cut}
    result = run(monkeypatch, capsys, world, files=[big], pulls=pieces)
    pulled = result["received"][0]
    assert pulled["pieces"] == 3 and pulled["parents"] == ["mac1", "mac2", "mac3"]
    assert pulled["resumed_from"] == cut and result["bytes_received"] == big["size"] - cut
    assert (world["dest"] / big["file"]).read_bytes() == data
    assert sorted(os.listdir(str(world["dest"]))) == sorted([big["file"], ".macops-run", ".macops-progress.json",
                                                              ".macops-lock"])
    # The first piece was already whole: only the second (from its middle) and the third were asked for.
    assert sorted((world["tmp"] / "ssh.log").read_text().split()) == ["198.18.0.2", "198.18.0.3"]


def test_pieces_that_do_not_tile_the_file_are_refused_before_anything_moves(monkeypatch, capsys, world):
    big = max(world["files"], key=lambda entry: entry["size"])
    parents = [("mac%d" % n, "198.18.0.%d" % n, world["source"]) for n in (1, 2)]
    gap = pieces_from(world, big, parents)
    gap[1]["offset"] += 1
    result = run(monkeypatch, capsys, world, files=[big], pulls=gap)
    assert result["failed"] is True and "do not cover bytes 0 to %d" % big["size"] in result["msg"]
    assert not world["dest"].exists()


def test_a_relay_serves_a_later_piece_while_it_is_still_arriving(world):
    """The relay receives the file's second piece from the source while the child pulls that piece from the
    relay: the child's copy of the piece is exactly the file's bytes at that offset."""
    big = max(world["files"], key=lambda entry: entry["size"])
    relay_dir, child_dir = world["tmp"] / "mac2", world["tmp"] / "mac3"
    for directory in (relay_dir, child_dir):
        os.makedirs(str(directory))
    half = big["size"] // 2
    piece = dict(big, offset=half, length=big["size"] - half)

    def command(parent_dir, relay, slow=False):
        def command_for(entry, pos):
            argv = pull_lib.serve_argv(sys.executable, parent_dir, entry, pos, 5, "r1", relay)
            return [sys.executable, "-c", SLOW_PIPE] + argv if slow else argv
        return command_for

    progress = pull_lib.Progress(big["size"])
    got = {}
    thread = threading.Thread(target=lambda: got.update(child=pull_lib.pull_piece(
        dict(piece, parent="mac2"), str(child_dir), command(str(relay_dir), True), run_into, progress, 5)))
    thread.start()
    (relay_dir / ".macops-run").write_text("r1\n")
    pull_lib.pull_piece(dict(piece, parent="mac1"), str(relay_dir), command(str(world["source"]), False, slow=True),
                        run_into, progress, 5)
    thread.join(30)
    assert got["child"][0] == big["size"] - half and got["child"][2] is None  # a later piece is hashed at assembly
    with open(str(world["source"] / big["file"]), "rb") as handle:
        handle.seek(half)
        assert (child_dir / pull_lib.partial_name(big["file"], half)).read_bytes() == handle.read()


def test_the_deployment_record_is_written_once_kept_by_the_prune_and_read_by_node_facts(monkeypatch, capsys, world):
    from ansible_collections.macops.cluster.plugins.module_utils._model_deploy import deployed_models
    names = [entry["file"] for entry in world["files"]]
    record = {"name": "tiny-qwen2", "runtime": "mlx-lm", "rank": 0, "ranks": 1, "layers": [0, 4]}
    predicted = run(monkeypatch, capsys, world, check=True, pulls=pulls_from(world, names), manifest=record)
    assert predicted["manifest"] is True and not world["dest"].exists()
    first = run(monkeypatch, capsys, world, pulls=pulls_from(world, names), manifest=record)
    assert first["manifest"] is True and (world["dest"] / ".macops-model.json").exists()
    again = run(monkeypatch, capsys, world, pulls=pulls_from(world, names), manifest=record)
    assert again["changed"] is False and again["manifest"] is False
    moved = run(monkeypatch, capsys, world, pulls=pulls_from(world, names), manifest=dict(record, layers=[0, 2]))
    assert moved["changed"] is True and moved["manifest"] is True and moved["bytes_received"] == 0
    [found] = deployed_models([str(world["dest"].parent)])
    assert found["complete"] is True and found["layers"] == [0, 2] and found["files"] == len(names)
    (world["dest"] / names[0]).unlink()
    [found] = deployed_models([str(world["dest"].parent)])
    assert found["complete"] is False and found["missing"] == [names[0]]


def test_a_relay_busy_with_its_other_files_keeps_its_child_waiting_past_the_stall(world):
    """The relay comes to the child's file only after its earlier ones: while its progress file moves on, the
    child's serve waits (stall 1 s, here 2.5 s), and then gets the file whole."""
    big = max(world["files"], key=lambda entry: entry["size"])
    relay_dir, child_dir = world["tmp"] / "mac2", world["tmp"] / "mac3"
    for directory in (relay_dir, child_dir):
        os.makedirs(str(directory))
    (relay_dir / ".macops-run").write_text("r1\n")
    got = {}
    thread = threading.Thread(target=lambda: got.update(child=pull_from_relay(world, relay_dir, child_dir)))
    thread.start()
    for _ in range(10):  # busy with other files: its progress file is written every quarter of a second
        (relay_dir / ".macops-progress.json").write_text("{}")
        time.sleep(0.25)
    with open(str(world["source"] / big["file"]), "rb") as handle:
        (relay_dir / pull_lib.partial_name(big["file"])).write_bytes(handle.read())
    thread.join(30)
    assert got["child"][1] == [] and [d["file"] for d in got["child"][0]] == [big["file"]]
    assert hashlib.sha256((child_dir / big["file"]).read_bytes()).hexdigest() == big["sha256"]


def test_a_relay_that_stopped_receiving_is_a_stall(world):
    """Its progress file has not moved for a minute: the child gives up after the stall, to be resumed."""
    relay_dir, child_dir = world["tmp"] / "mac2", world["tmp"] / "mac3"
    for directory in (relay_dir, child_dir):
        os.makedirs(str(directory))
    (relay_dir / ".macops-run").write_text("r1\n")
    (relay_dir / ".macops-progress.json").write_text("{}")
    old = time.time() - 60
    os.utime(str(relay_dir / ".macops-progress.json"), (old, old))
    done, errors = pull_from_relay(world, relay_dir, child_dir)
    assert done == [] and "no byte came for 1 s" in errors[0]


def test_a_second_run_into_the_same_directory_fails_before_it_touches_a_file(monkeypatch, capsys, world):
    os.makedirs(str(world["dest"]))
    names = [entry["file"] for entry in world["files"]]
    # The other run, still pulling: another process that holds the directory's lock.
    other = subprocess.Popen([sys.executable, "-c", "import fcntl, sys, time; h = open(sys.argv[1], 'a'); "
                              "fcntl.flock(h, fcntl.LOCK_EX); print('held', flush=True); time.sleep(30)",
                              str(world["dest"] / ".macops-lock")], stdout=subprocess.PIPE, universal_newlines=True)
    try:
        assert other.stdout.readline().strip() == "held"
        result = run(monkeypatch, capsys, world, pulls=pulls_from(world, names))
    finally:
        other.kill()
        other.wait()
    assert result["failed"] is True and "another deployment is still pulling into it" in result["msg"]
    assert sorted(os.listdir(str(world["dest"]))) == [".macops-lock"]


def test_a_runner_that_ends_the_process_is_an_error_not_a_file_quietly_dropped(world):
    """run_command's own handling ends the module with SystemExit; from a pull thread that must be an error."""
    big = max(world["files"], key=lambda entry: entry["size"])

    def ends(argv, path):
        raise SystemExit(1)

    done, errors = pull_lib.pull_all([dict(big, parent="mac1", address="-", parent_dir=str(world["source"]))],
                                     str(world["tmp"]), lambda entry, pos: ["true"], ends,
                                     pull_lib.Progress(big["size"]), 1)
    assert done == [] and errors == ["SystemExit: SystemExit(1)"]


def absent(monkeypatch, capsys, root, dest, also=(), check=False):
    args = {"state": "absent", "root": str(root), "dest": str(dest), "also": [str(path) for path in also]}
    if check:
        args["_ansible_check_mode"] = True
    return run_module(monkeypatch, capsys, model_shard.main, args, FakeMac({}))[0]


def test_absent_removes_the_model_and_its_source_copies_and_a_second_run_changes_nothing(monkeypatch, capsys, tmp_path):
    root = tmp_path / "models"
    for where in ("m", ".hub/m", ".controller/m", "other"):
        (root / where / "sub").mkdir(parents=True)
        (root / where / "a.safetensors").write_bytes(b"x" * 100)
        (root / where / "sub" / "b").write_bytes(b"y" * 20)
    (root / "m" / ".macops-run").write_text("run-1")  # a directory deploy-model.yml made (no record yet: cut short)
    os.link(str(root / ".hub" / "m" / "a.safetensors"), str(root / "m" / "hard"))
    (root / "m" / "link").symlink_to(root / "other" / "a.safetensors")
    also = [root / ".hub" / "m", root / ".controller" / "m"]
    predicted = absent(monkeypatch, capsys, root, root / "m", also, check=True)
    assert predicted["changed"] is True and (root / "m").is_dir()
    assert predicted["removed_dirs"] == [{"path": str(root / "m"), "bytes": 225},
                                         {"path": str(root / ".hub" / "m"), "bytes": 120},
                                         {"path": str(root / ".controller" / "m"), "bytes": 120}]
    result = absent(monkeypatch, capsys, root, root / "m", also)
    assert result["changed"] is True and result["removed_dirs"] == predicted["removed_dirs"]
    assert sorted(os.listdir(str(root))) == [".controller", ".hub", "other"]
    assert (root / "other" / "a.safetensors").read_bytes() == b"x" * 100  # a link's target stays
    again = absent(monkeypatch, capsys, root, root / "m", also)
    assert again["changed"] is False and again["removed_dirs"] == []


@pytest.mark.parametrize("dest", ["{root}", "{root}/..", "{tmp}/elsewhere/m", "{root}/escape/m", "{root}/.hub",
                                  "{root}/plain"])
def test_absent_refuses_a_path_outside_the_models_directory_and_removes_nothing(monkeypatch, capsys, tmp_path, dest):
    root = tmp_path / "models"
    (root / "m").mkdir(parents=True)
    (tmp_path / "elsewhere" / "m").mkdir(parents=True)
    (root / "escape").symlink_to(tmp_path / "elsewhere")  # a link inside root that leads out
    (root / ".hub" / "x").mkdir(parents=True)
    (root / "plain").mkdir()  # the owner's own directory: no deployment record, no run marker
    path = dest.format(root=root, tmp=tmp_path)
    result = absent(monkeypatch, capsys, root, path, [root / "m"])
    assert result["failed"] is True and ("is not a model directory inside %s" % root in result["msg"]
                                         or "holds no deployment record" in result["msg"]), result["msg"]
    assert (root / ".hub" / "x").is_dir() and (root / "plain").is_dir()
    assert (root / "m").is_dir() and (tmp_path / "elsewhere" / "m").is_dir()


def test_absent_keeps_a_model_deployed_in_place_the_owner_s_own_copy(monkeypatch, capsys, tmp_path):
    root = tmp_path / "models"
    (root / "m").mkdir(parents=True)
    (root / "m" / ".macops-model.json").write_text('{"name": "m", "in_place": true, "files": []}')
    result = absent(monkeypatch, capsys, root, root / "m")
    assert result["changed"] is False and result["kept"] == [str(root / "m")] and (root / "m").is_dir()
