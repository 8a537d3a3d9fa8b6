# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: the header of a safetensors file. Stdlib only, Python 3.9.
"""Read and check a safetensors header without reading the weights.

The format (huggingface/safetensors README, "Format"): 8 bytes of little-endian u64 N, then N bytes of
UTF-8 JSON (an object, possibly padded with spaces), then the byte buffer. Each entry other than
``__metadata__`` is ``{dtype, shape, data_offsets: [BEGIN, END)}`` with offsets relative to the buffer.

The checks are MLX's loader's (mlx/io/safetensors.cpp): a header under 100,000,000 bytes, each
tensor's END-BEGIN equal to prod(shape) times its dtype's size, and its data inside the file (MLX's
message for that one is "Perhaps an incomplete download or corrupt file?"). So a file that passes
here is one MLX can open, and a truncated download is caught from its header and its size alone.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import struct

MAX_HEADER_BYTES = 100000000

# Bytes per element of every dtype the safetensors format names (its README and Rust crate).
DTYPE_BYTES = {
    "BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1, "F8_E8M0": 1,
    "I16": 2, "U16": 2, "F16": 2, "BF16": 2,
    "I32": 4, "U32": 4, "F32": 4,
    "I64": 8, "U64": 8, "F64": 8, "C64": 8,
}


class HeaderError(ValueError):
    """A safetensors file whose header MLX would refuse; the message names the file and the fault."""

    def __init__(self, path, fault):
        self.path = path
        self.fault = fault
        super(HeaderError, self).__init__("%s: %s" % (path, fault))


def _elements(shape):
    count = 1
    for dimension in shape:
        count *= dimension
    return count


def parse_header(path, head, file_size):
    """Check a header given as its bytes (the 8-byte length and the JSON after it) and the file's size.

    Returns {header_bytes, data_bytes, file_size, metadata, tensors: {name: {dtype, shape, bytes}}},
    where header_bytes = 8 + N and data_bytes is the end of the last tensor's data."""
    if file_size < 8 or len(head) < 8:
        raise HeaderError(path, "shorter than the 8-byte header length (%d bytes)" % file_size)
    length = struct.unpack("<Q", head[:8])[0]
    if length >= MAX_HEADER_BYTES:
        raise HeaderError(path, "a header of %d bytes (MLX refuses %d or more): not a safetensors file"
                          % (length, MAX_HEADER_BYTES))
    if 8 + length > file_size:
        raise HeaderError(path, "the header says %d bytes but the file has %d: a truncated download"
                          % (length, file_size))
    if len(head) < 8 + length:
        raise HeaderError(path, "only %d of the header's %d bytes were read" % (len(head) - 8, length))
    try:
        document = json.loads(head[8:8 + length].decode("utf-8"))
    except ValueError as exc:  # UnicodeDecodeError and JSONDecodeError are both ValueErrors
        raise HeaderError(path, "the header is not UTF-8 JSON (%s)" % exc)
    if not isinstance(document, dict):
        raise HeaderError(path, "the header is JSON but not an object")
    buffer_bytes = file_size - 8 - length
    metadata = document.pop("__metadata__", None) or {}
    tensors, data_end = {}, 0
    for name, entry in document.items():
        tensors[name] = _tensor(path, name, entry, buffer_bytes)
        data_end = max(data_end, entry["data_offsets"][1])
    return {"header_bytes": 8 + length, "data_bytes": data_end, "file_size": file_size,
            "metadata": metadata if isinstance(metadata, dict) else {}, "tensors": tensors}


def _tensor(path, name, entry, buffer_bytes):
    if not isinstance(entry, dict) or not {"dtype", "shape", "data_offsets"} <= set(entry):
        raise HeaderError(path, "tensor %s lacks dtype, shape or data_offsets" % name)
    dtype, shape, offsets = entry["dtype"], entry["shape"], entry["data_offsets"]
    if dtype not in DTYPE_BYTES:
        raise HeaderError(path, "tensor %s has dtype %r, which safetensors does not define" % (name, dtype))
    if not isinstance(shape, list) or not all(isinstance(d, int) and d >= 0 for d in shape):
        raise HeaderError(path, "tensor %s has shape %r, not a list of sizes" % (name, shape))
    if (not isinstance(offsets, list) or len(offsets) != 2 or not all(isinstance(o, int) for o in offsets)
            or not 0 <= offsets[0] <= offsets[1]):
        raise HeaderError(path, "tensor %s has data_offsets %r, not [begin, end)" % (name, offsets))
    size = offsets[1] - offsets[0]
    if size != _elements(shape) * DTYPE_BYTES[dtype]:
        raise HeaderError(path, "tensor %s holds %d bytes but %s %s needs %d" % (
            name, size, dtype, shape, _elements(shape) * DTYPE_BYTES[dtype]))
    if offsets[1] > buffer_bytes:
        raise HeaderError(path, "tensor %s ends at byte %d of a %d-byte buffer: an incomplete download or a "
                          "corrupt file" % (name, offsets[1], buffer_bytes))
    return {"dtype": dtype, "shape": list(shape), "bytes": size}


def read_header(path):
    """parse_header() of the file at path, reading only its header."""
    file_size = os.path.getsize(path)
    with open(path, "rb") as handle:
        head = handle.read(8)
        if len(head) == 8:
            length = struct.unpack("<Q", head)[0]
            if length < MAX_HEADER_BYTES and 8 + length <= file_size:
                head += handle.read(length)
    return parse_header(path, head, file_size)
