"""Helpers every end-to-end test shares: drive `lab/maclab`, reach the simulated Macs over SSH or
from the controller side of their namespaces, read the lab's state and logs, run Ansible."""
import glob
import hashlib
import json
import os
import re
import resource
import shlex
import shutil
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MACLAB = os.path.join(REPO, "lab", "maclab")
# tests/report_schema.py: the one schema of report.json, shared with the unit tests.
if os.path.join(REPO, "tests") not in sys.path:
    sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.insert(0, os.path.join(REPO, "lab"))
from macsim import layout  # noqa: E402  (the lab's names and addresses, for its number $MACLAB_ID)

ROOT = os.environ.get("MACLAB_ROOT", layout.DEFAULT_ROOT)
VENV_BIN = os.path.join(REPO, ".venv", "bin")
INVENTORY = os.path.join(layout.INVENTORY_DIR, "hosts.yml")
HOSTS = ["mac1", "mac2", "mac3", "mac4"]


# Where the session keeps every log for the secrets scan (tests/e2e/lab/test_98_secrets.py): the
# ansible runs' output (ANSIBLE_LOG_PATH) and, before every `maclab down` wipes them, the lab's host
# logs with the secrets of that lab. Set by conftest.py's session fixture; None outside pytest.
LOG_DIR = None
# The directory holding LOG_DIR and those of the other streams of the same run (the secrets scan
# reads it all); LOG_DIR itself when the session runs alone.
LOG_ROOT = None
LAB_INVENTORY_VARS = os.path.join(layout.INVENTORY_DIR, "group_vars", "macs", "lab.yml")


def lab_secrets():
    """The secrets of the lab that is up: its become password and the token in its pip index URL."""
    found = {}
    try:
        with open(os.path.join(ROOT, "controller", "become_password")) as handle:
            found["become_password"] = handle.read().strip()
        with open(LAB_INVENTORY_VARS) as handle:
            url = re.search(r"^macops_pip_index_url: \S*://[^:/@\s]+:([^@\s]+)@", handle.read(), re.M)
        if url:
            found["pip_index_token"] = url.group(1)
    except OSError:
        pass
    return found


def archive_lab_logs():
    """Copy the host logs of the lab that is up, and its secrets, under LOG_DIR (a new directory
    per call); nothing without LOG_DIR or a lab."""
    hosts = sorted(glob.glob(os.path.join(ROOT, "hosts", "*", "log")))
    if not LOG_DIR or not hosts:
        return None
    target = os.path.join(LOG_DIR, "lab-%d" % len(glob.glob(os.path.join(LOG_DIR, "lab-*"))))
    for log_dir in hosts:
        shutil.copytree(log_dir, os.path.join(target, os.path.basename(os.path.dirname(log_dir))))
    with open(os.path.join(target, "secrets.json"), "w") as handle:
        json.dump(lab_secrets(), handle)
    os.chmod(os.path.join(target, "secrets.json"), 0o600)
    return target


