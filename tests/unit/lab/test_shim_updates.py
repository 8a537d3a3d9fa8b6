"""softwareupdate --install and the volume owners (diskutil apfs, dscl's GeneratedUID): an offered update is
downloaded and prepared with `Downloading: n%` lines, then the host restarts into its build; a wrong password or
an account that owns no volume fails with "Failed to authenticate"; the update-hang fault never restarts. Apple's full
installer: listed, fetched into /Applications, and its startosinstall (somebody at the screen, the owner's password on
stdin) restarts the host into its build."""
import os
import subprocess
import time
from statistics import median

import pytest
from shimlab import LAB_DIR, power_request, wait_exit  # noqa: F401 - LAB_DIR puts macsim on sys.path

from macsim import faults_settings
from macsim.shims import updates

PASSWORD = "owner-s3cret"


@pytest.fixture()
def offered(lab):
    """mac1 offers macOS 26.3 (25D60), installs it in a moment, and its admin's password is PASSWORD."""
    hashed = subprocess.run(["openssl", "passwd", "-6", "-salt", "labsalt", "-stdin"], input=PASSWORD,
                            stdout=subprocess.PIPE, universal_newlines=True, check=True).stdout.strip()
    os.makedirs(os.path.join(lab.fs, "etc"), exist_ok=True)
    with open(os.path.join(lab.fs, "etc", "shadow"), "w") as handle:
        handle.write("root:*:20000:0:99999:7:::\nadmin:%s:20000:0:99999:7:::\n" % hashed)
    with lab.edit_state() as state:
        state["pending_updates"] = [faults_settings.macos_update("26.3", "25D60")]
        state["update_seconds"] = 0.2
    return lab


LABEL = "macOS Tahoe 26.3-25D60"


def install(lab, *extra, **kw):
    return lab.run_process("softwareupdate", "--install", kw.pop("label", LABEL), "--restart", "--agree-to-license",
                           *extra, input=kw.pop("password", PASSWORD) + "\n", **kw)


def test_the_offered_update_is_listed_with_its_build_in_the_label(offered):
    listed = offered.run("softwareupdate", "--list").out
    assert "* Label: macOS Tahoe 26.3-25D60\n\tTitle: macOS Tahoe 26.3, Version: 26.3, Size: 3829595KiB, " in listed


def test_a_security_response_is_offered_listed_and_installed_as_macos_26_does_it(offered, fake_launchd):
    """Issue 48: the Background Security Improvement 26.3.1 (a) offered on 26.3.1: listed in a real capture's shape
    (our parser reads its letter and its eight-digit build), installed like any macOS update, and the host restarts
    carrying it."""
    from ansible_collections.macops.cluster.plugins.module_utils import _softwareupdate
    from macsim.profiles import os_info

    with offered.edit_state() as state:
        state["os"] = os_info("26.3.1", "25D2128")
        state["pending_updates"] = [faults_settings.macos_update("26.3.1 (a)", "25D771280a")]
    listed = offered.run("softwareupdate", "--list").out
    assert ("* Label: macOS Background Security Improvement (a)-25D771280a\n\tTitle: macOS Background Security "
            "Improvement (a), Version: 26.3.1 (a), Size: 208896KiB, ") in listed
    [parsed] = _softwareupdate.parse_list(listed)
    assert (parsed["version"], parsed["version_extra"], parsed["build"]) == ("26.3.1", "(a)", "25D771280a")
    result = install(offered, "--user", "admin", "--stdinpass", label=parsed["label"],
                     env={"MACLAB_INIT_PID": str(fake_launchd.pid)})
    assert result.rc == 0, result
    assert power_request(offered) == "authrestart" and wait_exit(fake_launchd, 5) == -15
    state = offered.state()
    assert updates.staged_boot(state) and state["os"] == {"version": "26.3.1", "extra": "(a)", "build": "25D771280a",
                                                          "darwin": "25.3.0"}


