"""One lab per test session, shared by every end-to-end test: `maclab up` (the default 4-Studio
mesh) before the first test that asks for it, `maclab down` after the last."""
import json
import os
import subprocess
import time

import pytest

import labtools
from labtools import (INVENTORY, LAB_UP, REPO, VENV_BIN, ansible_env, lane_cpu_seconds, maclab, read_json,
                      record_test_cpu, run_playbook)

SITE = os.path.join(REPO, "site.yml")


@pytest.fixture(scope="session", autouse=True)
def e2e_logs(tmp_path_factory):
    """Every log of the session, for the secrets scan: Ansible's output and the lab's host logs
    (labtools.LOG_DIR). With MACLAB_E2E_LOGS (make e2e: its streams on labs 0 and 1, then the
    secrets scan) the logs go to that directory's lab<n>/, and the scan reads all of it."""
    shared = os.environ.get("MACLAB_E2E_LOGS")
    if shared:
        labtools.LOG_ROOT = shared
        labtools.LOG_DIR = os.path.join(shared, "lab%d" % labtools.layout.LAB_NUMBER)
        os.makedirs(labtools.LOG_DIR, exist_ok=True)
    else:
        labtools.LOG_DIR = labtools.LOG_ROOT = str(tmp_path_factory.mktemp("e2e-logs"))
    yield labtools.LOG_DIR
    labtools.LOG_DIR = labtools.LOG_ROOT = None


@pytest.fixture(scope="session")
def lab_shape():
    """`maclab up`'s options for the session's lab beyond the defaults (a lane's conftest may ask for more)."""
    return ()


@pytest.fixture(scope="session")
def lab(lab_shape):
    """The session's lab, fresh from `maclab up`; with MACLAB_REUSE=1 the lab that is up as it is
    (make e2e's secrets scan, after the streams, on the converged lab molecule goes on with)."""
    if os.geteuid() != 0:
        pytest.skip("the lab needs root")
    started = time.time()
    if os.environ.get("MACLAB_REUSE") == "1" and os.path.exists(os.path.join(labtools.ROOT, "lab.json")):
        maclab("wait", "--timeout", "60")  # as it is: `up` with other options would rebuild it
    else:
        maclab("down")
        maclab("up", *(LAB_UP + tuple(lab_shape)))
    up_seconds = time.time() - started
    yield {"up_seconds": up_seconds, "lab": read_json("lab.json")}
    labtools.close_ssh_connections()
    # make test hands the converged lab on to molecule, whose destroy takes it down.
    if os.environ.get("MACLAB_KEEP_UP") != "1":
        maclab("down")


@pytest.fixture(scope="session")
def ansible(lab, tmp_path_factory):
    tmp_dir = str(tmp_path_factory.mktemp("ansible"))
    env = ansible_env(tmp_dir)

    def run(pattern, module, module_args="", become=False, extra=(), check=True, json_out=False):
        argv = [os.path.join(VENV_BIN, "ansible"), "-i", INVENTORY, pattern, "-m", module]
        if module_args:
            argv += ["-a", module_args]
        if become:
            argv.append("--become")
        argv += list(extra)
        run_env = dict(env, ANSIBLE_STDOUT_CALLBACK="ansible.builtin.json", ANSIBLE_LOAD_CALLBACK_PLUGINS="1") \
            if json_out else env
        proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                              env=run_env, timeout=300)
        if check and proc.returncode != 0:
            raise AssertionError("%s failed (rc %d):\n%s\n%s" % (" ".join(argv), proc.returncode,
                                                                proc.stdout[-4000:], proc.stderr[-2000:]))
        if json_out:
            return proc, json.loads(proc.stdout)
        return proc

    def playbook(text, check=True, extra=()):
        path = os.path.join(tmp_dir, "play-%d.yml" % int(time.time() * 1000))
        with open(path, "w") as handle:
            handle.write(text)
        return run_playbook(path, *extra, workdir=tmp_dir, cwd=REPO, check=check, timeout=600)

    run.playbook = playbook
    return run


