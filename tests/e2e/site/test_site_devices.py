"""Issue 12, acceptance 2: an external SSD on one port of one node, as owners plug one in to hold
the models. site.yml converges on a fresh lab (and a second run changes nothing), the report lists
the drive on that port, and no problem calls it a peer or offers its port for a cable."""
import json

import pytest

from labtools import HOSTS, maclab, recap

SSD_HOST, SSD_PORT, SSD_INTERFACE = "mac1", "6", "en7"  # the 4-Studio mesh leaves receptacles 5 and 6 free


@pytest.fixture(scope="module")
def ssd_lab(fresh_lab):
    maclab("fault", "ssd", SSD_HOST, SSD_PORT)
    yield fresh_lab
    maclab("fault", "clear")


def report(site):
    with open("%s/artifacts/report/report.json" % site.workdir) as handle:
        return json.load(handle)


def test_site_converges_with_a_drive_and_the_report_lists_it_on_its_port(site, ssd_lab):
    first = site(check=False)
    assert first.returncode == 0, first.stdout[-6000:]
    counts = recap(first.stdout)
    assert sorted(counts) == HOSTS and all(c["failed"] == 0 and c["unreachable"] == 0 for c in counts.values())
    second = site()
    assert {h: c["changed"] for h, c in recap(second.stdout).items()} == {h: 0 for h in HOSTS}

    model = report(site)
    nodes = {node["name"]: node for node in model["nodes"]}
    devices = nodes[SSD_HOST]["thunderbolt"]["devices"]
    assert [(d["port"], d["name"], d["vendor"], d["speed"]) for d in devices] == [
        ("%s (port %s)" % (SSD_INTERFACE, SSD_PORT), "Envoy Ultra", "Other World Computing", "80 Gb/s")]
    assert all(nodes[h]["thunderbolt"]["devices"] == [] for h in HOSTS if h != SSD_HOST)
    # the drive is no cable, no peer and no RDMA port: the mesh is the lab's six cables, nothing else
    assert model["summary"]["links"] == 6 and model["topology"]["class"] == "full_mesh"
    drive_problems = [p for p in model["problems"]
                      if "Envoy" in p["message"] or (p["host"] == SSD_HOST and p["port"] == SSD_INTERFACE)
                      or p["code"] == "tb_peer_unknown"]
    assert drive_problems == []
    rdma_ports = dict((p["interface"], p) for p in nodes[SSD_HOST]["rdma"]["ports"])
    assert SSD_INTERFACE not in rdma_ports or rdma_ports[SSD_INTERFACE]["speed_gbps"] is None
    with open("%s/artifacts/report/report.md" % site.workdir) as handle:
        assert "| %s | %s (port %s) | Envoy Ultra (Other World Computing) |" % (
            SSD_HOST, SSD_INTERFACE, SSD_PORT) in handle.read()