def test_an_install_downloads_prepares_and_restarts_into_the_new_build(offered, fake_launchd):
    result = install(offered, "--user", "admin", "--stdinpass", env={"MACLAB_INIT_PID": str(fake_launchd.pid)})
    assert result.rc == 0, result
    lines = result.out.splitlines()
    assert lines[:4] == ["Software Update Tool", "", "Finding available software", "Downloading macOS Tahoe 26.3"]
    assert "Downloading: 0.10%" in lines and "Downloading: 100.00%" in lines
    assert lines[-1] == "Downloaded: macOS Tahoe 26.3"
    assert offered.state()["staged_update"] == {"version": "26.3", "build": "25D60", "label": LABEL}
    assert power_request(offered) == "authrestart" and wait_exit(fake_launchd, 5) == -15
    state = offered.state()
    assert updates.staged_boot(state) and state["os"] == {"version": "26.3", "build": "25D60", "darwin": "25.3.0"}
    assert state["pending_updates"] == [] and "staged_update" not in state
    assert not updates.staged_boot(state)


def download(lab, password=PASSWORD, **kw):
    return lab.run_process("softwareupdate", "--download", LABEL, "--agree-to-license", "--user", "admin",
                           "--stdinpass", input=password + "\n", **kw)


def test_a_download_prepares_the_update_and_restarts_nothing_then_its_install_restarts_at_once(offered, fake_launchd):
    """Issue 48: `softwareupdate --download` (authenticated, as on Apple silicon since macOS 14) downloads and
    prepares while the node keeps running, proves the password after `Downloaded:`, and leaves the update prepared,
    not staged: a plain restart would not install it. Its install then takes PREPARED_SHARE of U and restarts."""
    with offered.edit_state() as state:
        state["update_seconds"] = 4.0
    started = time.monotonic()
    fetched = download(offered)
    assert fetched.rc == 0 and time.monotonic() - started >= 3.6, fetched
    assert "Downloading: 100.00%" in fetched.out and fetched.out.endswith("Downloaded: macOS Tahoe 26.3\nDone.\n")
    state = offered.state()
    assert state["prepared_update"] == LABEL and "staged_update" not in state
    assert not os.path.exists(os.path.join(offered.host_dir(), "run", "power_request"))
    started = time.monotonic()
    result = install(offered, "--user", "admin", "--stdinpass", env={"MACLAB_INIT_PID": str(fake_launchd.pid)})
    # Its share of U (updates.PREPARED_SHARE), not all of it: well under U even on a busy machine.
    assert result.rc == 0 and time.monotonic() - started < 3.0, result
    assert power_request(offered) == "authrestart" and wait_exit(fake_launchd, 5) == -15
    state = offered.state()
    assert updates.staged_boot(state) and "prepared_update" not in state


def test_a_download_with_a_wrong_password_fails_after_downloaded_and_prepares_nothing(offered):
    fetched = download(offered, password="wrong")
    assert (fetched.rc, fetched.err) == (1, "Failed to authenticate\n") and "Downloaded:" in fetched.out
    assert "prepared_update" not in offered.state()
    assert download(offered, uid=65534).err == updates.NOT_ROOT


@pytest.mark.parametrize("user, password", [("admin", "wrong"), ("nobody", PASSWORD)])
def test_a_wrong_password_or_an_account_that_owns_no_volume_fails_to_authenticate(offered, user, password):
    result = install(offered, "--user", user, "--stdinpass", password=password)
    assert (result.rc, result.err) == (1, "Failed to authenticate\n")
    assert "Downloaded: macOS Tahoe 26.3" in result.out and "staged_update" not in offered.state()
    assert PASSWORD not in " ".join(result.out.split())


def test_what_an_install_refuses(offered):
    assert install(offered, "--user", "admin").err == updates.NEEDS_CREDENTIALS  # no --stdinpass
    assert install(offered, "--user", "admin", "--stdinpass", uid=65534).err == updates.NOT_ROOT
    other = install(offered, "--user", "admin", "--stdinpass", label="macOS Tahoe 26.3-25D99")
    assert (other.rc, other.err) == (1, updates.NO_SUCH_UPDATE)  # a newer build replaced the label
    with offered.edit_state() as state:
        state.setdefault("faults", {})["disk_full_bytes"] = 10 * 10 ** 9
    full = install(offered, "--user", "admin", "--stdinpass")
    assert full.rc == 1 and full.err.startswith("Not enough free disk space")


