"""A tiny model with random weights that mlx-lm loads, generates with and pipelines across ranks:
the lab's stand-in for a downloaded model (no hub download, no torch). Stdlib only.

What it writes is a Hugging Face model directory as mlx-lm reads it:
- `config.json` of a dense qwen2 model (mlx-lm's qwen2 has the PipelineMixin, so `--pipeline` splits
  its layers across ranks; the qwen3 dense model has none);
- the weights as safetensors shards, one per group of layers, with `model.safetensors.index.json`
  (its `weight_map` is what a pipelined load reads to open only its own shards);
- a byte-level BPE `tokenizer.json` (one token per byte) and `tokenizer_config.json`, so text prompts tokenize
  (mlx-lm's server takes text).

The safetensors layout: an 8-byte little-endian header length, a JSON header naming each tensor's
dtype, shape and byte range (after the header), padded with spaces to 8 bytes, then the raw data.
Weights are small normal values (std 0.02) from a seeded generator, so a model is the same bytes
every time it is written with the same settings. The embedding rows of the end-of-sequence token and of the
bytes 0x80 to 0xFF are zero: with the output head tied to the embeddings their logits are zero while the
others' are drawn, so greedy decoding emits ASCII and generates as many tokens as asked. A real model writes
valid UTF-8; random bytes would not, and mlx-lm's server holds streamed text back until it is valid UTF-8,
so a stream would arrive in one piece at its end.
"""
import json
import math
import os
import random
import shutil
import struct

from . import layout

# Where `maclab up` puts it on every host (the lab inventory's benchmark_generate_models).
LAB_MODEL_PATH = "/Users/%s/models/tiny-qwen2" % layout.ADMIN_USER
DEFAULTS = {"layers": 8, "hidden": 64, "intermediate": 128, "heads": 4, "kv_heads": 2, "vocab": 512,
            "shards": 4, "seed": 0}


def config(layers, hidden, intermediate, heads, kv_heads, vocab):
    return {
        "architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": hidden,
        "num_hidden_layers": layers, "intermediate_size": intermediate, "num_attention_heads": heads,
        "num_key_value_heads": kv_heads, "rms_norm_eps": 1e-6, "vocab_size": vocab,
        "max_position_embeddings": 4096, "rope_theta": 1000000.0, "tie_word_embeddings": True,
        "torch_dtype": "float32", "bos_token_id": 1, "eos_token_id": 2,
    }


def tensors_of_layer(index, hidden, intermediate, heads, kv_heads):
    """(name, shape) of one qwen2 decoder layer, in mlx-lm's names."""
    head_dim = hidden // heads
    prefix = "model.layers.%d." % index
    return [
        (prefix + "self_attn.q_proj.weight", [heads * head_dim, hidden]),
        (prefix + "self_attn.q_proj.bias", [heads * head_dim]),
        (prefix + "self_attn.k_proj.weight", [kv_heads * head_dim, hidden]),
        (prefix + "self_attn.k_proj.bias", [kv_heads * head_dim]),
        (prefix + "self_attn.v_proj.weight", [kv_heads * head_dim, hidden]),
        (prefix + "self_attn.v_proj.bias", [kv_heads * head_dim]),
        (prefix + "self_attn.o_proj.weight", [hidden, heads * head_dim]),
        (prefix + "mlp.gate_proj.weight", [intermediate, hidden]),
        (prefix + "mlp.up_proj.weight", [intermediate, hidden]),
        (prefix + "mlp.down_proj.weight", [hidden, intermediate]),
        (prefix + "input_layernorm.weight", [hidden]),
        (prefix + "post_attention_layernorm.weight", [hidden]),
    ]


def _count(shape):
    return math.prod(shape)


# Tensors larger than this many values are tiled from one block of drawn values: drawing a gigabyte
# value by value would take minutes, and a model for transfer tests needs size, not entropy.
TILE_VALUES = 1 << 18


def _values(name, shape, rng):
    count = _count(shape)
    if name.endswith("layernorm.weight") or name == "model.norm.weight":
        return [1.0] * count  # RMSNorm scales start at one
    if name.endswith(".bias"):
        return [0.0] * count
    return [rng.gauss(0.0, 0.02) for _index in range(count)]


