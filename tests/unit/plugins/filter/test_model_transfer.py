"""The deployment's transfer plan: each node receives each file it lacks exactly once, the load spreads
over every cable (striped relay for full replicas on a mesh: about D/3 per cable instead of D), a node
that holds a good copy is not sent it again, and a node no cable reaches is refused."""
import itertools

import pytest

from ansible_collections.macops.cluster.plugins.plugin_utils._model_transfer import (
    TransferError, bound_seconds, transfer_plan)

MB = 1 << 20


def mesh(hosts):
    cables = []
    for number, (a, b) in enumerate(itertools.combinations(hosts, 2), start=1):
        cables.append({"link_id": "L%d" % number, "a": a, "b": b, "a_ip": "198.18.%d.1" % number,
                       "b_ip": "198.18.%d.2" % number})
    return cables


def ring(hosts):
    pairs = [(hosts[i], hosts[(i + 1) % len(hosts)]) for i in range(len(hosts))]
    return [{"link_id": "R%d" % n, "a": a, "b": b, "a_ip": "198.19.%d.1" % n, "b_ip": "198.19.%d.2" % n}
            for n, (a, b) in enumerate(pairs, start=1)]


HOSTS = ["mac1", "mac2", "mac3", "mac4"]
FILES = dict(("model-%05d.safetensors" % n, {"size": 64 * MB, "sha256": "%064x" % n}) for n in range(1, 17))
TOTAL = 16 * 64 * MB


def test_a_full_replica_on_a_mesh_is_a_striped_relay_of_about_a_third_of_the_model_per_cable():
    needs = dict((host, sorted(FILES)) for host in HOSTS)
    plan = transfer_plan(FILES, needs, {"mac1": sorted(FILES)}, mesh(HOSTS))
    assert plan["pulls"]["mac1"] == []
    for host in HOSTS[1:]:
        assert sorted(p["file"] for p in plan["pulls"][host]) == sorted(FILES)  # each file once
    assert plan["wire_bytes"] == 3 * TOTAL  # nothing sent twice to one node
    # The source's three cables each carry a third; every cable between receivers carries some.
    assert plan["max_link_bytes"] <= TOTAL / 3 + 64 * MB
    assert all(plan["link_bytes"].get("mac1>%s" % host) for host in HOSTS[1:])
    relays = [pair for pair in plan["link_bytes"] if not pair.startswith("mac1>")]
    assert len(relays) == 6
    # Each pull names the parent's address on the cable it shares with the puller.
    cables = dict(((c["a"], c["b"]), c) for c in mesh(HOSTS))
    for host, pulls in plan["pulls"].items():
        for pull in pulls:
            cable = cables.get((pull["parent"], host)) or cables[(host, pull["parent"])]
            own = cable["a_ip"] if cable["a"] == pull["parent"] else cable["b_ip"]
            assert pull["address"] == own and pull["link_id"] == cable["link_id"]


def test_per_rank_shards_come_over_each_rank_s_own_cable_and_shared_files_by_relay():
    files = dict(FILES)
    needs = {"mac1": sorted(files)}
    for rank, host in enumerate(HOSTS[1:]):
        own = sorted(files)[1 + rank * 5:1 + (rank + 1) * 5]
        needs[host] = sorted(own + ["model-00001.safetensors"])
    plan = transfer_plan(files, needs, {"mac1": sorted(files)}, mesh(HOSTS))
    assert plan["wire_bytes"] == sum(len(needs[h]) for h in HOSTS[1:]) * 64 * MB
    for host in HOSTS[1:]:
        own = [p for p in plan["pulls"][host] if p["file"] != "model-00001.safetensors"]
        assert {p["parent"] for p in own} == {"mac1"}
    shared = [(h, p["parent"]) for h in HOSTS[1:] for p in plan["pulls"][h] if p["file"] == "model-00001.safetensors"]
    assert sum(1 for _h, parent in shared if parent == "mac1") == 1  # sent once by the source, relayed on


def test_a_node_that_holds_a_good_copy_is_not_sent_it_and_can_serve_it():
    needs = dict((host, sorted(FILES)) for host in HOSTS)
    holders = {"mac1": sorted(FILES), "mac3": sorted(FILES)[:8]}
    plan = transfer_plan(FILES, needs, holders, mesh(HOSTS))
    assert sorted(p["file"] for p in plan["pulls"]["mac3"]) == sorted(FILES)[8:]
    assert plan["missing_bytes"] == {"mac1": 0, "mac2": TOTAL, "mac3": TOTAL // 2, "mac4": TOTAL}
    assert any(p["parent"] == "mac3" for p in plan["pulls"]["mac2"] + plan["pulls"]["mac4"])


def test_on_a_ring_every_node_is_reached_through_its_neighbours():
    hosts = ["mac%d" % n for n in range(1, 9)]
    needs = dict((host, sorted(FILES)) for host in hosts)
    plan = transfer_plan(FILES, needs, {"mac1": sorted(FILES)}, ring(hosts))
    assert plan["wire_bytes"] == 7 * TOTAL
    neighbours = dict((h, {hosts[(i - 1) % 8], hosts[(i + 1) % 8]}) for i, h in enumerate(hosts))
    for host in hosts[1:]:
        assert {p["parent"] for p in plan["pulls"][host]} <= neighbours[host]


def test_a_node_no_cable_reaches_is_refused_naming_it():
    needs = {"mac1": sorted(FILES), "mac5": sorted(FILES)}
    with pytest.raises(TransferError, match="no cable reaches mac5"):
        transfer_plan(FILES, needs, {"mac1": sorted(FILES)}, mesh(HOSTS))
    with pytest.raises(TransferError, match="no node holds"):
        transfer_plan(FILES, {"mac2": sorted(FILES)}, {}, mesh(HOSTS))


def test_the_bound_is_a_third_of_the_model_over_one_cable_for_replicas_and_the_largest_shard_for_ranks():
    assert bound_seconds("full", {"mac2": 300, "mac3": 300, "mac4": 300}, 100, 4) == 1.0
    assert bound_seconds("full", {"mac2": 300}, 100, 4, disk_rate=150) == 2.0
    assert bound_seconds("per-rank", {"mac2": 300, "mac3": 500}, 100, 4) == 5.0
