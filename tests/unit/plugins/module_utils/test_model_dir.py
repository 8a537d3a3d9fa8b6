"""A model directory read without its weights (plugins/module_utils/_model_dir.py), on the lab's tiny model (written
by the lab's own writer): each weight file's bytes per decoder layer and shared bytes from its safetensors header,
the files and the memory a rank holding some layers needs, and a directory a runtime could not load refused with
its problem code."""
import json
import os
import sys

import pytest

from ansible_collections.macops.cluster.plugins.module_utils import _model_dir as model_dir

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "lab"))
from macsim import testmodel  # noqa: E402  (the lab's model writer)

SHARDS = ["model-0000%d-of-00004.safetensors" % n for n in range(1, 5)]


@pytest.fixture
def tiny(tmp_path):
    path = str(tmp_path / "tiny-qwen2")
    testmodel.write(path)
    return path


@pytest.mark.parametrize("tensor, layer", [
    ("model.layers.12.mlp.down_proj.weight", 12),
    ("layers.0.attention.wq.weight", 0),
    ("model.embed_tokens.weight", None),
    ("lm_head.weight", None),
    ("model.notlayers.3.weight", None),
])
def test_a_tensor_belongs_to_the_layer_its_name_says_or_is_shared(tensor, layer):
    assert model_dir.layer_of(tensor) == layer


def test_the_tiny_model_s_weights_per_layer_and_the_shared_ones(tiny):
    model = model_dir.read_model(tiny)
    assert (model["arch"]["model_type"], model["arch"]["layers"]) == ("qwen2", 8)
    assert model["weight_files"] == SHARDS and "config.json" in model["other_files"]
    assert model["checkpoint_layers"] == list(range(8)) and model["tokenizer_code"] is None
    # Each file's header names two layers; the embeddings sit in the first file, the final norm in the last.
    assert [sorted(model["files"][name]["bytes_by_layer"]) for name in SHARDS] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert [model["files"][name]["shared_bytes"] > 0 for name in SHARDS] == [True, False, False, True]
    assert model["shared_bytes"] == sum(model["files"][name]["shared_bytes"] for name in SHARDS)
    assert sum(model["layer_bytes"].values()) + model["shared_bytes"] == sum(
        sum(model["files"][name]["bytes_by_layer"].values()) + model["files"][name]["shared_bytes"] for name in SHARDS)


def test_a_rank_needs_its_layers_files_the_shared_ones_and_every_other_file(tiny):
    model = model_dir.read_model(tiny)
    middle = model_dir.files_for_layers(model, 2, 4)
    assert [name for name in middle if name in SHARDS] == [SHARDS[0], SHARDS[1], SHARDS[3]]
    assert set(model["other_files"]) <= set(middle)
    assert model_dir.memory_for_layers(model, 2, 4) == model["shared_bytes"] + model["layer_bytes"][2] + \
        model["layer_bytes"][3]
    assert model_dir.memory_for_layers(model, 0, 8) == model["shared_bytes"] + sum(model["layer_bytes"].values())


def test_a_tokenizer_of_its_own_code_is_named(tiny):
    with open(os.path.join(tiny, "tokenizer_config.json"), "w") as handle:
        json.dump({"auto_map": {"AutoTokenizer": ["tokenization_kimi.TikTokenTokenizer", None]}}, handle)
    assert model_dir.read_model(tiny)["tokenizer_code"] == "tokenization_kimi.py"


def refused(path):
    with pytest.raises(model_dir.ModelError) as error:
        model_dir.read_model(path)
    return error.value


def test_a_directory_a_runtime_could_not_load_is_refused_with_its_code(tiny, tmp_path):
    assert refused(str(tmp_path / "nothing")).code == "shard_model_missing"
    os.remove(os.path.join(tiny, SHARDS[2]))
    lost = refused(tiny)
    assert lost.code == "shard_file_missing" and SHARDS[2] in lost.fault and lost.path == tiny
    os.remove(os.path.join(tiny, "config.json"))
    assert "has no config.json" in refused(tiny).fault


def test_a_corrupt_header_and_a_missing_layer_are_refused(tiny):
    with open(os.path.join(tiny, SHARDS[1]), "r+b") as handle:
        handle.write(b"\xff" * 16)
    assert refused(tiny).code == "shard_header_corrupt"
    testmodel.write(tiny)
    with open(os.path.join(tiny, "config.json")) as handle:
        config = json.load(handle)
    with open(os.path.join(tiny, "config.json"), "w") as handle:
        json.dump(dict(config, num_hidden_layers=10), handle)
    missing = refused(tiny)
    assert missing.code == "shard_file_missing" and "layer(s) 8-9 of its 10" in missing.fault
