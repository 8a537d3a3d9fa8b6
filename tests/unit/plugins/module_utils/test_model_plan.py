"""model_shard's placement: mlx-lm's and exo's layer rules by version, the files each rank needs, the fit
against the GPU wired limit with the KV reserve, tensor-mode divisibility, the smallest set that fits,
on header-only copies of DeepSeek V3, Kimi K2, an 80-layer dense model and the lab's tiny model."""
import os
import sys

import pytest

import model_layouts as layouts
from ansible_collections.macops.cluster.plugins.module_utils import _model_plan as plan_lib
from ansible_collections.macops.cluster.plugins.module_utils._model_dir import read_model
from ansible_collections.macops.cluster.plugins.module_utils._model_plan import place, smallest_fit
from ansible_collections.macops.cluster.plugins.module_utils._plan_error import PlanError

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "lab"))
from macsim import testmodel  # noqa: E402  (the lab's model writer)

NEW, OLD = "0.32.2", "0.31.3"


def codes(excinfo):
    return [p["code"] for p in excinfo.value.problems]


@pytest.fixture(scope="module")
def deepseek(tmp_path_factory):
    return _read(tmp_path_factory, "deepseek", layouts.deepseek_v3)


def _read(factory, name, writer, **settings):
    dest = str(factory.mktemp(name))
    writer(dest, **settings)
    return read_model(dest)


@pytest.fixture(scope="module")
def deepseek_mtp(tmp_path_factory):
    return _read(tmp_path_factory, "deepseek_mtp", layouts.deepseek_v3, mtp=True)


@pytest.fixture(scope="module")
def kimi_8bit(tmp_path_factory):
    return _read(tmp_path_factory, "kimi", layouts.kimi_k2, scale=8.5 / 4.5)


@pytest.fixture(scope="module")
def kimi(tmp_path_factory):
    return _read(tmp_path_factory, "kimi4", layouts.kimi_k2)


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    return _read(tmp_path_factory, "llama", layouts.llama_70b)


@pytest.fixture(scope="module")
def qwen72(tmp_path_factory):
    return _read(tmp_path_factory, "qwen72", layouts.llama_70b, config=layouts.QWEN2_72B)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return _read(tmp_path_factory, "tiny", testmodel.write)


# --- the layer rules -------------------------------------------------------------------------------------

@pytest.mark.parametrize("layers, ranks, counts, rank0", [
    (61, 4, [16, 15, 15, 15], (45, 61)), (61, 2, [31, 30], (30, 61)), (80, 3, [27, 27, 26], (53, 80)),
    (80, 4, [20, 20, 20, 20], (60, 80)), (8, 4, [2, 2, 2, 2], (6, 8))])
def test_mlx_lm_from_0_32_splits_evenly_with_the_extra_layers_on_the_low_ranks_and_rank_0_last(
        layers, ranks, counts, rank0):
    got = plan_lib.mlx_lm_counts(layers, ranks, plan_lib.version_tuple(NEW))
    ranges = plan_lib.mlx_lm_ranges(got)
    assert got == counts and ranges[0] == rank0 and ranges[-1][0] == 0
    assert sorted(n for start, end in ranges for n in range(start, end)) == list(range(layers))


@pytest.mark.parametrize("layers, ranks, lost", [
    (61, 4, "45, 46, 47"), (61, 2, "30"), (61, 3, "40, 41"), (61, 8, "21, 22, 23"), (80, 3, "26")])
def test_mlx_lm_before_0_32_is_refused_a_split_that_loses_layers(layers, ranks, lost):
    with pytest.raises(ValueError, match="would lose layer\\(s\\) %s:" % lost):
        plan_lib.mlx_lm_counts(layers, ranks, plan_lib.version_tuple(OLD))


def test_mlx_lm_before_0_32_keeps_a_split_that_divides_and_takes_no_explicit_split():
    assert plan_lib.mlx_lm_counts(80, 4, plan_lib.version_tuple(OLD)) == [20] * 4
    with pytest.raises(ValueError, match="no explicit split"):
        plan_lib.mlx_lm_counts(80, 2, plan_lib.version_tuple(OLD), split=[50, 30])
    with pytest.raises(ValueError, match="sum to 80"):
        plan_lib.mlx_lm_counts(80, 2, plan_lib.version_tuple(NEW), split=[50, 20])


def test_exo_splits_by_memory_share_with_the_largest_remainder_and_rank_0_first():
    assert plan_lib.exo_counts(80, [480, 480, 240, 240]) == [27, 27, 13, 13]
    assert plan_lib.exo_counts(4, [1000, 1, 1, 1]) == [1, 1, 1, 1]
    assert plan_lib.first_layer_ranges([27, 27, 13, 13])[0] == (0, 27)


@pytest.mark.parametrize("text, expected", [("0.32.2", (0, 32, 2)), ("0.32", (0, 32, 0)),
                                            ("0.32.0rc1", (0, 32, 0)), ("1.0.0.dev3", (1, 0, 0))])
