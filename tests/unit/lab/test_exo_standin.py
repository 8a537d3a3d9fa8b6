"""The lab's exo stand-in and its distribution: a wheel pip installs (RECORD hashes, the `exo`
script, the version importlib.metadata reads), a node id kept in node_zid, peers that join only
from the same namespace once their /node_id confirms, and ids that are never forgotten (exo #2194)."""
import base64
import hashlib
import json
import os
import socket
import subprocess
import sys
import time
import zipfile

import pytest

from macsim import exo_dist, exo_standin


def test_the_pin_is_read_from_the_macops_roles_defaults_and_the_other_version_is_the_one_before(tmp_path):
    defaults = tmp_path / "main.yml"
    defaults.write_text('---\nmacops_mlx_package_spec: mlx==0.32.4\nmacops_exo_version: "1.0.71"\n')
    assert exo_dist.pinned_version(str(defaults)) == "1.0.71"
    assert exo_dist.other_version("1.0.71") == "1.0.70"
    assert exo_dist.lab_versions() == [exo_dist.pinned_version(), exo_dist.other_version(exo_dist.pinned_version())]
    with pytest.raises(RuntimeError):
        exo_dist.other_version("1.0.0")


def test_the_wheel_records_every_file_with_its_hash_and_is_the_same_bytes_each_time(tmp_path):
    name = exo_dist.build(str(tmp_path), "1.0.71")
    first = (tmp_path / name).read_bytes()
    assert name == "exo-1.0.71-py3-none-any.whl" and exo_dist.build(str(tmp_path), "1.0.71") == name
    assert (tmp_path / name).read_bytes() == first
    with zipfile.ZipFile(str(tmp_path / name)) as wheel:
        record = wheel.read("exo-1.0.71.dist-info/RECORD").decode().splitlines()
        for line in record[:-1]:
            path, digest, size = line.split(",")
            data = wheel.read(path)
            assert digest == "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert int(size) == len(data)
        assert sorted(line.split(",")[0] for line in record) == sorted(wheel.namelist())
        metadata = wheel.read("exo-1.0.71.dist-info/METADATA").decode()
    assert "Version: 1.0.71" in metadata and "stand-in" in metadata and "Requires-Python: >=3.13" in metadata


def test_pip_installs_it_with_the_exo_script_at_its_version(tmp_path):
    exo_dist.build_all(str(tmp_path / "index"))
    exo_dist.build(str(tmp_path / "index"), "1.0.70")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    # The test's interpreter may be older than exo's 3.13: the lab's hosts run exo's python@3.13.
    subprocess.run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-index",
                    "--ignore-requires-python", "--find-links", str(tmp_path / "index"), "exo==1.0.70"], check=True)
    version = subprocess.run([python, "-c", "import importlib.metadata as m; print(m.version('exo'))"],
                             stdout=subprocess.PIPE, universal_newlines=True, check=True).stdout.strip()
    assert version == "1.0.70" and os.access(str(venv / "bin" / "exo"), os.X_OK)
    helped = subprocess.run([str(venv / "bin" / "exo"), "--help"], stdout=subprocess.PIPE, universal_newlines=True)
    assert helped.returncode == 0 and "stand-in for exo" in helped.stdout


def test_the_node_id_is_kept_in_node_zid_and_a_new_file_is_a_new_id(tmp_path):
    first = exo_standin.own_node_id(str(tmp_path))
    assert first.startswith("12D3KooW") and exo_standin.own_node_id(str(tmp_path)) == first
    assert (tmp_path / "node_zid").read_text().strip() == first
    (tmp_path / "node_zid").unlink()
    assert exo_standin.own_node_id(str(tmp_path)) != first


def discovery(me, namespace="1.0.71"):
    return exo_standin.Discovery(me, me.lower(), namespace, 52415)


class AtOnce:
    """threading.Thread that runs its target when started, so a confirmation ends before heard() returns."""

    def __init__(self, target, args=(), daemon=None):
        self.target, self.args = target, args

    def start(self):
        self.target(*self.args)


