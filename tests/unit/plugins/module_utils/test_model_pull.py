"""Pulling a model's files (plugins/module_utils/_model_pull.py) on real directories: the bytes really stream
through the serving program (run by a stand-in ssh that executes the remote command locally), a partial file
resumes, a file in pieces from three parents is assembled, and a relay serves a file while it still arrives,
waits past its own stall and never drops a file quietly."""
import hashlib
import os
import subprocess
import sys
import threading
import time

from ansible_collections.macops.cluster.plugins.module_utils import _model_pull as pull_lib

from model_world import pieces_from, pulls_from, run, same_files


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


def test_a_runner_that_ends_the_process_is_an_error_not_a_file_quietly_dropped(world):
    """run_command's own handling ends the module with SystemExit; from a pull thread that must be an error."""
    big = max(world["files"], key=lambda entry: entry["size"])

    def ends(argv, path):
        raise SystemExit(1)

    done, errors = pull_lib.pull_all([dict(big, parent="mac1", address="-", parent_dir=str(world["source"]))],
                                     str(world["tmp"]), lambda entry, pos: ["true"], ends,
                                     pull_lib.Progress(big["size"]), 1)
    assert done == [] and errors == ["SystemExit: SystemExit(1)"]
