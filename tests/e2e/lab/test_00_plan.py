"""Pure parts of the runtime (no root, no lab): cabling plan, profiles, identities, and the
interpreters the CLI and host-side code must run on."""
import json
import os
import subprocess

import pytest

from labtools import MACLAB, REPO
from macsim import identity, profiles, topology

STUDIOS = {"mac1": "studio512", "mac2": "studio512", "mac3": "studio256", "mac4": "studio256"}


def _ports(cables, host):
    return sorted(c[end + "_port"] for c in cables for end in ("a", "b") if c[end] == host)


def test_mesh_is_deterministic_and_skips_receptacle_1():
    first = topology.plan_cables("mesh", STUDIOS)
    assert first == topology.plan_cables("mesh", dict(reversed(list(STUDIOS.items()))))
    assert all(_ports(first, h) == [2, 3, 4] for h in STUDIOS)
    assert first[0]["a_device"] == "en3" and first[0]["speed"] == "80 Gb/s" and first[0]["rate"] == "4gbit"


def test_receptacle_1_is_used_when_nothing_else_is_free():
    hosts = {"mac%d" % i: "studio512" for i in range(1, 8)}  # 6 cables per host in a 7-mesh
    cables = topology.plan_cables("mesh", hosts)
    assert _ports(cables, "mac1") == [1, 2, 3, 4, 5, 6]
    assert [c for c in cables if c["a"] == "mac1"][-1]["a_port"] == 1  # last choice
    with pytest.raises(ValueError, match="no free Thunderbolt port"):
        topology.plan_cables("mesh", {"mac%d" % i: "mini64" for i in range(1, 6)})


def test_ring_line_and_file_topologies(tmp_path):
    assert len(topology.plan_cables("ring", STUDIOS)) == 4
    assert len(topology.plan_cables("line", STUDIOS)) == 3
    path = tmp_path / "cables.json"
    path.write_text(json.dumps({"cables": [{"a": "mac1", "b": "mac2", "kind": "tb4", "a_port": 6},
                                           ["mac2", "mac3"]]}))
    cables = topology.plan_cables(str(path), STUDIOS)
    assert (cables[0]["a_device"], cables[0]["speed"], cables[0]["rate"]) == ("en7", "40 Gb/s", "1gbit")
    assert cables[1]["a"] == "mac2" and cables[1]["a_port"] == 3  # mac2's receptacle 2 went to cable 1
    with pytest.raises(ValueError, match="unknown host"):
        topology.plan_cables(str(path), {"mac1": "studio512"})


def test_profiles_have_real_port_maps():
    studio = profiles.get("studio512")
    assert [(p["receptacle"], p["device"]) for p in studio["tb_ports"]] == [(r, "en%d" % (r + 1)) for r in range(1, 7)]
    assert profiles.port_preference(studio) == [2, 3, 4, 5, 6, 1]
    mini = profiles.get("mini64")
    assert (mini["model_id"], mini["cores_perf"] + mini["cores_eff"], len(mini["tb_ports"])) == ("Mac16,11", 14, 3)
    assert profiles.get("mbp128")["management_port"]["name"] == "Wi-Fi"
    assert profiles.default_profiles(4) == ["studio512", "studio512", "studio256", "studio256"]
    with pytest.raises(ValueError, match="unknown profile"):
        profiles.get("imac")


def test_identities_are_stable_and_unique():
    uuids = {identity.stable_uuid("lab", h, "tb", r) for h in STUDIOS for r in range(1, 7)}
    assert len(uuids) == 24
    assert identity.stable_uuid("lab", "mac1", "tb", 2) == identity.stable_uuid("lab", "mac1", "tb", 2)
    assert identity.stable_uuid("lab", "mac1", "tb", 2) != identity.stable_uuid("other", "mac1", "tb", 2)
    serials = {identity.serial("lab", h) for h in STUDIOS}
    assert len(serials) == 4 and all(len(s) == 10 for s in serials)
    mac = identity.local_mac("lab", "mac1", "tb", 2)
    assert int(mac.split(":")[0], 16) & 0x03 == 0x02  # locally administered unicast


@pytest.mark.parametrize("python", ["/usr/bin/python3", os.path.join(REPO, ".venv", "bin", "python")])
def test_cli_runs_on_system_and_venv_python(python):
    if not os.path.exists(python):
        pytest.skip("%s not installed" % python)
    proc = subprocess.run([python, MACLAB, "--help"], stdout=subprocess.PIPE, universal_newlines=True)
    assert proc.returncode == 0 and "fault" in proc.stdout


def test_host_side_code_compiles_on_python_39():
    python = "/root/.pyenv/versions/3.9.18/bin/python"
    if not os.path.exists(python):
        pytest.skip("no Python 3.9 here")
    package = os.path.join(REPO, "lab", "macsim")
    files = [os.path.join(package, f) for f in ("launchd.py", "statefile.py", "layout.py", "identity.py",
                                                 "profiles.py", os.path.join("darwin_site", "sitecustomize.py"))]
    proc = subprocess.run([python, "-c", "import ast, sys\nfor f in sys.argv[1:]: ast.parse(open(f).read(), f)"]
                          + files, stderr=subprocess.PIPE, universal_newlines=True)
    assert proc.returncode == 0, proc.stderr
