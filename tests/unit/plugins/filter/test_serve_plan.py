"""The serving plan (plugins/plugin_utils/_serve_plan.py, the macops.cluster.serve_plan filter): which model, which
backend, which node runs which rank, and each node's supervisor configuration; or the problems that stop the run
before anything stops or starts."""
import copy
import json

import pytest

from ansible_collections.macops.cluster.plugins.filter.serve_plan import serve_plan
from ansible_collections.macops.cluster.plugins.plugin_utils._serve_plan import launch

HOSTS = ["mac1", "mac2", "mac3", "mac4"]
PATHS = {"ring": "/state/hostfile-ring.json", "jaccl": "/state/hostfile-jaccl.json",
         "jaccl-ring": "/state/hostfile-jaccl-ring.json"}
SETTINGS = {"model_name": "", "runtime": "", "backend": "auto", "hostfile_paths": PATHS, "host": "", "port": "8080",
            "control_port": 8081, "internal_port": 18080, "ring_port": 32343,
            "addresses": dict((h, "198.18.0.%d" % (11 + i)) for i, h in enumerate(HOSTS)), "python": "/venv/python3",
            "launcher": "/serve/serve_rank.py", "run_dir": "/serve/run", "api_key_file": None, "ready_timeout": 600,
            "probe_interval": 30, "probe_timeout": 60, "heartbeat_timeout": 15, "restart_limit": 3, "max_tokens": 512}


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


def codes(plan):
    return [p["code"] for p in plan["problems"]]


def test_the_model_deployed_last_is_served_over_the_ring_with_mlx_lm_s_even_split():
    plan = serve_plan(facts({"old": [(6, 8), (4, 6), (2, 4), (0, 2)], "tiny": [(6, 8), (4, 6), (2, 4), (0, 2)]}),
                      SETTINGS)
    assert codes(plan) == [] and plan["model"]["name"] == "tiny" and plan["backend"] == "ring"
    assert plan["split"] is None and plan["leader"] == "mac1"
    assert plan["endpoint"] == {"host": "198.18.0.11", "port": 8080, "url": "http://198.18.0.11:8080"}
    assert [(r["rank"], r["host"], r["layers"]) for r in plan["ranks"]] == [
        (0, "mac1", [6, 8]), (1, "mac2", [4, 6]), (2, "mac3", [2, 4]), (3, "mac4", [0, 2])]
    leader, follower = plan["configs"]["mac1"], plan["configs"]["mac3"]
    assert leader["endpoint"] == plan["endpoint"] and follower["endpoint"] is None
    assert follower["leader"] == {"host": "mac1", "control": "198.18.0.11:8081"}
    assert follower["launch_env"] == {"MLX_RANK": "2", "HF_HUB_OFFLINE": "1"}
    assert follower["wait_for_addresses"] == ["198.19.0.9"]
    assert follower["server_args"][:2] == ["--model", "/Users/admin/models/tiny"] and "--pipeline" in follower["server_args"]
    assert json.loads(json.dumps(plan["configs"])) == plan["configs"]  # what the role writes as serve.json


def test_a_split_that_is_not_mlx_lm_s_even_one_goes_to_the_launcher():
    plan = serve_plan(facts({"tiny": [(5, 8), (3, 5), (1, 3), (0, 1)]}), SETTINGS)
    assert codes(plan) == [] and plan["split"] == [3, 2, 2, 1]
    assert all(config["split"] == [3, 2, 2, 1] for config in plan["configs"].values())


def test_auto_takes_rdma_where_every_node_holds_its_hostfile():
    plan = serve_plan(facts(backends=("ring", "jaccl")), SETTINGS)
    assert plan["backend"] == "jaccl"
    assert plan["configs"]["mac2"]["launch"]["rdma"][0] == [None, "rdma_en1", "rdma_en2", "rdma_en3"]


def test_a_backend_whose_hostfile_a_node_lacks_is_refused_with_the_node():
    nodes = facts(backends=("ring", "jaccl"))
    del nodes["mac3"]["files"][PATHS["jaccl"]]
    plan = serve_plan(nodes, dict(SETTINGS, backend="jaccl"))
    assert codes(plan) == ["serve_backend_unavailable"] and plan["problems"][0]["host"] == "mac3"
    assert serve_plan(nodes, SETTINGS)["backend"] == "ring"  # auto falls back


