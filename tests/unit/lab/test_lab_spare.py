"""`maclab up --spare N`: the last N hosts are Macs on the shelf, up with their cables planned but unplugged (a
state `fault clear` leaves alone) and outside the inventory's group macs, in a group spare with the same
connection settings (the membership test adds one to the cluster: docs/membership.md)."""
import pytest
import yaml

from macsim import inventory, lab as labmod, layout


def planned(spare):
    return labmod.plan("t", 5, "mesh", None, "1gbit", 1.0, {"version": "26.2", "build": "25C56"}, spare=spare)


def test_a_spare_host_is_flagged_and_its_cables_planned_but_unplugged():
    plan = planned(1)
    assert [h["name"] for h in plan["hosts"] if h.get("spare")] == ["mac5"]
    spare_cables = [c for c in plan["cables"] if "mac5" in (c["a"], c["b"])]
    assert len(spare_cables) == 4 and all(c["state"] == "cut" and c["unplugged"] for c in spare_cables)
    others = [c for c in plan["cables"] if "mac5" not in (c["a"], c["b"])]
    assert len(others) == 6 and all(c["state"] == "connected" and "unplugged" not in c for c in others)
    # The four's cables are the ones a four-node lab plans, port for port: plugging the fifth in moves none.
    four = labmod.plan("t", 4, "mesh", None, "1gbit", 1.0, {"version": "26.2", "build": "25C56"})
    assert sorted((c["a"], c["a_port"], c["b"], c["b_port"]) for c in others) == sorted(
        (c["a"], c["a_port"], c["b"], c["b_port"]) for c in four["cables"])


def test_the_cluster_keeps_at_least_one_node():
    with pytest.raises(labmod.LabError, match="--spare must leave at least one node"):
        planned(5)


def test_the_inventory_puts_spare_hosts_in_their_own_group_with_the_connection_settings(tmp_path):
    plan = planned(1)
    inventory.write_inventory(layout.Paths(str(tmp_path / "root")), plan, directory=str(tmp_path / "inv"))
    hosts = yaml.safe_load((tmp_path / "inv" / "hosts.yml").read_text())["all"]["children"]
    assert sorted(hosts["macs"]["hosts"]) == ["mac1", "mac2", "mac3", "mac4"] and list(hosts["spare"]["hosts"]) == ["mac5"]
    assert hosts["spare"]["vars"] == hosts["macs"]["vars"] and hosts["macs"]["vars"]["ansible_user"] == "admin"
    without = labmod.plan("t", 4, "mesh", None, "1gbit", 1.0, {"version": "26.2", "build": "25C56"})
    inventory.write_inventory(layout.Paths(str(tmp_path / "root")), without, directory=str(tmp_path / "inv"))
    assert "spare" not in yaml.safe_load((tmp_path / "inv" / "hosts.yml").read_text())["all"]["children"]
