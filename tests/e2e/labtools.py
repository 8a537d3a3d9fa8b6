"""Helpers every end-to-end test shares: drive `lab/maclab`, reach the simulated Macs over SSH or
from the controller side of their namespaces, read the lab's state and logs, run Ansible."""
import json
import os
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MACLAB = os.path.join(REPO, "lab", "maclab")
ROOT = os.environ.get("MACLAB_ROOT", "/var/lib/maclab")
VENV_BIN = os.path.join(REPO, ".venv", "bin")
INVENTORY = os.path.join(REPO, "inventories", "lab", "hosts.yml")
HOSTS = ["mac1", "mac2", "mac3", "mac4"]

sys.path.insert(0, os.path.join(REPO, "lab"))


def maclab(*args, check=True, timeout=180):
    proc = subprocess.run([sys.executable, MACLAB] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError("maclab %s failed (rc %d):\n%s%s" % (" ".join(args), proc.returncode,
                                                                 proc.stdout, proc.stderr))
    return proc


def ssh(host, command, check=True, timeout=60):
    proc = subprocess.run(["ssh", "-F", os.path.join(ROOT, "controller", "ssh_config"), host, "--", command],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)
    if check and proc.returncode != 0:
        raise AssertionError("ssh %s %r failed (rc %d): %s" % (host, command, proc.returncode, proc.stderr))
    return proc


def in_netns(host, *argv):
    return subprocess.run(["ip", "netns", "exec", "maclab-" + host] + list(argv), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, check=True).stdout


def read_json(*parts):
    with open(os.path.join(ROOT, *parts)) as handle:
        return json.load(handle)


def log_lines(host, name):
    with open(os.path.join(ROOT, "hosts", host, "log", name)) as handle:
        return [json.loads(line) if name.endswith(("shim.log", "exec.log")) else line for line in handle]


def ansible_env(tmp_dir):
    cfg = os.path.join(tmp_dir, "ansible.cfg")
    with open(cfg, "w") as handle:
        handle.write("[defaults]\ngathering = explicit\nhost_key_checking = True\nforks = 8\n"
                     "stdout_callback = ansible.builtin.default\n"
                     "[ssh_connection]\npipelining = True\ncontrol_path_dir = %s/cp\n" % tmp_dir)
    env = dict(os.environ, ANSIBLE_CONFIG=cfg, ANSIBLE_LOCAL_TEMP=os.path.join(tmp_dir, "tmp"),
               ANSIBLE_COLLECTIONS_PATH=os.path.join(REPO, "collections"),
               ANSIBLE_NOCOLOR="1", PATH=VENV_BIN + os.pathsep + os.environ.get("PATH", ""))
    return env


def wait_until(predicate, timeout, interval=0.2, message="condition"):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError("timed out after %.0f s waiting for %s" % (timeout, message))


