"""macops.cluster.model_shard plan: a real model directory (the lab's tiny model, written by the lab's own
writer) read through the module; bad models fail with one catalogue problem naming the cause; the sha256
of every file is right and comes from the cache the second time."""
import hashlib
import json
import os
import struct
import sys

import pytest
from module_harness import FakeMac, run_module

from ansible_collections.macops.cluster.plugins.modules import model_shard

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "lab"))
from macsim import testmodel  # noqa: E402

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


def test_a_tensor_past_the_end_of_its_buffer_or_of_the_wrong_size_is_refused(tmp_path):
    from ansible_collections.macops.cluster.plugins.module_utils._safetensors import HeaderError, parse_header
    header = json.dumps({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}).encode()
    head = struct.pack("<Q", len(header)) + header
    assert parse_header("f", head, len(head) + 16)["tensors"]["w"]["bytes"] == 16
    with pytest.raises(HeaderError, match="ends at byte 16 of a 8-byte buffer"):
        parse_header("f", head, len(head) + 8)
    wrong = json.dumps({"w": {"dtype": "F32", "shape": [5], "data_offsets": [0, 16]}}).encode()
    with pytest.raises(HeaderError, match="holds 16 bytes but F32 \\[5\\] needs 20"):
        parse_header("f", struct.pack("<Q", len(wrong)) + wrong, 100)
    odd = json.dumps({"w": {"dtype": "Q4", "shape": [5], "data_offsets": [0, 16]}}).encode()
    with pytest.raises(HeaderError, match="dtype 'Q4'"):
        parse_header("f", struct.pack("<Q", len(odd)) + odd, 100)
    with pytest.raises(HeaderError, match="MLX refuses"):
        parse_header("f", struct.pack("<Q", 10 ** 9), 10 ** 10)
    with pytest.raises(HeaderError, match="shorter than the 8-byte"):
        parse_header("f", b"\x01", 1)
