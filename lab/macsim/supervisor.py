"""Root-namespace supervisor of one simulated Mac: power, boot loop, reboot/halt/no-return.

Detached by `maclab up`; its PID is in $MACLAB_ROOT/supervisor-<h>.pid. Each pass boots the
host's launchd in fresh UTS, PID and mount namespaces inside the host's network namespace and
waits for it to exit; `run/power_request` (written by the `shutdown` shim or by `maclab`) says
whether that was a reboot or a halt.
"""
import os
import signal
import subprocess
import sys
import threading
import time

from . import faultbase, layout, net, statefile
from .shims import updates

POLL_SECONDS = 0.2
# fault update-slows: every process of the host paused for its share of each period, the host's list read again
# (and the fault looked up) once a second.
THROTTLE_PERIOD_SECONDS = 0.1
THROTTLE_LIST_SECONDS = 1.0


class Throttle(threading.Thread):
    """A slower Mac (fault update-slows, from the boot of the build that is slower): every process of the host stopped
    for `percent` % of each tenth of a second, then continued, until the host's launchd exits or the fault is
    cleared. Lab only, from the root namespace; what runs on the host sees a slower machine. What another fault
    keeps stopped (a hung host, a hung rank) it neither stops nor continues, under the faults' signals lock."""

    def __init__(self, supervisor, launchd_pid, percent):
        threading.Thread.__init__(self, daemon=True)
        self.supervisor, self.launchd_pid, self.percent = supervisor, launchd_pid, percent
        self.ended = threading.Event()

    def signal_all(self, pids, signum):
        for pid in pids:
            try:
                os.kill(pid, signum)
            except ProcessLookupError:
                pass

    def free(self, pids):
        """Those of `pids` no other fault keeps stopped."""
        everything, held = faultbase.held_stopped(self.supervisor.paths, self.supervisor.host)
        if everything:
            return []
        return [pid for pid in pids if faultbase.host_namespace_pid(pid) not in held] if held else pids

    def signal_free(self, pids, signum):
        with faultbase.signals_lock(self.supervisor.paths, self.supervisor.host):
            self.signal_all(self.free(pids), signum)

    def run(self):
        pids, listed = [], 0.0
        paused = self.percent / 100.0 * THROTTLE_PERIOD_SECONDS
        try:
            while not self.ended.is_set():
                if time.time() - listed >= THROTTLE_LIST_SECONDS:
                    if not self.supervisor.slow_percent():
                        return
                    pids, listed = net.host_processes(self.supervisor.host, self.launchd_pid), time.time()
                self.signal_free(pids, signal.SIGSTOP)
                self.ended.wait(paused)
                self.signal_free(pids, signal.SIGCONT)
                self.ended.wait(THROTTLE_PERIOD_SECONDS - paused)
        finally:
            self.signal_free(pids, signal.SIGCONT)