def test_an_unknown_model_names_what_is_deployed():
    plan = serve_plan(facts(), dict(SETTINGS, model_name="DeepSeek-V3.1-4bit"))
    assert codes(plan) == ["serve_model_unknown"] and "tiny" in plan["problems"][0]["message"]
    assert codes(serve_plan(facts(models={}), SETTINGS)) == ["serve_model_unknown"]


def test_an_incomplete_copy_or_a_missing_rank_stops_the_run_naming_the_node():
    nodes = facts()
    nodes["mac2"]["models"][0]["complete"] = False
    nodes["mac2"]["models"][0]["missing"] = ["model-00002-of-00008.safetensors"]
    plan = serve_plan(nodes, SETTINGS)
    assert codes(plan) == ["serve_model_incomplete"] and plan["problems"][0]["host"] == "mac2"
    nodes = facts()
    nodes["mac4"]["models"] = []
    plan = serve_plan(nodes, SETTINGS)
    assert "serve_model_incomplete" in codes(plan) and plan["configs"] == {}


def test_records_out_of_the_hostfile_s_rank_order_or_with_a_gap_are_refused():
    nodes = facts(order=HOSTS)
    for host in ("mac1", "mac2"):  # the cabling changed: the ring now starts at mac2
        nodes[host]["files"][PATHS["ring"]]["json"] = hostfile("ring", ["mac2", "mac1", "mac3", "mac4"])
    for host in ("mac3", "mac4"):
        nodes[host]["files"][PATHS["ring"]]["json"] = hostfile("ring", ["mac2", "mac1", "mac3", "mac4"])
    assert "serve_split_mismatch" in codes(serve_plan(nodes, SETTINGS))
    gap = facts({"tiny": [(6, 8), (4, 6), (3, 4), (0, 2)]})
    assert codes(serve_plan(gap, SETTINGS)) == ["serve_split_mismatch"]


def test_an_exo_deployment_is_not_started_as_mlx_lm():
    nodes = facts()
    for host in HOSTS:
        nodes[host]["models"][0]["runtime"] = "exo"
    assert codes(serve_plan(nodes, SETTINGS)) == ["serve_runtime_unsupported"]


def test_the_endpoint_host_and_the_api_key_file_go_to_rank_0_only():
    plan = serve_plan(facts(), dict(SETTINGS, host="198.18.0.99", api_key_file="/serve/api-key"))
    assert plan["endpoint"]["url"] == "http://198.18.0.99:8080"
    assert plan["configs"]["mac1"]["api_key_file"] == "/serve/api-key"
    assert [plan["configs"][h]["api_key_file"] for h in HOSTS[1:]] == [None, None, None]


def test_launch_gives_each_rank_its_first_address_and_the_rdma_devices():
    ring = launch(hostfile("ring", HOSTS), 32343)
    assert ring == {"ips": ["198.19.0.1", "198.19.0.5", "198.19.0.9", "198.19.0.13"], "rdma": [[], [], [], []],
                    "port": 32343}


@pytest.mark.parametrize("broken", [{"mac1": None}, {"mac1": "not a dict"}])
def test_a_broken_read_is_a_filter_error_not_a_traceback(broken):
    from ansible.errors import AnsibleFilterError
    nodes = copy.deepcopy(facts())
    nodes.update(broken)
    with pytest.raises(AnsibleFilterError):
        serve_plan(nodes, SETTINGS)


def test_serve_leader_is_rank_0_s_configuration_or_none():
    from ansible_collections.macops.cluster.plugins.filter.serve_leader import serve_leader
    leader = {"rank": 0, "endpoint": {"host": "198.18.0.11", "port": 8080, "url": "http://198.18.0.11:8080"}}
    reads = {"mac1": {"exists": False}, "mac2": {"exists": True, "json": None}, "mac3": {"exists": True,
             "json": {"rank": 1}}, "mac4": {"exists": True, "json": leader}, "mac5": "not a read"}
    assert serve_leader(reads) == leader
    assert serve_leader({"mac1": {"exists": False}}) is None and serve_leader({}) is None
