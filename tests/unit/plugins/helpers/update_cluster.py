"""A cluster update-macos.yml plans for: four nodes offered one build, their owners, the settings, serving over
MLX's ring and a timed completion."""

HOSTS = ["mac1", "mac2", "mac3", "mac4"]
SETTINGS = {"version": "", "strategy": "canary_parallel", "canary": "", "free_margin_gb": 15, "order": HOSTS}
OWNER = {"owner": "admin", "guid": "5D1C7A3E-2F4B-4C9A-9E61-0B7F3D2A8C11", "volume_owner": True,
         "password_ok": True}


def offer(version, build, title=None):
    title = title or "macOS Tahoe %s" % version
    return {"label": "%s-%s" % (title, build), "title": title, "version": version, "build": build,
            "size_bytes": 4 * 10 ** 9, "recommended": True, "restart": True}


def node(updates=(), version="26.2", build="25C56", free_gb=200):
    return {"macos": {"version": version, "build": build}, "updates": list(updates),
            "volumes": {"/": {"path": "/", "free_kib": int(free_gb * 1e9 / 1024)}}}


def cluster(**changes):
    nodes = dict((host, node([offer("26.3", "25D60")])) for host in HOSTS)
    nodes.update(changes)
    return nodes


def owners(**changes):
    found = dict((host, dict(OWNER)) for host in HOSTS)
    found.update(changes)
    return found


RING = {"rank": 0, "backend": "ring", "endpoint": {"url": "http://198.18.2.11:8080"}, "hosts": ["mac1", "mac2"]}
WAVES = [["mac1"], ["mac2", "mac3", "mac4"]]


def timed(tokens_per_second, tokens=64):
    """One timed completion as ansible.builtin.uri returns it (the endpoint's own seconds in its header)."""
    return {"status": 200, "x_macops_seconds": "%.3f" % (tokens / tokens_per_second),
            "json": {"usage": {"completion_tokens": tokens}}}