# Token ids whose embedding rows are zero (see the module's docstring): eos (2), then the bytes 0x80-0xFF (the
# byte tokens start at id 3, after unk, bos and eos).
SILENT_TOKENS = [2] + [3 + byte for byte in range(0x80, 0x100)]


def _silenced(data, shape):
    """The embeddings' bytes with the rows of SILENT_TOKENS zero."""
    row = shape[1] * 4
    data = bytearray(data)
    for token in SILENT_TOKENS:
        if token < shape[0]:
            data[token * row:(token + 1) * row] = bytes(row)
    return bytes(data)


def _tensor_bytes(name, shape, rng, tiles):
    """The tensor's float32 bytes; a large one is the drawn block `tiles` repeated from an offset the
    generator picks (so tensors and files differ), with RMSNorm scales one and biases zero as in _values."""
    if name == "model.embed_tokens.weight":
        return _silenced(_drawn_bytes(name, shape, rng, tiles), shape)
    return _drawn_bytes(name, shape, rng, tiles)


def _drawn_bytes(name, shape, rng, tiles):
    count = _count(shape)
    if count <= TILE_VALUES or name.endswith("layernorm.weight") or name.endswith(".bias"):
        return struct.pack("<%df" % count, *_values(name, shape, rng))
    if "block" not in tiles:
        tiles["block"] = struct.pack("<%df" % TILE_VALUES, *[rng.gauss(0.0, 0.02) for _i in range(TILE_VALUES)])
    block = tiles["block"]
    start = rng.randrange(TILE_VALUES) * 4
    repeats = (count * 4 + start) // len(block) + 1
    return (block * repeats)[start:start + count * 4]


def write_safetensors(path, tensors, rng, tiles=None):
    """tensors: [(name, shape)] written as float32 in that order; returns the file's size."""
    header, chunks, offset = {"__metadata__": {"format": "pt"}}, [], 0
    tiles = {} if tiles is None else tiles
    for name, shape in tensors:
        data = _tensor_bytes(name, shape, rng, tiles)
        header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    tmp = path + ".part"
    with open(tmp, "wb") as handle:
        handle.write(struct.pack("<Q", len(text)))
        handle.write(text)
        for data in chunks:
            handle.write(data)
    os.rename(tmp, path)
    return 8 + len(text) + offset


def byte_symbols():
    """The 256 printable symbols a byte-level BPE writes bytes as (GPT-2's table): printable Latin-1 bytes are
    themselves, the others take the code points from 256 on, in byte order."""
    printable = set(range(ord("!"), ord("~") + 1)) | set(range(0xA1, 0xAC + 1)) | set(range(0xAE, 0xFF + 1))
    symbols, shifted = [], 0
    for byte in range(256):
        if byte in printable:
            symbols.append(chr(byte))
        else:
            symbols.append(chr(256 + shifted))
            shifted += 1
    return symbols


# A ChatML template (Qwen2's own shape), so chat requests go through the model's template as a real model's do,
# not mlx-lm's USER:/ASSISTANT: fallback for a tokenizer without one.
CHAT_TEMPLATE = ("{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
                 "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def tokenizer_files(vocab):
    """A byte-level BPE without merges (every byte one token), with unk, bos and eos as its first ids and made-up
    words after the bytes up to `vocab`: any text tokenizes, one token per byte, as with Qwen2's tokenizer class,
    which transformers 5 uses for a qwen2 model whatever tokenizer_config.json names."""
    special = ["<unk>", "<s>", "</s>"]
    if vocab < len(special) + 256:
        raise ValueError("a byte-level vocabulary needs at least %d entries, not %d" % (len(special) + 256, vocab))
    words = special + byte_symbols()
    words += ["w%d" % index for index in range(vocab - len(words))]
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    tokenizer = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": index, "content": word, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for index, word in enumerate(special)],
        "normalizer": None, "pre_tokenizer": byte_level, "post_processor": None, "decoder": byte_level,
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": dict((word, index) for index, word in enumerate(words)), "merges": []},
    }
    tokenizer_config = {"tokenizer_class": "PreTrainedTokenizerFast", "unk_token": "<unk>", "bos_token": "<s>",
                        "eos_token": "</s>", "model_max_length": 4096, "clean_up_tokenization_spaces": False,
                        "chat_template": CHAT_TEMPLATE}
    return tokenizer, tokenizer_config


