"""The one judge of check_result and sudo_rules (plugins/plugin_utils/_judge.py): which problems fail the host under
fail_on, the line each problem is shown as, and the warnings and the failure put into the task's result."""
import pytest

from ansible_collections.macops.cluster.plugins.module_utils._problems import problem
from ansible_collections.macops.cluster.plugins.plugin_utils._judge import failing, judge, line

FULL = problem("disk_space_low", "mac2 has 12.0 GiB free.", "Free space on mac2.", host="mac2")
FILEVAULT = problem("filevault_on", "FileVault is on.", "Turn it off.", host="mac2", severity="warning")
INFO = problem("filevault_on", "A note.", "Nothing to do.", severity="info")


@pytest.mark.parametrize("fail_on, codes", [
    ("error", ["disk_space_low"]),
    ("warning", ["disk_space_low", "filevault_on"]),
    ("never", []),
])
def test_fail_on_names_the_least_severity_that_fails(fail_on, codes):
    assert [p["code"] for p in failing([FULL, FILEVAULT, INFO], fail_on)] == codes


def test_a_line_names_host_port_and_peer_unless_the_message_starts_with_the_host():
    assert line(FULL) == "[disk_space_low] mac2 has 12.0 GiB free. Fix: Free space on mac2."
    cable = problem("tb_link_no_reply", "no reply over en4", "Check the cable.", host="mac1", port="en4", peer="mac3")
    assert line(cable) == "[tb_link_no_reply] mac1 port en4 peer mac3: no reply over en4 Fix: Check the cable."
    assert line(INFO) == "[filevault_on] A note. Fix: Nothing to do."


def test_warnings_come_after_the_caller_s_and_a_failure_lists_what_failed():
    result = judge({}, [FULL, FILEVAULT], "error", what="mac2 cannot join the cluster", warn=["fallback: ring"])
    assert result["warnings"] == ["fallback: ring", line(FILEVAULT)]
    assert result["failed"] is True and result["msg"] == "mac2 cannot join the cluster: " + line(FULL)
    # A warning that fails is in the message, not among the warnings.
    stricter = judge({}, [FULL, FILEVAULT], "warning")
    assert "warnings" not in stricter and stricter["msg"] == line(FULL) + " " + line(FILEVAULT)


def test_msg_replaces_the_list_and_fail_fails_whatever_the_problems_say():
    assert judge({}, [FULL], "error", what="w", msg="RDMA is required.")["msg"] == "w: RDMA is required."
    forced = judge({"kept": 1}, [], "never", msg="the caller decided", fail=True)
    assert forced == {"kept": 1, "failed": True, "msg": "the caller decided"}


def test_nothing_to_say_leaves_the_result_as_it_was():
    assert judge({"checks": [1]}, [INFO], "error") == {"checks": [1]}
    assert judge({}, [FULL], "never") == {}
