"""deploy-model.yml on the shared converged lab (issue 16, acceptance 2 to 4): a model on mac1's staging
directory is placed for mlx-lm's pipeline and each node ends with exactly its files, every checksum right;
a second run moves nothing; mlx-lm then pipelines the deployed copy across the four nodes (each node holds
only its own files) and generates tokens; a transfer cut midway resumes moving only what was missing; a
full disk on one node stops the run before any byte moves to any node; a corrupted copy is found and
replaced; --check predicts and writes nothing."""
import json
import os
import re
import signal
import subprocess

import pytest

from labtools import (HOSTS, REPO, ansible_env, file_digests, maclab, on_host, playbook_argv, recap, run_playbook,
                      valid_report, wait_until)

DEPLOY = os.path.join(REPO, "deploy-model.yml")
BENCHMARK = os.path.join(REPO, "benchmark.yml")
SOURCE = "/Users/admin/staging/e2e-qwen2"
DEST = "/Users/admin/models/e2e-qwen2"
# 16 layers in 16 safetensors files, about 67 MB: many files, small enough for CI's two cores.
MODEL = ["--layers", "16", "--hidden", "256", "--intermediate", "1024", "--heads", "4", "--kv-heads", "2",
         "--shards", "16"]


def held(host):
    """{name: sha256} of the model files a node holds (its own name, not partial or marker files)."""
    return file_digests(on_host(host, DEST))


@pytest.fixture(scope="module")
def deploy(converged, tmp_path_factory):
    tmp_dir = str(tmp_path_factory.mktemp("deploy"))
    report_dir = os.path.join(tmp_dir, "report")
    maclab("model", "--host", "mac1", "--path", SOURCE, *MODEL)

    deploy_vars = ["-e", "deploy_model_source=%s" % SOURCE, "-e", "deploy_model_source_host=mac1",
                   "-e", "deploy_model_report_dir=%s" % report_dir, "-e", "deploy_model_stall_timeout=10"]

    def argv():
        """The run's command line, for a run a test cuts midway."""
        return playbook_argv(DEPLOY, *deploy_vars)

    def run(*extra, check=True):
        return run_playbook(DEPLOY, *(deploy_vars + list(extra)), workdir=tmp_dir, check=check)

    def section():
        """The deploy section of the run's one report.json (valid against docs/report.schema.json, issue 31)."""
        [deployed] = [entry for entry in valid_report(report_dir)["sections"] if entry["operation"] == "deploy"]
        return deployed["data"]

    def report():
        return section()["deployment"]

    run.argv, run.tmp_dir, run.report = argv, tmp_dir, report
    run.first = run()
    run.first_report, run.plan = report(), section()["plan"]
    yield run
    maclab("fault", "clear")
    for host in HOSTS:
        subprocess.run(["rm", "-rf", on_host(host, DEST), on_host(host, os.path.dirname(SOURCE))], check=True)


def test_each_node_holds_exactly_its_files_and_every_checksum_is_the_source_s(deploy):
    source = dict((name, digest) for name, digest in held_source().items())
    for rank in deploy.plan["ranks"]:
        files = held(rank["host"])
        assert sorted(files) == sorted(rank["files"]), rank["host"]
        assert all(files[name] == source[name] for name in files)
    # Pipeline ranks: no node holds the whole model, every weight file is on some node.
    weights = [name for name in source if name.endswith(".safetensors")]
    assert all(len([n for n in held(h) if n.endswith(".safetensors")]) < len(weights) for h in HOSTS)
    assert set().union(*[held(h) for h in HOSTS]) == set(source)
    assert [r["layers"] for r in deploy.plan["ranks"]] == [[12, 16], [8, 12], [4, 8], [0, 4]]


def held_source():
    return file_digests(on_host("mac1", SOURCE))


