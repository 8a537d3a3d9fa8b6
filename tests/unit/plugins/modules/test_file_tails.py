"""macops.cluster.file_tails: reads the files' ends, lists what it cannot read and never fails."""
from ansible_collections.macops.cluster.plugins.modules import file_tails

from module_harness import run_main


def test_file_tails_reads_ends_lists_what_it_cannot_and_never_fails(capsys, tmp_path):
    logs = tmp_path / "logs"
    (logs / "serve").mkdir(parents=True)
    (logs / "serve" / "rank.log").write_text("x" * 100 + "the end\n")
    (logs / "blob").write_bytes(b"\0\1\2")
    result = run_main(capsys, file_tails, {"paths": [str(logs), str(tmp_path / "absent"), str(tmp_path / "*.plist")],
                                      "max_bytes": 20})
    files = dict((f["path"], f) for f in result["files"])
    rank = files[str(logs / "serve" / "rank.log")]
    assert (rank["text"], rank["truncated"], rank["size"]) == ("x" * 12 + "the end\n", True, 108)
    assert files[str(logs / "blob")]["note"] == "binary: not copied" and files[str(logs / "blob")]["text"] is None
    assert [m["path"] for m in result["missing"]] == [str(tmp_path / "absent"), str(tmp_path / "*.plist")]
    assert result["changed"] is False and not result.get("failed")