# Run last, whatever directory it sits in: the secrets scan reads every log the other tests
# produced. (`test_99_down.py` runs with the other lab tests, before anything converges the lab, and
# brings the shared lab up again: make test hands the converged lab on to molecule and the benchmark
# smoke runs, which a down at the end would make build and converge a lab of their own.)
RUN_LAST = {"test_98_secrets.py": 1}


def pytest_collection_modifyitems(items):
    items.sort(key=lambda item: RUN_LAST.get(os.path.basename(str(item.fspath)), 0))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):  # noqa: ARG001 - pytest's hook signature
    """What each test cost its lane's CPU (labtools.record_test_cpu), where make e2e measures lanes."""
    before, started = lane_cpu_seconds(), time.monotonic()
    yield
    after = lane_cpu_seconds()
    if before is not None and after is not None:
        record_test_cpu(item.nodeid, time.monotonic() - started, after - before)


@pytest.fixture(scope="module")
def fresh_lab(lab):
    """A fresh `maclab up` for a test module that needs nodes nothing has converged yet (earlier
    suites share the session's lab and leave their changes on it)."""
    maclab("down")
    maclab("up", *LAB_UP)
    return lab


@pytest.fixture(scope="session")
def site(lab, tmp_path_factory):
    """Run the repository's site.yml against the lab: site(*extra_args, check=True) -> process."""
    tmp_dir = str(tmp_path_factory.mktemp("site"))

    def run(*extra, check=True, timeout=1800):
        return run_playbook(SITE, *extra, workdir=tmp_dir, check=check, timeout=timeout)

    run.workdir = tmp_dir
    return run


# An external SSD on a free Thunderbolt port while the lab converges, as owners plug one in to hold the
# models (host, receptacle): the 4-Studio mesh leaves receptacles 5 and 6 free. test_site_devices
# judges what the runs made of it.
CONVERGED_DRIVE = ("mac1", "6")


@pytest.fixture(scope="session")
def converged(site):
    """The lab converged once per test session by site.yml, as the issue's CI budget asks:
    `--check --diff` on the fresh lab first (what it predicts), then the real run, then the
    idempotence run, with a drive on one port (CONVERGED_DRIVE) unplugged after them. Tests that
    break something repair only what they broke. Earlier suites converge parts of the lab their own
    way, so the lab is made fresh first: acceptance 1 starts from a fresh `maclab up`."""
    maclab("down")
    maclab("up", *LAB_UP)
    maclab("fault", "ssd", *CONVERGED_DRIVE)
    started = time.time()
    predicted = site("--check", "--diff")
    check_seconds = time.time() - started
    first = site()
    # The shim logs' length per node before the idempotence run: what it ran is what follows.
    shim_marks = dict((host, len(labtools.log_lines(host, "shim.log"))) for host in labtools.HOSTS)
    second = site()
    # The entries themselves, not their positions: a later suite may rebuild the lab (fresh_lab),
    # which starts every log afresh, so positions kept until a test reads them would point elsewhere.
    second_shim = dict((host, labtools.log_lines(host, "shim.log")[shim_marks[host]:]) for host in labtools.HOSTS)
    # Later tests run site.yml again with narrow tags, which rewrites the report with only the
    # roles they ran: keep the idempotence run's report as it was.
    with open(os.path.join(site.workdir, "artifacts", "report", "report.json")) as handle:
        report = json.load(handle)
    with open(os.path.join(site.workdir, "artifacts", "report", "report.md")) as handle:
        report_md = handle.read()
    maclab("fault", "clear")  # the drive: later tests inject faults of their own
    return {"check": predicted, "first": first, "second": second, "check_seconds": check_seconds,
            "report": report, "report_md": report_md, "second_shim": second_shim,
            "drive": dict(zip(("host", "receptacle"), CONVERGED_DRIVE))}
