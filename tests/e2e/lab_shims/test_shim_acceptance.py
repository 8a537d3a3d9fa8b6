"""Acceptance 3 (Thunderbolt topology as MLX/exo read it) and 4 (real traffic over the
simulated cables) on a running lab."""
import json
import os
import subprocess
import tempfile
import time

import pytest

import tbrules
from labtools import VENV_BIN, maclab

VENV_PYTHON = os.path.join(VENV_BIN, "python")


# --- acceptance 3 ---------------------------------------------------------------------------

def test_thunderbolt_json_of_all_hosts_gives_back_the_cabling(running_lab):
    buses, ports = {}, {}
    for host in running_lab.hosts:
        raw = running_lab.ssh(host, "system_profiler SPThunderboltDataType -json").stdout
        buses[host] = json.loads(raw)["SPThunderboltDataType"]
        ports[host] = tbrules.parse_hardware_ports(
            running_lab.ssh(host, "networksetup -listallhardwareports").stdout)
    expected = tbrules.expected_links(running_lab.lab_json()["cables"])
    assert expected, "the lab has no live cable"
    assert tbrules.links_by_mlx_rule(buses, ports) == expected


def test_thunderbolt_text_agrees_with_json_on_every_host(running_lab):
    for host in running_lab.hosts:
        raw = running_lab.ssh(host, "system_profiler SPThunderboltDataType -json; echo '%%%';"
                                    " system_profiler SPThunderboltDataType").stdout
        json_part, text_part = raw.split("%%%\n")
        assert tbrules.text_rows(text_part) == \
            tbrules.json_rows(json.loads(json_part)["SPThunderboltDataType"])


# --- acceptance 4 ---------------------------------------------------------------------------

def test_ping_over_every_cable(running_lab, tb_addressed):
    failures = []
    for (host, device), (address, peer) in sorted(tb_addressed.items()):
        got = running_lab.ssh(host, "ipconfig getifaddr %s" % device).stdout.strip()
        if got != address:
            failures.append("%s %s has %r, not %s" % (host, device, got, address))
            continue
        proc = subprocess.run(running_lab.netns(host, ["ping", "-c", "1", "-W", "3", "-I", device, peer]),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        if proc.returncode != 0:
            failures.append("%s %s -> %s: %s" % (host, device, peer, proc.stdout.strip()))
    assert not failures, "\n".join(failures)


ALL_SUM = """
import json, mlx.core as mx
world = mx.distributed.init(strict=True, backend="ring")
x = mx.full((4096,), float(world.rank() + 1))
total = mx.distributed.all_sum(x)
mx.eval(total)
print(json.dumps({"rank": world.rank(), "size": world.size(),
                  "min": float(total.min()), "max": float(total.max())}))
"""


def ring_cable_ends(running_lab, tb_addressed, hosts):
    """Rank i's address on the cable from rank i-1: the ring backend's rank i accepts there."""
    cables = running_lab.cables()
    ends = []
    for i, host in enumerate(hosts):
        previous = hosts[i - 1]
        cable = next(c for c in cables if {c["a"], c["b"]} == {host, previous})
        device = cable["a_device"] if cable["a"] == host else cable["b_device"]
        ends.append(tb_addressed[(host, device)][0])
    return ends


def test_mlx_ring_all_sum_over_thunderbolt(running_lab, tb_addressed):
    hosts = running_lab.hosts[:4]
    if len(hosts) < 4:
        pytest.skip("needs 4 hosts")
    try:
        ends = ring_cable_ends(running_lab, tb_addressed, hosts)
    except StopIteration:
        pytest.skip("the lab's topology has no ring through the first 4 hosts")
    port = 30000 + os.getpid() % 5000
    workdir = tempfile.mkdtemp(prefix="maclab-allsum-")
    try:
        hostfile = os.path.join(workdir, "hosts.json")
        with open(hostfile, "w") as fh:
            json.dump([["%s:%d" % (addr, port + i)] for i, addr in enumerate(ends)], fh)
        script = os.path.join(workdir, "all_sum.py")
        with open(script, "w") as fh:
            fh.write(ALL_SUM)
        ranks = [subprocess.Popen(running_lab.netns(host, ["env", "MLX_RANK=%d" % i,
                                                           "MLX_HOSTFILE=" + hostfile,
                                                           VENV_PYTHON, script]),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  universal_newlines=True)
                 for i, host in enumerate(hosts)]
        results = []
        for proc in ranks:
            out, err = proc.communicate(timeout=180)
            assert proc.returncode == 0, err
            results.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for proc in locals().get("ranks", []):
            if proc.poll() is None:
                proc.kill()
        for name in os.listdir(workdir):
            os.unlink(os.path.join(workdir, name))
        os.rmdir(workdir)
    expected = float(sum(range(1, len(hosts) + 1)))
    assert [r["rank"] for r in results] == list(range(len(hosts)))
    assert all(r["size"] == len(hosts) and r["min"] == r["max"] == expected for r in results)


def iperf_bits_per_second(running_lab, client, server, server_address, port):
    srv = subprocess.Popen(running_lab.netns(server, ["iperf3", "-s", "-1", "-B", server_address,
                                                      "-p", str(port)]),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(50):
            probe = subprocess.run(running_lab.netns(client, ["iperf3", "-c", server_address, "-p",
                                                              str(port), "-t", "3", "-J"]),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   universal_newlines=True)
            # A client that reached the server before it listened, or a link still coming up after
            # `fault degrade`, ends without a receiver summary: measure again.
            summary = json.loads(probe.stdout or "{}").get("end", {}).get("sum_received") \
                if probe.returncode == 0 else None
            if summary:
                return summary["bits_per_second"]
            time.sleep(0.2)
        raise AssertionError("iperf3 %s -> %s failed: %s" % (client, server, probe.stdout[-500:]))
    finally:
        if srv.poll() is None:
            srv.kill()
        srv.wait()


def test_degraded_cable_is_slower_and_only_that_one(running_lab, tb_addressed):
    lab = running_lab.lab_json()
    if lab.get("faults"):
        pytest.skip("the reused lab carries faults; `fault clear` would undo them too")
    cables = running_lab.cables()
    degraded = cables[0]
    other = next(c for c in cables if c["a"] == degraded["a"] and c["id"] != degraded["id"])

    def measure(cable, port):
        server_address = tb_addressed[(cable["b"], cable["b_device"])][0]
        return iperf_bits_per_second(running_lab, cable["a"], cable["b"], server_address, port)

    base = 5201 + os.getpid() % 1000
    before = measure(degraded, base)
    maclab("fault", "degrade", degraded["a"], degraded["b"])
    try:
        after = measure(degraded, base + 1)
        untouched = measure(other, base + 2)
        speeds = {h: running_lab.ssh(h, "system_profiler SPThunderboltDataType -json").stdout
                  for h in (degraded["a"],)}
    finally:
        maclab("fault", "clear")
    assert after < 0.6 * before, (before, after)
    assert untouched > 1.5 * after, (untouched, after)
    bus = next(b for b in json.loads(speeds[degraded["a"]])["SPThunderboltDataType"]
               if b["receptacle_1_tag"]["receptacle_id_key"] == str(degraded["a_port"]))
    assert bus["receptacle_1_tag"]["current_speed_key"] == "40 Gb/s"
