"""The collection as users get it: a built tarball, installed elsewhere, and a clone's shims."""
import os
import subprocess
import tarfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
BIN = os.path.join(ROOT, ".venv", "bin")
# Nothing that is not collection content may ship.
NOT_SHIPPED = ("lab/", "tests/", "benchmarks/", ".venv/", "molecule/", ".ci/", "collections/",
               "inventories/lab/", "inventories/lab1/", "requirements/", "scripts/", "Makefile", "ansible.cfg")


def run(args, cwd, env=None):
    result = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, "%s failed:\n%s\n%s" % (" ".join(args), result.stdout, result.stderr)
    return result.stdout


@pytest.fixture(scope="module")
def tarball(tmp_path_factory):
    out = tmp_path_factory.mktemp("build")
    run([os.path.join(BIN, "ansible-galaxy"), "collection", "build", "--output-path", str(out), ROOT], cwd=ROOT)
    with open(os.path.join(ROOT, "galaxy.yml")) as handle:
        version = next(line.split(":", 1)[1].strip() for line in handle if line.startswith("version:"))
    path = out / ("macops-cluster-%s.tar.gz" % version)
    assert path.is_file()
    return path


def test_tarball_holds_only_collection_content(tarball):
    with tarfile.open(tarball) as archive:
        names = archive.getnames()
    assert "galaxy.yml" not in names and "MANIFEST.json" in names
    assert any(name.startswith("plugins/") for name in names)
    assert any(name.startswith("playbooks/") for name in names)
    leaked = [n for n in names if n.startswith(NOT_SHIPPED) or n in {p.rstrip("/") for p in NOT_SHIPPED}]
    assert leaked == []


def test_installed_tarball_documents_plugins_and_runs_playbook(tarball, tmp_path):
    collections = tmp_path / "collections"
    env = dict(os.environ, ANSIBLE_CONFIG=str(tmp_path / "none.cfg"), ANSIBLE_COLLECTIONS_PATH=str(collections),
               ANSIBLE_COLLECTIONS_SCAN_SYS_PATH="true", HOME=str(tmp_path))
    # --no-deps: Galaxy is not reachable; the dependencies come with the `ansible` package.
    run([os.path.join(BIN, "ansible-galaxy"), "collection", "install", "--no-deps", "-p", str(collections),
         str(tarball)], cwd=str(tmp_path), env=env)
    assert (collections / "ansible_collections" / "macops" / "cluster" / "MANIFEST.json").is_file()
    listing = run([os.path.join(BIN, "ansible-doc"), "-l", "macops.cluster"], cwd=str(tmp_path), env=env)
    modules = sorted(name for name in os.listdir(os.path.join(ROOT, "plugins", "modules")) if name.endswith(".py"))
    for module in modules:
        assert "macops.cluster.%s" % module[:-3] in listing
    inventory = tmp_path / "hosts.yml"
    inventory.write_text("macs:\n  hosts:\n    mac1:\n      ansible_host: 198.18.0.250\n")
    for playbook in ("macops.cluster.site", "macops.cluster.reboot_cluster"):
        run([os.path.join(BIN, "ansible-playbook"), "-i", str(inventory), playbook, "--syntax-check"],
            cwd=str(tmp_path), env=env)


@pytest.mark.parametrize("shim", ["site.yml", "reboot-cluster.yml"])
def test_clone_shims_pass_syntax_check(shim):
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"))
    out = run([os.path.join(BIN, "ansible-playbook"), "-i", os.path.join(ROOT, "inventories", "example"), shim,
               "--syntax-check"], cwd=ROOT, env=env)
    assert "playbook: %s" % shim in out
