"""shutdown / reboot / halt: root only, the macOS message, run/power_request, and SIGTERM to
the host's launchd (PID 1) a second later from a detached child."""
import os
import subprocess
import time

from shimlab import NOBODY, power_request, wait_exit


def test_shutdown_r_now_signals_launchd(lab, fake_launchd):
    started = time.time()
    result = lab.run_process("shutdown", "-r", "now", env={"MACLAB_INIT_PID": str(fake_launchd.pid)})
    assert result.rc == 0
    assert result.out.startswith("Shutdown NOW!\nshutdown: [pid ")
    assert time.time() - started < 1.0, "shutdown must return before the host goes down"
    assert power_request(lab) == "reboot"
    assert wait_exit(fake_launchd, 5) == -15


def test_ansible_reboot_command_line(lab, fake_launchd):
    result = lab.run_process("shutdown", "-r", "+0", "Reboot initiated by Ansible",
                             env={"MACLAB_INIT_PID": str(fake_launchd.pid)})
    assert result.rc == 0 and result.out.startswith("Shutdown NOW!\n")
    assert wait_exit(fake_launchd, 5) == -15


def test_halt_writes_halt(lab, fake_launchd):
    assert lab.run_process("shutdown", "-h", "now",
                           env={"MACLAB_INIT_PID": str(fake_launchd.pid)}).rc == 0
    assert power_request(lab) == "halt"
    assert wait_exit(fake_launchd, 5) == -15


def test_non_root_is_refused(lab, fake_launchd):
    result = lab.run_process("shutdown", "-r", "now", uid=NOBODY,
                             env={"MACLAB_INIT_PID": str(fake_launchd.pid)})
    assert (result.rc, result.err) == (1, "shutdown: NOT super-user\n")
    reboot = lab.run_process("reboot", uid=NOBODY, env={"MACLAB_INIT_PID": str(fake_launchd.pid)})
    assert reboot.rc == 1
    assert not os.path.exists(os.path.join(lab.host_dir(), "run", "power_request"))
    assert wait_exit(fake_launchd, 1.5) is None


def test_only_a_process_named_launchd_is_signalled(lab):
    bystander = subprocess.Popen(["sleep", "60"])
    try:
        assert lab.run_process("reboot", env={"MACLAB_INIT_PID": str(bystander.pid)}).rc == 0
        assert power_request(lab) == "reboot"
        assert wait_exit(bystander, 1.8) is None
    finally:
        bystander.kill()
        bystander.wait()