def test_a_full_installer_is_listed_fetched_and_its_startosinstall_restarts_into_its_build(offered, fake_launchd):
    """Issue 48: a host softwareupdate offers only a newer build reaches the asked one with Apple's full installer."""
    from ansible_collections.macops.cluster.plugins.module_utils import _softwareupdate
    from macsim.shims import installers

    with offered.edit_state() as state:
        state["full_installers"] = [faults_settings.full_installer("26.4", "25E56"),
                                    faults_settings.full_installer("26.3", "25D60")]
    listed = _softwareupdate.parse_full_installers(offered.run("softwareupdate", "--list-full-installers").out)
    assert [(e["title"], e["version"], e["build"], e["deferred"]) for e in listed] == [
        ("macOS Tahoe", "26.4", "25E56", False), ("macOS Tahoe", "26.3", "25D60", False)]
    assert offered.run("softwareupdate", "--fetch-full-installer", "--full-installer-version", "26.9").err == (
        installers.NOT_FOUND)
    fetched = offered.run("softwareupdate", "--fetch-full-installer", "--full-installer-version", "26.3")
    assert fetched.rc == 0 and "Installing: 100.0%" in fetched.out, fetched
    assert _softwareupdate.parse_install(fetched.out)["downloaded"]
    tool = os.path.join(offered.fs, "Applications/Install macOS Tahoe.app/Contents/Resources/startosinstall")
    assert os.path.islink(tool) and offered.state()["fetched_installer"]["build"] == "25D60"
    argv = ["--agreetolicense", "--forcequitapps", "--nointeraction", "--user", "admin", "--stdinpass"]
    env = {"MACLAB_INIT_PID": str(fake_launchd.pid)}
    # Nobody at the screen (erase-install refuses then), a wrong password: refused, nothing staged.
    nobody = offered.run_process("startosinstall", *argv, input=PASSWORD + "\n", env=env)
    assert (nobody.rc, nobody.err) == (1, installers.NEEDS_LOGIN)
    with offered.edit_state() as state:
        state["console_user"] = "admin"
    assert offered.run("stat", "-f", "%Su", "/dev/console").out == "admin\n"
    wrong = offered.run_process("startosinstall", *argv, input="wrong\n", env=env)
    assert (wrong.rc, wrong.err) == (1, installers.FAILED_AUTH) and "staged_update" not in offered.state()
    ran = offered.run_process("startosinstall", *argv, input=PASSWORD + "\n", env=env)
    assert ran.rc == 0 and "Preparing to run macOS Installer..." in ran.out, ran
    assert _softwareupdate.parse_install(ran.out)["downloaded"] and PASSWORD not in ran.out
    assert power_request(offered) == "authrestart" and wait_exit(fake_launchd, 5) == -15
    state = offered.state()
    assert updates.staged_boot(state) and state["os"]["build"] == "25D60" and "fetched_installer" not in state


def test_the_hang_fault_stops_after_downloaded_without_a_restart(offered):
    with offered.edit_state() as state:
        state.setdefault("faults", {})["update_hang"] = True
    link = os.path.join(offered.root, "bin", "softwareupdate")
    offered.run("softwareupdate", "--list")
    os.makedirs(os.path.dirname(link), exist_ok=True)
    if not os.path.lexists(link):
        os.symlink(os.path.join(LAB_DIR, "macsim", "shim.py"), link)
    proc = subprocess.Popen(["/usr/bin/python3", link, "--install", LABEL, "--restart", "--user", "admin",
                             "--stdinpass"], env=dict(os.environ, **offered.env()), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, universal_newlines=True)
    proc.stdin.write(PASSWORD + "\n")
    proc.stdin.close()
    deadline = time.time() + 10
    while time.time() < deadline and "staged_update" not in offered.state():
        time.sleep(0.1)
    time.sleep(0.5)
    try:
        assert proc.poll() is None and offered.state()["staged_update"]["build"] == "25D60"
        assert not os.path.exists(os.path.join(offered.host_dir(), "run", "power_request"))
    finally:
        proc.kill()
        proc.wait()