class Supervisor(object):
    def __init__(self, root, host):
        self.paths = layout.Paths(root)
        self.host = host
        self.hdir = self.paths.host(host)
        self.run_dir = os.path.join(self.hdir, "run")
        self.log_path = os.path.join(self.hdir, "log", "launchd.log")

    def log(self, message):
        with open(self.log_path, "a") as handle:
            handle.write("%s supervisor: %s\n" % (time.strftime("%Y-%m-%dT%H:%M:%S"), message))

    def run_file(self, name):
        return os.path.join(self.run_dir, name)

    def set_power_state(self, value):
        statefile.write_json(self.run_file("power.json"), {"state": value, "since": time.time()})

    def take(self, name):
        """Read and remove a one-shot request file."""
        path = self.run_file(name)
        try:
            with open(path) as handle:
                value = handle.read().strip()
            os.unlink(path)
            return value or "on"
        except FileNotFoundError:
            return None

    def wait_power_on(self):
        while self.take("power_on") is None:
            time.sleep(POLL_SECONDS)

    def boot_settings(self):
        """(boot seconds, no-return fault, FileVault: True, False or "pending"): read at every
        boot, so a fault set while the host runs applies to its next boot."""
        state = statefile.read_json(os.path.join(self.hdir, "state.json"))
        boot = state["boot"]
        return float(boot.get("boot_seconds", 5)), bool(boot.get("no_return")), state.get("filevault", False)

    def finish_filevault_enablement(self):
        """A pending enablement completes at this boot: FileVault is on from now on."""
        with statefile.editing(os.path.join(self.hdir, "state.json"), self.hdir) as state:
            if state.get("filevault") == "pending":
                state["filevault"] = True

    def boot_staged_update(self):
        """A macOS update staged before this restart (softwareupdate --install) boots now: the new build, installed
        at boot first. Returns the seconds that install adds to the boot (0 without one)."""
        with statefile.editing(os.path.join(self.hdir, "state.json"), self.hdir) as state:
            installing = updates.staged_boot(state)
            if installing:
                self.log("installing the staged macOS %s (%s) at boot for %.1f s" % (
                    state["os"]["version"], state["os"]["build"], installing))
        return installing

    def slow_percent(self):
        """The share of time the host's processes are paused (fault update-slows, once its build booted), or 0."""
        return int(statefile.read_json(os.path.join(self.hdir, "state.json")).get("slow_percent") or 0)

    def find_launchd(self, unshare_pid, timeout=5.0):
        """Root-namespace PID of the host's PID 1: the child `unshare --fork` started."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            for entry in os.listdir("/proc"):
                if not entry.isdigit():
                    continue
                try:
                    with open("/proc/%s/stat" % entry) as handle:
                        fields = handle.read().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if int(fields[1]) == unshare_pid:
                    return int(entry)
            time.sleep(0.05)
        return None

    def boot_once(self):
        for name in ("booted", "launchd.pid", "power_request"):
            if os.path.exists(self.run_file(name)):
                os.unlink(self.run_file(name))
        net.set_links(self.host, True)
        self.set_power_state("booting")
        with open(self.log_path, "ab") as log:
            proc = subprocess.Popen(
                ["ip", "netns", "exec", layout.netns(self.host), "unshare", "--uts", "--pid", "--fork",
                 "--mount-proc", os.path.join(self.paths.code, "launchd"), self.paths.root, self.host],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        pid = self.find_launchd(proc.pid)
        if pid is not None:
            with open(self.run_file("launchd.pid"), "w") as handle:
                handle.write("%d\n" % pid)
        self.set_power_state("on")
        throttle = Throttle(self, pid, self.slow_percent()) if pid is not None and self.slow_percent() else None
        if throttle:
            self.log("this build runs slower: every process paused %d %% of the time" % throttle.percent)
            throttle.start()
        rc = proc.wait()
        if throttle:
            throttle.ended.set()
            throttle.join()
        request = self.take("power_request") or "crash"
        self.log("launchd exited rc=%s request=%s" % (rc, request))
        return request

    def run(self):
        with open(self.paths.supervisor_pid(self.host), "w") as handle:
            handle.write("%d\n" % os.getpid())
        while True:
            request = self.boot_once()
            net.set_links(self.host, False)
            seconds, no_return, filevault = self.boot_settings()
            if request == "halt":
                self.set_power_state("off")
                self.wait_power_on()
            elif no_return:
                self.set_power_state("no-return")
                self.log("no-return fault: staying dark")
                self.wait_power_on()
            else:
                self.set_power_state("rebooting")
                deadline = time.time() + seconds + self.boot_staged_update()
                while time.time() < deadline and self.take("power_on") is None:
                    time.sleep(POLL_SECONDS)
                if filevault == "pending":
                    # Turned on at this restart: the unlock screen, whatever was asked for.
                    self.finish_filevault_enablement()
                    self.set_power_state("locked")
                    self.log("FileVault enabled at this restart: waiting at the unlock screen")
                    self.wait_power_on()
                elif filevault and request != "authrestart":
                    # The FileVault unlock screen: no SSH until someone types a password
                    # (`maclab fault up HOST`). `fdesetup authrestart` skips it once.
                    self.set_power_state("locked")
                    self.log("FileVault: waiting at the unlock screen")
                    self.wait_power_on()


def main(argv):
    root, host = argv[0], argv[1]
    Supervisor(root, host).run()


if __name__ == "__main__":
    main(sys.argv[1:])
