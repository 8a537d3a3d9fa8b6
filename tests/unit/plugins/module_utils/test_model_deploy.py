"""The deployment record (plugins/module_utils/_model_deploy.py): written once by model_shard, kept by its prune,
and each deployed model read back by node_facts, checked by name and size."""
from ansible_collections.macops.cluster.plugins.modules import node_facts

from fake_node import studio
from model_world import pulls_from, run
from module_harness import run_module


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


def test_models_lists_each_deployed_model_checked_by_name_and_size(monkeypatch, capsys, tmp_path):
    """A model directory with its record, one with a file gone and one of the wrong size, one without a record
    (not ours: not listed) and a record that is not JSON."""
    import json
    models = tmp_path / "models"
    for name in ("good", "broken", "foreign", "garbled"):
        (models / name).mkdir(parents=True)
    for name in ("good", "broken"):
        (models / name / "a.safetensors").write_bytes(b"x" * 10)
        (models / name / "b.safetensors").write_bytes(b"y" * 20)
    (models / "broken" / "b.safetensors").write_bytes(b"y" * 19)
    record = {"name": "good", "runtime": "mlx-lm", "rank": 1, "ranks": 2, "layers": [12, 24],
              "files": [{"file": "a.safetensors", "size": 10, "sha256": "0" * 64},
                        {"file": "b.safetensors", "size": 20, "sha256": "1" * 64}]}
    (models / "good" / ".macops-model.json").write_text(json.dumps(record))
    broken = dict(record, name="broken", files=record["files"] + [{"file": "c.safetensors", "size": 5, "sha256": "2" * 64}])
    (models / "broken" / ".macops-model.json").write_text(json.dumps(broken))
    (models / "garbled" / ".macops-model.json").write_text("{not json")
    args = {"gather": ["models"], "models_dirs": [str(models), str(tmp_path / "absent")]}
    result, calls = run_module(monkeypatch, capsys, node_facts.main, args, studio())
    assert calls == []  # files only, no command
    by_name = dict((entry.get("name", "garbled"), entry) for entry in result["models"])
    assert sorted(by_name) == ["broken", "garbled", "good"]
    assert by_name["good"]["complete"] is True and by_name["good"]["files"] == 2 and by_name["good"]["bytes"] == 30
    assert by_name["good"]["layers"] == [12, 24] and by_name["good"]["path"] == str(models / "good")
    assert by_name["broken"]["complete"] is False
    assert (by_name["broken"]["missing"], by_name["broken"]["wrong_size"]) == (["c.safetensors"], ["b.safetensors"])
    assert by_name["garbled"]["complete"] is False and ".macops-model.json" in by_name["garbled"]["error"]
