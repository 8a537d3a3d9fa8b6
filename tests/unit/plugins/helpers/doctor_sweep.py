"""What doctor.yml's sweep reads on a healthy node (node_facts' groups), and three Studios in a ring with mac3
powered but not answering, the applied plan on the two that were swept."""
from ansible_collections.macops.cluster.plugins.plugin_utils._topology import build_topology

from cabling_builder import build_nodes

MAC = {"macos_version": "26.2", "macos_build": "25C56", "memory_bytes": 512 * 2 ** 30}
PYTHON_OK = {"changed": False, "python": "/usr/bin/python3", "version": "3.9.6"}
NO_REPLY = {"code": "tb_link_no_reply", "severity": "error", "host": None, "port": "en4", "peer": "mac3",
            "message": "en4: no reply from mac3 (198.19.0.6) over en4", "fix": "Check the cable.", "details": {}}


def healthy_sweep():
    return {
        "changed": False, "mac": dict(MAC), "macos": {"version": "26.2", "build": "25C56"},
        "volumes": {"/": {"path": "/", "free_gb": 500.0}},
        "filevault": {"on": False, "state": "off", "status": "FileVault is Off."},
        "launchd": {"com.openssh.sshd": True, "io.exo.networksetup": False},
        "wired_limit": {"live_mb": 507904, "target_mb": 507904, "plist": "/Library/LaunchDaemons/org.macops.gpu-memory.plist"},
        "rdma": {"enabled": True, "ready": True, "problems": []},
        "links": {"plan_found": True, "planned_links": 3, "problems": [], "default_route": None,
                  "links": [{"interface": "en%d" % i, "ok": True} for i in (3, 4, 5)]},
        "exo": {"installed": True, "healthy": True, "label": "org.macops.exo", "nodes_seen": 4, "nodes_expected": 4,
                "message": "", "log_file": "/Library/Logs/macops/exo.log"},
        "network": {"plan_found": True, "differences": [], "problems": []},
        "settings": {"power": {"sleep": "0", "autorestart": "1", "womp": "1"},
                     "auto_updates": {"AutomaticallyInstallMacOSUpdates": False, "AutomaticDownload": None},
                     "software_update_plist": "/Library/Preferences/com.apple.SoftwareUpdate.plist"},
        "packages": {"python_path": "/opt/macops/venv/bin/python", "found": True, "python": "3.12.8",
                     "versions": {"mlx": "0.32.4", "mlx-lm": "0.32.2"}, "error": None},
        "sudo": {"rc": 0, "problems": []},
        "ssh": {"results": [{"address": "mac2", "label": "by name", "ok": True, "rc": 0, "stderr": ""}], "problems": []},
        "updates": [], "models": [],
    }


PLAN_FILE = "/opt/macops/state/thunderbolt-plan.json"


def three_studios_with_mac3_not_answering():
    """mac1, mac2 and mac3 in a ring, the applied plan on the swept mac1 and mac2, and mac3 booting
    or hung: it has power (its ports still report it to its peers) but was not swept, so the planner
    sees only mac1 and mac2, and mac3's ports are a Mac outside the inventory to it."""
    nodes = build_nodes({"mac1": "studio", "mac2": "studio", "mac3": "studio"},
                        ["mac1:2 mac2:2", "mac2:3 mac3:3", "mac3:4 mac1:4"])
    plan = {"hosts": {"mac1": {"en3": {"peer_host": "mac2", "peer_ip": "198.19.0.2"},
                               "en5": {"peer_host": "mac3", "peer_ip": "198.19.0.9"}},
                      "mac2": {"en3": {"peer_host": "mac1", "peer_ip": "198.19.0.1"},
                               "en4": {"peer_host": "mac3", "peer_ip": "198.19.0.5"}},
                      "mac3": {"en4": {"peer_host": "mac2", "peer_ip": "198.19.0.6"},
                               "en5": {"peer_host": "mac1", "peer_ip": "198.19.0.10"}}}}
    sweeps = {}
    for host in ("mac1", "mac2"):
        sweeps[host] = healthy_sweep()
        sweeps[host]["mac"] = dict(nodes[host]["mac"], **MAC)
        sweeps[host]["files"] = {PLAN_FILE: {"exists": True, "json": plan}}
    topology = build_topology(dict((host, {"mac": sweep["mac"]}) for host, sweep in sweeps.items()))
    return sweeps, topology
