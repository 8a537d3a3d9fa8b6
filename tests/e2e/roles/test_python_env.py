"""python_env on the lab: one venv at the same path on every node from the lab's package index,
its version published, idempotent, predicted by check mode, bad input refused before anything
changes; and the Homebrew source, run as the admin user, where the lab has Homebrew."""
import os
import re
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "support"))
from labtools import HOSTS, LAB_INVENTORY_VARS, log_lines, ssh  # noqa: E402
from macsim import layout  # noqa: E402
from software import LAB_VARS, changed_tasks, converge, lab_interpreter_vars  # noqa: E402

VENV = LAB_VARS["macops_venv_path"]
STATE = "/Library/Application Support/macops"


def venv_version(host):
    return ssh(host, "%s/bin/python -c 'import platform; print(platform.python_version())'" % VENV,
               check=False).stdout.strip()


@pytest.fixture(scope="module")
def first_run(ansible, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("python_env")
    # Other tests of the session may have built the venv already; start from a fresh node.
    ansible("macs", "ansible.builtin.file", "path=%s state=absent" % VENV, become=True)
    predicted = converge(ansible, tmp, ["python_env"], lab_interpreter_vars(), flags=["--check"])
    assert all(venv_version(h) == "" for h in HOSTS), "check mode must not build the venv"
    return predicted, converge(ansible, tmp, ["python_env"], lab_interpreter_vars()), tmp


def test_venv_runs_python_312_on_every_node(first_run):
    _, (_, facts, _), _ = first_run
    for host in HOSTS:
        version = venv_version(host)
        assert version.startswith("3.12."), host
        assert facts[host]["macops_python_env"]["version"] == version
        assert facts[host]["macops_python_env"]["python"] == VENV + "/bin/python"
        owner = ssh(host, "stat -f %%Su %s/bin" % VENV).stdout.strip()
        assert owner == "admin", host


def lab_index_url():
    with open(LAB_INVENTORY_VARS) as handle:
        return re.search(r"^macops_pip_index_url: (\S+)$", handle.read(), re.M).group(1)


def test_the_index_and_its_token_reach_pip_in_a_file_never_on_a_command_line(first_run):
    """The lab's index URL carries a token, as an internal mirror's may."""
    _, (_, facts, _), _ = first_run
    url = lab_index_url()
    token = re.match(r"http://maclab:([^@]+)@%s:8101/simple/$" % re.escape(layout.CONTROLLER_IP), url).group(1)
    env = facts["mac1"]["macops_python_env"]
    # The lab's own pip argument (no byte-compiling on two cores), never the index or its token.
    assert env["pip_args"] == "--no-compile" and env["pip_environment"] == {"PIP_CONFIG_FILE": STATE + "/pip.conf"}
    for host in HOSTS:
        # only the admin user (who runs pip) can read it
        assert ssh(host, "stat -f '%%Su %%Lp' '%s/pip.conf'" % STATE).stdout.split() == ["admin", "600"]
        conf = ssh(host, "cat '%s/pip.conf'" % STATE).stdout
        assert "index-url = %s\n" % url in conf and "trusted-host = %s\n" % layout.CONTROLLER_IP in conf
        pip_runs = [" ".join(e["argv"]) for e in log_lines(host, "exec.log") if "pip" in " ".join(e["argv"])]
        assert any(" install " in run for run in pip_runs), pip_runs  # pip ran, and got the index from the file
        assert not [run for run in pip_runs if token in run or "--index-url" in run]


def test_check_mode_predicted_the_real_changes(first_run):
    (check_proc, _, _), (real_proc, _, _), _ = first_run
    assert changed_tasks(check_proc.stdout) == changed_tasks(real_proc.stdout)


def test_second_run_changes_nothing(ansible, first_run):
    _, _, tmp = first_run
    proc, _, counts = converge(ansible, tmp, ["python_env"], lab_interpreter_vars())
    assert {h: c["changed"] for h, c in counts.items()} == {h: 0 for h in HOSTS}, changed_tasks(proc.stdout)


@pytest.mark.parametrize("bad, named", [
    ({"python_env_interpreter_source": "conda"}, "python_env_interpreter_source"),
    ({"python_env_interpreter_source": "path", "python_env_interpreter_path": "python3"}, "python_env_interpreter_path"),
    ({"python_env_wheelhouse_dir": "/nonexistent/wheels"}, "python_env_wheelhouse_dir"),
    ({"python_env_interpreter_source": "path", "python_env_interpreter_path": "/usr/bin/python3"},
     "python_env_min_python_version"),
])
def test_bad_input_fails_before_any_change(ansible, first_run, bad, named):
    _, _, tmp = first_run
    proc, _, counts = converge(ansible, tmp, ["python_env"], bad, check=False)
    assert proc.returncode != 0 and named in proc.stdout
    assert all(c["changed"] == 0 for c in counts.values())


def brew_calls_since(host, mark):
    return [e for e in log_lines(host, "shim.log")[mark:] if e["argv"][0].endswith("brew")]


def test_homebrew_source_installs_with_brew_as_the_admin_user_then_leaves_brew_alone(ansible, first_run):
    if ssh("mac1", "test -x /opt/homebrew/bin/brew", check=False).returncode != 0:
        pytest.skip("this lab has no /opt/homebrew/bin/brew (see roles/python_env/README.md)")
    _, _, tmp = first_run
    # mac1 lacks Homebrew's interpreter (another test may have installed it already).
    ssh("mac1", "/opt/homebrew/bin/brew uninstall python@3.12", check=False)
    marks = {h: len(log_lines(h, "shim.log")) for h in HOSTS}
    _, facts, _ = converge(ansible, tmp, ["python_env"])
    assert facts["mac1"]["macops_python_env"]["interpreter"] == "/opt/homebrew/bin/python3.12"
    assert facts["mac1"]["macops_python_env"]["version"].startswith("3.12.")
    installs = [e for e in brew_calls_since("mac1", marks["mac1"]) if "install" in e["argv"]]
    assert installs and all(e["uid"] != 0 for e in installs), installs

    # Once the interpreter runs, Homebrew is not asked at all.
    marks = {h: len(log_lines(h, "shim.log")) for h in HOSTS}
    proc, _, counts = converge(ansible, tmp, ["python_env"])
    assert {h: c["changed"] for h, c in counts.items()} == {h: 0 for h in HOSTS}, changed_tasks(proc.stdout)
    assert {h: brew_calls_since(h, marks[h]) for h in HOSTS} == {h: [] for h in HOSTS}
