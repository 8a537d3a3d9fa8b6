"""benchmark.yml's links, allsum and generate suites on the shared converged lab (issue 15, acceptance
1 to 5): every cable measured in rounds of disjoint pairs, both directions within 15 % of the lab's
shaped rate, the document valid against its schema, real plots in the report, a degraded cable (and
only it) flagged with the TB4 cause, the history growing run by run, bad input refused before any node
runs anything, no iperf3 server left on a node, the all_sum sweep right at every size with its traffic
on the Thunderbolt cables, and mlx_lm.benchmark on the lab's tiny model on one node and pipelined
across the four."""
import json
import os
import subprocess

import pytest

from labtools import HOSTS, REPO, in_netns, layout, log_lines, maclab, read_json, run_playbook, ssh, valid_report
from macsim import topology

BENCHMARK = os.path.join(REPO, "benchmark.yml")


@pytest.fixture(scope="module")
def bench(converged, tmp_path_factory):
    tmp_dir = str(tmp_path_factory.mktemp("benchmark"))
    report_dir = os.path.join(tmp_dir, "report")

    def run(*extra, check=True):
        return run_playbook(BENCHMARK, "-e", "benchmark_report_dir=%s" % report_dir, *extra, workdir=tmp_dir,
                            check=check)

    run.report_dir = report_dir
    # The lab's tiny model is whole on every node: the one-node run too (off by default).
    first = run("-e", json.dumps({"benchmark_generate_single": True}))
    with open(os.path.join(report_dir, "benchmark.json")) as handle:
        run.first = json.load(handle)
    run.first_proc = first
    yield run
    maclab("fault", "clear")


def shaped_gbps():
    return topology.rate_gbps(read_json("lab.json")["link_rate"])


def test_every_cable_both_directions_in_three_rounds_within_15_percent_of_the_shaped_rate(bench):
    links = bench.first["suites"]["links"]
    assert links["rounds"] == 3 and links["one_at_a_time"] == 6
    assert len(links["results"]) == 12
    assert sorted(r["direction"] for r in links["results"]) == sorted(
        "%s->%s" % pair for a in HOSTS for b in HOSTS if a != b for pair in [(a, b)])
    rate = shaped_gbps()
    off = [(r["direction"], r["gbps"]) for r in links["results"] if abs(r["gbps"] - rate) > 0.15 * rate]
    assert off == [], "cables outside 15 %% of the shaped %s Gbit/s: %s" % (rate, off)
    assert bench.first["problems"] == [] and all(r["ok"] for r in links["results"])
    # The rounds ran one after the other, each as one task on every node: progress per round.
    out = bench.first_proc.stdout
    assert out.count("TASK [macops.cluster.benchmark : Measure this round's cables with iperf3") == 3


def test_the_document_validates_against_its_schema(bench):
    jsonschema = pytest.importorskip("jsonschema")
    from report_schema import benchmark_schema
    jsonschema.validate(bench.first, benchmark_schema())
    # Issue 31 acceptance 1: the run's report.json follows the one schema, its benchmark section's data is the
    # results document (benchmark.json) and its findings are the report's problems.
    report = valid_report(bench.report_dir)
    [section] = [entry for entry in report["sections"] if entry["operation"] == "benchmark"]
    assert section["data"] == bench.first and report["run"]["playbook"] == "benchmark.yml"
    assert [p for p in report["problems"] if p["code"].startswith("bench_")] == bench.first["problems"] == []
    assert bench.first["versions"]["iperf3"].startswith("iperf 3.")
    assert [n["name"] for n in bench.first["cluster"]["nodes"]] == HOSTS
    units = {"links": "Gbit/s", "allsum_latency": "us", "allsum_bus_bandwidth": "GB/s", "peak_memory": "GB",
             "prompt_tps": "tokens/s", "generation_tps": "tokens/s"}
    assert all(m["unit"] == units.get(m["name"], units.get(m["suite"])) and m["repeats"]
               for m in bench.first["measurements"])
    assert {m["suite"] for m in bench.first["measurements"]} == {"links", "allsum", "generate"}


