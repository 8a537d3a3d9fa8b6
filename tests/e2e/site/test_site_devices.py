"""Issue 12, acceptance 2: an external SSD on one port of one node, as owners plug one in to hold
the models. With the drive plugged into the converged lab, site.yml runs through and changes
nothing (the drive takes no address and no cable's place: a drive mistaken for a peer would
change the plan; only the report on the controller changes), the report lists the drive on that port, and no problem calls it a peer or
offers its port for a cable. (The session's lab, not a fresh one: the planner judges every run's
cabling from the facts alone, so a converged lab meets the drive as a fresh one does.)"""
import json

import pytest

from labtools import HOSTS, changed_task_names, maclab, recap

SSD_HOST, SSD_PORT, SSD_INTERFACE = "mac1", "6", "en7"  # the 4-Studio mesh leaves receptacles 5 and 6 free
REPORT_TASK = "macops.cluster.report : Write the JSON, HTML and Markdown report and the hostfiles on the controller"


@pytest.fixture(scope="module")
def ssd_lab(converged):
    maclab("fault", "ssd", SSD_HOST, SSD_PORT)
    yield converged
    maclab("fault", "clear")


def report(site):
    with open("%s/artifacts/report/report.json" % site.workdir) as handle:
        return json.load(handle)


def test_site_with_a_drive_plugged_in_changes_nothing_and_the_report_lists_it_on_its_port(site, ssd_lab):
    run = site(check=False)
    assert run.returncode == 0, run.stdout[-6000:]
    counts = recap(run.stdout)
    assert sorted(counts) == HOSTS and all(c["failed"] == 0 and c["unreachable"] == 0 for c in counts.values())
    # Nothing on a node changes; only the report on the controller does (it lists the drive now).
    assert changed_task_names(run.stdout) == [REPORT_TASK], run.stdout[-6000:]

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
