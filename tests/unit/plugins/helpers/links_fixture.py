"""The links suite's cluster (three Studios, one TB4 cable), its iperf3 runs, baselines, and the results
document built from them."""
from ansible_collections.macops.cluster.plugins.plugin_utils._bench_plan import links_plan
from ansible_collections.macops.cluster.plugins.plugin_utils._bench_results import build_document

BASELINES = {"links": {"tb5": {"gbps": 4.0, "source": "the lab's shaping"}, "tb4": {"gbps": 1.0, "source": "lab"}}}
PLAN = {
    "mac1": {"en3": {"ip": "198.19.0.1", "link_id": "mac1:en3--mac2:en3", "peer_host": "mac2", "peer_ip": "198.19.0.2"},
             "en4": {"ip": "198.19.0.5", "link_id": "mac1:en4--mac3:en3", "peer_host": "mac3", "peer_ip": "198.19.0.6"}},
    "mac2": {"en3": {"ip": "198.19.0.2", "link_id": "mac1:en3--mac2:en3", "peer_host": "mac1", "peer_ip": "198.19.0.1"}},
    "mac3": {"en3": {"ip": "198.19.0.6", "link_id": "mac1:en4--mac3:en3", "peer_host": "mac1", "peer_ip": "198.19.0.5"}},
}
HOSTS = ["mac1", "mac2", "mac3"]


def mac(speeds, model="Mac Studio"):
    return {"model_name": model, "chip": "Apple M3 Ultra", "memory_bytes": 512 << 30, "macos_version": "26.2",
            "macos_build": "25C56", "thunderbolt_ports": [{"interface": port, "receptacle": number, "speed_gbps": gbps}
                                                          for number, (port, gbps) in enumerate(speeds, start=1)]}


MACS = {"mac1": mac([("en3", 80), ("en4", 40)]), "mac2": mac([("en3", 80)]), "mac3": mac([("en3", 40)])}


def direction(gbps):
    return {"from": "client", "bits_per_second": gbps * 1e9, "sender_bits_per_second": gbps * 1e9, "bytes": 1,
            "seconds": 5.0, "retransmits": 0}


def iperf_test(link_id, forward, backward, repeat=0, error=None):
    return {"link_id": link_id, "repeat": repeat, "error": error, "iperf3_version": "iperf 3.19",
            "forward": None if forward is None else direction(forward),
            "backward": None if backward is None else direction(backward)}


def document(tests, macs=MACS, expected="tb5", plan=PLAN):
    run = {"id": "20261201T120000Z", "finished": "2026-12-01T12:00:00Z", "playbook": "benchmark.yml",
           "suites": ["links"]}
    return build_document(run, HOSTS, links_plan(plan, HOSTS, 2), tests, macs, BASELINES, 15.0,
                          {"seconds": 5}, {}, expected)


TESTS = [iperf_test("mac1:en3--mac2:en3", 3.7, 3.8), iperf_test("mac1:en3--mac2:en3", 3.9, 3.6, repeat=1),
         iperf_test("mac1:en4--mac3:en3", 0.95, 0.94), iperf_test("mac1:en4--mac3:en3", 0.96, 0.93, repeat=1)]