def test_volume_owners_are_listed_by_guid_and_their_password_verified_from_stdin(offered):
    with offered.edit_state() as state:  # root: an account this machine's own passwd has, for dscl to read
        state["volume_owners"] = ["root", "admin"]
    root = offered.run("dscl", ".", "-read", "/Users/root", "GeneratedUID").out
    assert root.startswith("GeneratedUID: ")
    users = offered.run("diskutil", "apfs", "listUsers", "/").out
    assert ("+-- %s\n|   Type: Local Open Directory User\n|   Volume Owner: Yes\n" % root.split()[-1]) in users
    guid = [line[4:] for line in users.splitlines() if line.startswith("+-- ")][1]  # admin's
    assert "+-- %s\n    Type: Personal Recovery User\n    Volume Owner: Yes\n" % updates.PERSONAL_RECOVERY_GUID in users
    assert guid in offered.run("diskutil", "apfs", "listcryptousers", "/").out
    assert "Volume Owner" not in offered.run("diskutil", "apfs", "listcryptousers", "/").out
    verify = ("diskutil", "apfs", "unlockVolume", "/", "-user", guid, "-stdinpassphrase", "-verify")
    assert offered.run_process(*verify, input=PASSWORD + "\n").rc == 0
    assert offered.run_process(*verify, input="wrong\n").rc == 1
    assert offered.run_process(*verify[:5] + (updates.PERSONAL_RECOVERY_GUID,) + verify[6:],
                               input=PASSWORD + "\n").rc == 1


def test_the_auth_fault_fails_to_authenticate_with_the_right_password(offered):
    with offered.edit_state() as state:
        state.setdefault("faults", {})["update_auth_fails"] = True
    result = install(offered, "--user", "admin", "--stdinpass")
    assert (result.rc, result.err) == (1, "Failed to authenticate\n") and "Downloaded:" in result.out
    assert "staged_update" not in offered.state()


def test_each_update_phase_takes_its_share_of_u_drawn_within_the_jitter():
    """Issue 48: one setting (U) scales every phase; the jitter draws each phase's time within +-J of its share."""
    state = {"update_seconds": 100.0}
    assert updates.phase_seconds(state, 1.0) == 100.0 and updates.phase_seconds(state, updates.SHUTDOWN_SHARE) == 5.0
    state["update_jitter"] = 0.5
    drawn = [updates.phase_seconds(state, 1.0) for _ in range(200)]
    assert 50.0 <= min(drawn) < 70.0 and 130.0 < max(drawn) <= 150.0
    staged = {"update_seconds": 100.0, "os": {}, "pending_updates": [],
              "staged_update": {"version": "26.3", "build": "25D60", "label": LABEL}}
    assert updates.staged_boot(staged) == 100.0 * updates.INSTALL_AT_BOOT_SHARE  # the install at boot, SSH down


def lab_paths(root):
    """A lab root with no fault recorded and mac1's run directory (the faults' signals lock)."""
    from macsim import layout, statefile
    paths = layout.Paths(str(root))
    os.makedirs(paths.host_file("mac1", "run"))
    statefile.write_json(paths.lab_json, {"faults": []})
    return paths


