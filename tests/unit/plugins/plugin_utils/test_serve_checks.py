"""What serving checks on each node before it starts (plugins/plugin_utils/_serve_checks.py): every port it listens
on free or the serving job's own, and each rank's weights fitting beside what runs (the wired limit, memory a
stopping rank or exo runner frees, a tensor rank's share); through the serving plan."""
import pytest

from ansible_collections.macops.cluster.plugins.filter.serve_plan import serve_plan

from serve_fixture import HOSTS, SETTINGS, exo_facts, facts, record, tensor_facts


def codes(plan):
    return [p["code"] for p in plan["problems"]]


def test_exo_ports_are_the_endpoint_only_and_memory_is_each_node_s_share_of_the_layers():
    nodes = with_memory(exo_facts(), 100 * GIB)
    for host in HOSTS:
        nodes[host]["listening"] = listening((9, "exo", "*", 52415), (10, "x", "127.0.0.1", 18080))
        nodes[host]["models"][0]["bytes"] = int(200e9)  # every node holds all 200 GB; each loads a quarter
    assert codes(serve_plan(nodes, SETTINGS)) == []
    nodes["mac3"]["memory"]["available_bytes"] = 40 * GIB
    [found] = serve_plan(nodes, SETTINGS)["problems"]
    assert (found["code"], found["host"]) == ("serve_memory_short", "mac3")
    assert "needs about 60.0 GB (its 50.0 GB of weights + 20 %)" in found["message"]
    nodes["mac1"]["listening"] += listening((11, "nginx", "*", 8080))
    assert "serve_port_in_use" in codes(serve_plan(nodes, SETTINGS))


def listening(*entries):
    return [{"pid": pid, "command": command, "address": address, "port": port} for pid, command, address, port in entries]


@pytest.mark.parametrize("backend", ["ring", "jaccl"])
def test_every_port_serving_listens_on_is_free_or_the_serving_job_s_own(backend):
    nodes = facts(backends=(backend,))
    for host in HOSTS:
        nodes[host]["listening"] = listening((70, "ControlCe", "*", 7000), (88, "cupsd", "127.0.0.1", 631),
                                             (90, "nginx", "198.18.0.12", 8080))  # another address: no clash
    # The serving job's own processes hold its ports (a second run): they stop first, no problem.
    nodes["mac1"]["listening"] += listening((501, "Python", "198.18.0.11", 8080), (502, "python3.12", "127.0.0.1", 18080))
    nodes["mac1"]["files"]["/serve/run/status.json"] = {"exists": True, "json": {"supervisor_pid": 501, "rank_pid": 502}}
    assert codes(serve_plan(nodes, dict(SETTINGS, backend=backend))) == []


@pytest.mark.parametrize("host, entry, variable", [
    ("mac1", (612, "nginx", "*", 8080), "serve_port"),
    ("mac1", (613, "python3", "127.0.0.1", 18080), "serve_internal_port"),
    ("mac1", (614, "node", "198.18.0.11", 8081), "serve_control_port"),
    ("mac3", (615, "python3", "198.19.0.9", 32345), "serve_mlx_port"),  # rank 2's ring port, first block
    ("mac4", (616, "iperf3", "*", 32350), "serve_mlx_port"),  # rank 3's ring port, second block (32343 + 4 + 3)
])
def test_a_port_another_program_listens_on_is_refused_naming_the_node_the_program_and_the_variable(host, entry, variable):
    nodes = facts()
    for name in HOSTS:
        nodes[name]["listening"] = []
    nodes[host]["listening"] = listening(entry)
    plan = serve_plan(nodes, SETTINGS)
    [found] = plan["problems"]
    assert (found["code"], found["host"], found["port"], found["details"]["variable"]) == (
        "serve_port_in_use", host, str(entry[3]), variable)
    assert "%s (pid %d)" % (entry[1], entry[0]) in found["message"] and variable in found["fix"]


def test_ports_are_not_judged_where_the_listeners_were_not_read():
    nodes = facts()
    nodes["mac2"]["listening"] = listening((1, "x", "*", 32343 + 1))
    assert codes(serve_plan(nodes, SETTINGS)) == ["serve_port_in_use"]  # mac2 read: judged; the others not read


GIB = 1024 ** 3


def with_memory(nodes, available, live_mb=0, memory=512 * GIB):
    for host in HOSTS:
        nodes[host].update(memory={"available_bytes": available}, wired_limit={"live_mb": live_mb},
                           mac={"memory_bytes": memory})
    return nodes


def sized(nodes, name, gigabytes):
    """Each node's record of `name` holding `gigabytes` of weights."""
    for host in HOSTS:
        for held in nodes[host]["models"]:
            if held["name"] == name:
                held["bytes"] = int(gigabytes * 1e9)
    return nodes


def test_a_rank_that_fits_beside_what_runs_starts():
    nodes = sized(with_memory(facts(), 100 * GIB), "tiny", 60)
    assert codes(serve_plan(nodes, SETTINGS)) == []


