"""What serve-model.yml plans from: the serving settings and each node's read (deployment records and
hostfiles), for mlx-lm over a ring, exo, and tensor parallel."""

HOSTS = ["mac1", "mac2", "mac3", "mac4"]
PATHS = {"ring": "/state/hostfile-ring.json", "jaccl": "/state/hostfile-jaccl.json",
         "jaccl-ring": "/state/hostfile-jaccl-ring.json"}
TB_PLAN = "/state/thunderbolt-plan.json"
SETTINGS = {"model_name": "", "runtime": "", "backend": "auto", "hostfile_paths": PATHS, "tb_plan_path": TB_PLAN,
            "host": "", "port": "8080",
            "control_port": 8081, "internal_port": 18080, "ring_port": 32343,
            "addresses": dict((h, "198.18.0.%d" % (11 + i)) for i, h in enumerate(HOSTS)), "python": "/venv/python3",
            "launcher": "/serve/serve_rank.py", "run_dir": "/serve/run", "api_key_file": None, "ready_timeout": 600,
            "probe_interval": 30, "stall_timeout": 90, "heartbeat_timeout": 15, "restart_limit": 3, "max_tokens": 512,
            "request_idle_timeout": 600, "max_request_bytes": 16777216, "log_dir": "/logs",
            "temperature": 1.0, "top_p": 1.0, "top_k": 0, "min_p": 0.0, "chat_template_args": {},
            "decode_concurrency": 32, "prompt_concurrency": 8, "prefill_step_size": 2048, "prompt_cache_size": 10,
            "prompt_cache_bytes": 0, "kv_bits": 0, "trust_remote_code": False,
            "status_path": "/serve/run/status.json", "config_path": "/serve/serve.json", "launchd_label": "org.macops.serve",
            "state": "started", "memory_headroom_percent": 20, "exo_api_port": "52415"}


def hostfile(backend, order):
    return {"backend": backend, "envs": [], "hosts": [
        {"ssh": host, "ips": ["198.19.0.%d" % (4 * i + 1)], "rdma": [None if j == i else "rdma_en%d" % j
                                                                  for j in range(len(order))] if backend != "ring" else []}
        for i, host in enumerate(order)]}


def record(name, rank, layers, ranks=4, recorded_at=100, complete=True, mode="pipeline"):
    return {"name": name, "model_id": None, "runtime": "mlx-lm", "runtime_version": "0.32.2", "mode": mode,
            "copies": "per-rank", "rank": rank, "ranks": ranks, "layers": list(layers), "path": "/Users/admin/models/" + name,
            "files": 4, "bytes": 1000, "missing": [] if complete else ["model-00002-of-00008.safetensors"],
            "wrong_size": [], "complete": complete, "recorded_at": recorded_at}


def facts(models=None, backends=("ring",), order=HOSTS):
    """node_facts results: each node holds `models` ({name: [(start, end) per rank]}) and the hostfiles of `backends`."""
    models = models if models is not None else {"tiny": [(6, 8), (4, 6), (2, 4), (0, 2)]}
    result = {}
    for index, host in enumerate(order):
        files = dict((PATHS[b], {"exists": True, "json": hostfile(b, order)}) for b in backends)
        held = [record(name, index, ranges[index], ranks=len(ranges), recorded_at=stamp)
                for stamp, (name, ranges) in enumerate(sorted(models.items())) if index < len(ranges)]
        result[host] = {"files": files, "models": held}
    return result


def exo_facts(backends=("ring",)):
    """Each node holds a complete copy of `tiny` deployed for exo (rank 0 the first layers, exo's rule) and the
    hostfiles of `backends`."""
    nodes = facts({"tiny": [(0, 2), (2, 4), (4, 6), (6, 8)]}, backends=backends)
    for host in HOSTS:
        nodes[host]["models"][0].update(runtime="exo", copies="full", model_id="org/tiny", bytes=8000)
    return nodes


def tensor_facts(spans):
    """Every node holds a full copy of `tp`, deployed for tensor parallel: its record's layers are `spans[rank]`."""
    result = facts({})
    for index, host in enumerate(HOSTS):
        result[host]["models"] = [record("tp", index, spans[index], mode="tensor")]
    return result
