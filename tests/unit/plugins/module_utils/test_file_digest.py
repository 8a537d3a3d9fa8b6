"""File digests with a cache (plugins/module_utils/_file_digest.py): sha256 of a whole file or of its first bytes,
the hashing going on over what comes next; a cache entry reused while size and mtime match and a file read again
when either changes; an unreadable cache empty, a written one replaced whole."""
import hashlib
import json
import os

from ansible_collections.macops.cluster.plugins.module_utils import _file_digest as digest


def written(path, data):
    path.write_bytes(data)
    return str(path)


def test_a_file_s_sha256_in_blocks_and_of_its_first_bytes_then_what_follows(tmp_path):
    data = os.urandom(10000)
    path = written(tmp_path / "f", data)
    assert digest.sha256_of(path) == hashlib.sha256(data).hexdigest()
    partial, done = digest.hash_prefix(path, 4096, chunk=1000)
    assert done == 4096 and partial.hexdigest() == hashlib.sha256(data[:4096]).hexdigest()
    partial.update(data[4096:])  # a partial file that grows: the same object finishes the digest
    assert partial.hexdigest() == hashlib.sha256(data).hexdigest()
    assert digest.hash_prefix(path, 10 ** 6)[1] == 10000  # shorter than asked: all of it


def test_the_cache_spares_unchanged_files_and_reads_a_changed_one_again(tmp_path):
    paths = [written(tmp_path / name, name.encode() * 100) for name in ("a", "b", "c")]
    cache = {}
    first, hashed = digest.digests(paths, cache, workers=2)
    assert hashed == paths and first == dict((p, digest.sha256_of(p)) for p in paths)
    assert sorted(cache[paths[0]]) == ["mtime_ns", "sha256", "size"]
    again, hashed = digest.digests(paths, cache)
    assert again == first and hashed == []
    written(tmp_path / "b", b"other bytes")
    os.utime(paths[2], ns=(0, 0))  # same bytes, another mtime: read again too
    changed, hashed = digest.digests(paths, cache)
    assert hashed == [paths[1], paths[2]] and changed[paths[1]] == hashlib.sha256(b"other bytes").hexdigest()
    assert changed[paths[2]] == first[paths[2]]


def test_a_cache_that_cannot_be_read_is_empty_and_a_written_one_reads_back(tmp_path):
    cache_path = str(tmp_path / "state" / "cache.json")
    assert digest.load_cache(cache_path) == {}
    digest.save_cache(cache_path, {"/m/a": {"size": 1, "mtime_ns": 2, "sha256": "x"}})
    assert digest.load_cache(cache_path) == {"/m/a": {"size": 1, "mtime_ns": 2, "sha256": "x"}}
    assert [name for name in os.listdir(str(tmp_path / "state")) if name != "cache.json"] == []  # no temporary left
    (tmp_path / "state" / "cache.json").write_text("{not json")
    assert digest.load_cache(cache_path) == {}
    (tmp_path / "state" / "cache.json").write_text(json.dumps(["a list"]))
    assert digest.load_cache(cache_path) == {}
