"""Header-only model directories of real models' shape, for the placement tests.

Each directory is what mlx-lm's `save_model` writes: tensors in `tree_flatten` order (embeddings, layers
0..L-1, final norm, head), cut into `model-0000i-of-0000N.safetensors` files greedily at 5 GiB, an index
whose `weight_map` names each tensor's file, and the model's real `config.json` fields. The headers are
real safetensors headers; the weights are holes (sparse files of the right size), so a 378 GB model
costs a few kilobytes of disk and the reader sees exactly what it would see on a Mac.

Per-layer sizes are MLX affine 4-bit (4.5 bits per weight: group 64, scale and bias in bf16, MLX's
python/src/ops.cpp), computed from the models' config.json: DeepSeek V3 MoE layer 6.476 GB, dense
0.328 GB, embeddings and head 0.521 GB each; Llama 3 70B 0.481 GB per layer, 0.591 GB embeddings
and head; Kimi K2 MoE 9.600 GB, dense 0.280 GB, 0.661 GB embeddings and head.
"""
import json
import os
import struct

MAX_FILE = 5 << 30
GB = 10 ** 9

DEEPSEEK_V3 = {
    "model_type": "deepseek_v3", "num_hidden_layers": 61, "hidden_size": 7168, "num_attention_heads": 128,
    "num_key_value_heads": 128, "kv_lora_rank": 512, "qk_rope_head_dim": 64, "q_lora_rank": 1536,
    "first_k_dense_replace": 3, "moe_layer_freq": 1, "n_routed_experts": 256, "num_nextn_predict_layers": 1,
    "vocab_size": 129280, "tie_word_embeddings": False,
}
LLAMA_70B = {
    "model_type": "llama", "num_hidden_layers": 80, "hidden_size": 8192, "num_attention_heads": 64,
    "num_key_value_heads": 8, "intermediate_size": 28672, "vocab_size": 128256, "tie_word_embeddings": False,
}
# Qwen2.5-72B: the same 80-layer dense shape, in an architecture mlx-lm pipelines.
QWEN2_72B = dict(LLAMA_70B, model_type="qwen2", vocab_size=152064, intermediate_size=29568)
KIMI_K2 = dict(DEEPSEEK_V3, first_k_dense_replace=1, num_attention_heads=64, num_key_value_heads=64,
               n_routed_experts=384, vocab_size=163840)


def deepseek_v3_layers(scale=1.0, mtp=False):
    sizes = [int(0.328 * GB * scale) if n < 3 else int(6.476 * GB * scale) for n in range(61)]
    # The MTP module (layer 61) also carries its own embeddings and head: about 11.5 GB in the hub's checkpoint.
    return sizes + ([int(11.5 * GB * scale)] if mtp else [])


def kimi_k2_layers(scale=1.0):
    return [int(0.280 * GB * scale) if n < 1 else int(9.600 * GB * scale) for n in range(61)]


def _layer_tensors(layer, size, moe):
    """A layer's tensors as (name, bytes): attention a tenth, the MLP (experts, for MoE) the rest in thirds."""
    attention = size // 10 // 4 * 4
    part = (size - attention) // 3 // 4 * 4
    mlp = "mlp.switch_mlp" if moe else "mlp"
    prefix = "model.layers.%d." % layer
    return [(prefix + "self_attn.o_proj.weight", attention)] + [
        (prefix + "%s.%s_proj.weight" % (mlp, proj), part) for proj in ("gate", "up", "down")]


def write_layout(dest, config, layer_sizes, embed_bytes, head_bytes=None, moe_from=None, max_file=MAX_FILE,
                 tokenizer_config=None):
    """Write a header-only model directory; returns {file name: size}."""
    os.makedirs(dest, exist_ok=True)
    tensors = [("model.embed_tokens.weight", embed_bytes)]
    for layer, size in enumerate(layer_sizes):
        tensors += _layer_tensors(layer, size, moe_from is not None and layer >= moe_from)
    tensors.append(("model.norm.weight", config["hidden_size"] * 2))
    if head_bytes:
        tensors.append(("lm_head.weight", head_bytes))
    files, current, current_size = [], [], 0
    for name, size in tensors:
        if current and current_size + size > max_file:
            files.append(current)
            current, current_size = [], 0
        current.append((name, size // 4 * 4))
        current_size += size
    files.append(current)
    weight_map, sizes = {}, {}
    for number, group in enumerate(files, start=1):
        file_name = "model-%05d-of-%05d.safetensors" % (number, len(files))
        header, offset = {}, 0
        for name, size in group:
            header[name] = {"dtype": "U32", "shape": [size // 4], "data_offsets": [offset, offset + size]}
            weight_map[name] = file_name
            offset += size
        text = json.dumps(header).encode()
        text += b" " * (-len(text) % 8)
        path = os.path.join(dest, file_name)
        with open(path, "wb") as handle:
            handle.write(struct.pack("<Q", len(text)) + text)
            handle.truncate(8 + len(text) + offset)
        sizes[file_name] = 8 + len(text) + offset
    documents = {"config.json": config,
                 "model.safetensors.index.json": {"metadata": {"total_size": sum(s for _n, s in tensors)},
                                                  "weight_map": weight_map},
                 "tokenizer.json": {"model": {"type": "BPE"}}, "tokenizer_config.json": tokenizer_config or {}}
    for name, document in documents.items():
        with open(os.path.join(dest, name), "w") as handle:
            json.dump(document, handle)
        sizes[name] = os.path.getsize(os.path.join(dest, name))
    return sizes


def deepseek_v3(dest, scale=1.0, mtp=False):
    return write_layout(dest, DEEPSEEK_V3, deepseek_v3_layers(scale, mtp), int(0.521 * GB * scale),
                        int(0.521 * GB * scale), moe_from=3)


def llama_70b(dest, config=None):
    return write_layout(dest, config or LLAMA_70B, [int(0.481 * GB)] * 80, int(0.591 * GB), int(0.591 * GB))


# Kimi K2's tokenizer is its own code (moonshotai/Kimi-K2-Instruct's tokenizer_config.json).
KIMI_TOKENIZER = {"auto_map": {"AutoTokenizer": ["tokenization_kimi.TikTokenTokenizer", None]},
                  "tokenizer_class": "TikTokenTokenizer"}


def kimi_k2(dest, scale=1.0):
    return write_layout(dest, KIMI_K2, kimi_k2_layers(scale), int(0.661 * GB * scale), int(0.661 * GB * scale),
                        moe_from=1, tokenizer_config=KIMI_TOKENIZER)


def node(name, ram_gb, wired_gb=None):
    """A node as node facts give it: RAM and the live wired limit (0: the macOS default)."""
    return {"name": name, "memory_bytes": ram_gb << 30,
            "wired_limit_mb": (wired_gb << 10) if wired_gb else 0, "wired_target_mb": None}


# Mac Studios of 512 and 256 GB with the gpu_memory role's limit (RAM less 32 and 16 GB), and a 64 GB mini
# at the macOS default.
STUDIOS = [node("studio1", 512, 480), node("studio2", 512, 480), node("studio3", 256, 240), node("studio4", 256, 240)]
MINI = node("mini", 64)