def test_a_rank_that_does_not_fit_beside_what_runs_is_refused_naming_the_node_and_the_sizes():
    nodes = sized(with_memory(facts(), 100 * GIB), "tiny", 60)
    nodes["mac3"]["memory"]["available_bytes"] = 40 * GIB  # an exo instance holds the rest
    [found] = serve_plan(nodes, SETTINGS)["problems"]
    assert (found["code"], found["host"]) == ("serve_memory_short", "mac3")
    assert "rank 2 of tiny needs about 72.0 GB (its 60.0 GB of weights + 20 %)" in found["message"]
    assert "only 42.9 GB are free for it beside what already runs" in found["message"]
    assert found["details"]["need_bytes"] == 72 * 10 ** 9


def test_the_gpu_s_wired_limit_bounds_a_rank_too():
    nodes = sized(with_memory(facts(), 500 * GIB, memory=96 * GIB), "tiny", 70)  # the default: 3/4 of 96 GiB
    assert [p["host"] for p in serve_plan(nodes, SETTINGS)["problems"]] == HOSTS
    assert "iogpu.wired_limit_mb 0: the macOS default" in serve_plan(nodes, SETTINGS)["problems"][0]["message"]
    nodes = sized(with_memory(facts(), 500 * GIB, live_mb=90 * 1024, memory=96 * GIB), "tiny", 70)
    assert codes(serve_plan(nodes, SETTINGS)) == []  # the gpu_memory role raised it


def test_memory_the_serving_job_s_own_rank_holds_counts_as_free_and_a_rank_that_keeps_running_is_not_judged():
    nodes = sized(with_memory(facts({"old": [(6, 8), (4, 6), (2, 4), (0, 2)], "tiny": [(6, 8), (4, 6), (2, 4), (0, 2)]}),
                              20 * GIB), "tiny", 60)
    nodes = sized(nodes, "old", 60)
    plan = serve_plan(nodes, dict(SETTINGS, model_name="tiny"))
    assert codes(plan) == ["serve_memory_short"] * 4  # nothing served now: 20 GiB free for 72 GB
    for host in HOSTS:  # the old model is served: its ranks stop first and free their 60 GB
        nodes[host]["launchd"] = {"org.macops.serve": True}
        nodes[host]["files"]["/serve/serve.json"] = {"exists": True, "json": {"model_path": "/Users/admin/models/old"}}
    assert codes(serve_plan(nodes, dict(SETTINGS, model_name="tiny"))) == []
    # tiny itself served as planned: nothing starts, nothing to judge (a second run under memory pressure)
    for host in HOSTS:
        nodes[host]["files"]["/serve/serve.json"] = {"exists": True, "json": plan["configs"][host]}
    assert codes(serve_plan(sized(with_memory(nodes, 0), "old", 0), dict(SETTINGS, model_name="tiny"))) == []


def serving(nodes, configs):
    """Each node's job loaded with its config in `configs` (a host missing: no job)."""
    for host in HOSTS:
        if host in configs:
            nodes[host]["launchd"] = {"org.macops.serve": True}
            nodes[host]["files"]["/serve/serve.json"] = {"exists": True, "json": configs[host]}
    return nodes


@pytest.mark.parametrize("change", [{"state": "restarted"}, {"probe_interval": 5}])
def test_restarting_or_changing_a_served_exo_model_counts_its_runners_memory_as_freed(change):
    nodes = with_memory(exo_facts(), 30 * GIB)
    for host in HOSTS:
        nodes[host]["models"][0]["bytes"] = int(200e9)  # each node's runner holds a quarter: 50 GB, 60 with headroom
    placed = serve_plan(nodes, SETTINGS)["configs"]
    assert codes(serve_plan(nodes, SETTINGS)) == ["serve_memory_short"] * 4  # nothing placed yet: 30 GiB is short
    serving(nodes, placed)  # the instance is placed: its runners hold what vm_stat does not count as free
    assert codes(serve_plan(nodes, dict(SETTINGS, **change))) == []


def test_switching_from_an_exo_model_to_an_mlx_lm_one_counts_the_exo_runners_as_freed():
    nodes = with_memory(exo_facts(), 30 * GIB)
    placed = serve_plan(nodes, SETTINGS)["configs"]
    for index, host in enumerate(HOSTS):
        nodes[host]["models"][0]["bytes"] = int(200e9)
        nodes[host]["models"].append(dict(record("mlx", index, [(6, 8), (4, 6), (2, 4), (0, 2)][index]),
                                          bytes=int(40e9), recorded_at=200))
    serving(nodes, placed)
    plan = serve_plan(nodes, dict(SETTINGS, model_name="mlx"))
    assert codes(plan) == [] and [plan["actions"][h]["start"] for h in HOSTS] == [True] * 4
    assert plan["actions"]["mac1"]["stop"] and not plan["actions"]["mac2"]["stop"]


def test_a_tensor_rank_needs_its_share_of_the_full_copy_not_all_of_it():
    """Each node holds the whole model for tensor parallel, and each rank loads a quarter of every layer."""
    nodes = sized(with_memory(tensor_facts([(0, 8)] * 4), 100 * GIB), "tp", 200)
    assert codes(serve_plan(nodes, SETTINGS)) == []  # 50 GB + 20 % on each node, not 240 GB
    nodes["mac2"]["memory"]["available_bytes"] = 40 * GIB
    [found] = serve_plan(nodes, SETTINGS)["problems"]
    assert found["host"] == "mac2" and "needs about 60.0 GB (its 50.0 GB of weights + 20 %)" in found["message"]