def maclab(*args, check=True, timeout=180):
    if args[:1] == ("down",):
        archive_lab_logs()
        close_ssh_connections()
    proc = subprocess.run([sys.executable, MACLAB] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError("maclab %s failed (rc %d):\n%s%s" % (" ".join(args), proc.returncode,
                                                                 proc.stdout, proc.stderr))
    return proc


# The helpers' SSH sessions to a host share one connection (OpenSSH multiplexing): a new connection costs about 95 ms
# of CPU (its key exchange), a session over an open one about 1 ms, and the suite is CPU-bound (tests poll nodes over
# SSH). A shared connection ends 30 s after its last session, when its host goes down (a hung one within 6 s:
# ServerAlive), or at close_ssh_connections (maclab down, the session's end).
MUX_DIR = os.path.join(ROOT, "controller", "mux")


def ssh_argv(host):
    """`ssh` to a lab host through its shared connection, the lab's own ssh_config otherwise."""
    os.makedirs(MUX_DIR, exist_ok=True)
    return ["ssh", "-F", os.path.join(ROOT, "controller", "ssh_config"), "-o", "ControlMaster=auto",
            "-o", "ControlPath=%s/%%C" % MUX_DIR, "-o", "ControlPersist=30", "-o", "ServerAliveInterval=3",
            "-o", "ServerAliveCountMax=2", host, "--"]


def close_ssh_connections():
    """End every shared connection the helpers opened (each socket's master), so none outlives the lab or the run."""
    for socket_path in glob.glob(os.path.join(MUX_DIR, "*")):
        subprocess.run(["ssh", "-o", "ControlPath=" + socket_path, "-O", "exit", "lab-host"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)


def ssh(host, command, check=True, timeout=60):
    proc = subprocess.run(ssh_argv(host) + [command], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=timeout, stdin=subprocess.DEVNULL)
    if check and proc.returncode != 0:
        raise AssertionError("ssh %s %r failed (rc %d): %s" % (host, command, proc.returncode, proc.stderr))
    return proc


def in_netns(host, *argv):
    return subprocess.run(["ip", "netns", "exec", layout.netns(host)] + list(argv), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, check=True).stdout


def read_json(*parts):
    with open(os.path.join(ROOT, *parts)) as handle:
        return json.load(handle)


def on_host(host, path):
    """Where a node's absolute path lives on the controller (the lab keeps each node's files under ROOT)."""
    return os.path.join(ROOT, "hosts", host, "fs", path.lstrip("/"))


def file_digests(directory):
    """{name: sha256} of a directory's files, its dot-files (partial files, records, markers) left out."""
    found = {}
    for name in sorted(os.listdir(directory)) if os.path.isdir(directory) else []:
        if not name.startswith("."):
            with open(os.path.join(directory, name), "rb") as handle:
                found[name] = hashlib.sha256(handle.read()).hexdigest()
    return found


def valid_report(path):
    """report.json (the file, or the report directory holding it) read back, after checking it against
    docs/report.schema.json, the one schema every playbook's report follows (issue 31, acceptance 1)."""
    from report_schema import assert_valid_report

    if os.path.isdir(path):
        path = os.path.join(path, "report.json")
    with open(path) as handle:
        report = json.load(handle)
    assert_valid_report(report)
    return report


def log_lines(host, name):
    with open(os.path.join(ROOT, "hosts", host, "log", name)) as handle:
        return [json.loads(line) if name.endswith(("shim.log", "exec.log", "read.log")) else line for line in handle]


# A simulated boot's length on the suites' labs (conftest's `maclab up`): shorter than the lab's 5 s, as
# no end-to-end test measures how long a boot takes (benchmarks/reboot does, with its own
# --boot-seconds); a test that needs a longer boot sets it with the slow-boot fault.
BOOT_SECONDS = "2"

# The TB5 cables' shaped rate on the suites' labs (conftest's `maclab up`, and the converged lab's): a tenth of
# the lab's default, so that iperf3 reaches it on two cores while the three other end-to-end streams run beside
# (benchmark.yml's links suite judges every cable against it; a TB4 cable runs at a quarter of it, 100mbit).
# At 1gbit a slower CI machine measured two cables 17 % short, as a busy Mac's iperf3 would; at the default
# 4gbit iperf3 there reached 0.9 Gbit/s on a TB5 cable, no faster than a TB4 one. `maclab up`'s own default is
# test_00_plan's.
LINK_RATE = "400mbit"
# `maclab up`'s options for the suites' labs: the session's lab, and a lab a test brings up again.
LAB_UP = ("--ssh-timeout", "30", "--boot-seconds", BOOT_SECONDS, "--link-rate", LINK_RATE)


def tc_rate(rate):
    """A tc rate as `tc qdisc show` prints it (400mbit -> 400Mbit)."""
    return re.sub(r"([kmg])bit$", lambda m: m.group(1).upper() + "bit", rate)


def ansible_env(tmp_dir):
    cfg = os.path.join(tmp_dir, "ansible.cfg")
    with open(cfg, "w") as handle:
        handle.write("[defaults]\ngathering = explicit\nhost_key_checking = True\nforks = 8\n"
                     "stdout_callback = ansible.builtin.default\n"
                     # As the repository's ansible.cfg: the default 1 ms poll of the workers costs CPU all along a run.
                     "internal_poll_interval = 0.01\n"
                     # Ansible's default ssh_args without -C: compressing loopback traffic only costs CPU.
                     "[ssh_connection]\npipelining = True\ncontrol_path_dir = %s/cp\n"
                     "ssh_args = -o ControlMaster=auto -o ControlPersist=60s\n" % tmp_dir)
    env = dict(os.environ, ANSIBLE_CONFIG=cfg, ANSIBLE_LOCAL_TEMP=os.path.join(tmp_dir, "tmp"),
               ANSIBLE_COLLECTIONS_PATH=os.path.join(REPO, "collections"),
               ANSIBLE_NOCOLOR="1", PATH=VENV_BIN + os.pathsep + os.environ.get("PATH", ""))
    if LOG_DIR:
        # Every run's output, appended, for the secrets scan.
        env["ANSIBLE_LOG_PATH"] = os.path.join(LOG_DIR, "ansible.log")
    return env


def playbook_argv(playbook, *args, inventory=INVENTORY):
    """The command line of `ansible-playbook -i INVENTORY PLAYBOOK ARGS` from the controller's venv."""
    return [os.path.join(VENV_BIN, "ansible-playbook"), "-i", inventory, playbook] + list(args)


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def lane_cpu_seconds():
    """The CPU seconds this lane's cgroup has used (scripts/e2e_streams.sh puts each lane in a cpuacct cgroup: the
    nodes' side counts too), or None outside one."""
    try:
        with open("/proc/self/cgroup") as handle:
            path = next(line.rstrip("\n").split(":", 2)[2] for line in handle
                        if "cpuacct" in line.split(":", 2)[1].split(","))
        if not path.startswith("/macops-e2e-"):
            return None
        with open("/sys/fs/cgroup/cpuacct%s/cpuacct.usage" % path) as handle:
            return int(handle.read()) / 1e9
    except (OSError, StopIteration, ValueError, IndexError):
        return None


def record_test_cpu(test, seconds, lane_cpu):
    """One line in $JUNIT_DIR/tests_cpu.jsonl per test: its lane's CPU seconds while it ran (setup and teardown
    included), scripts/test_times.py summary lists the costliest."""
    directory = os.environ.get("JUNIT_DIR")
    if directory and lane_cpu is not None:
        line = json.dumps({"lab": layout.LAB_NUMBER, "test": test, "seconds": round(seconds, 1),
                           "lane_cpu": round(lane_cpu, 1)})
        with open(os.path.join(directory, "tests_cpu.jsonl"), "a") as handle:
            handle.write(line + "\n")


def record_playbook_run(playbook, args, seconds, controller_cpu, returncode):
    """One line in $JUNIT_DIR/playbooks.jsonl (make test sets JUNIT_DIR) per playbook run: which test ran
    which playbook, its wall time and the controller's CPU seconds (ansible-playbook, its workers and SSH
    clients; the nodes' side is not counted). The CI run is CPU-bound: scripts/test_times.py summary sums
    these per lab and playbook, so a slower run can be pinned on the runs that grew."""
    directory = os.environ.get("JUNIT_DIR")
    if not directory:
        return
    test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]
    line = json.dumps({"lab": layout.LAB_NUMBER, "test": test, "playbook": os.path.basename(playbook),
                       "args": " ".join(args)[:200], "seconds": round(seconds, 1),
                       "controller_cpu": round(controller_cpu, 1), "rc": returncode})
    # One write of a short line in append mode: the three lanes' lines do not interleave.
    with open(os.path.join(directory, "playbooks.jsonl"), "a") as handle:
        handle.write(line + "\n")


def run_playbook(playbook, *args, workdir, inventory=INVENTORY, env=None, cwd=None, timeout=900, check=True):
    """`ansible-playbook -i INVENTORY PLAYBOOK ARGS` against the lab with workdir's settings
    (ansible_env; env adds to them), run in cwd (workdir unless given: reports a playbook writes to a
    relative path land there). With check, a run that fails fails the test with its output's end.
    Returns the CompletedProcess."""
    run_env = ansible_env(workdir)
    run_env.update(env or {})
    started, cpu_before = time.time(), _children_cpu()
    proc = subprocess.run(playbook_argv(playbook, *args, inventory=inventory), stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                          env=run_env, timeout=timeout, cwd=cwd or workdir)
    record_playbook_run(playbook, args, time.time() - started, _children_cpu() - cpu_before, proc.returncode)
    if check:
        assert proc.returncode == 0, "%s %s failed (rc %d):\n%s\n%s\nthe tasks that failed:\n%s" % (
            os.path.basename(playbook), " ".join(args), proc.returncode, proc.stdout[-6000:],
            quiet_stderr(proc.stderr)[-2000:], failed_tasks(proc.stdout))
    return proc


def quiet_stderr(stderr):
    """A run's stderr without the warning every run prints (cryptography on Ansible's SSH agent code)."""
    return re.sub(r".*CryptographyDeprecationWarning.*\n.*from cryptography\.hazmat.*\n?", "", stderr)


def wait_until(predicate, timeout, interval=0.2, message="condition"):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError("timed out after %.0f s waiting for %s" % (timeout, message))


def sudo(host, command, check=True, timeout=60):
    """`sudo COMMAND` as the admin user over SSH, typing the lab's become password (sudo asks
    for it, as on a Mac)."""
    with open(os.path.join(ROOT, "controller", "become_password")) as handle:
        password = handle.read().strip()
    proc = subprocess.run(ssh_argv(host) + ["sudo -S -p '' /bin/sh -c %s" % shlex.quote(command)],
                          input=password + "\n", stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError("sudo on %s %r failed (rc %d): %s" % (host, command, proc.returncode, proc.stderr))
    return proc


# ---- Ansible's default stdout callback -------------------------------------------------------
_RECAP = re.compile(r"^(?P<host>\S+)\s+:\s+ok=(?P<ok>\d+)\s+changed=(?P<changed>\d+)\s+"
                    r"unreachable=(?P<unreachable>\d+)\s+failed=(?P<failed>\d+)"
                    r"(?:\s+skipped=(?P<skipped>\d+))?(?:\s+rescued=(?P<rescued>\d+))?"
                    r"(?:\s+ignored=(?P<ignored>\d+))?", re.M)
_TASK = re.compile(r"^TASK \[(?P<name>.*)\] \*+$")
_CHANGED = re.compile(r"^changed: \[(?P<host>[^\]]+)\]")
_FAILED = re.compile(r"^(fatal|failed): \[")


def recap(stdout):
    """{host: {ok, changed, unreachable, failed, skipped, rescued, ignored}} from the PLAY RECAP
    (the counts the callback printed)."""
    return dict((m.group("host"), dict((k, int(v)) for k, v in m.groupdict().items() if k != "host" and v is not None))
                for m in _RECAP.finditer(stdout))


def _changed_events(stdout):
    """(host, task name) for every `changed:` line, in output order."""
    task = None
    for line in stdout.splitlines():
        header = _TASK.match(line)
        if header:
            task = header.group("name")
            continue
        changed = _CHANGED.match(line)
        if changed and task is not None:
            yield changed.group("host"), task


def failed_tasks(stdout, limit=3000):
    """The task and the `fatal:`/`failed:` block of each failure in a run's output, last in an assertion's message:
    CI's summary of a failed test shows a message's first line and its end."""
    blocks, task = [], None
    lines = stdout.splitlines()
    for index, line in enumerate(lines):
        header = _TASK.match(line)
        if header:
            task = header.group("name")
        elif _FAILED.match(line):
            block = ["TASK [%s]" % task, line]
            for following in lines[index + 1:index + 25]:
                if not following.startswith(" "):
                    break
                block.append(following)
            blocks.append("\n".join(block))
    return "\n".join(blocks)[-limit:] or "(none printed)"


def changed_tasks(stdout):
    """{host: [task names that reported changed, in order]}; loop items count once per task."""
    found = {}
    for host, task in _changed_events(stdout):
        names = found.setdefault(host, [])
        if not names or names[-1] != task:
            names.append(task)
    return found


def changed_task_names(stdout):
    """Names of the tasks that reported changed on any host, each once, in order."""
    names = []
    for _, task in _changed_events(stdout):
        if task not in names:
            names.append(task)
    return names