def test_a_peer_joins_from_its_namespace_once_its_node_id_confirms_and_is_never_forgotten(monkeypatch):
    answers = {}
    monkeypatch.setattr(exo_standin.threading, "Thread", AtOnce)
    monkeypatch.setattr(exo_standin.Discovery, "confirmed",
                        staticmethod(lambda address, port, peer_id: answers.get(address) == peer_id))
    mine, peer, other_version = discovery("A"), discovery("B"), discovery("C", namespace="1.0.70")
    mine.heard(peer.announcement(), "198.18.0.12")  # /node_id does not answer yet
    assert mine.state()["topology"]["nodes"] == ["A"]
    answers["198.18.0.12"] = "B"
    mine.heard(peer.announcement(), "198.18.0.12")
    answers["198.18.0.13"] = "C"
    mine.heard(other_version.announcement(), "198.18.0.13")  # another exo version: never met
    mine.heard(b"NOT" + peer.announcement(), "198.18.0.12")
    mine.heard(mine.announcement(), "198.18.0.11")  # its own broadcast
    state = mine.state()
    assert state["topology"]["nodes"] == ["A", "B"] and sorted(state["nodeIdentities"]) == ["A", "B"]
    assert state["nodeIdentities"]["B"]["friendlyName"] == "b" and set(state["lastSeen"]) == {"A", "B"}
    # B comes back with a new id: both stay listed, as exo keeps a departed id until it restarts.
    answers["198.18.0.12"] = "B2"
    mine.heard(discovery("B2").announcement(), "198.18.0.12")
    assert mine.state()["topology"]["nodes"] == ["A", "B", "B2"]


def test_an_announcement_carries_exos_magic_namespace_id_and_port():
    sent = discovery("A").announcement()
    assert sent.startswith(b"EXO")
    assert json.loads(sent[3:].decode()) == {"namespace": "1.0.71", "nodeId": "A", "apiPort": 52415,
                                             "friendlyName": "a"}


def test_announcements_only_go_to_the_labs_networks(monkeypatch):
    # Address and netmask per interface, as ioctl(SIOCGIFADDR, SIOCGIFNETMASK) give them: the management
    # network (added without a broadcast address of its own), a cable's /30, a cable DHCP left on
    # 169.254/16, and one without IPv4 (the ioctl fails).
    interfaces = {"eth0": ("198.18.0.11", "255.255.255.0"), "en3": ("198.19.0.1", "255.255.255.252"),
                  "en4": ("169.254.10.20", "255.255.0.0"), "en5": None}

    def ioctl(fd, request, packed):
        found = interfaces[packed[:16].rstrip(b"\0").decode()]
        if found is None:
            raise OSError(99, "Cannot assign requested address")
        address = found[0] if request == exo_standin.SIOCGIFADDR else found[1]
        return packed[:20] + socket.inet_aton(address) + packed[24:]

    monkeypatch.setattr(exo_standin.socket, "if_nameindex", lambda: list(enumerate(interfaces, 1)))
    monkeypatch.setattr(exo_standin.fcntl, "ioctl", ioctl)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        assert exo_standin.broadcast_addresses(sock) == ["198.18.0.255", "198.19.0.3"]


def model(tmp_path, name="org--tiny", layers=8, index=None, files=("model.safetensors",)):
    path = tmp_path / "models" / name
    path.mkdir(parents=True)
    (path / "config.json").write_text(json.dumps({"num_hidden_layers": layers}))
    if index is not None:
        (path / "model.safetensors.index.json").write_text(json.dumps({"weight_map": index}))
    for name in files:
        (path / name).write_bytes(b"\0")
    return str(tmp_path / "models")


def test_a_model_is_found_only_as_a_complete_directory_in_exos_layout(tmp_path):
    found = model(tmp_path)
    assert exo_standin.model_directory("org/tiny", "/nowhere:" + found) == (os.path.join(found, "org--tiny"), 8)
    assert exo_standin.model_directory("org/other", found) is None
    cut = model(tmp_path / "cut", index={"a": "model-1.safetensors", "b": "model-2.safetensors"},
                files=("model-1.safetensors",))
    assert exo_standin.model_directory("org/tiny", cut) is None  # a shard missing: exo loads complete ones only


def instances(tmp_path, members, faults=None):
    home = tmp_path / "home"
    home.mkdir(parents=True, exist_ok=True)
    if faults:
        (home / "standin-faults.json").write_text(json.dumps(faults))
    return exo_standin.Instances(members[0][0], lambda: list(members), str(home))


