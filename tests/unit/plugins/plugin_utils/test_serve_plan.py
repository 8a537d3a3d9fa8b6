"""The serving plan (plugins/plugin_utils/_serve_plan.py, the macops.cluster.serve_plan filter): which model, which
backend, which node runs which rank, and each node's supervisor configuration; or the problems that stop the run
before anything stops or starts."""
import json

import pytest

from ansible_collections.macops.cluster.plugins.filter.serve_plan import serve_plan
from ansible_collections.macops.cluster.plugins.plugin_utils._serve_plan import launch, server_options

from serve_fixture import HOSTS, PATHS, SETTINGS, TB_PLAN, exo_facts, facts, hostfile, record, tensor_facts


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
    assert follower["launch_env"] == {"MLX_RANK": "2", "HF_HUB_OFFLINE": "1", "MACOPS_SERVE_LAYERS": json.dumps(
        {"layers": [2, 4], "mode": "pipeline"})}  # the layers rank 2 proves it holds once loaded
    assert follower["wait_for_addresses"] == ["198.19.0.9"]
    assert follower["server_args"][:2] == ["--model", "/Users/admin/models/tiny"] and "--pipeline" in follower["server_args"]
    assert json.loads(json.dumps(plan["configs"])) == plan["configs"]  # what the role writes as serve.json
    # A new deployment of the same model (its record changed) is a new configuration: every rank restarts on it.
    assert follower["deployed_at"] == 1
    nodes = facts({"old": [(6, 8), (4, 6), (2, 4), (0, 2)], "tiny": [(6, 8), (4, 6), (2, 4), (0, 2)]})
    nodes["mac3"]["models"][1]["recorded_at"] = 7
    assert serve_plan(nodes, SETTINGS)["configs"]["mac3"]["deployed_at"] == 7


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


@pytest.mark.parametrize("backend, meta", [("ring", "MlxRing"), ("jaccl", "MlxJaccl")])
def test_an_exo_deployment_is_placed_through_exo_by_rank_0_s_node_only(backend, meta):
    plan = serve_plan(exo_facts(backends=(backend,)), SETTINGS)
    assert codes(plan) == [] and plan["model"]["runtime"] == "exo" and plan["split"] is None
    assert sorted(plan["configs"]) == ["mac1"] and plan["leader"] == "mac1"
    config = plan["configs"]["mac1"]
    assert config["exo"] == {"api_port": 52415, "model_id": "org/tiny", "sharding": "Pipeline",
                             "instance_meta": meta, "min_nodes": 4}
    assert config["runtime"] == "exo" and config["endpoint"]["url"] == "http://198.18.0.11:8080"
    assert "leader" not in config and "server_args" not in config  # no ranks of the collection's own
    assert [(r["rank"], r["host"], r["layers"]) for r in plan["ranks"]] == [
        (0, "mac1", [0, 2]), (1, "mac2", [2, 4]), (2, "mac3", [4, 6]), (3, "mac4", [6, 8])]
    assert plan["actions"]["mac1"]["start"] and not any(plan["actions"][h]["start"] for h in HOSTS[1:])
    assert "place the exo instance of tiny through exo's API (%s" % meta in plan["actions"]["mac1"]["says"]
    assert plan["actions"]["mac2"]["says"] == "No serving job on mac2; serve nothing here."


def test_switching_from_mlx_lm_to_an_exo_model_stops_every_rank_and_places_on_rank_0_s_node():
    nodes = exo_facts()
    for host in HOSTS:  # an mlx-lm model served on every node now
        nodes[host]["launchd"] = {"org.macops.serve": True}
        nodes[host]["files"]["/serve/serve.json"] = {"exists": True, "json": {"runtime": "mlx-lm", "model": "old"}}
    plan = serve_plan(nodes, SETTINGS)
    assert [plan["actions"][h]["stop"] for h in HOSTS] == [True] * 4
    assert [plan["actions"][h]["start"] for h in HOSTS] == [True, False, False, False]
    assert plan["actions"]["mac3"]["says"] == "Stop the serving job on mac3; serve nothing here."


def test_a_runtime_other_than_the_deployment_s_is_refused():
    assert codes(serve_plan(exo_facts(), dict(SETTINGS, runtime="mlx-lm"))) == ["serve_runtime_mismatch"]
    assert codes(serve_plan(facts(), dict(SETTINGS, runtime="exo"))) == ["serve_runtime_mismatch"]


def test_the_endpoint_host_and_the_api_key_file_go_to_rank_0_only():
    plan = serve_plan(facts(), dict(SETTINGS, host="198.18.0.99", api_key_file="/serve/api-key"))
    assert plan["endpoint"]["url"] == "http://198.18.0.99:8080"
    assert plan["configs"]["mac1"]["api_key_file"] == "/serve/api-key"
    assert [plan["configs"][h]["api_key_file"] for h in HOSTS[1:]] == [None, None, None]


