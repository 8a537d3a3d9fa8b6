"""python_env's read (roles/python_env/files/read_environment.py): the functions, and the file run
the way the role runs it, `<python> -c <file text> <venv python> <file text>`, with the text the
role's lookup reads."""
import json
import os
import platform
import subprocess
import sys
import venv

import pytest

import importlib.util

# A script the role sends to the node's own interpreter (not a module: it runs through `raw`).
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "roles", "python_env", "files",
                      "read_environment.py")
_spec = importlib.util.spec_from_file_location("read_environment", SCRIPT)
reader = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reader)



class Dist:
    def __init__(self, name, version, requires):
        self.metadata = {"Name": name}
        self.version = version
        self.requires = requires


class Metadata:
    def __init__(self, *dists):
        self.dists = dists

    def distributions(self):
        return list(self.dists)


def test_extras_name_what_each_extra_requires():
    assert reader.requirement_extras([
        "mlx-metal==0.30.3; platform_system == 'Darwin'",
        'mlx-cpu==0.30.3; extra == "cpu"',
        "nanobind>=2.4; extra=='dev'",
        "numpy; extra == 'cpu' and python_version >= '3.10'",
    ]) == {"cpu": ["mlx-cpu", "numpy"], "dev": ["nanobind"]}
    assert reader.requirement_extras(None) == {}


def test_installed_lists_named_distributions_only():
    found = reader.installed(Metadata(Dist("mlx", "0.30.3", ['mlx-cpu; extra == "cpu"']), Dist(None, "1", None),
                                      Dist("pip", "25.0", None)))
    assert found == {"mlx": {"version": "0.30.3", "extras": {"cpu": ["mlx-cpu"]}},
                     "pip": {"version": "25.0", "extras": {}}}
    assert reader.installed(None) == {}  # a Python older than 3.8 still reports its version


def test_an_environment_that_does_not_run_reads_as_empty(tmp_path):
    assert reader.read_other(str(tmp_path / "missing" / "python"), "print(1)") == {}
    assert reader.read_other(sys.executable, "print('not json')") == {}
    assert reader.read_other(sys.executable, "import sys; sys.exit(3)") == {}
    assert reader.read_other(sys.executable, "print('{\"python\": \"3.12.8\"}')") == {"python": "3.12.8"}


def test_a_slow_environment_times_out_to_empty():
    def run(*args, **kwargs):
        raise subprocess.TimeoutExpired(args[0], kwargs["timeout"])
    assert reader.read_other(sys.executable, "print(1)", run=run) == {}


@pytest.fixture(scope="module")
def environment(tmp_path_factory):
    path = tmp_path_factory.mktemp("venv") / "venv"
    venv.create(str(path), with_pip=False)
    return str(path / "bin" / "python")


def test_the_file_run_as_the_role_runs_it_reads_both_interpreters(environment):
    text = open(SCRIPT).read().rstrip()  # the file lookup strips the final newline
    proc = subprocess.run([sys.executable, "-c", text, environment, text], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.splitlines()) == 1
    result = json.loads(proc.stdout)
    assert result["python"] == platform.python_version()
    assert result["packages"]["pytest"]["version"] == pytest.__version__
    assert result["venv"]["python"] == platform.python_version()
    assert "pytest" not in result["venv"]["packages"] and "venv" not in result["venv"]


def test_the_file_alone_reads_only_its_interpreter():
    proc = subprocess.run([sys.executable, "-c", open(SCRIPT).read()], stdout=subprocess.PIPE,
                          universal_newlines=True, timeout=120, check=False)
    assert "venv" not in json.loads(proc.stdout)