PLACE = {"model_id": "org/tiny", "sharding": "Pipeline", "instance_meta": "MlxJaccl", "min_nodes": 2}


def applied():
    """After exo's commands (a placement, a deletion) took effect."""
    time.sleep(exo_standin.COMMAND_DELAY_SECONDS + 0.2)


def test_placing_answers_without_an_id_and_state_lists_the_instance_in_exos_shapes(tmp_path, monkeypatch):
    monkeypatch.setenv("EXO_MODELS_READ_ONLY_DIRS", model(tmp_path))
    monkeypatch.setattr(exo_standin, "COMMAND_DELAY_SECONDS", 0.1)
    placed = instances(tmp_path, [("A", None), ("B", None)])
    status, answer = placed.place(PLACE)
    assert status == 200 and answer["message"] == "Command received." and "instance_id" not in answer
    assert placed.add_to({})["instances"] == {}  # a command: applied a moment later, as exo's master does
    applied()
    state = placed.add_to({})
    [(instance_id, instance)] = state["instances"].items()
    body = instance["MlxJacclInstance"]
    assert body["instanceId"] == instance_id and body["shardAssignments"]["modelId"] == "org/tiny"
    shards = [list(s.values())[0] for s in body["shardAssignments"]["runnerToShard"].values()]
    assert [(s["startLayer"], s["endLayer"]) for s in shards] == [(0, 4), (4, 8)]  # rank 0 the first layers
    assert sorted(body["shardAssignments"]["nodeToRunner"]) == ["A", "B"]
    assert all(list(r) == ["RunnerLoading"] for r in state["runners"].values())
    assert placed.place(dict(PLACE, min_nodes=3))[0] == 400 and placed.place(dict(PLACE, model_id="x/y"))[0] == 404
    assert placed.serving("org/other")[0] == 404
    assert placed.serving("org/tiny", wait_seconds=5) == (200, None)  # waits while the runners load
    assert all(list(r) == ["RunnerReady"] for r in placed.add_to({})["runners"].values())
    assert placed.delete(instance_id)[0] == 200 and placed.get(instance_id) is not None  # until it is applied
    applied()
    assert placed.get(instance_id) is None and placed.delete(instance_id)[0] == 404


def test_a_runner_fault_and_a_peer_that_restarted_fail_runners(tmp_path, monkeypatch):
    monkeypatch.setenv("EXO_MODELS_READ_ONLY_DIRS", model(tmp_path))
    monkeypatch.setattr(exo_standin, "LOAD_SECONDS_PER_LAYER", 0.01)
    monkeypatch.setattr(exo_standin, "COMMAND_DELAY_SECONDS", 0.05)
    failing = instances(tmp_path, [("A", None), ("B", None)], faults={"runner_fails": "errno 22"})
    failing.place(PLACE)
    applied()
    assert failing.serving("org/tiny", wait_seconds=5) == (500, "A runner of org/tiny failed")
    boots = {("198.18.0.12", 52415): "boot-1"}
    monkeypatch.setattr(exo_standin.Instances, "boot_of", staticmethod(lambda address: boots.get(address)))
    peers = instances(tmp_path / "peers", [("A", None), ("B", ("198.18.0.12", 52415))])
    peers.place(PLACE)
    applied()
    peers.check_peers()
    assert peers.serving("org/tiny", wait_seconds=5) == (200, None)
    boots[("198.18.0.12", 52415)] = "boot-2"  # B's exo restarted: its runner is gone
    peers.check_peers()
    runners = peers.add_to({})["runners"].values()
    assert sorted(list(r)[0] for r in runners) == ["RunnerFailed", "RunnerReady"]
    [instance_id] = peers.add_to({})["instances"]
    peers.delete(instance_id)  # the client deletes the failed instance: the next look at the peers skips it
    applied()
    peers.check_peers()
    assert peers.add_to({})["instances"] == {} and peers.boots == {}


def test_the_chat_answer_says_it_comes_from_the_stand_in_and_counts_tokens():
    words, usage = exo_standin.chat_answer("org/tiny", {"max_tokens": 3, "messages": [{"content": "two words"}]})
    assert words == ["The", "macops", "lab's"] and usage == {"prompt_tokens": 2, "completion_tokens": 3,
                                                             "total_tokens": 5}
    assert "stand-in" in " ".join(exo_standin.chat_answer("org/tiny", {})[0])
