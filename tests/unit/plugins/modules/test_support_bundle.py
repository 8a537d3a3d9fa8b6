"""macops.cluster.support_bundle: the archive holds each node's commands and facts, redacted alike, the files'
ends and the reports; a node that gave nothing or part is in the manifest with why; the archive is the owner's
alone."""
import json
import os
import tarfile

from ansible_collections.macops.cluster.plugins.modules import support_bundle

from module_harness import run_main

PROFILER = '{"SPHardwareDataType": [{"serial_number": "H2WH91D5Q6"}]}\n'
READ = {"changed": False, "mac": {"serial_number": "H2WH******", "chip": "Apple M3 Ultra"},
        "recorded": [{"argv": ["/usr/sbin/system_profiler", "-json", "SPHardwareDataType"], "rc": 0,
                      "stdout": PROFILER, "stderr": ""}], "invocation": {"module_args": {}}}
TAILS = {"files": [{"path": "/Library/Logs/macops/serve/rank.log", "size": 10, "mtime": 1.0, "truncated": True,
                    "text": "rank 0 with api_key=sk-secret-777\n", "note": None},
                   {"path": "/Library/Application Support/macops/blob", "size": 3, "mtime": 1.0, "text": None,
                    "truncated": False, "note": "binary: not copied"}],
         "missing": [{"path": "/etc/pf.anchors/macops*", "why": "no such file or directory"}]}


def test_the_bundle_holds_each_node_redacted_alike_and_says_what_is_missing(capsys, tmp_path):
    report = tmp_path / "doctor-report"
    report.mkdir()
    (report / "report.json").write_text('{"verdict": "ok", "serial": "H2WH91D5Q6"}')
    args = {"dest": str(tmp_path / "out"), "name": "support-bundle-T", "hosts": ["mac1", "mac2", "mac3"],
            "reads": {"mac1": READ, "mac2": {"unreachable": True, "msg": "ssh: connect timed out"},
                      "mac3": {"failed": True, "msg": "node_facts timed out"}},
            "tails": {"mac1": TAILS}, "reports": [str(report), str(tmp_path / "none")]}
    result = run_main(capsys, support_bundle, args)
    path = tmp_path / "out" / "support-bundle-T.tar.gz"
    assert result["path"] == str(path) and oct(os.stat(str(path)).st_mode & 0o777) == "0o600"
    with tarfile.open(str(path)) as archive:
        texts = dict((m.name, archive.extractfile(m).read().decode()) for m in archive.getmembers())
    assert all(name.startswith("support-bundle-T/") for name in texts)
    whole = "\n".join(texts.values())
    assert "H2WH91D5Q6" not in whole and "sk-secret-777" not in whole
    # The masked serial of the facts is the node's own marker, as the replayed output gives it.
    assert json.loads(texts["support-bundle-T/mac1/facts.json"])["mac"]["serial_number"] == "[redacted serial 1]"
    assert json.loads(texts["support-bundle-T/mac1/commands.json"])[0]["stdout"] == (
        '{"SPHardwareDataType": [{"serial_number": "[redacted serial 1]"}]}\n')
    assert "[redacted serial 1]" in texts["support-bundle-T/reports/doctor-report/report.json"]
    manifest = json.loads(texts["support-bundle-T/MANIFEST.json"])
    assert manifest == result["manifest"] and manifest["nodes"]["mac1"]["commands"] == 1
    missing = dict((h, [m["what"] for m in n["missing"]]) for h, n in manifest["nodes"].items())
    assert missing == {"mac1": ["/etc/pf.anchors/macops*", "/Library/Application Support/macops/blob"],
                       "mac2": ["the node", "state files and logs"],
                       "mac3": ["commands and facts", "state files and logs"]}
    assert manifest["reports"] == [{"report": str(report), "missing": None},
                                   {"report": str(tmp_path / "none"), "missing": "No such file or directory"}]
    assert result["summary"][0] == "support bundle: %s" % path and "mac2: 0 commands, 0 files; missing: the node " \
        "(unreachable: ssh: connect timed out), state files and logs (not read)" in result["summary"]


def test_names_are_replaced_too_when_asked(capsys, tmp_path):
    args = {"dest": str(tmp_path), "name": "b", "hosts": ["studio-1"], "reads": {"studio-1": READ},
            "tails": {"studio-1": TAILS}, "redact_names": True, "names": ["studio-1"]}
    result = run_main(capsys, support_bundle, args)
    assert list(result["manifest"]["nodes"]) == ["redacted-name-1"]
