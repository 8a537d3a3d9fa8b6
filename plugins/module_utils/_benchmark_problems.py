# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: the problem codes of benchmark.yml (roles/benchmark), part of the one
# registry (_problems.py REGISTRY). Stdlib only, Python 3.9.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.macops.cluster.plugins.module_utils._problem_codes import ERROR, WARNING, registry_entry

# A measurement below its baseline, or one that did not run.
BENCHMARK_CODES = {
    "bench_link_below_baseline": registry_entry(
        WARNING, "benchmark",
        "A Thunderbolt cable carried less than its baseline (benchmark_baselines) by more than the margin "
        "(benchmark_margin_percent) in one direction; the message names the probable cause the node facts "
        "show (a cable that negotiates 40 Gb/s is a Thunderbolt 4 or USB-C cable; a Mac Studio's port next "
        "to Ethernet), else none.",
        "Replace a 40 Gb/s cable with a Thunderbolt 5 cable (TB5 logo), move a cable off the port next to "
        "Ethernet, reseat the cable; then run benchmark.yml --tags links again."),
    "bench_link_failed": registry_entry(
        ERROR, "benchmark",
        "iperf3 could not measure a cable (no server answered on the peer's address, or iperf3 failed): "
        "the cable, the peer's address or iperf3 itself is missing.",
        "Run doctor.yml or site.yml to check the cable and its addresses, and "
        "`brew install iperf3` on both Macs; then run benchmark.yml --tags links again."),
    "bench_allsum_failed": registry_entry(
        ERROR, "benchmark",
        "The MLX all_sum sweep did not run on a backend (mlx.launch failed, a rank did not start, or the "
        "hostfile names a node that is down): no latency or bandwidth for it.",
        "Run site.yml (it checks MLX with its own all_sum smoke test and writes the hostfiles), then "
        "benchmark.yml --tags allsum again; the message has mlx.launch's last words."),
    "bench_allsum_wrong_sum": registry_entry(
        ERROR, "benchmark",
        "An all_sum returned a wrong sum, or a rank did not report, at some message size: the collective is "
        "broken at that size on that backend, whatever its speed.",
        "Check that every node runs the same MLX version (site.yml's input check pins it) and that the "
        "hostfile's addresses are the Thunderbolt ones; report it to MLX with the size and backend."),
    "bench_model_missing": registry_entry(
        ERROR, "benchmark",
        "A model of benchmark_generate_models is not on a node at the path given (no readable config.json "
        "there); a pipelined run reads the model on every rank, so the generate suite does not start.",
        "Put the model directory at that path on every node (the same path on each), or correct the path in "
        "benchmark_generate_models; then run benchmark.yml --tags generate again."),
    "bench_generate_failed": registry_entry(
        ERROR, "benchmark",
        "mlx_lm.benchmark did not finish for a model on one node or pipelined across the nodes, or the "
        "pipelined run could not be planned (no MLX hostfile, fewer layers than nodes).",
        "Read the message (mlx_lm.benchmark's last words); check the model loads on one node with "
        "`mlx_lm.benchmark --model PATH`, that every node runs the same mlx and mlx-lm (site.yml pins them) "
        "and that site.yml wrote the MLX hostfiles; then run benchmark.yml --tags generate again."),
    "bench_exo_failed": registry_entry(
        ERROR, "benchmark",
        "exo's own benchmark (bench/exo_bench.py) measured no placement of the model: exo is not running on "
        "every node, the model is not downloaded or does not fit, or exo_bench itself failed.",
        "Run doctor.yml or site.yml --tags python_env,exo (exo healthy on every node, /state lists them all), "
        "check that the model is in exo's models on every node, then run benchmark.yml --tags exo again; the "
        "message has exo_bench's last words."),
    "bench_serve_failed": registry_entry(
        ERROR, "benchmark",
        "The serve suite's requests through serve-model.yml's endpoint failed or were not answered: the model is "
        "not ready (restarting, or its supervisor gave up), the endpoint is closed to the controller, the API key "
        "is wrong, or a request took longer than benchmark_serve_timeout.",
        "Run doctor.yml (its serving checks name the rank and the cause), check that the controller is in "
        "serve_allowed_networks and that serve_api_key is the one the model was served with; then run "
        "benchmark.yml --tags serve again. The message has the requests' errors."),
    "bench_exo_prefix_cache": registry_entry(
        WARNING, "benchmark",
        "exo answered a benchmark request partly or wholly from its prefix cache, although the suite turns "
        "it off: that placement's prompt speed is not a cold prompt's.",
        "Run benchmark.yml --tags exo again after restarting exo (sudo launchctl kickstart -k "
        "system/org.macops.exo), or report it to exo with its version."),
    "bench_hpl_failed": registry_entry(
        ERROR, "benchmark",
        "HPL printed no test result: mpirun could not start a rank on a node (xhpl or mpirun missing, the SSH "
        "mesh broken), the matrix did not fit, or xhpl failed.",
        "Check that xhpl and Open MPI's mpirun are at benchmark_hpl_xhpl and benchmark_hpl_mpirun on every node "
        "and that each node reaches the others by SSH (site.yml --tags ssh_mesh); lower benchmark_hpl_memory_fraction "
        "when memory ran out; then run benchmark.yml --tags hpl again."),
    "bench_hpl_residual_failed": registry_entry(
        ERROR, "benchmark",
        "HPL's scaled residual check failed: the solution is wrong, so the Gflops of that test are not a valid "
        "result (a numerical library or hardware fault, or an overclocked or overheating node).",
        "Run HPL on each node alone (benchmark_hpl_n small) to find the node that computes wrong, and rebuild xhpl "
        "against a known-good BLAS; report it with the test's N, NB and grid."),
}
