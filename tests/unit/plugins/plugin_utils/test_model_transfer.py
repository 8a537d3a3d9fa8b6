"""The deployment's transfer plan: each node receives each file it lacks exactly once, the load spreads
over every cable (striped relay for full replicas on a mesh: about D/3 per cable instead of D), a node
that holds a good copy is not sent it again, and a node no cable reaches is refused."""
import itertools

import pytest

from ansible_collections.macops.cluster.plugins.plugin_utils._model_transfer import (
    MIN_PIECE, TransferError, bound_seconds, piece_bounds, transfer_plan)

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
    # The three smallest files (here the first three names) are cut in three, one piece per cable of the
    # source; the others go whole.
    cut = ["model-00001.safetensors", "model-00002.safetensors", "model-00003.safetensors"]
    for host in HOSTS[1:]:
        assert sorted((p["file"], p["offset"]) for p in plan["pulls"][host]) == sorted(
            [(name, offset) for name in cut for offset, _length in piece_bounds(64 * MB, 3)]
            + [(name, 0) for name in FILES if name not in cut])
        assert sum(p["length"] for p in plan["pulls"][host]) == TOTAL
    assert plan["wire_bytes"] == 3 * TOTAL  # nothing sent twice to one node
    # Every cable end that leads away from the source carries a third of the model to within one piece.
    assert len(plan["link_bytes"]) == 9  # 3 out of the source, 6 between the receivers
    assert plan["max_link_bytes"] - min(plan["link_bytes"].values()) <= 64 * MB / 3 + 1
    assert plan["max_link_bytes"] <= TOTAL / 3 + 64 * MB / 3 + 1
    # The source sends every byte once: a whole file to one neighbour, each piece of a cut file to one.
    for name in FILES:
        from_source = sorted(p["offset"] for h in HOSTS[1:] for p in plan["pulls"][h]
                             if p["file"] == name and p["parent"] == "mac1")
        assert from_source == ([offset for offset, _length in piece_bounds(64 * MB, 3)] if name in cut else [0])
    # Each pull names the parent's address on the cable it shares with the puller.
    cables = dict(((c["a"], c["b"]), c) for c in mesh(HOSTS))
    for host, pulls in plan["pulls"].items():
        for pull in pulls:
            cable = cables.get((pull["parent"], host)) or cables[(host, pull["parent"])]
            own = cable["a_ip"] if cable["a"] == pull["parent"] else cable["b_ip"]
            assert pull["address"] == own and pull["link_id"] == cable["link_id"]


def test_an_odd_number_of_files_still_balances_to_within_a_piece():
    """16 files of different sizes over 3 cables: whole files alone would leave one cable 10 % ahead."""
    files = dict(("model-%05d.safetensors" % n, {"size": (40 + n) * MB, "sha256": "%064x" % n}) for n in range(1, 17))
    needs = dict((host, sorted(files)) for host in HOSTS)
    plan = transfer_plan(files, needs, {"mac1": sorted(files)}, mesh(HOSTS))
    total = sum(entry["size"] for entry in files.values())
    assert plan["max_link_bytes"] <= total / 3.0 * 1.02


def test_pieces_are_equal_never_under_the_minimum_and_tile_the_file():
    assert piece_bounds(90, 3, minimum=10) == [(0, 30), (30, 30), (60, 30)]
    assert piece_bounds(100, 3, minimum=10) == [(0, 34), (34, 34), (68, 32)]
    assert piece_bounds(25, 3, minimum=10) == [(0, 13), (13, 12)]
    assert piece_bounds(5, 3, minimum=10) == [(0, 5)]
    assert piece_bounds(0, 3) == [(0, 0)]
    assert piece_bounds(3 * MIN_PIECE, 7) == [(n * MIN_PIECE, MIN_PIECE) for n in range(3)]


def test_per_rank_shards_come_over_each_rank_s_own_cable_and_shared_files_by_relay():
    files = dict(FILES)
    needs = {}  # the receivers: the source, which holds everything, is not one
    for rank, host in enumerate(HOSTS[1:]):
        own = sorted(files)[1 + rank * 5:1 + (rank + 1) * 5]
        needs[host] = sorted(own + ["model-00001.safetensors"])
    plan = transfer_plan(files, needs, {"mac1": sorted(files)}, mesh(HOSTS))
    assert plan["wire_bytes"] == sum(len(needs[h]) for h in HOSTS[1:]) * 64 * MB
    for host in HOSTS[1:]:
        own = [p for p in plan["pulls"][host] if p["file"] != "model-00001.safetensors"]
        assert {p["parent"] for p in own} == {"mac1"}
        assert all((p["offset"], p["length"]) == (0, 64 * MB) for p in own)  # one node's file stays whole
    shared = [(h, p["parent"]) for h in HOSTS[1:] for p in plan["pulls"][h] if p["file"] == "model-00001.safetensors"]
    # The shared file's three pieces leave the source once each, on three cables, and are relayed on.
    assert sum(1 for _h, parent in shared if parent == "mac1") == 3 and len(shared) == 9


def test_a_node_that_holds_a_good_copy_is_not_sent_it_and_can_serve_it():
    needs = dict((host, sorted(FILES)) for host in HOSTS)
    holders = {"mac1": sorted(FILES), "mac3": sorted(FILES)[:8]}
    plan = transfer_plan(FILES, needs, holders, mesh(HOSTS))
    assert sorted(set(p["file"] for p in plan["pulls"]["mac3"])) == sorted(FILES)[8:]
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