def test_the_report_holds_real_plots_a_person_can_open(bench):
    image = pytest.importorskip("matplotlib.image")
    path = os.path.join(bench.report_dir, "links.png")
    pixels = image.imread(path)
    height, width = pixels.shape[:2]
    assert width > 400 and height > 200
    # Not a blank canvas: the bars are drawn in colour.
    assert pixels[..., :3].std() > 0.05
    with open(os.path.join(bench.report_dir, "index.html")) as handle:
        page = handle.read()
    # The one report's page (issue 31): the benchmark's section, one table per suite, then its plots.
    assert '<img src="links.png"' in page and 'href="benchmark.json"' in page
    section = page.split('<h2 id="benchmark">Benchmark</h2>')[1].split("<h2")[0]
    links_table, rest = section.split("<h3>all_sum</h3>")
    allsum_table, generate_table = rest.split("<h3>Generation (mlx_lm.benchmark)</h3>")
    assert links_table.count("<tr") == 1 + 12 and allsum_table.count("<tr") == 1 + 6
    assert generate_table.split("<figure>")[0].count("<tr") == 1 + 2 and '<img src="generate.png"' in generate_table
    pixels = image.imread(os.path.join(bench.report_dir, "generate.png"))
    assert pixels.shape[1] > 400 and pixels[..., :3].std() > 0.05


def test_the_pipelined_generate_run_works_across_the_four_nodes(bench):
    generate = bench.first["suites"]["generate"]
    one, pipelined = generate["results"]
    assert (one["nodes"], one["mode"], one["hosts"]) == (1, "single", ["mac1"])
    assert (pipelined["nodes"], pipelined["mode"], pipelined["backend"], pipelined["hosts"]) == (4, "pipeline", "ring",
                                                                                               HOSTS)
    for result in (one, pipelined):
        assert result["ok"] and result["model"] == "/Users/admin/models/tiny-qwen2" and result["layers"] == 8
        assert result["generation_tps"] > 0 and result["prompt_tps"] > 0 and result["peak_memory_gb"] >= 0
        assert (result["prompt_tokens"], result["generation_tokens"], len(result["trials"])) == (64, 16, 2)
    # Progress per model and node count, and nothing of MLX left running on a node.
    out = bench.first_proc.stdout
    assert "tiny-qwen2 on 1 node(s)" in out and "tiny-qwen2 on 4 node(s) (pipeline, ring)" in out
    assert mlx_left_on_the_nodes() == []


def mlx_left_on_the_nodes():
    """The generate suite's processes still running in this lab's hosts (their network namespaces): the other
    lanes' labs run MLX of their own at the same time."""
    ours = set(layout.netns(host) for host in HOSTS)
    procs = subprocess.run(["ps", "-eo", "pid=,args="], stdout=subprocess.PIPE, universal_newlines=True).stdout
    left = []
    for line in procs.splitlines():
        pid, _, args = line.strip().partition(" ")
        if "generate_bench.py" in args or "mlx.launch" in args:
            where = subprocess.run(["ip", "netns", "identify", pid], stdout=subprocess.PIPE,
                                   universal_newlines=True).stdout.strip()
            if where in ours:
                left.append(args)
    return left


def test_the_exo_suite_is_skipped_in_the_lab_with_its_reason_printed(bench):
    exo = bench.first["suites"]["exo"]
    assert exo["results"] == [] and "bench/exo_bench.py is not at /opt/macops/exo/bench/exo_bench.py on mac1" in (
        exo["skipped"])
    assert "exo suite skipped: " in bench.first_proc.stdout and "exo_install_method: source" in bench.first_proc.stdout


def test_hpl_runs_only_when_asked_and_says_why_it_cannot_run_in_the_lab(bench):
    assert "hpl" not in bench.first["suites"]
    proc = bench("--tags", "hpl", "-e", json.dumps({"benchmark_suites": ["hpl"]}))
    with open(os.path.join(bench.report_dir, "benchmark.json")) as handle:
        hpl = json.load(handle)["suites"]["hpl"]
    assert hpl["results"] == [] and "/opt/macops/hpl/bin/xhpl and /opt/homebrew/bin/mpirun not on mac1" in hpl["skipped"]
    assert "hpl suite skipped: " in proc.stdout
    # Planned all the same from the node facts: the lab's 512 and 256 GB profiles, one rank per performance core.
    assert hpl["plan"]["n"] > 0 and hpl["plan"]["ranks"] == 4 * hpl["plan"]["slots"]
    assert hpl["plan"]["hpl_dat"].startswith("HPLinpack benchmark input file")


