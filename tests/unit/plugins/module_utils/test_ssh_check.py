"""The ssh check (plugins/module_utils/_ssh_check.py): the argv mlx.launch needs, labels, stderr cut to 300
characters, the failure message; run_ssh on real processes (exit status, stderr, the time limit); the mesh's
targets and their problems."""
import sys
import time

import pytest

from ansible_collections.macops.cluster.plugins.module_utils import _ssh_check


def test_ssh_argv_is_what_mlx_launch_needs():
    assert _ssh_check.ssh_argv("/usr/bin/ssh", 5, "198.18.64.2") == [
        "/usr/bin/ssh", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes", "-o", "ConnectTimeout=5",
        "198.18.64.2", "/usr/bin/true"]


def test_labels_default_to_the_address():
    assert _ssh_check.targets_with_labels([{"address": "mac2", "label": "mac2 by name"},
                                          {"address": "mac3", "label": None}, {"address": "mac4"}]) == [
        {"address": "mac2", "label": "mac2 by name"}, {"address": "mac3", "label": "mac3"},
        {"address": "mac4", "label": "mac4"}]


@pytest.mark.parametrize("text, expected", [
    (None, ""), ("", ""), ("  Permission denied (publickey).\r\n", "Permission denied (publickey)."),
    ("x" * 300, "x" * 300), ("x" * 301, "x" * 297 + "..."),
])
def test_trim_keeps_at_most_300_characters(text, expected):
    assert _ssh_check.trim(text) == expected
    assert len(_ssh_check.trim(text)) <= 300


def test_result_and_failure_message():
    mac2 = _ssh_check.result({"address": "mac2", "label": "mac2 by name"}, 255,
                             "mac2: Permission denied (publickey).\n")
    tb = _ssh_check.result({"address": "198.18.64.2", "label": "over en2"}, 255,
                           "ssh: connect to host 198.18.64.2 port 22: Operation timed out\r\n")
    ok = _ssh_check.result({"address": "mac3", "label": "mac3"}, 0, "")
    silent = _ssh_check.result({"address": "mac4", "label": "mac4"}, 1, "")
    assert ok == {"address": "mac3", "label": "mac3", "ok": True, "rc": 0, "stderr": ""}
    assert mac2["ok"] is False and mac2["stderr"] == "mac2: Permission denied (publickey)."
    assert _ssh_check.failure_message([ok]) is None
    assert _ssh_check.failure_message([mac2, ok, tb], " Turn on Remote Login there. ") == (
        "cannot SSH to mac2 (mac2 by name: mac2: Permission denied (publickey).); 198.18.64.2 (over en2: ssh: "
        "connect to host 198.18.64.2 port 22: Operation timed out). Turn on Remote Login there.")
    assert _ssh_check.failure_message([silent]) == "cannot SSH to mac4 (mac4: exit status 1)."


def test_failure_message_puts_multi_line_errors_on_one_line():
    changed = _ssh_check.result({"address": "mac2", "label": "mac2"}, 255,
                                "@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n"
                                "Host key verification failed.\n")
    assert "\n" in changed["stderr"]
    assert _ssh_check.failure_message([changed], "") == (
        "cannot SSH to mac2 (mac2: @@@@@ @ WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! @ "
        "Host key verification failed.).")


def test_run_ssh_returns_exit_status_and_stderr():
    code = "import sys; sys.stderr.write('Permission denied (publickey).\\n'); sys.exit(255)"
    assert _ssh_check.run_ssh([sys.executable, "-c", code], 30) == (255, "Permission denied (publickey).\n")
    assert _ssh_check.run_ssh([sys.executable, "-c", "print('hello')"], 30) == (0, "")


def test_run_ssh_stops_a_stalled_session():
    started = time.time()
    code = "import sys, time; sys.stderr.write('debug1: Authentications that can continue\\n'); " \
           "sys.stderr.flush(); time.sleep(30)"
    assert _ssh_check.run_ssh([sys.executable, "-c", code], 1) == \
        (-1, "no answer within 1 seconds. debug1: Authentications that can continue")
    assert time.time() - started < 10


def test_run_ssh_reports_a_client_that_cannot_start():
    rc, stderr = _ssh_check.run_ssh(["/nonexistent/bin/ssh", "mac2"], 5)
    assert rc == -1 and stderr.startswith("cannot run /nonexistent/bin/ssh: ")


def test_the_mesh_targets_are_each_peer_by_name_then_each_cable_and_a_failure_names_both():
    links = [{"interface": "en4", "peer_ip": "198.19.0.6", "peer_host": "mac3"}]
    targets = _ssh_check.mesh_targets(["mac2", "mac3"], links)
    assert [(t["address"], t["label"], t["peer"], t["port"]) for t in targets] == [
        ("mac2", "by name", "mac2", None), ("mac3", "by name", "mac3", None), ("198.19.0.6", "over en4", "mac3", "en4")]
    results = [_ssh_check.result(t, rc, err) for t, (rc, err) in
               zip(targets, [(0, ""), (0, ""), (255, "ssh: connect to host 198.19.0.6 port 22: Operation timed out\n")])]
    (found,) = _ssh_check.mesh_problems(targets, results)
    assert (found["code"], found["peer"], found["port"]) == ("ssh_peer_unreachable", "mac3", "en4")
    assert "mac3 over en4 (198.19.0.6)" in found["message"] and "timed out" in found["message"]
