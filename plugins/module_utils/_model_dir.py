# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: what a model directory holds, from its config and safetensors headers.
# Stdlib only, Python 3.9.
"""Read a Hugging Face / MLX model directory without reading its weights.

A model directory is flat: ``config.json``, tokenizer files, and the weights as ``*.safetensors``
files, with ``model.safetensors.index.json`` (``weight_map``: tensor name -> file) when there are
several. Subdirectories and hidden files are not part of the model (mlx-lm and exo read neither).

A tensor belongs to a decoder layer when its name has ``layers.<n>.`` as mlx-lm's ``sharded_load``
matches it (``(?:^|\\.)layers\\.(\\d+)\\.``); every other tensor (embeddings, final norm, head) is
*shared*: every pipeline rank keeps it. Layers at or past ``num_hidden_layers`` (DeepSeek V3's MTP
layer 61) are in the checkpoint but in no model: mlx-lm's sanitize drops them.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import re

from ansible_collections.macops.cluster.plugins.module_utils._safetensors import HeaderError, read_header

INDEX_FILE = "model.safetensors.index.json"
LAYER_KEY = re.compile(r"(?:^|\.)layers\.(\d+)\.")


class ModelError(ValueError):
    """A model directory a runtime cannot load; ``fault`` says what, ``path`` where."""

    def __init__(self, path, fault, code="shard_model_unreadable"):
        self.path = path
        self.fault = fault
        self.code = code
        super(ModelError, self).__init__("%s: %s" % (path, fault))


def layer_of(tensor):
    """The decoder layer a tensor name belongs to, or None for a shared tensor."""
    match = LAYER_KEY.search(tensor)
    return int(match.group(1)) if match else None


def _read_json(path, what):
    try:
        with open(path) as handle:
            document = json.load(handle)
    except (IOError, OSError) as exc:
        raise ModelError(path, "%s cannot be read (%s)" % (what, exc.strerror or exc))
    except ValueError as exc:
        raise ModelError(path, "%s is not JSON (%s)" % (what, exc))
    if not isinstance(document, dict):
        raise ModelError(path, "%s is JSON but not an object" % what)
    return document


def architecture(config):
    """The config fields a placement needs; multimodal configs keep the text model's under text_config."""
    text = config.get("text_config") if isinstance(config.get("text_config"), dict) else {}

    def field(name, default=None):
        value = config.get(name)
        return text.get(name, default) if value is None else value

    heads = field("num_attention_heads")
    hidden = field("hidden_size")
    head_dim = field("head_dim") or (hidden // heads if hidden and heads else None)
    return {
        "model_type": config.get("model_type") or text.get("model_type"),
        "layers": field("num_hidden_layers"),
        "hidden_size": hidden,
        "heads": heads,
        "kv_heads": field("num_key_value_heads", heads),
        "head_dim": head_dim,
        # Multi-head latent attention (DeepSeek V2/V3, Kimi K2) caches one latent vector per token and layer.
        "kv_lora_rank": field("kv_lora_rank"),
        "qk_rope_head_dim": field("qk_rope_head_dim"),
    }


def read_model(path):
    """{path, config, arch, files: {name: {size, weights, tensors, bytes_by_layer, shared_bytes}},
    layer_bytes: {layer: bytes}, shared_bytes, checkpoint_layers, weight_files, other_files}.

    Raises ModelError for what would stop a runtime: no config.json, an index naming a file that is
    not there, a header MLX would refuse (code shard_header_corrupt), a tensor the index puts in a file
    whose header lacks it, or a model with no decoder layers."""
    if not os.path.isdir(path):
        raise ModelError(path, "is not a directory", "shard_model_missing")
    config_path = os.path.join(path, "config.json")
    if not os.path.isfile(config_path):
        raise ModelError(path, "has no config.json: it is not a model directory (or the download is incomplete)",
                         "shard_model_missing")
    config = _read_json(config_path, "config.json")
    arch = architecture(config)
    if not isinstance(arch["layers"], int) or arch["layers"] < 1:
        raise ModelError(config_path, "has no num_hidden_layers: the layer count cannot be known")
    names = sorted(name for name in os.listdir(path)
                   if not name.startswith(".") and os.path.isfile(os.path.join(path, name)))
    index_path = os.path.join(path, INDEX_FILE)
    weight_map = None
    if os.path.isfile(index_path):
        weight_map = _read_json(index_path, INDEX_FILE).get("weight_map")
        if not isinstance(weight_map, dict) or not weight_map:
            raise ModelError(index_path, "has no weight_map")
        weight_files = sorted(set(weight_map.values()))
        missing = [name for name in weight_files if name not in names]
        if missing:
            raise ModelError(path, "lacks %d weight file(s) its index names: %s" % (
                len(missing), ", ".join(missing[:5])), "shard_file_missing")
    else:
        weight_files = [name for name in names if name.endswith(".safetensors")]
        if not weight_files:
            raise ModelError(path, "has no .safetensors file and no %s" % INDEX_FILE, "shard_file_missing")
    files, layer_bytes, shared_bytes = {}, {}, 0
    for name in names:
        full = os.path.join(path, name)
        entry = {"size": os.path.getsize(full), "weights": name in weight_files}
        if entry["weights"]:
            try:
                header = read_header(full)
            except HeaderError as exc:
                raise ModelError(full, exc.fault, "shard_header_corrupt")
            by_layer, shared = {}, 0
            for tensor, info in header["tensors"].items():
                layer = layer_of(tensor)
                if layer is None:
                    shared += info["bytes"]
                else:
                    by_layer[layer] = by_layer.get(layer, 0) + info["bytes"]
            entry.update(tensors=len(header["tensors"]), bytes_by_layer=by_layer, shared_bytes=shared)
            if weight_map is not None:
                absent = [t for t, f in weight_map.items() if f == name and t not in header["tensors"]]
                if absent:
                    raise ModelError(full, "lacks %d tensor(s) the index puts there, such as %s" % (
                        len(absent), absent[0]), "shard_header_corrupt")
            for layer, size in by_layer.items():
                layer_bytes[layer] = layer_bytes.get(layer, 0) + size
            shared_bytes += shared
        files[name] = entry
    model_layers = set(range(arch["layers"]))
    missing_layers = sorted(model_layers - set(layer_bytes))
    if missing_layers:
        raise ModelError(path, "has no weights for layer(s) %s of its %s: mlx-lm refuses it (convert it with "
                         "mlx_lm.convert first)" % (_ranges(missing_layers), arch["layers"]), "shard_file_missing")
    return {
        "path": path, "config": config, "arch": arch, "files": files,
        "layer_bytes": layer_bytes, "shared_bytes": shared_bytes,
        "checkpoint_layers": sorted(layer_bytes),
        "weight_files": weight_files,
        "other_files": [name for name in names if name not in weight_files],
        "tokenizer_code": tokenizer_code(path),
    }


def tokenizer_code(path):
    """The Python module a model's tokenizer is loaded from (tokenizer_config.json's auto_map AutoTokenizer, as
    Kimi K2's tokenization_kimi.py), None when transformers' own classes load it: such a tokenizer loads only with
    trust_remote_code, which mlx_lm.server passes as its --trust-remote-code says (false unless given)."""
    tokenizer_config = os.path.join(path, "tokenizer_config.json")
    if not os.path.isfile(tokenizer_config):
        return None
    auto_map = _read_json(tokenizer_config, "tokenizer_config.json").get("auto_map")
    entry = auto_map.get("AutoTokenizer") if isinstance(auto_map, dict) else None
    if isinstance(entry, list):
        entry = next((item for item in entry if item), None)
    return entry.split(".", 1)[0] + ".py" if isinstance(entry, str) and entry else None


def _ranges(numbers):
    """[0, 1, 2, 5] -> '0-2, 5'."""
    parts, start, previous = [], None, None
    for number in numbers:
        if start is None:
            start = previous = number
        elif number == previous + 1:
            previous = number
        else:
            parts.append(str(start) if start == previous else "%s-%s" % (start, previous))
            start = previous = number
    if start is not None:
        parts.append(str(start) if start == previous else "%s-%s" % (start, previous))
    return ", ".join(parts)


def files_for_layers(model, start, end):
    """Names of the files a rank holding layers [start, end) needs: every non-weight file, every weight
    file with a shared tensor (embeddings, norm, head), every weight file with a tensor of its layers."""
    needed = set(model["other_files"])
    for name in model["weight_files"]:
        entry = model["files"][name]
        if entry["shared_bytes"] or any(start <= layer < end for layer in entry["bytes_by_layer"]):
            needed.add(name)
    return sorted(needed)


def memory_for_layers(model, start, end):
    """Bytes of weights a rank holding layers [start, end) keeps in memory: its layers and the shared tensors."""
    return model["shared_bytes"] + sum(size for layer, size in model["layer_bytes"].items() if start <= layer < end)
