"""Issue 12, acceptance 2: an external SSD on one port of one node, as owners plug one in to hold
the models. The session's lab converges with the drive plugged in (tests/e2e/conftest.py,
CONVERGED_DRIVE): site.yml runs through, the idempotence run changes nothing (a drive mistaken
for a peer would change the plan, or the report, at every run), the plan gives the drive's port no
address, the report lists the drive on that port, and no problem calls it a peer or offers its port
for a cable. (The planner judges every run's cabling from the facts alone, so a converged lab meets
a drive plugged in later as the converging lab met this one.)"""
import json

from labtools import HOSTS, recap, ssh

SSD_INTERFACE = "en7"  # the lab names receptacle N's interface en(N+1), as the Studios' ports are named
PLAN = "/Library/Application Support/macops/thunderbolt-plan.json"


def test_site_with_a_drive_plugged_in_changes_nothing_and_the_report_lists_it_on_its_port(converged):
    host, receptacle = converged["drive"]["host"], converged["drive"]["receptacle"]
    for run in ("first", "second"):
        counts = recap(converged[run].stdout)
        assert sorted(counts) == HOSTS and all(c["failed"] == 0 and c["unreachable"] == 0 for c in counts.values())
    # The idempotence run with the drive still plugged in: nothing changes, not even the report.
    assert {h: c["changed"] for h, c in recap(converged["second"].stdout).items()} == {h: 0 for h in HOSTS}
    plan = json.loads(ssh(host, "cat '%s'" % PLAN).stdout)
    assert SSD_INTERFACE not in plan["hosts"][host] and len(plan["hosts"][host]) == 3, plan["hosts"][host]

    model = converged["report"]
    nodes = {node["name"]: node for node in model["nodes"]}
    devices = nodes[host]["thunderbolt"]["devices"]
    assert [(d["port"], d["name"], d["vendor"], d["speed"]) for d in devices] == [
        ("%s (port %s)" % (SSD_INTERFACE, receptacle), "Envoy Ultra", "Other World Computing", "80 Gb/s")]
    assert all(nodes[h]["thunderbolt"]["devices"] == [] for h in HOSTS if h != host)
    # the drive is no cable, no peer and no RDMA port: the mesh is the lab's six cables, nothing else
    assert model["summary"]["links"] == 6 and model["topology"]["class"] == "full_mesh"
    drive_problems = [p for p in model["problems"]
                      if "Envoy" in p["message"] or (p["host"] == host and p["port"] == SSD_INTERFACE)
                      or p["code"] == "tb_peer_unknown"]
    assert drive_problems == []
    rdma_ports = dict((p["interface"], p) for p in nodes[host]["rdma"]["ports"])
    assert SSD_INTERFACE not in rdma_ports or rdma_ports[SSD_INTERFACE]["speed_gbps"] is None
    assert "| %s | %s (port %s) | Envoy Ultra (Other World Computing) |" % (
        host, SSD_INTERFACE, receptacle) in converged["report_md"]
