"""macops.cluster.model_shard: plan on a real model directory (the lab's tiny model, written by the lab's own
writer), bad models failing with one catalogue problem naming the cause, the sha256 of every file right and from
the cache the second time; present on real directories (every file pulled and verified, check mode, a corrupt copy
replaced, what is not the node's pruned, a second run moving nothing); absent inside the models directory only."""
import hashlib
import os
import sys

import pytest

from ansible_collections.macops.cluster.plugins.modules import model_shard

from module_harness import FakeMac, run_module

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "lab"))
from macsim import testmodel  # noqa: E402
import json
import subprocess
from model_world import pieces_from, pulls_from, run, same_files

NODES = ["mac%d" % n for n in range(1, 5)]
FACTS = dict((name, {"mac": {"memory_bytes": 16 << 30}, "wired_limit": {"live_mb": 12288, "target_mb": None}})
             for name in NODES)


@pytest.fixture()
def model(tmp_path):
    path = tmp_path / "tiny-qwen2"
    testmodel.write(str(path))
    return path


def plan(monkeypatch, capsys, tmp_path, path, check=False, **args):
    module_args = dict(path=str(path), nodes=NODES, node_facts=FACTS, runtime="mlx-lm", runtime_version="0.32.2",
                       checksum_cache=str(tmp_path / "cache" / "sha.json"), _ansible_check_mode=check)
    module_args.update(args)
    return run_module(monkeypatch, capsys, model_shard.main, module_args, FakeMac([]))[0]


def test_the_plan_of_the_tiny_model_names_each_rank_s_files_with_their_real_sha256(monkeypatch, capsys, tmp_path,
                                                                                   model):
    result = plan(monkeypatch, capsys, tmp_path, model)
    assert result["changed"] is False and result["model"]["layers"] == 8 and result["model"]["model_type"] == "qwen2"
    assert [r["layers"] for r in result["plan"]["ranks"]] == [[6, 8], [4, 6], [2, 4], [0, 2]]
    for name, digest in result["plan"]["sha256"].items():
        with open(str(model / name), "rb") as handle:
            assert hashlib.sha256(handle.read()).hexdigest() == digest
    assert sorted(result["hashed"]) == sorted(result["plan"]["files"])
    again = plan(monkeypatch, capsys, tmp_path, model)
    assert again["hashed"] == [] and again["plan"]["sha256"] == result["plan"]["sha256"]


def test_a_changed_file_is_hashed_again_and_check_mode_writes_no_cache(monkeypatch, capsys, tmp_path, model):
    plan(monkeypatch, capsys, tmp_path, model, check=True)
    assert not (tmp_path / "cache").exists()
    plan(monkeypatch, capsys, tmp_path, model)
    with open(str(model / "tokenizer_config.json"), "a") as handle:
        handle.write(" ")
    assert plan(monkeypatch, capsys, tmp_path, model)["hashed"] == ["tokenizer_config.json"]


def _fails(monkeypatch, capsys, tmp_path, path, **args):
    result = plan(monkeypatch, capsys, tmp_path, path, **args)
    assert result["failed"] is True
    return [p["code"] for p in result["problems"]], result["msg"]


def test_a_directory_without_config_json_is_not_a_model(monkeypatch, capsys, tmp_path, model):
    os.remove(str(model / "config.json"))
    codes, msg = _fails(monkeypatch, capsys, tmp_path, model)
    assert codes == ["shard_model_missing"] and "has no config.json" in msg


def test_a_truncated_shard_is_caught_from_its_header_and_size(monkeypatch, capsys, tmp_path, model):
    shard = str(model / "model-00002-of-00004.safetensors")
    with open(shard, "r+b") as handle:
        handle.truncate(os.path.getsize(shard) - 100)
    codes, msg = _fails(monkeypatch, capsys, tmp_path, model)
    assert codes == ["shard_header_corrupt"] and "model-00002-of-00004.safetensors" in msg
    assert "incomplete download or a corrupt file" in msg


def test_a_header_that_is_not_json_is_corrupt(monkeypatch, capsys, tmp_path, model):
    shard = str(model / "model-00003-of-00004.safetensors")
    with open(shard, "r+b") as handle:
        handle.seek(8)
        handle.write(b"\xff\xfe")
    codes, msg = _fails(monkeypatch, capsys, tmp_path, model)
    assert codes == ["shard_header_corrupt"] and "not UTF-8 JSON" in msg


def test_a_file_the_index_names_that_is_missing_is_named(monkeypatch, capsys, tmp_path, model):
    os.remove(str(model / "model-00004-of-00004.safetensors"))
    codes, msg = _fails(monkeypatch, capsys, tmp_path, model)
    assert codes == ["shard_file_missing"] and "model-00004-of-00004.safetensors" in msg


def test_a_model_that_fits_nowhere_names_each_node_and_both_sizes(monkeypatch, capsys, tmp_path, model):
    small = dict((name, {"mac": {"memory_bytes": 16 << 30}, "wired_limit": {"live_mb": 1}}) for name in NODES)
    result = plan(monkeypatch, capsys, tmp_path, model, node_facts=small, overhead_mb=1)
    assert result["failed"] is True and {p["host"] for p in result["problems"]} == {"mac1", "mac2", "mac3", "mac4"}
    assert all(p["code"] == "shard_no_fit" and "GPU wired limit is 0.0 GB" in p["message"]
               for p in result["problems"])


def test_a_runtime_that_cannot_pipeline_the_model_is_refused(monkeypatch, capsys, tmp_path, model):
    codes, msg = _fails(monkeypatch, capsys, tmp_path, model, supports={"pipeline": False})
    assert codes == ["shard_runtime_unsupported"] and "model_type qwen2" in msg


def test_a_node_named_twice_or_without_facts_is_refused(monkeypatch, capsys, tmp_path, model):
    result = plan(monkeypatch, capsys, tmp_path, model, nodes=[NODES[0], NODES[0]])
    assert result["failed"] is True and "each node once" in result["msg"]
    result = plan(monkeypatch, capsys, tmp_path, model, nodes=NODES + ["mac9"])
    assert result["failed"] is True and "node mac9 has no memory_bytes" in result["msg"]


def test_the_wired_limit_comes_from_the_live_sysctl_else_the_boot_target_else_the_default(monkeypatch, capsys,
                                                                                          tmp_path, model):
    facts = {"mac1": {"mac": {"memory_bytes": 16 << 30}, "wired_limit": {"live_mb": 0, "target_mb": 8192}},
             "mac2": {"mac": {"memory_bytes": 16 << 30}, "wired_limit": {"live_mb": 0, "target_mb": None}}}
    ranks = plan(monkeypatch, capsys, tmp_path, model, nodes=["mac1", "mac2"], node_facts=facts)["plan"]["ranks"]
    assert [(r["wired_limit_bytes"] >> 20, r["wired_limit_source"]) for r in ranks] == [
        (8192, "boot-time target"), (int((16 << 30) * 2 / 3) >> 20, "macOS default (estimated)")]


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


def test_pieces_that_do_not_tile_the_file_are_refused_before_anything_moves(monkeypatch, capsys, world):
    big = max(world["files"], key=lambda entry: entry["size"])
    parents = [("mac%d" % n, "198.18.0.%d" % n, world["source"]) for n in (1, 2)]
    gap = pieces_from(world, big, parents)
    gap[1]["offset"] += 1
    result = run(monkeypatch, capsys, world, files=[big], pulls=gap)
    assert result["failed"] is True and "do not cover bytes 0 to %d" % big["size"] in result["msg"]
    assert not world["dest"].exists()


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