def test_a_model_missing_on_a_node_stops_the_run_before_any_suite(bench):
    marks = dict((host, len(log_lines(host, "shim.log"))) for host in HOSTS)
    missing = "/Users/admin/models/not-there"
    proc = bench("-e", json.dumps({"benchmark_generate_models": [missing]}), check=False)
    text = " ".join(proc.stdout.split())
    assert proc.returncode != 0 and "bench_model_missing" in text and missing in text
    # One problem per node, each naming its host.
    assert text.count('"code": "bench_model_missing"') == len(HOSTS), text[-3000:]
    # Only the read-only node read ran: no install, no iperf3, no MLX, nothing changed.
    for host in HOSTS:
        commands = [json.dumps(line) for line in log_lines(host, "shim.log")[marks[host]:]]
        assert not [c for c in commands if "brew" in c or "launchctl" in c], (host, commands)
    assert "Measure this round's cables" not in proc.stdout and "Sweep all_sum" not in proc.stdout
    assert "changed=0" in proc.stdout and "changed=1" not in proc.stdout


def test_a_degraded_cable_and_only_it_is_flagged_with_the_tb4_cause(bench):
    maclab("fault", "degrade", "mac2", "mac3")
    try:
        proc = bench("-e", json.dumps({"benchmark_suites": ["links"]}))
    finally:
        maclab("fault", "clear")
    with open(os.path.join(bench.report_dir, "benchmark.json")) as handle:
        document = json.load(handle)
    low = [r for r in document["suites"]["links"]["results"] if not r["ok"]]
    assert sorted(r["direction"] for r in low) == ["mac2->mac3", "mac3->mac2"]
    assert {r["cause"] for r in low} == {"tb4_cable"} and {r["kind"] for r in low} == {"tb4"}
    codes = [(p["code"], p["host"], p["peer"], p["details"]["cause"]) for p in document["problems"]]
    assert sorted(codes) == [("bench_link_below_baseline", "mac2", "mac3", "tb4_cable"),
                             ("bench_link_below_baseline", "mac3", "mac2", "tb4_cable")]
    # A warning: the run succeeds and says so at the end, and the report shows it.
    assert "WARNING bench_link_below_baseline: mac2 -> mac3" in " ".join(proc.stdout.split())
    with open(os.path.join(bench.report_dir, "index.html")) as handle:
        page = handle.read()
    assert page.count("LOW: tb4_cable") == 2 and "Thunderbolt 4 or USB-C cable" in page
    # The second run is in the history, and the history plot shows both runs.
    with open(os.path.join(bench.report_dir, "history.jsonl")) as handle:
        history = [json.loads(line) for line in handle]
    assert len(history) >= 2 and history[-1]["run_id"] == document["run"]["id"]
    assert os.path.getsize(os.path.join(bench.report_dir, "history.png")) > 5000
    assert len(os.listdir(os.path.join(bench.report_dir, "runs"))) == len(history)


def test_check_mode_plans_every_suite_and_runs_and_writes_nothing(bench):
    report = os.path.join(bench.report_dir, "benchmark.json")
    before = os.stat(report).st_mtime_ns
    marks = dict((host, len(log_lines(host, "exec.log"))) for host in HOSTS)
    proc = bench("--check")
    assert os.stat(report).st_mtime_ns == before
    assert "changed=0" in proc.stdout and "changed=1" not in proc.stdout
    # The rounds are planned and listed, and neither iperf3 nor MLX ran on any node.
    assert proc.stdout.count("TASK [macops.cluster.benchmark : Measure this round's cables with iperf3") == 3
    for host in HOSTS:
        ran = [line["argv"] for line in log_lines(host, "exec.log")[marks[host]:]]
        measured = [argv for argv in ran if os.path.basename(argv[0]) in ("iperf3", "mlx.launch")
                    or any(arg.endswith(("generate_bench.py", "allsum_bench.py")) for arg in argv[1:2])]
        assert measured == [], (host, measured)


def test_no_iperf3_server_is_left_on_any_node(bench):
    procs = subprocess.run(["ps", "-eo", "args"], stdout=subprocess.PIPE, universal_newlines=True).stdout
    assert [line for line in procs.splitlines() if "iperf3 -s" in line] == []
    for host in HOSTS:
        listed = ssh(host, "ls /tmp").stdout.split()
        assert [name for name in listed if name.startswith("macops-iperf3-")] == [], (host, listed)