def test_the_slow_build_fault_takes_effect_at_the_boot_of_the_new_build_and_its_throttle_slows_the_host(monkeypatch,
                                                                                                        tmp_path):
    """Fault update-slows (issue 48, the canary's regression): the boot of the staged build marks the host slower, and
    the supervisor's throttle then pauses every process of it for its share of each period: a busy loop on the host
    counts far fewer turns, and all of them again once the fault is gone."""
    from macsim import net, supervisor
    staged = {"update_seconds": 1.0, "os": {}, "pending_updates": [], "faults": {"update_slows": 90},
              "staged_update": {"version": "26.3", "build": "25D60", "label": LABEL}}
    assert updates.staged_boot(staged) and staged["slow_percent"] == 90 and "update_slows" not in staged["faults"]
    loop = subprocess.Popen(["python3", "-c", "import sys, time\nwhile True:\n    end, n = time.time() + 0.5, 0\n"
                             "    while time.time() < end:\n        n += 1\n    print(n, flush=True)"],
                            stdout=subprocess.PIPE, universal_newlines=True)

    class Host(object):
        host, percent, paths = "mac1", 90, lab_paths(tmp_path)

        def slow_percent(self):
            return self.percent

    try:
        monkeypatch.setattr(net, "host_processes", lambda host, pid: [loop.pid])
        free = [int(loop.stdout.readline()) for _ in range(3)]
        host = Host()
        throttle = supervisor.Throttle(host, 1, host.percent)
        throttle.start()
        # A turn counted under the throttle: the wall clock runs on while the loop is paused.
        slowed = [int(loop.stdout.readline()) for _ in range(4)][1:]
        host.percent = 0  # the fault cleared: the throttle ends within a second and continues the host
        throttle.join(3)
        assert not throttle.is_alive()
        again = [int(loop.stdout.readline()) for _ in range(4)][2:]
    finally:
        loop.kill()
        loop.wait()
    # Paused 90 % of the time: a tenth of the turns in theory; under half with the machine busy elsewhere (a process
    # continued gets the cores first, so on a busy machine a pause costs it less than its share of the time).
    # Medians: on a busy machine one period of a free run can be slow too.
    assert median(slowed) < 0.5 * median(free) and min(again) > median(slowed), (free, slowed, again)


def process_states(pids, seconds):
    """Each pid's scheduler states (R, S, T...) seen over `seconds`, read every 5 ms."""
    seen = dict((pid, set()) for pid in pids)
    end = time.time() + seconds
    while True:
        for pid in pids:
            with open("/proc/%d/stat" % pid) as handle:
                seen[pid].add(handle.read().rsplit(")", 1)[1].split()[0])
        if time.time() >= end:
            return seen
        time.sleep(0.005)


def test_the_throttle_never_continues_what_a_hung_rank_or_a_hung_host_keeps_stopped(monkeypatch, tmp_path):
    """A slower build's throttle beside fault serve-hung and fault hang on the same host: the hung rank, then the
    hung host, stay stopped however the throttle cycles (each fault comes while the throttle most likely has the
    host paused, 90 % of the time, where a SIGSTOP changes nothing and the throttle's SIGCONT would end it), and
    once the faults are cleared the throttle pauses and continues every process again."""
    import signal

    from macsim import faultbase, net, statefile, supervisor
    paths = lab_paths(tmp_path)
    busy = ["python3", "-c", "while True: pass"]
    rank, other = subprocess.Popen(busy), subprocess.Popen(busy)

    class Host(object):
        host = "mac1"

        def __init__(self):
            self.paths = paths

        def slow_percent(self):
            return 90

    def fault(kind, pid, saved):
        with faultbase.signals_lock(paths, "mac1"):
            os.kill(pid, signal.SIGSTOP)
            faultbase.record(paths, kind, ["mac1"], saved)
        # A stop takes effect once the process next runs: on a busy machine it can still read R for a moment.
        deadline = time.time() + 5
        while "T" not in process_states([pid], 0)[pid] and time.time() < deadline:
            time.sleep(0.005)

    monkeypatch.setattr(net, "host_processes", lambda host, pid: [rank.pid, other.pid])
    throttle = supervisor.Throttle(Host(), 1, 90)
    throttle.start()
    try:
        time.sleep(0.35)
        fault("serve-hung", rank.pid, rank.pid)  # outside a PID namespace, the host's pid is the root one
        hung_rank = process_states([rank.pid, other.pid], 1.0)
        fault("hang", other.pid, 1)
        hung_host = process_states([rank.pid, other.pid], 1.0)
        statefile.write_json(paths.lab_json, {"faults": []})  # fault clear: the records gone, then SIGCONT
        for pid in (rank.pid, other.pid):
            os.kill(pid, signal.SIGCONT)
        cleared = process_states([rank.pid, other.pid], 1.0)
    finally:
        throttle.ended.set()
        throttle.join(3)
        for proc in (rank, other):
            proc.kill()
            proc.wait()
    assert hung_rank[rank.pid] == {"T"} and {"R", "T"} <= hung_rank[other.pid], hung_rank
    assert hung_host == {rank.pid: {"T"}, other.pid: {"T"}}, hung_host
    assert all({"R", "T"} <= states for states in cleared.values()), cleared
