"""safetensors headers (plugins/module_utils/_safetensors.py): a tensor past its buffer, of the wrong size or of a
dtype MLX refuses is a header error."""
import json
import struct

import pytest


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
