"""macops.cluster.serve_leader: rank 0's supervisor configuration among the nodes' reads of it, or none."""


def test_serve_leader_is_rank_0_s_configuration_or_none():
    from ansible_collections.macops.cluster.plugins.filter.serve_leader import serve_leader
    leader = {"rank": 0, "endpoint": {"host": "198.18.0.11", "port": 8080, "url": "http://198.18.0.11:8080"}}
    reads = {"mac1": {"exists": False}, "mac2": {"exists": True, "json": None}, "mac3": {"exists": True,
             "json": {"rank": 1}}, "mac4": {"exists": True, "json": leader}, "mac5": "not a read"}
    assert serve_leader(reads) == leader
    assert serve_leader({"mac1": {"exists": False}}) is None and serve_leader({}) is None