def test_launch_gives_each_rank_its_first_address_and_the_rdma_devices():
    ring = launch(hostfile("ring", HOSTS), 32343)
    assert ring == {"ips": ["198.19.0.1", "198.19.0.5", "198.19.0.9", "198.19.0.13"], "rdma": [[], [], [], []],
                    "ports": [[32343, 32344, 32345, 32346], [32347, 32348, 32349, 32350]]}


@pytest.mark.parametrize("state, stops, starts", [("started", [False] * 4, [False] * 4),
                                                  ("restarted", [True] * 4, [True] * 4),
                                                  ("stopped", [True] * 4, [False] * 4)])
def test_actions_follow_serve_state_on_a_cluster_that_serves_the_plan_already(state, stops, starts):
    nodes = facts()
    served = serve_plan(nodes, SETTINGS)
    for host in HOSTS:
        nodes[host]["launchd"] = {"org.macops.serve": True}
        nodes[host]["files"]["/serve/serve.json"] = {"exists": True, "json": served["configs"][host]}
    plan = serve_plan(nodes, dict(SETTINGS, state=state))
    assert [plan["actions"][h]["stop"] for h in HOSTS] == stops
    assert [plan["actions"][h]["start"] for h in HOSTS] == starts
    said = plan["actions"]["mac2"]["says"]
    assert said == {"started": "Keep the serving job on mac2; then keep rank 1 of tiny (mlx-lm over ring).",
                    "restarted": "Stop the serving job on mac2; then start rank 1 of tiny (mlx-lm over ring).",
                    "stopped": "Stop the serving job on mac2; serve nothing here."}[state]


def test_mlx_lm_server_s_options_come_from_their_variables_and_zero_caps_are_left_out():
    """Issue 47: every option is on each rank's command line (the configuration says what it serves with); a byte cap
    or KV bits of 0 is none, trust_remote_code a flag only when true, the template's arguments JSON."""
    options = server_options(SETTINGS)
    assert options == ["--max-tokens", "512", "--temp", "1.0", "--top-p", "1.0", "--top-k", "0", "--min-p", "0.0",
                       "--chat-template-args", "{}", "--decode-concurrency", "32", "--prompt-concurrency", "8",
                       "--prefill-step-size", "2048", "--prompt-cache-size", "10"]
    tuned = server_options(dict(SETTINGS, temperature="0.6", kv_bits=4, prompt_cache_bytes=8 << 30,
                                trust_remote_code=True, chat_template_args={"enable_thinking": False}))
    assert tuned[tuned.index("--temp") + 1] == "0.6" and tuned[tuned.index("--kv-bits") + 1] == "4"
    assert tuned[tuned.index("--prompt-cache-bytes") + 1] == str(8 << 30) and tuned[-1] == "--trust-remote-code"
    assert json.loads(tuned[tuned.index("--chat-template-args") + 1]) == {"enable_thinking": False}


def test_a_tensor_parallel_deployment_is_served_on_every_rank_without_pipeline_or_split():
    """Issue 47: each rank's record holds every layer (a slice of each); the plan used to refuse that as layers
    covered more than once, so tensor parallel was planned but never served."""
    plan = serve_plan(tensor_facts([(0, 8)] * 4), SETTINGS)
    assert codes(plan) == [] and plan["model"]["mode"] == "tensor" and plan["split"] is None
    for host in HOSTS:
        config = plan["configs"][host]
        assert "--pipeline" not in config["server_args"]
        assert json.loads(config["launch_env"]["MACOPS_SERVE_LAYERS"]) == {"layers": None, "mode": "tensor"}
    assert codes(serve_plan(tensor_facts([(0, 8)] * 3 + [(0, 6)]), SETTINGS)) == ["serve_split_mismatch"]


def mesh_plan(order):
    """thunderbolt-plan.json's hosts for a full mesh of `order`: one cable a pair, 198.19.n.1 and .2 at its ends."""
    hosts = {}
    pairs = [(a, b) for i, a in enumerate(order) for b in order[i + 1:]]
    for number, (a, b) in enumerate(pairs):
        link_id = "%s:en%d--%s:en%d" % (a, number + 2, b, number + 2)
        for host, peer, mine, theirs in ((a, b, 1, 2), (b, a, 2, 1)):
            hosts.setdefault(host, {})["en%d" % (number + 2)] = {
                "ip": "198.19.%d.%d" % (number, mine), "peer_ip": "198.19.%d.%d" % (number, theirs), "peer_host": peer,
                "link_id": link_id, "netmask": "255.255.255.252", "prefix": 30}
    return hosts


