"""A deployment the controller plans: a 4-node mesh's applied plan, a placement of a five-file model, empty
inventories and each node's volume."""

MB = 1 << 20
HOSTS = ["mac1", "mac2", "mac3", "mac4"]
FILES = {"config.json": 1000, "a.safetensors": 40 * MB, "b.safetensors": 40 * MB, "c.safetensors": 40 * MB,
         "shared.safetensors": 10 * MB}
SOURCE, DEST = "/Users/admin/staging/m", "/Users/admin/models/m"


def applied():
    """The applied plan's hosts of a 4-node mesh: each cable a /30, both ends."""
    hosts = dict((h, {}) for h in HOSTS)
    number = 0
    for i, a in enumerate(HOSTS):
        for b in HOSTS[i + 1:]:
            number += 1
            link, ip_a, ip_b = "L%d" % number, "198.18.%d.1" % number, "198.18.%d.2" % number
            hosts[a]["en%d" % (len(hosts[a]) + 2)] = {"link_id": link, "ip": ip_a, "peer_host": b, "peer_ip": ip_b}
            hosts[b]["en%d" % (len(hosts[b]) + 2)] = {"link_id": link, "ip": ip_b, "peer_host": a, "peer_ip": ip_a}
    return hosts


def placement():
    own = {"mac1": [], "mac2": ["a.safetensors"], "mac3": ["b.safetensors"], "mac4": ["c.safetensors"]}
    ranks = []
    for rank, host in enumerate(HOSTS):
        names = sorted(["config.json", "shared.safetensors"] + own[host])
        ranks.append({"rank": rank, "host": host, "files": names,
                      "entries": [{"file": n, "size": FILES[n], "sha256": "%064d" % len(n)} for n in names]})
    return {"ranks": ranks, "files": dict(FILES), "sha256": dict((n, "%064d" % len(n)) for n in FILES),
            "nodes": HOSTS, "runtime": "mlx-lm", "version": "0.32.2", "mode": "pipeline", "copies": "per-rank",
            "layers": 16, "context_tokens": 32768, "model_bytes": sum(FILES.values()), "split": [4, 4, 4, 4],
            "split_rule": "mlx-lm 0.32.2: even split, rank 0 last"}


def empty_inventories(plan):
    return dict((r["host"], {"files": dict((n, {"state": "missing", "bytes": 0}) for n in r["files"]),
                             "extra": [], "missing_bytes": sum(FILES[n] for n in r["files"])}) for r in plan["ranks"])


def volumes(free_mb=10000, mount="/"):
    return dict((h, {"path": "/Users/admin", "free_kib": free_mb * 1024, "mounted_on": mount}) for h in HOSTS)
