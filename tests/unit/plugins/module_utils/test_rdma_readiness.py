"""One Mac's RDMA readiness (plugins/module_utils/_rdma_readiness.py), as rdma_status reports it: each port's
state, and the problems' texts with their fixes (the recovery steps, a port without its IPv4 GID, a TB4 link)."""
from ansible_collections.macops.cluster.plugins.module_utils._rdma_readiness import RECOVERY_STEPS
from ansible_collections.macops.cluster.plugins.modules import rdma_status

from fake_rdma_mac import fake_mac, ok
from module_harness import run_module


def test_ready_ports(monkeypatch, capsys):
    result, _calls = run_module(monkeypatch, capsys, rdma_status.main, {"_ansible_check_mode": True}, fake_mac())
    assert (result["macos_version"], result["macos_build"]) == ("26.2", "25C56")
    assert [port["device"] for port in result["ports"]] == ["rdma_en%d" % n for n in range(2, 8)]
    en3 = result["ports"][1]
    assert en3 == {"device": "rdma_en3", "interface": "en3", "present": True, "state": "PORT_ACTIVE", "active": True,
                   "ipv4_gid": True, "gids": ["fe80::345e:bff:fe41:7c02", "::ffff:198.19.0.1", "fe80::1c8a:4dff:fe21:93b0"],
                   "cabled": True, "speed_gbps": 80}
    idle = result["ports"][0]
    assert (idle["cabled"], idle["speed_gbps"], idle["active"]) == (False, None, False)


def test_problem_texts(monkeypatch, capsys):
    disabled, _calls = run_module(monkeypatch, capsys, rdma_status.main, {},
                                  fake_mac(rdma_ctl=ok("rdma_ctl/disabled.txt"), devices="ibv_devices/rdma_disabled.txt"))
    assert disabled["problems"][0]["fix"] == RECOVERY_STEPS
    for step in ("shut the Mac down", "about 10 seconds", "Loading startup options", "Options, then Continue",
                 "Utilities > Terminal", "`rdma_ctl enable`", "reboot"):
        assert step in RECOVERY_STEPS
    # The cabled ports are listed with their expected device names even though no device exists.
    assert [(p["device"], p["present"], p["cabled"]) for p in disabled["ports"]] == [("rdma_en3", False, True), ("rdma_en4", False, True)]

    problems, _calls = run_module(monkeypatch, capsys, rdma_status.main, {},
                                  fake_mac(devinfo=ok("ibv_devinfo/studio_problems_v.txt")))
    no_gid, down = problems["problems"]
    assert no_gid["message"].startswith("rdma_en3 has no IPv4 address: ")
    assert "sudo ifconfig en3 inet 169.254.0.1 netmask 255.255.0.0 alias" in no_gid["fix"]
    assert down["message"].startswith("rdma_en4 is PORT_DOWN although en4 (Thunderbolt 3) is cabled to Mac mini")
    assert "RDMA disabled" in down["message"] and "cable" in down["message"]

    tb4, _calls = run_module(monkeypatch, capsys, rdma_status.main, {}, fake_mac(profile="system_profiler/studio_tb4_and_en2.json"))
    assert tb4["problems"][1]["message"] == "en5 (Thunderbolt 4): this link runs at 40 Gb/s: a TB4 cable or port cannot carry RDMA"
