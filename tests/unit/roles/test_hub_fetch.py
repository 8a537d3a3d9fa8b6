"""roles/deploy_model/files/hub_fetch.py against the lab's hub stand-in on loopback, with the real
huggingface_hub: the first run downloads every file, a dry run names what would come, a second run
downloads nothing, a cut-short file is fetched again, an unknown repository is a clean error."""
import json
import os
import subprocess
import sys
import time

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
SCRIPT = os.path.join(ROOT, "roles", "deploy_model", "files", "hub_fetch.py")
STANDIN = os.path.join(ROOT, "lab", "macsim", "hub_standin.py")
sys.path.insert(0, os.path.join(ROOT, "lab"))
from macsim import testmodel  # noqa: E402

pytest.importorskip("huggingface_hub")


@pytest.fixture()
def hub(tmp_path):
    source = tmp_path / "served"
    testmodel.write(str(source))
    port_file, log = tmp_path / "port", tmp_path / "hub.log"
    proc = subprocess.Popen([sys.executable, STANDIN, "--repo", "macops-lab/tiny=%s" % source, "--log", str(log),
                             "--port-file", str(port_file)])
    try:
        for _ in range(100):
            if port_file.exists():
                break
            time.sleep(0.05)
        yield {"url": "http://127.0.0.1:%s" % port_file.read_text().strip(), "source": source, "log": log,
               "tmp": tmp_path}
    finally:
        proc.terminate()
        proc.wait(10)


def fetch(hub, dest, repo="macops-lab/tiny", dry=False):
    env = dict(os.environ, HF_ENDPOINT=hub["url"], HF_HOME=str(hub["tmp"] / "hf-home"), HF_HUB_DISABLE_TELEMETRY="1",
               HF_HUB_DISABLE_PROGRESS_BARS="1")
    proc = subprocess.run([sys.executable, SCRIPT, repo, "main", str(dest), "1" if dry else "0"], input="",
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, env=env, timeout=120)
    return proc.returncode, json.loads(proc.stdout.strip().splitlines()[-1])


def downloads(hub):
    return [json.loads(line)["path"].rsplit("/", 1)[-1] for line in hub["log"].read_text().splitlines()
            if json.loads(line)["method"] == "GET" and "/resolve/" in json.loads(line)["path"]]


def test_it_downloads_once_says_what_a_dry_run_would_and_then_fetches_nothing(hub):
    dest = hub["tmp"] / "node" / "model"
    names = sorted(os.listdir(str(hub["source"])))
    rc, dry = fetch(hub, dest, dry=True)
    assert rc == 0 and dry["downloaded"] == names and not dest.exists()
    rc, first = fetch(hub, dest)
    assert rc == 0 and first["downloaded"] == names and sorted(downloads(hub)) == names
    for name in names:
        assert (dest / name).read_bytes() == (hub["source"] / name).read_bytes()
    hub["log"].write_text("")

    def state():
        return sorted((p, os.stat(os.path.join(d, p)).st_mtime_ns) for d, _dirs, files in os.walk(str(dest))
                      for p in files)
    before = state()
    rc, dry = fetch(hub, dest, dry=True)
    assert rc == 0 and dry["downloaded"] == [] and state() == before  # a dry run changes nothing
    rc, again = fetch(hub, dest)
    assert rc == 0 and again["downloaded"] == [] and downloads(hub) == []
    (dest / names[-1]).write_bytes(b"cut")
    later = time.time() + 10  # huggingface_hub trusts a file changed within 1 s of its metadata
    os.utime(str(dest / names[-1]), (later, later))
    rc, mended = fetch(hub, dest)
    assert rc == 0 and mended["downloaded"] == [names[-1]]
    assert (dest / names[-1]).read_bytes() == (hub["source"] / names[-1]).read_bytes()


def test_an_unknown_repository_is_a_clean_error_naming_its_kind(hub):
    rc, said = fetch(hub, hub["tmp"] / "x", repo="macops-lab/nothing-here")
    assert rc == 2 and said["kind"] == "not_found" and "macops-lab/nothing-here" in said["error"]
