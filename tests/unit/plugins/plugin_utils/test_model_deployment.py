"""The controller's half of a deployment (plugins/plugin_utils/_model_deployment.py): the disk check names each short
node with both sizes before any transfer is planned, the source's own part is linked (and free on its own volume),
pulls from the source read the source directory and relays are marked."""
from ansible_collections.macops.cluster.plugins.plugin_utils._model_deployment import deployment

from deployment_fixture import DEST, HOSTS, MB, SOURCE, applied, empty_inventories, placement, volumes


def test_each_node_pulls_its_files_and_the_source_links_its_own():
    plan = placement()
    result = deployment(plan, "mac1", SOURCE, DEST, empty_inventories(plan), volumes(), applied(), 0, "/")
    assert result["problems"] == [] and result["pulls"]["mac1"] == []
    assert result["local"] == {"mac1": ["config.json", "shared.safetensors"]}
    for host, own in (("mac2", "a.safetensors"), ("mac3", "b.safetensors"), ("mac4", "c.safetensors")):
        pulls = dict((p["file"], p) for p in result["pulls"][host])
        assert set(pulls) == {"config.json", "shared.safetensors", own}
        assert pulls[own]["parent"] == "mac1" and pulls[own]["parent_dir"] == SOURCE and not pulls[own]["relay"]
    # The shared file leaves the source once and is relayed on: the relay's pulls read the relay's dest.
    relayed = [p for h in ("mac2", "mac3", "mac4") for p in result["pulls"][h]
               if p["file"] == "shared.safetensors" and p["parent"] != "mac1"]
    assert len(relayed) == 2 and all(p["relay"] and p["parent_dir"] == DEST for p in relayed)
    assert result["wire_bytes"] == sum(result["lacking_bytes"].values())


def test_a_node_short_of_space_stops_the_plan_naming_it_and_both_sizes():
    plan = placement()
    short = volumes()
    short["mac3"]["free_kib"] = 20 * 1024
    result = deployment(plan, "mac1", SOURCE, DEST, empty_inventories(plan), short, applied(), 64 * MB, "/")
    assert [p["code"] for p in result["problems"]] == ["shard_disk_full"]
    message = result["problems"][0]["message"]
    assert message.startswith("mac3 needs 0.05 GB more on /") and "0.02 GB is free" in message
    assert all(pulls == [] for pulls in result["pulls"].values())


def test_the_source_s_links_cost_space_only_on_another_volume():
    plan = placement()
    tight = volumes(free_mb=5)
    tight_others = dict(tight, **dict((h, dict(tight[h], free_kib=10 ** 9)) for h in ("mac2", "mac3", "mac4")))
    same = deployment(plan, "mac1", SOURCE, DEST, empty_inventories(plan), tight_others, applied(), 0, "/")
    assert same["problems"] == []
    other = deployment(plan, "mac1", SOURCE, DEST, empty_inventories(plan), tight_others, applied(), 0,
                       "/Volumes/External")
    assert [p["host"] for p in other["problems"]] == ["mac1"]


def test_a_node_without_a_cable_is_unreachable():
    plan = placement()
    hosts = applied()
    hosts["mac4"] = {}
    for host in HOSTS[:3]:
        hosts[host] = dict((port, e) for port, e in hosts[host].items() if e["peer_host"] != "mac4")
    result = deployment(plan, "mac1", SOURCE, DEST, empty_inventories(plan), volumes(), hosts, 0, "/")
    assert [p["code"] for p in result["problems"]] == ["shard_unreachable"] and "mac4" in result["problems"][0]["message"]
