"""The lab's tiny model: valid safetensors shards whose index maps every tensor, a qwen2 config that
matches the tensor shapes, the same bytes for the same settings, placed only under /Users on a host."""
import json
import os
import struct

import pytest

from macsim import testmodel


def read_header(path):
    with open(path, "rb") as handle:
        (length,) = struct.unpack("<Q", handle.read(8))
        header = json.loads(handle.read(length))
        data = handle.read()
    return length, header, data


def test_every_shard_is_valid_safetensors_and_the_index_maps_every_tensor(tmp_path):
    written = testmodel.write(str(tmp_path), layers=5, shards=3)
    with open(str(tmp_path / "model.safetensors.index.json")) as handle:
        index = json.load(handle)
    with open(str(tmp_path / "config.json")) as handle:
        config = json.load(handle)
    assert config["model_type"] == "qwen2" and config["num_hidden_layers"] == 5
    seen, total = {}, 0
    for name in sorted(n for n in os.listdir(str(tmp_path)) if n.endswith(".safetensors")):
        length, header, data = read_header(str(tmp_path / name))
        assert length % 8 == 0 and header.pop("__metadata__") == {"format": "pt"}
        end = 0
        for tensor, info in header.items():
            begin, stop = info["data_offsets"]
            count = 1
            for size in info["shape"]:
                count *= size
            assert info["dtype"] == "F32" and stop - begin == 4 * count and begin == end
            end = stop
            seen[tensor] = name
        assert end == len(data) and written["files"][name] == 8 + length + len(data)
        total += len(data)
    assert seen == index["weight_map"] and index["metadata"]["total_size"] == total
    # Consecutive layers per shard: 2, 2, 1; the embeddings first, the final norm last.
    layers_of = dict((n, sorted(set(int(t.split(".")[2]) for t, f in seen.items() if f == n and ".layers." in t)))
                     for n in set(seen.values()))
    assert [layers_of[n] for n in sorted(layers_of)] == [[0, 1], [2, 3], [4]]
    assert seen["model.embed_tokens.weight"].startswith("model-00001") and seen["model.norm.weight"].startswith("model-00003")
    hidden, heads, kv = config["hidden_size"], config["num_attention_heads"], config["num_key_value_heads"]
    _length, header, _data = read_header(str(tmp_path / seen["model.layers.0.self_attn.k_proj.weight"]))
    assert header["model.layers.0.self_attn.k_proj.weight"]["shape"] == [kv * hidden // heads, hidden]
    assert written["parameters"] == total // 4


def test_the_tokenizer_covers_the_vocabulary_with_its_special_tokens_first(tmp_path):
    testmodel.write(str(tmp_path), vocab=300)
    with open(str(tmp_path / "tokenizer.json")) as handle:
        tokenizer = json.load(handle)
    vocab = tokenizer["model"]["vocab"]
    assert len(vocab) == 300 and sorted(vocab.values()) == list(range(300))
    assert [vocab[t] for t in ("<unk>", "<s>", "</s>")] == [0, 1, 2]


def test_the_same_settings_write_the_same_bytes_and_another_seed_does_not(tmp_path):
    for name, seed in (("a", 0), ("b", 0), ("c", 1)):
        testmodel.write(str(tmp_path / name), layers=2, shards=1, seed=seed)
    shard = "model-00001-of-00001.safetensors"
    read = lambda name: (tmp_path / name / shard).read_bytes()  # noqa: E731
    assert read("a") == read("b") and read("a") != read("c")


@pytest.mark.parametrize("settings, words", [
    ({"hidden": 65}, "must divide"), ({"shards": 9}, "shards must be from 1"), ({"shards": 0}, "shards must be from 1")])
def test_settings_mlx_lm_could_not_load_are_refused(tmp_path, settings, words):
    with pytest.raises(ValueError, match=words):
        testmodel.write(str(tmp_path), **settings)


def test_a_model_is_placed_only_under_users_on_a_host(tmp_path):
    from macsim import layout

    paths = layout.Paths(str(tmp_path))
    for bad in ("/etc/model", "/Users/../etc/model"):
        with pytest.raises(ValueError, match="under /Users"):
            testmodel.place(paths, ["mac1"], bad)
    with pytest.raises(ValueError, match="no host mac1"):
        testmodel.place(paths, ["mac1"], "/Users/admin/models/tiny")


def test_text_tokenizes_through_the_tokenizer_class_mlx_lm_loads(tmp_path):
    """mlx-lm's server takes text: transformers 5 loads a qwen2 model's tokenizer as Qwen2Tokenizer whatever
    tokenizer_config.json names, and a prompt that tokenized to nothing killed the server's generation thread."""
    transformers = pytest.importorskip("transformers")
    testmodel.write(str(tmp_path))
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(tmp_path))
    ids = tokenizer.encode("Hello world", add_special_tokens=False)
    assert len(ids) == len("Hello world") and tokenizer.decode(ids) == "Hello world"


def test_chat_requests_go_through_the_model_s_own_chat_template(tmp_path):
    """Issue 47: mlx-lm renders a chat with the tokenizer's template (ChatML here), not its USER:/ASSISTANT:
    fallback."""
    mlx_lm = pytest.importorskip("mlx_lm")
    testmodel.write(str(tmp_path))
    _model, tokenizer = mlx_lm.load(str(tmp_path))
    messages = [{"role": "user", "content": "Hello"}]
    text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    assert text == "<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n"


def test_greedy_generation_is_ascii_and_as_long_as_asked(tmp_path):
    """The rows of eos and of the bytes 0x80-0xFF are zero in the (tied) embeddings: greedy decoding writes ASCII,
    which mlx-lm streams token by token (random bytes are not UTF-8, and its server holds such text back), and
    never stops before max_tokens."""
    testmodel.write(str(tmp_path))
    _, header, data = read_header(os.path.join(str(tmp_path), "model-00001-of-00004.safetensors"))
    start, _end = header["model.embed_tokens.weight"]["data_offsets"]
    row = testmodel.DEFAULTS["hidden"] * 4
    for token in (2, 3 + 0x80, 3 + 0xFF):
        assert data[start + token * row:start + (token + 1) * row] == bytes(row)
    assert data[start + (3 + 0x41) * row:start + (3 + 0x42) * row] != bytes(row)  # "A" is drawn
    mlx_lm = pytest.importorskip("mlx_lm")
    model, tokenizer = mlx_lm.load(str(tmp_path))
    steps = list(mlx_lm.stream_generate(model, tokenizer, "Once upon a time", max_tokens=24))
    text = "".join(step.text for step in steps)
    assert steps[-1].generation_tokens == 24 and steps[-1].finish_reason == "length" and text.isascii()
    assert sum(1 for step in steps if step.text) >= 20  # text as it comes, not held back to the end