def subset_facts(deployed, backends=("ring",), cabling=None, mode="pipeline"):
    """Every node holds the hostfiles of all four and the applied plan; `deployed` ({host: layers}, rank order)
    holds model `two`, deployed on those nodes alone (deploy_model_nodes or deploy_model_smallest_fit)."""
    result = facts({}, backends=backends)
    for host in HOSTS:
        result[host]["files"][TB_PLAN] = {"exists": True, "json": {"hosts": cabling or mesh_plan(HOSTS)}}
    for rank, (host, layers) in enumerate(deployed):
        result[host]["models"] = [record("two", rank, layers, ranks=len(deployed), mode=mode)]
    return result


def test_a_model_deployed_on_two_of_four_nodes_is_served_over_a_ring_of_their_own_cable():
    """Issue 47: a deployment on some of the nodes used to stop serve-model.yml with a KeyError; its ranks now run
    on those nodes alone, over the cable that joins them, and the other nodes run nothing."""
    plan = serve_plan(subset_facts([("mac1", (0, 8)), ("mac3", (0, 8))], mode="tensor"), SETTINGS)
    assert codes(plan) == [] and sorted(plan["configs"]) == ["mac1", "mac3"]
    assert [(r["rank"], r["host"]) for r in plan["ranks"]] == [(0, "mac1"), (1, "mac3")]
    cable = mesh_plan(HOSTS)["mac1"]["en3"]  # the mac1-mac3 cable, the second pair
    assert cable["peer_host"] == "mac3"
    leader, follower = plan["configs"]["mac1"], plan["configs"]["mac3"]
    assert leader["launch"]["ips"] == [cable["ip"], cable["peer_ip"]] and leader["hosts"] == ["mac1", "mac3"]
    assert follower["wait_for_addresses"] == [cable["peer_ip"]] and follower["ranks"] == 2
    assert leader["launch"]["ports"] == [[32343, 32344], [32345, 32346]]
    assert all(plan["actions"][host] == dict(plan["actions"][host], start=False) for host in ("mac2", "mac4"))
    pipelined = serve_plan(subset_facts([("mac2", (4, 8)), ("mac4", (0, 4))]), SETTINGS)
    assert codes(pipelined) == [] and pipelined["configs"]["mac2"]["launch"]["ips"] == [
        mesh_plan(HOSTS)["mac2"]["en6"]["ip"], mesh_plan(HOSTS)["mac4"]["en6"]["ip"]]


def test_jaccl_keeps_the_members_rows_and_columns_and_jaccl_ring_gives_way_to_ring():
    plan = serve_plan(subset_facts([("mac2", (0, 8)), ("mac4", (0, 8))], backends=("jaccl", "ring"), mode="tensor"),
                      SETTINGS)
    assert codes(plan) == [] and plan["backend"] == "jaccl"
    assert plan["configs"]["mac2"]["launch"]["rdma"] == [[None, "rdma_en3"], ["rdma_en1", None]]
    # jaccl-ring's hostfile names ring neighbours only: auto serves the pair over ring, jaccl-ring asked is refused.
    auto = serve_plan(subset_facts([("mac1", (0, 8)), ("mac3", (0, 8))], backends=("jaccl-ring", "ring"),
                                   mode="tensor"), SETTINGS)
    assert codes(auto) == [] and auto["backend"] == "ring"
    asked = serve_plan(subset_facts([("mac1", (0, 8)), ("mac3", (0, 8))], backends=("jaccl-ring", "ring"),
                                    mode="tensor"), dict(SETTINGS, backend="jaccl-ring"))
    [found] = asked["problems"]
    assert found["code"] == "serve_backend_unavailable" and "deployed on mac1, mac3 alone" in found["message"]


def test_members_that_no_cable_joins_are_refused_naming_the_pair():
    ring_cabling = dict((host, ports) for host, ports in mesh_plan(HOSTS).items())
    for host in ("mac1", "mac3"):  # take the mac1-mac3 cable out: a ring mac1-mac2-mac3-mac4
        ring_cabling[host] = dict((port, end) for port, end in ring_cabling[host].items()
                                  if end["peer_host"] not in ("mac1", "mac3"))
    plan = serve_plan(subset_facts([("mac1", (0, 8)), ("mac3", (0, 8))], cabling=ring_cabling, mode="tensor"),
                      dict(SETTINGS, backend="ring"))
    [found] = plan["problems"]
    assert found["code"] == "serve_backend_unavailable" and "no cable joins mac3 and mac1" in found["message"]
    assert plan["configs"] == {}