def test_every_byte_crossed_a_cable_once_and_the_report_says_so(deploy):
    report = deploy.first_report
    assert report["wire_bytes"] == report["needed_bytes"] == report["planned_wire_bytes"] > 0
    assert report["nodes"]["mac1"]["linked"] == len(deploy.plan["ranks"][0]["files"])
    assert report["nodes"]["mac1"]["bytes_received"] == 0  # the source's own part is linked, not sent
    # The one report's Markdown: the deploy section's placement and transfers (issue 31: no page of its own).
    with open(os.path.join(deploy.tmp_dir, "report", "report.md")) as handle:
        text = handle.read()
    assert "crossed the Thunderbolt cables" in text and "| mac2 |" in text
    assert "| 0 | mac1 | 12-15 | 4 |" in text and "## Model deployment: " in text


def test_a_second_run_moves_nothing_and_changes_nothing(deploy):
    again = deploy()
    assert all(counts["changed"] == 0 for counts in recap(again.stdout).values()), again.stdout[-3000:]
    assert deploy.report()["wire_bytes"] == 0


def test_check_mode_plans_and_writes_nothing(deploy):
    victim = os.path.join(on_host("mac3", DEST), "model-00005-of-00016.safetensors")
    os.remove(victim)
    proc = deploy("--check")
    assert recap(proc.stdout)["mac3"]["changed"] == 1 and not os.path.exists(victim)
    assert all(recap(proc.stdout)[h]["changed"] == 0 for h in ("mac2", "mac4"))
    deploy()
    assert os.path.exists(victim)


def test_mlx_lm_pipelines_the_deployed_copy_across_the_four_nodes_and_generates(deploy):
    """Each node holds only its own files, so a run that loads and generates read only those."""
    report_dir = os.path.join(deploy.tmp_dir, "bench")
    run_playbook(BENCHMARK, "--tags", "generate", "-e", json.dumps(
        {"benchmark_suites": ["generate"], "benchmark_generate_models": [DEST], "benchmark_generate_single": False,
         "benchmark_generate_prompt_tokens": 16, "benchmark_generate_generation_tokens": 8,
         "benchmark_generate_trials": 1, "benchmark_report_dir": report_dir}), workdir=deploy.tmp_dir)
    with open(os.path.join(report_dir, "benchmark.json")) as handle:
        results = json.load(handle)["suites"]["generate"]["results"]
    assert [(r["nodes"], r["mode"], r["ok"]) for r in results] == [(4, "pipeline", True)]
    assert results[0]["generation_tps"] > 0


def test_a_corrupted_copy_is_found_and_replaced(deploy):
    victim = os.path.join(on_host("mac2", DEST), "model-00010-of-00016.safetensors")
    with open(victim, "r+b") as handle:
        handle.seek(1000)
        byte = handle.read(1)
        handle.seek(1000)
        handle.write(bytes([byte[0] ^ 0xFF]))
    deploy()
    assert held("mac2")["model-00010-of-00016.safetensors"] == held_source()["model-00010-of-00016.safetensors"]
    assert deploy.report()["nodes"]["mac2"]["pulled"] == 1 and deploy.report()["nodes"]["mac2"]["removed"] == 1


def test_a_full_disk_on_one_node_stops_the_run_before_any_byte_moves(deploy):
    for host in ("mac2", "mac3", "mac4"):
        subprocess.run(["rm", "-rf", on_host(host, DEST)], check=True)
    maclab("fault", "disk-full", "mac3", "10M")
    try:
        proc = deploy(check=False)
    finally:
        maclab("fault", "clear")
    assert proc.returncode != 0
    assert "shard_disk_full" in proc.stdout and "mac3 needs" in proc.stdout and "is free" in proc.stdout
    for host in ("mac2", "mac3", "mac4"):
        assert not os.path.exists(on_host(host, DEST)), host  # no node received anything