def write(dest, layers=DEFAULTS["layers"], hidden=DEFAULTS["hidden"], intermediate=DEFAULTS["intermediate"],
          heads=DEFAULTS["heads"], kv_heads=DEFAULTS["kv_heads"], vocab=DEFAULTS["vocab"], shards=DEFAULTS["shards"],
          seed=DEFAULTS["seed"]):
    """Write the model directory; returns {files: {name: size}, parameters, layers}."""
    if hidden % heads or heads % kv_heads:
        raise ValueError("hidden (%d) must divide by heads (%d), and heads by kv_heads (%d)" % (hidden, heads, kv_heads))
    if not 1 <= shards <= layers:
        raise ValueError("shards must be from 1 to the layer count (%d), not %d" % (layers, shards))
    os.makedirs(dest, exist_ok=True)
    rng = random.Random(seed)
    # Consecutive layers per shard; the first also holds the embeddings, the last the final norm.
    base, extra = divmod(layers, shards)
    groups, first = [], 0
    for number in range(shards):
        count = base + (number < extra)
        groups.append(list(range(first, first + count)))
        first += count
    files, weight_map, total, parameters, tiles = {}, {}, 0, 0, {}
    for number, group in enumerate(groups, start=1):
        tensors = [("model.embed_tokens.weight", [vocab, hidden])] if number == 1 else []
        for layer in group:
            tensors += tensors_of_layer(layer, hidden, intermediate, heads, kv_heads)
        if number == len(groups):
            tensors.append(("model.norm.weight", [hidden]))
        name = "model-%05d-of-%05d.safetensors" % (number, len(groups))
        size = write_safetensors(os.path.join(dest, name), tensors, rng, tiles)
        files[name] = size
        total += sum(4 * _count(shape) for _name, shape in tensors)
        parameters += sum(_count(shape) for _name, shape in tensors)
        weight_map.update((tensor, name) for tensor, _shape in tensors)
    documents = {
        "config.json": config(layers, hidden, intermediate, heads, kv_heads, vocab),
        "model.safetensors.index.json": {"metadata": {"total_size": total}, "weight_map": weight_map},
    }
    documents["tokenizer.json"], documents["tokenizer_config.json"] = tokenizer_files(vocab)
    documents["generation_config.json"] = {"bos_token_id": 1, "eos_token_id": 2}
    for name, document in documents.items():
        with open(os.path.join(dest, name), "w") as handle:
            json.dump(document, handle, indent=1, sort_keys=True)
            handle.write("\n")
        files[name] = os.path.getsize(os.path.join(dest, name))
    return {"files": files, "parameters": parameters, "layers": layers}



def place(paths, hosts, path, **settings):
    """Write the model at `path` (under /Users) in each host's own file system, owned by the admin user,
    as if it had been downloaded there; returns what write() returns."""
    if not path.startswith("/Users/") or ".." in path.split("/"):
        raise ValueError("a model goes under /Users on a host (the admin user's files), not %s" % path)
    written, first = None, None
    for host in hosts:
        home = paths.host_file(host, "fs", "Users")
        if not os.path.isdir(home):
            raise ValueError("no host %s in this lab" % host)
        dest = paths.host_file(host, "fs", path.lstrip("/"))
        if first is None:
            written, first = write(dest, **settings), dest
        else:  # the same bytes: copy the first host's rather than draw the weights again
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(first, dest)
        top = paths.host_file(host, "fs", "Users", path.split("/")[2])
        for root, dirs, files in os.walk(top):
            for name in [root] + [os.path.join(root, entry) for entry in dirs + files]:
                os.chown(name, layout.ADMIN_UID, layout.STAFF_GID)
    return written
