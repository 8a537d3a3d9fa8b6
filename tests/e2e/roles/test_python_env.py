"""python_env on the lab: Homebrew python@3.12 (run as the admin user), one venv at the same
path on every node from the lab's package index, its version published, idempotent, and bad
input refused before anything changes."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "support"))
from labtools import HOSTS, log_lines, ssh  # noqa: E402
from software import LAB_VARS, converge  # noqa: E402

VENV = LAB_VARS["macops_venv_path"]


@pytest.fixture(scope="module")
def first_run(ansible, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("python_env")
    return converge(ansible, tmp, ["python_env"]), tmp


def test_venv_runs_homebrew_python_312_on_every_node(first_run):
    (_, facts, _), _ = first_run
    for host in HOSTS:
        version = ssh(host, "%s/bin/python -c 'import platform; print(platform.python_version())'" % VENV).stdout
        assert version.startswith("3.12."), host
        assert facts[host]["macops_python_env"]["version"] == version.strip()
        assert facts[host]["macops_python_env"]["interpreter"] == "/opt/homebrew/bin/python3.12"
        cfg = ssh(host, "cat %s/pyvenv.cfg" % VENV).stdout
        assert "3.12" in cfg
        owner = ssh(host, "stat -c %%U %s/bin 2>/dev/null || stat -f %%Su %s/bin" % (VENV, VENV)).stdout.strip()
        assert owner == "admin", host


def test_brew_ran_as_the_admin_user_not_root(first_run):
    brew_calls = [e for e in log_lines("mac1", "shim.log") if e["argv"][0].endswith("brew")]
    assert brew_calls and all(e["uid"] != 0 for e in brew_calls)


def test_packages_come_from_the_configured_index(first_run):
    (proc, _, _), _ = first_run
    pip_conf = ssh("mac2", "%s/bin/python -m pip config list" % VENV, check=False).stdout
    assert "198.18.0.1" not in pip_conf  # the index is passed per call, never written into the venv
    assert proc.returncode == 0


def test_second_run_changes_nothing(ansible, first_run):
    _, tmp = first_run
    _, _, counts = converge(ansible, tmp, ["python_env"])
    assert {h: c["changed"] for h, c in counts.items()} == {h: 0 for h in HOSTS}


@pytest.mark.parametrize("bad, named", [
    ({"python_env_interpreter_source": "conda"}, "python_env_interpreter_source"),
    ({"python_env_interpreter_source": "path", "python_env_interpreter_path": "python3"}, "python_env_interpreter_path"),
    ({"python_env_wheelhouse_dir": "/nonexistent/wheels"}, "python_env_wheelhouse_dir"),
])
def test_bad_input_fails_before_any_change(ansible, first_run, bad, named):
    _, tmp = first_run
    proc, _, counts = converge(ansible, tmp, ["python_env"], bad, check=False)
    assert proc.returncode != 0 and named in proc.stdout
    assert all(c["changed"] == 0 for c in counts.values())
