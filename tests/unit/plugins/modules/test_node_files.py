"""macops.cluster.node_files on a real temporary directory: writes, validates, removes, predicts."""
import os
import stat

from module_harness import FakeMac, run_module

from ansible_collections.macops.cluster.plugins.modules import node_files

UID, GID = str(os.getuid()), str(os.getgid())


class Validator(FakeMac):
    """Answers the validate command; records the text of the file it was asked to check."""

    def __init__(self, rc=0):
        super(Validator, self).__init__([])
        self.rc, self.checked = rc, []

    def run_command(self, args, **kwargs):
        self.calls.append(list(args))
        with open(args[-1]) as handle:
            self.checked.append(handle.read())
        return (self.rc, "", "" if self.rc == 0 else "%s: bad plist" % args[-1])


def run(monkeypatch, capsys, files, check=False, diff=False, mac=None):
    args = {"files": files, "_ansible_check_mode": check, "_ansible_diff": diff}
    return run_module(monkeypatch, capsys, node_files.main, args, mac or FakeMac([]))


def mode_of(path):
    return "%04o" % stat.S_IMODE(os.lstat(path).st_mode)


def test_writes_every_file_then_a_second_run_changes_nothing(monkeypatch, capsys, tmp_path):
    files = [{"path": str(tmp_path / "a.json"), "content": "[1]\n", "owner": UID, "group": GID, "mode": "0644"},
             {"path": str(tmp_path / "logs"), "state": "directory", "mode": "0755"},
             {"path": str(tmp_path / "b.sh"), "content": "#!/bin/sh\n", "mode": "0755"}]
    result, _ = run(monkeypatch, capsys, files)
    assert result["changed"] is True
    assert result["changed_paths"] == [f["path"] for f in files]
    assert (tmp_path / "a.json").read_text() == "[1]\n" and mode_of(str(tmp_path / "a.json")) == "0644"
    assert (tmp_path / "logs").is_dir() and mode_of(str(tmp_path / "logs")) == "0755"
    assert mode_of(str(tmp_path / "b.sh")) == "0755"
    # No temporary file is left next to the targets.
    assert sorted(os.listdir(str(tmp_path))) == ["a.json", "b.sh", "logs"]

    again, _ = run(monkeypatch, capsys, files)
    assert again["changed"] is False and again["changed_paths"] == []


def test_only_the_file_whose_content_or_mode_differs_changes(monkeypatch, capsys, tmp_path):
    (tmp_path / "same").write_text("x\n")
    os.chmod(str(tmp_path / "same"), 0o644)
    (tmp_path / "old").write_text("old\n")
    os.chmod(str(tmp_path / "old"), 0o644)
    (tmp_path / "loose").write_text("y\n")
    os.chmod(str(tmp_path / "loose"), 0o666)
    files = [{"path": str(tmp_path / "same"), "content": "x\n", "mode": "0644"},
             {"path": str(tmp_path / "old"), "content": "new\n", "mode": "0644"},
             {"path": str(tmp_path / "loose"), "content": "y\n", "mode": "0644"}]
    result, _ = run(monkeypatch, capsys, files, diff=True)
    assert result["changed_paths"] == [str(tmp_path / "old"), str(tmp_path / "loose")]
    assert (tmp_path / "old").read_text() == "new\n"
    assert mode_of(str(tmp_path / "loose")) == "0644"
    content_diff = result["diff"][0]
    assert (content_diff["before"], content_diff["after"]) == ("old\n", "new\n")
    assert "0644" in result["diff"][1]["after"] and "0666" in result["diff"][1]["before"]


def test_check_mode_predicts_every_change_and_makes_none(monkeypatch, capsys, tmp_path):
    (tmp_path / "old").write_text("old\n")
    (tmp_path / "gone").write_text("bye\n")
    files = [{"path": str(tmp_path / "old"), "content": "new\n"},
             {"path": str(tmp_path / "fresh"), "content": "hello\n", "mode": "0600"},
             {"path": str(tmp_path / "dir" / "sub"), "state": "directory"},
             {"path": str(tmp_path / "gone"), "state": "absent"},
             {"path": str(tmp_path / "never-was"), "state": "absent"}]
    result, _ = run(monkeypatch, capsys, files, check=True, diff=True)
    assert result["changed_paths"] == [f["path"] for f in files[:4]]
    assert (tmp_path / "old").read_text() == "old\n"
    assert not (tmp_path / "fresh").exists() and not (tmp_path / "dir").exists()
    assert (tmp_path / "gone").exists()
    assert result["diff"][1]["after"] == "hello\n"


def test_absent_removes_files_and_links_but_refuses_a_directory(monkeypatch, capsys, tmp_path):
    (tmp_path / "file").write_text("x")
    os.symlink(str(tmp_path / "missing-target"), str(tmp_path / "link"))
    result, _ = run(monkeypatch, capsys, [{"path": str(tmp_path / "file"), "state": "absent"},
                                          {"path": str(tmp_path / "link"), "state": "absent"}])
    assert result["changed_paths"] == [str(tmp_path / "file"), str(tmp_path / "link")]
    assert os.listdir(str(tmp_path)) == []

    (tmp_path / "keep").mkdir()
    refused, _ = run(monkeypatch, capsys, [{"path": str(tmp_path / "keep"), "state": "absent"}])
    assert refused["failed"] is True and "is a directory" in refused["msg"]
    assert (tmp_path / "keep").is_dir()