@pytest.mark.parametrize("extra, words", [
    ({"benchmark_suites": ["links", "lnks"]}, "benchmark_suites"),
    ({"benchmark_margin_percent": 150}, "benchmark_margin_percent = 150"),
    ({"benchmark_links_seconds": 0}, "benchmark_links_seconds = 0 is refused"),
    ({"benchmark_baselines": {"links": {"tb5": {"gbps": -1}}}}, "benchmark_baselines"),
    ({"benchmark_allsum_min_bytes": 65536, "benchmark_allsum_max_bytes": 4096},
     "benchmark_allsum_max_bytes = 4096 is refused: the size range is upside down"),
    ({"benchmark_generate_models": ["models/tiny-qwen2"]}, "benchmark_generate_models = 'models/tiny-qwen2' is refused"),
    ({"benchmark_generate_trials": 0}, "benchmark_generate_trials = 0 is refused"),
])
def test_bad_input_fails_before_any_node_runs_anything(bench, extra, words):
    marks = dict((host, len(log_lines(host, "shim.log"))) for host in HOSTS)
    proc = bench("-e", json.dumps(extra), check=False)
    assert proc.returncode != 0 and words in " ".join((proc.stdout + proc.stderr).split())
    assert dict((host, len(log_lines(host, "shim.log"))) for host in HOSTS) == marks


def link_bytes():
    """{host: (Thunderbolt bytes, management bytes)}: sent plus received, from each lab link's counters."""
    lab = read_json("lab.json")
    found = {}
    for host in HOSTS:
        thunderbolt = [c["a_device"] if c["a"] == host else c["b_device"] for c in lab["cables"] if host in (c["a"], c["b"])]
        management = read_json("hosts", host, "state.json")["hardware"]["ethernet"]["device"]
        totals = {}
        for device in thunderbolt + [management]:
            counts = [int(in_netns(host, "cat", "/sys/class/net/%s/statistics/%s" % (device, name)))
                      for name in ("rx_bytes", "tx_bytes")]
            totals[device] = sum(counts)
        found[host] = (sum(totals[d] for d in thunderbolt), totals[management])
    return found


def test_allsum_sums_are_right_at_every_size_and_the_ring_crosses_the_thunderbolt_cables(bench):
    before = link_bytes()
    proc = bench("--tags", "allsum")
    after = link_bytes()
    with open(os.path.join(bench.report_dir, "benchmark.json")) as handle:
        document = json.load(handle)
    allsum = document["suites"]["allsum"]
    assert allsum["backends"] == ["ring"]
    sizes = [r["bytes"] for r in allsum["results"]]
    assert sizes == [4096, 16384, 65536, 262144, 1048576, 4194304], sizes
    assert all(r["ok"] and r["ranks_reported"] == [0, 1, 2, 3] for r in allsum["results"]), allsum["results"]
    assert all(r["latency_us"] > 0 and r["bus_gbytes_per_s"] > 0 for r in allsum["results"])
    assert document["problems"] == [] and document["suites"]["links"]["results"] == []
    # Progress: each size shows as it finishes.
    assert all("(item=ring, %d bytes)" % size in proc.stdout for size in sizes)
    # Every rank sends and receives its share of each all_sum over its ring neighbours' cables:
    # what crossed the Thunderbolt links is the sweep's volume; the management network saw only
    # SSH and Ansible.
    settings = allsum["settings"]
    calls = (settings["warmup"] + settings["iters"]) * settings["chain"]
    volume = sum(sizes) * calls * 2 * 3 / 4 * len(HOSTS)
    thunderbolt = sum(after[h][0] - before[h][0] for h in HOSTS)
    management = sum(after[h][1] - before[h][1] for h in HOSTS)
    assert thunderbolt > 0.8 * volume, (thunderbolt, volume)
    assert management < 0.05 * thunderbolt, (management, thunderbolt)
    jsonschema = pytest.importorskip("jsonschema")
    from report_schema import benchmark_schema
    jsonschema.validate(document, benchmark_schema())
    assert os.path.getsize(os.path.join(bench.report_dir, "allsum.png")) > 5000
