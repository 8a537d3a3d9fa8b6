"""The lab's read log (lab/macsim/darwin_site/sitecustomize.py): which audit events of a module's
Python count as a read of a state file (doctor.yml's e2e test counts the applied plan's reads)."""
import os
import subprocess
import sys

SITE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "lab", "macsim", "darwin_site")
PROBE = r"""
import os, sitecustomize as site
plan = "/Library/Application Support/macops/thunderbolt-plan.json"
print(site.state_file_read("open", (plan, "r", os.O_RDONLY | os.O_CLOEXEC)))
print(site.state_file_read("open", (plan.encode(), None, os.O_RDONLY)))
print(site.state_file_read("open", (plan, "w", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)))
print(site.state_file_read("open", ("/etc/hosts", "r", os.O_RDONLY)))
print(site.state_file_read("open", (3, "r", os.O_RDONLY)))
print(site.state_file_read("exec", (plan, "r", os.O_RDONLY)))
"""


def test_only_reads_under_the_state_directory_count():
    # In a child Python: importing sitecustomize installs the lab's hooks (Darwin, the logs).
    proc = subprocess.run([sys.executable, "-c", PROBE], env=dict(os.environ, PYTHONPATH=os.path.abspath(SITE)),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, check=True)
    plan = "/Library/Application Support/macops/thunderbolt-plan.json"
    assert proc.stdout.splitlines() == [plan, plan, "None", "None", "None", "None"]


ZIP_PROBE = r"""
import os, sys, traceback, zipimport
import sitecustomize as site
site._PYCACHE = sys.argv[1]
compiled = []
real = zipimport._compile_source
zipimport._compile_source = lambda path, source: compiled.append(path) or real(path, source)
site._install_zip_code_cache()
sys.path.insert(0, sys.argv[2])
import zmod
try:
    zmod.Probe().fail()
except ValueError:
    print(len(compiled), zmod.__file__, zmod.Probe.fail.__code__.co_filename, traceback.format_exc().count(sys.argv[2]))
"""


def run_from_zip(tmp_path, cache, name, source):
    import zipfile
    archive = str(tmp_path / name)
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("zmod.py", source)
    proc = subprocess.run([sys.executable, "-c", ZIP_PROBE, cache, archive], universal_newlines=True, check=True,
                          env=dict(os.environ, PYTHONPATH=os.path.abspath(SITE)), stdout=subprocess.PIPE)
    compiled, module_file, code_file, in_traceback = proc.stdout.split()
    return int(compiled), module_file, code_file, int(in_traceback), archive


def test_code_from_a_module_zip_is_compiled_once_per_source_and_names_each_runs_zip(tmp_path):
    # Ansible sends each module run a fresh zip at a new path: the lab's node python compiles a source
    # it has seen before no more, and the code still names this run's zip (as __file__ does).
    cache = tmp_path / "pycache"
    cache.mkdir()
    source = "class Probe:\n    def fail(self):\n        raise ValueError('from the zip')\n"
    first = run_from_zip(tmp_path, str(cache), "a.zip", source)
    assert first[:2] == (1, os.path.join(first[4], "zmod.py")) and first[2] == first[1] and first[3] >= 1
    [user_dir] = os.listdir(str(cache))
    assert user_dir == str(os.getuid()) and len(os.listdir(str(cache / user_dir))) == 1
    again = run_from_zip(tmp_path, str(cache), "b.zip", source)
    assert again[0] == 0 and again[2] == os.path.join(again[4], "zmod.py") and again[3] >= 1
    changed = run_from_zip(tmp_path, str(cache), "c.zip", source.replace("from the zip", "changed"))
    assert changed[0] == 1 and len(os.listdir(str(cache / user_dir))) == 2


def test_without_the_labs_cache_directory_nothing_is_cached_or_written(tmp_path):
    missing = str(tmp_path / "no-such-dir")
    compiled = run_from_zip(tmp_path, missing, "a.zip", "class Probe:\n    def fail(self):\n        raise ValueError\n")
    # (zipimport may compile a module twice in one import: get_filename compiles it too, up to Python 3.12.)
    assert compiled[0] >= 1 and not os.path.exists(missing)
