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