def test_validate_checks_the_new_text_and_a_failure_keeps_the_old_file(monkeypatch, capsys, tmp_path):
    target = tmp_path / "daemon.plist"
    target.write_text("<plist>old</plist>\n")
    entry = {"path": str(target), "content": "<plist>new</plist>\n", "validate": "/usr/bin/plutil -lint %s"}

    bad = Validator(rc=1)
    failed, calls = run(monkeypatch, capsys, [entry], mac=bad)
    assert failed["failed"] is True and "failed validation" in failed["msg"] and "bad plist" in failed["msg"]
    assert calls[0][:2] == ["/usr/bin/plutil", "-lint"] and calls[0][2] != str(target)
    assert bad.checked == ["<plist>new</plist>\n"]
    assert target.read_text() == "<plist>old</plist>\n"
    assert os.listdir(str(tmp_path)) == ["daemon.plist"]

    good = Validator(rc=0)
    result, _ = run(monkeypatch, capsys, [entry], mac=good)
    assert result["changed"] is True and target.read_text() == "<plist>new</plist>\n"


def test_bad_entries_fail_with_the_path_named(monkeypatch, capsys, tmp_path):
    no_content, _ = run(monkeypatch, capsys, [{"path": str(tmp_path / "x")}])
    assert no_content["failed"] and "needs content" in no_content["msg"]
    relative, _ = run(monkeypatch, capsys, [{"path": "relative/x", "content": ""}])
    assert relative["failed"] and "must be absolute" in relative["msg"]
    no_placeholder, _ = run(monkeypatch, capsys, [{"path": str(tmp_path / "y"), "content": "",
                                                   "validate": "/usr/bin/true"}])
    assert no_placeholder["failed"] and "%s" in no_placeholder["msg"]
    (tmp_path / "f").write_text("")
    not_dir, _ = run(monkeypatch, capsys, [{"path": str(tmp_path / "f"), "state": "directory"}])
    assert not_dir["failed"] and "not a directory" in not_dir["msg"]


def test_a_block_is_kept_inside_a_file_others_edit_validated_and_removed(monkeypatch, capsys, tmp_path):
    conf = tmp_path / "pf.conf"
    conf.write_text("anchor \"com.apple/*\"\n")
    entry = {"path": str(conf), "state": "block", "block": "anchor \"macops\"", "marker": "# {mark} MACOPS",
             "validate": "/sbin/pfctl -nf %s", "mode": "0644"}
    checker = Validator(rc=0)
    result, calls = run(monkeypatch, capsys, [entry], mac=checker, diff=True)
    text = "anchor \"com.apple/*\"\n# BEGIN MACOPS\nanchor \"macops\"\n# END MACOPS\n"
    assert result["changed_paths"] == [str(conf)] and conf.read_text() == text and checker.checked == [text]
    assert result["diff"][0]["after"] == text and calls[0][:2] == ["/sbin/pfctl", "-nf"]
    again, _ = run(monkeypatch, capsys, [entry], mac=Validator(rc=0))
    assert again["changed"] is False
    # Someone edits the file around the block: it stays theirs, only the block is set again.
    conf.write_text("set skip on lo0\n" + text.replace("anchor \"macops\"\n", "stale\n") + "pass all\n")
    fixed, _ = run(monkeypatch, capsys, [dict(entry, block="anchor \"macops\"\nload anchor")], mac=Validator(rc=0))
    assert fixed["changed"] is True and conf.read_text() == (
        "set skip on lo0\nanchor \"com.apple/*\"\n# BEGIN MACOPS\nanchor \"macops\"\nload anchor\n# END MACOPS\npass all\n")
    removed, _ = run(monkeypatch, capsys, [dict(entry, block="")], mac=Validator(rc=0))
    assert removed["changed"] is True and conf.read_text() == "set skip on lo0\nanchor \"com.apple/*\"\npass all\n"


def test_a_block_in_a_missing_file_creates_it_at_the_start_and_check_mode_only_predicts(monkeypatch, capsys, tmp_path):
    config = tmp_path / "config"
    entry = {"path": str(config), "state": "block", "block": "Host mac1\n    HostName 198.18.0.11",
             "insert_at": "start", "mode": "0600"}
    predicted, _ = run(monkeypatch, capsys, [entry], check=True)
    assert predicted["changed_paths"] == [str(config)] and not config.exists()
    result, _ = run(monkeypatch, capsys, [entry])
    assert config.read_text() == ("# BEGIN ANSIBLE MANAGED BLOCK\nHost mac1\n    HostName 198.18.0.11\n"
                                  "# END ANSIBLE MANAGED BLOCK\n") and mode_of(str(config)) == "0600"
    nothing, _ = run(monkeypatch, capsys, [{"path": str(tmp_path / "none"), "state": "block", "block": ""}])
    assert nothing["changed"] is False and not (tmp_path / "none").exists()
