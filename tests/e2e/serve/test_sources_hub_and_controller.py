"""deploy-model.yml's other sources (issue 16), on the serving lane's converged lab, once serving
is done (the lane's last file).

A hub id: the model is downloaded once, by the source node only, from the lab's hub stand-in
(lab/macsim/hub_standin.py on the controller's management address, HF_ENDPOINT pointed there), and every
other node gets it over the Thunderbolt cables in exo's <org>--<name> layout, which exo's read-only models
directory expects; a second run downloads and moves nothing; a repository the hub lacks fails before
anything moves.

A directory on the controller: copied once to one node, each rank then gets its files from there over the
cables; a second run copies and moves nothing."""
import json
import os
import subprocess
import sys
import time

import pytest

from labtools import HOSTS, REPO, file_digests, on_host, recap, run_playbook, valid_report

sys.path.insert(0, os.path.join(REPO, "lab"))
from macsim import layout, testmodel  # noqa: E402

DEPLOY = os.path.join(REPO, "deploy-model.yml")
REPO_ID = "macops-lab/e2e-hub"
DEST = "/Users/admin/models/macops-lab--e2e-hub"


@pytest.fixture(scope="module")
def hub(converged, tmp_path_factory):
    tmp_dir = str(tmp_path_factory.mktemp("hub"))
    served = os.path.join(tmp_dir, "served")
    testmodel.write(served)
    port_file, log = os.path.join(tmp_dir, "port"), os.path.join(tmp_dir, "hub.log")
    # On the controller's address on the lab's management bridge: the nodes reach it, nothing else does.
    proc = subprocess.Popen([sys.executable, os.path.join(REPO, "lab", "macsim", "hub_standin.py"),
                             "--listen", layout.CONTROLLER_IP, "--repo", "%s=%s" % (REPO_ID, served), "--log", log,
                             "--port-file", port_file])
    try:
        for _ in range(100):
            if os.path.exists(port_file):
                break
            time.sleep(0.05)
        with open(port_file) as handle:
            url = "http://%s:%s" % (layout.CONTROLLER_IP, handle.read().strip())

        def run(*extra, check=True):
            return run_playbook(DEPLOY, "-e", "deploy_model_hub_id=%s" % REPO_ID, "-e", "deploy_model_source_host=mac1",
                                "-e", "deploy_model_hub_endpoint=%s" % url, "-e", "deploy_model_runtime=exo",
                                "-e", "deploy_model_report_dir=%s/report" % tmp_dir, *extra, workdir=tmp_dir,
                                check=check)

        def fetched():
            with open(log) as handle:
                lines = [json.loads(line) for line in handle]
            return [line["path"].rsplit("/", 1)[-1] for line in lines
                    if line["method"] == "GET" and "/resolve/" in line["path"]]

        run.served, run.fetched, run.first = served, fetched, run()
        yield run
    finally:
        proc.terminate()
        proc.wait(10)
        for host in HOSTS:
            subprocess.run(["rm", "-rf", on_host(host, DEST), on_host(host, "/Users/admin/models/.hub")], check=True)


def test_the_source_node_downloads_each_file_once_and_every_node_gets_the_whole_model(hub):
    served = file_digests(hub.served)
    assert sorted(hub.fetched()) == sorted(served)  # one download of each file, by one node
    for host in HOSTS:
        assert file_digests(on_host(host, DEST)) == served, host  # exo's layout: <org>--<name>, complete
    with open(os.path.join(on_host("mac2", DEST), ".macops-model.json")) as handle:
        record = json.load(handle)
    assert record["model_id"] == REPO_ID and record["copies"] == "full"


def test_a_second_run_downloads_and_moves_nothing(hub):
    before = len(hub.fetched())
    again = hub()
    assert all(counts["changed"] == 0 for counts in recap(again.stdout).values()), again.stdout[-3000:]
    assert len(hub.fetched()) == before


def test_a_repository_the_hub_lacks_fails_before_anything_moves(hub):
    """Nothing moves when the hub refuses: no directory for it on any node."""
    proc = hub("-e", "deploy_model_hub_id=macops-lab/not-there", "-e", "deploy_model_name=macops-lab/not-there",
               check=False)
    assert proc.returncode != 0 and "shard_hub_unavailable" in proc.stdout, proc.stdout[-3000:]
    assert not any(os.path.exists(on_host(h, "/Users/admin/models/macops-lab--not-there")) for h in HOSTS)


def test_a_model_on_the_controller_is_copied_to_one_node_and_deployed_from_there(converged, tmp_path):
    source = str(tmp_path / "ctl-qwen2")
    testmodel.write(source)
    dest, staging = "/Users/admin/models/ctl-qwen2", "/Users/admin/models/.controller/ctl-qwen2"
    args = ["-e", "deploy_model_controller_source=%s" % source, "-e", "deploy_model_source_host=mac2",
            "-e", "deploy_model_report_dir=%s/report" % tmp_path]
    try:
        runs = [run_playbook(DEPLOY, *args, workdir=str(tmp_path)) for _ in (1, 2)]
        assert file_digests(on_host("mac2", staging)) == file_digests(source)  # the whole model, on one node
        report = valid_report(os.path.join(str(tmp_path), "report"))
        [plan] = [entry["data"]["plan"] for entry in report["sections"] if entry["operation"] == "deploy"]
        whole = file_digests(source)
        for rank in plan["ranks"]:
            held = file_digests(on_host(rank["host"], dest))
            assert sorted(held) == sorted(rank["files"]) and all(held[n] == whole[n] for n in held), rank["host"]
        assert all(counts["changed"] == 0 for counts in recap(runs[1].stdout).values()), runs[1].stdout[-3000:]
    finally:
        for host in HOSTS:
            subprocess.run(["rm", "-rf", on_host(host, dest), on_host(host, "/Users/admin/models/.controller")],
                           check=True)