def test_versions_compare_by_their_numbers(text, expected):
    assert plan_lib.version_tuple(text) == expected


# --- placements on real models' shapes -------------------------------------------------------------------

def test_deepseek_v3_pipelines_on_four_studios_and_each_rank_gets_its_layers_files_and_the_shared_ones(deepseek):
    result = place(deepseek, layouts.STUDIOS, "mlx-lm", NEW)
    assert result["split"] == [16, 15, 15, 15] and result["copies"] == "per-rank"
    assert [r["layers"] for r in result["ranks"]] == [[45, 61], [30, 45], [15, 30], [0, 15]]
    first, last = sorted(f for f in deepseek["weight_files"])[0], sorted(deepseek["weight_files"])[-1]
    for rank in result["ranks"]:
        assert rank["fits"] and rank["headroom_bytes"] > 0
        assert first in rank["files"] and last in rank["files"] and "config.json" in rank["files"]
        start, end = rank["layers"]
        for name in deepseek["weight_files"]:
            layers = deepseek["files"][name]["bytes_by_layer"]
            holds_own = any(start <= n < end for n in layers)
            shared = deepseek["files"][name]["shared_bytes"] > 0
            assert (name in rank["files"]) == (holds_own or shared), (rank["host"], name)
    # Every weight file is needed by some rank; a rank holds about a quarter of the model, not all of it.
    assert set().union(*[r["files"] for r in result["ranks"]]) == set(deepseek["files"])
    assert all(r["disk_bytes"] < 0.3 * result["model_bytes"] for r in result["ranks"])
    assert result["needed_bytes"] < 1.1 * result["model_bytes"]


def test_the_weights_of_a_rank_are_its_layers_bytes_and_the_embeddings_norm_and_head(deepseek):
    rank0 = place(deepseek, layouts.STUDIOS, "mlx-lm", NEW)["ranks"][0]
    moe = int(6.476 * layouts.GB)
    assert abs(rank0["weight_bytes"] - (16 * moe + 2 * int(0.521 * layouts.GB))) < 100000
    # Multi-head latent attention caches one 576-value latent per token and layer (512 + 64 rope), in bf16.
    assert rank0["kv_reserve_bytes"] == 16 * 576 * 2 * 32768


def test_the_mtp_layer_past_the_model_s_last_is_needed_by_no_rank(deepseek_mtp):
    result = place(deepseek_mtp, layouts.STUDIOS, "mlx-lm", NEW)
    only_mtp = [name for name in deepseek_mtp["weight_files"]
                if set(deepseek_mtp["files"][name]["bytes_by_layer"]) == {61}
                and not deepseek_mtp["files"][name]["shared_bytes"]]
    assert only_mtp and not any(name in r["files"] for r in result["ranks"] for name in only_mtp)
    # Its bytes are in no rank's memory either: rank 0 (layers 45-60) weighs what it weighs without it.
    assert result["ranks"][0]["weight_bytes"] < 17 * 6.476 * layouts.GB


def test_deepseek_v3_on_four_ranks_is_refused_with_mlx_lm_before_0_32_naming_the_lost_layers(deepseek):
    with pytest.raises(PlanError) as excinfo:
        place(deepseek, layouts.STUDIOS, "mlx-lm", OLD)
    assert codes(excinfo) == ["shard_split_unsafe"] and "45, 46, 47" in str(excinfo.value)


def test_kimi_k2_8bit_does_not_fit_evenly_on_mixed_studios_so_the_split_follows_memory(kimi_8bit):
    result = place(kimi_8bit, layouts.STUDIOS, "mlx-lm", NEW)
    assert sum(result["split"]) == 61 and result["split_needs_launcher"] is True
    assert "memory split" in result["split_rule"]
    by_host = dict((r["host"], r) for r in result["ranks"])
    assert all(r["fits"] for r in result["ranks"])
    assert by_host["studio1"]["layer_count"] > by_host["studio3"]["layer_count"]
    with pytest.raises(PlanError) as excinfo:
        place(kimi_8bit, layouts.STUDIOS, "mlx-lm", NEW, split="even")
    assert set(codes(excinfo)) == {"shard_no_fit"}
    assert {p["host"] for p in excinfo.value.problems} == {"studio3", "studio4"}
    message = excinfo.value.problems[0]["message"]
    assert "GPU wired limit is 257.7 GB (iogpu.wired_limit_mb)" in message and "needs 2" in message


def test_a_64gb_mini_beside_a_512gb_studio_takes_the_few_first_layers_it_can_hold(deepseek):
    result = place(deepseek, [layouts.STUDIOS[0], layouts.MINI], "mlx-lm", NEW)
    studio, mini = result["ranks"]
    assert mini["host"] == "mini" and mini["layers"][0] == 0 and mini["fits"] and studio["fits"]
    assert mini["layer_count"] < 10 and mini["wired_limit_source"] == "macOS default (estimated)"
    assert mini["wired_limit_bytes"] == 48 << 30