def mac2_bytes():
    """Bytes mac2's model directory holds so far, whole files and partial ones."""
    directory = on_host("mac2", DEST)
    total = 0
    for name in os.listdir(directory) if os.path.isdir(directory) else []:
        if name.endswith(".safetensors") or ".macops-partial" in name:  # every piece's partial file
            try:
                total += os.path.getsize(os.path.join(directory, name))
            except OSError:  # a partial file renamed to its name between listdir and here
                pass
    return total


def test_a_transfer_cut_midway_resumes_and_moves_only_what_was_missing(deploy):
    for host in ("mac2", "mac3", "mac4"):
        subprocess.run(["rm", "-rf", on_host(host, DEST)], check=True)
    for peer in ("mac2", "mac3", "mac4"):
        maclab("fault", "slow", "mac1", peer, "16mbit")
    mine = [r for r in deploy.plan["ranks"] if r["host"] == "mac2"][0]
    proc = subprocess.Popen(deploy.argv(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                            env=ansible_env(deploy.tmp_dir), cwd=deploy.tmp_dir, start_new_session=True)
    try:
        wait_until(lambda: mac2_bytes() > mine["disk_bytes"] // 3, timeout=120,
                   message="mac2 holds a third of its part")
        maclab("fault", "cut", "mac1", "mac2")
        out, _ = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait()
        maclab("fault", "clear")
    assert proc.returncode != 0 and "could not be pulled" in out, out[-4000:]
    # While it ran, each node's bytes, share and rate were shown (job_progress over .macops-progress.json).
    assert re.search(r"mac[234]: [\d.]+ MB of [\d.]+ MB \(\d+%\), [\d.]+ MB/s", out), out[-4000:]
    # Cut midway: mac2 holds part of its files, not all of them.
    assert 0 < mac2_bytes() < mine["disk_bytes"] and sorted(held("mac2")) != sorted(mine["files"])
    deploy()
    report = deploy.report()
    # What the nodes lacked counts the partial bytes as held: less than a whole deploy, and the resumed run
    # sent at most 5 % more than that.
    assert 0 < report["needed_bytes"] < deploy.first_report["needed_bytes"]
    assert report["wire_bytes"] <= 1.05 * report["needed_bytes"]
    for rank in deploy.plan["ranks"]:
        assert sorted(held(rank["host"])) == sorted(rank["files"])


def test_the_health_report_lists_the_deployed_model_and_a_copy_that_lost_a_file(deploy):
    """site.yml's one node read finds each node's record of the deployment; a file gone from mac3 is a warning
    on mac3 naming the file, and the next deploy makes the report whole again."""
    site = os.path.join(REPO, "site.yml")
    report_dir = os.path.join(deploy.tmp_dir, "health")
    victim = "model-00006-of-00016.safetensors"
    rank = [r for r in deploy.plan["ranks"] if victim in r["files"]][0]
    os.remove(os.path.join(on_host(rank["host"], DEST), victim))

    def health():
        run_playbook(site, "--tags", "preflight,report", "-e", "report_dir=%s" % report_dir, workdir=deploy.tmp_dir,
                     timeout=600)
        with open(os.path.join(report_dir, "report.json")) as handle:
            return json.load(handle)

    report = health()
    [model] = [m for m in report["models"] if m["name"] == "e2e-qwen2"]
    assert model["runtime"] == "mlx-lm" and model["complete"] is False
    assert [(c["host"], c["rank"], c["layers"]) for c in model["nodes"]] == [
        (r["host"], r["rank"], r["layers"]) for r in deploy.plan["ranks"]]
    [lost] = [p for p in report["problems"] if p["code"] == "model_copy_incomplete"]
    assert lost["host"] == rank["host"] and victim in lost["message"]
    with open(os.path.join(report_dir, "report.md")) as handle:
        assert "## Deployed models" in handle.read()
    deploy()
    report = health()
    assert [m["complete"] for m in report["models"] if m["name"] == "e2e-qwen2"] == [True]
    assert "model_copy_incomplete" not in report["problem_codes"]