def test_the_fit_is_against_the_wired_limit_not_the_ram(deepseek):
    low = dict(layouts.node("studio1", 512, 100), name="studio1")
    with pytest.raises(PlanError) as excinfo:
        place(deepseek, [low, layouts.STUDIOS[1]], "mlx-lm", NEW, split="even")
    assert [p["host"] for p in excinfo.value.problems] == ["studio1"]


def test_the_kv_reserve_grows_with_the_context_asked(qwen72):
    mini = [layouts.MINI]
    with pytest.raises(PlanError) as excinfo:
        place(qwen72, mini, "mlx-lm", NEW, context_tokens=32768)
    assert codes(excinfo) == ["shard_no_fit"]
    rank = place(qwen72, mini, "mlx-lm", NEW, context_tokens=4096)["ranks"][0]
    assert rank["kv_reserve_bytes"] == 80 * 2 * 8 * 128 * 2 * 4096  # keys and values of 8 KV heads of 128


def test_tensor_mode_is_refused_when_heads_or_hidden_size_do_not_divide(deepseek, llama):
    with pytest.raises(PlanError) as excinfo:
        place(deepseek, layouts.STUDIOS[:3], "mlx-lm", NEW, mode="tensor")
    assert codes(excinfo) == ["shard_tensor_indivisible"] and "hidden size (7168)" in str(excinfo.value)
    with pytest.raises(PlanError) as excinfo:
        place(llama, layouts.STUDIOS[:3], "exo", "1.0.0", mode="tensor")
    assert "KV heads (8)" in str(excinfo.value)
    result = place(llama, layouts.STUDIOS, "exo", "1.0.0", mode="tensor")
    assert result["copies"] == "full" and all(r["files"] == sorted(llama["files"]) for r in result["ranks"])


def test_llama_does_not_pipeline_in_mlx_lm_but_exo_places_it_by_memory_with_a_full_copy_per_node(llama):
    with pytest.raises(PlanError) as excinfo:
        place(llama, layouts.STUDIOS, "mlx-lm", NEW, supports={"pipeline": False, "tensor": True})
    assert codes(excinfo) == ["shard_runtime_unsupported"]
    result = place(llama, layouts.STUDIOS, "exo", "1.0.0")
    assert result["split"] == [27, 27, 13, 13] and result["ranks"][0]["layers"] == [0, 27]
    assert all(r["disk_bytes"] == result["model_bytes"] for r in result["ranks"])
    assert result["needed_bytes"] == 4 * result["model_bytes"]


def test_the_smallest_set_that_fits_uses_the_largest_nodes(deepseek, kimi):
    one = smallest_fit(deepseek, layouts.STUDIOS + [layouts.MINI], "mlx-lm", NEW)
    assert one["nodes"] == ["studio1"]
    two = smallest_fit(kimi, layouts.STUDIOS, "mlx-lm", NEW)
    assert two["nodes"] == ["studio1", "studio2"]
    with pytest.raises(PlanError) as excinfo:
        smallest_fit(kimi, [layouts.MINI], "mlx-lm", NEW)
    assert codes(excinfo) == ["shard_no_fit"]


def test_the_tiny_lab_model_gives_each_of_four_ranks_its_own_shard_and_the_two_shared_ones(tiny):
    nodes = [layouts.node("mac%d" % n, 16) for n in range(1, 5)]
    result = place(tiny, nodes, "mlx-lm", NEW)
    weights = dict((r["host"], [f for f in r["files"] if f.endswith(".safetensors")]) for r in result["ranks"])
    first, last = "model-00001-of-00004.safetensors", "model-00004-of-00004.safetensors"
    # Shard 1 holds the embeddings and layers 0-1, shard 4 layers 6-7 and the final norm: every rank reads both.
    assert weights == {"mac1": [first, last], "mac2": [first, "model-00003-of-00004.safetensors", last],
                       "mac3": [first, "model-00002-of-00004.safetensors", last], "mac4": [first, last]}
    assert all("tokenizer.json" in r["files"] and "model.safetensors.index.json" in r["files"]
               for r in result["ranks"])


def test_a_tokenizer_of_its_own_code_is_refused_unless_serving_will_trust_it(kimi, deepseek):
    """Issue 47: mlx_lm.server loads Kimi K2's tokenizer (tokenization_kimi.py) only with --trust-remote-code;
    deploy-model.yml says so at plan time instead of every rank failing at every start later."""
    assert kimi["tokenizer_code"] == "tokenization_kimi.py" and deepseek["tokenizer_code"] is None
    with pytest.raises(PlanError) as excinfo:
        place(kimi, layouts.STUDIOS, "mlx-lm", NEW, trust_remote_code=False)
    assert codes(excinfo) == ["shard_remote_code_untrusted"] and "tokenization_kimi.py" in str(excinfo.value)
    assert place(kimi, layouts.STUDIOS, "mlx-lm", NEW, trust_remote_code=True)["ranks"]
    assert place(kimi, layouts.STUDIOS, "mlx-lm", NEW)["ranks"]  # not asked: not checked
    assert place(deepseek, layouts.STUDIOS, "mlx-lm", NEW, trust_remote_code=False)["ranks"]
