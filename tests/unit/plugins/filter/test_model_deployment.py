"""The controller's half of a deployment: the disk check names each short node with both sizes before any
transfer is planned, the source's own part is linked (and free on its own volume), pulls from the source
read the source directory and relays are marked, and the report's deploy section (the one renderer's
page and Markdown) says what moved."""
import json

import pytest
from report_schema import assert_valid_report

from ansible_collections.macops.cluster.plugins.filter.model_deployment import FilterModule as Deployment
from ansible_collections.macops.cluster.plugins.plugin_utils._deploy_section import deploy_section
from ansible_collections.macops.cluster.plugins.plugin_utils._report_model import build_report_model
from ansible_collections.macops.cluster.plugins.plugin_utils._report_render import render_html, render_markdown

deployment = Deployment().filters()["model_deployment"]

MB = 1 << 20
HOSTS = ["mac1", "mac2", "mac3", "mac4"]
FILES = {"config.json": 1000, "a.safetensors": 40 * MB, "b.safetensors": 40 * MB, "c.safetensors": 40 * MB,
         "shared.safetensors": 10 * MB}
SOURCE, DEST = "/Users/admin/staging/m", "/Users/admin/models/m"


def applied():
    """The applied plan's hosts of a 4-node mesh: each cable a /30, both ends."""
    hosts = dict((h, {}) for h in HOSTS)
    number = 0
    for i, a in enumerate(HOSTS):
        for b in HOSTS[i + 1:]:
            number += 1
            link, ip_a, ip_b = "L%d" % number, "198.18.%d.1" % number, "198.18.%d.2" % number
            hosts[a]["en%d" % (len(hosts[a]) + 2)] = {"link_id": link, "ip": ip_a, "peer_host": b, "peer_ip": ip_b}
            hosts[b]["en%d" % (len(hosts[b]) + 2)] = {"link_id": link, "ip": ip_b, "peer_host": a, "peer_ip": ip_a}
    return hosts


def placement():
    own = {"mac1": [], "mac2": ["a.safetensors"], "mac3": ["b.safetensors"], "mac4": ["c.safetensors"]}
    ranks = []
    for rank, host in enumerate(HOSTS):
        names = sorted(["config.json", "shared.safetensors"] + own[host])
        ranks.append({"rank": rank, "host": host, "files": names,
                      "entries": [{"file": n, "size": FILES[n], "sha256": "%064d" % len(n)} for n in names]})
    return {"ranks": ranks, "files": dict(FILES), "sha256": dict((n, "%064d" % len(n)) for n in FILES),
            "nodes": HOSTS, "runtime": "mlx-lm", "version": "0.32.2", "mode": "pipeline", "copies": "per-rank",
            "layers": 16, "context_tokens": 32768, "model_bytes": sum(FILES.values()), "split": [4, 4, 4, 4],
            "split_rule": "mlx-lm 0.32.2: even split, rank 0 last"}


def empty_inventories(plan):
    return dict((r["host"], {"files": dict((n, {"state": "missing", "bytes": 0}) for n in r["files"]),
                             "extra": [], "missing_bytes": sum(FILES[n] for n in r["files"])}) for r in plan["ranks"])


def volumes(free_mb=10000, mount="/"):
    return dict((h, {"path": "/Users/admin", "free_kib": free_mb * 1024, "mounted_on": mount}) for h in HOSTS)


def test_each_node_pulls_its_files_and_the_source_links_its_own():
    plan = placement()
    result = deployment(plan, "mac1", SOURCE, DEST, empty_inventories(plan), volumes(), applied(), 0, "/")
    assert result["problems"] == [] and result["pulls"]["mac1"] == []
    assert result["local"] == {"mac1": ["config.json", "shared.safetensors"]}
    for host, own in (("mac2", "a.safetensors"), ("mac3", "b.safetensors"), ("mac4", "c.safetensors")):
        pulls = dict((p["file"], p) for p in result["pulls"][host])
        assert set(pulls) == {"config.json", "shared.safetensors", own}
        assert pulls[own]["parent"] == "mac1" and pulls[own]["parent_dir"] == SOURCE and not pulls[own]["relay"]
    # The shared file leaves the source once and is relayed on: the relay's pulls read the relay's dest.
    relayed = [p for h in ("mac2", "mac3", "mac4") for p in result["pulls"][h]
               if p["file"] == "shared.safetensors" and p["parent"] != "mac1"]
    assert len(relayed) == 2 and all(p["relay"] and p["parent_dir"] == DEST for p in relayed)
    assert result["wire_bytes"] == sum(result["lacking_bytes"].values())


def test_a_node_short_of_space_stops_the_plan_naming_it_and_both_sizes():
    plan = placement()
    short = volumes()
    short["mac3"]["free_kib"] = 20 * 1024
    result = deployment(plan, "mac1", SOURCE, DEST, empty_inventories(plan), short, applied(), 64 * MB, "/")
    assert [p["code"] for p in result["problems"]] == ["shard_disk_full"]
    message = result["problems"][0]["message"]
    assert message.startswith("mac3 needs 0.05 GB more on /") and "0.02 GB is free" in message
    assert all(pulls == [] for pulls in result["pulls"].values())


def test_the_source_s_links_cost_space_only_on_another_volume():
    plan = placement()
    tight = volumes(free_mb=5)
    tight_others = dict(tight, **dict((h, dict(tight[h], free_kib=10 ** 9)) for h in ("mac2", "mac3", "mac4")))
    same = deployment(plan, "mac1", SOURCE, DEST, empty_inventories(plan), tight_others, applied(), 0, "/")
    assert same["problems"] == []
    other = deployment(plan, "mac1", SOURCE, DEST, empty_inventories(plan), tight_others, applied(), 0,
                       "/Volumes/External")
    assert [p["host"] for p in other["problems"]] == ["mac1"]


def test_a_node_without_a_cable_is_unreachable():
    plan = placement()
    hosts = applied()
    hosts["mac4"] = {}
    for host in HOSTS[:3]:
        hosts[host] = dict((port, e) for port, e in hosts[host].items() if e["peer_host"] != "mac4")
    result = deployment(plan, "mac1", SOURCE, DEST, empty_inventories(plan), volumes(), hosts, 0, "/")
    assert [p["code"] for p in result["problems"]] == ["shard_unreachable"] and "mac4" in result["problems"][0]["message"]


def test_the_deploy_section_counts_received_bytes_against_what_was_lacking_and_reads_well():
    plan = placement()
    inventories = empty_inventories(plan)
    inventories["mac2"]["files"]["a.safetensors"] = {"state": "partial", "bytes": 10 * MB}
    inventories["mac2"]["missing_bytes"] -= 10 * MB
    result = deployment(plan, "mac1", SOURCE, DEST, inventories, volumes(), applied(), 0, "/")
    results = {"mac1": {"linked": ["config.json", "shared.safetensors"], "received": [], "bytes_received": 0},
               "mac2": {"received": [{}] * 3, "bytes_received": inventories["mac2"]["missing_bytes"], "seconds": 2.0},
               "mac3": {"received": [{}] * 3, "bytes_received": inventories["mac3"]["missing_bytes"], "seconds": 2.0},
               "mac4": {"failed": True, "msg": "c.safetensors: 0 of 41943040 bytes arrived", "bytes_received": 0}}
    ranked = dict(plan, runtime="mlx-lm", version="0.32.2", mode="pipeline", copies="per-rank", layers=16,
                  model_bytes=130 * MB, context_tokens=4096,
                  ranks=[dict(r, layers=[12 - 4 * r["rank"], 16 - 4 * r["rank"]], layer_count=4, disk_bytes=1,
                              weight_bytes=1, kv_reserve_bytes=1, need_bytes=1, wired_limit_bytes=2,
                              wired_limit_source="iogpu.wired_limit_mb", headroom_bytes=1) for r in plan["ranks"]])
    entry = deploy_section({"name": "m", "run_id": "run-1", "plan": ranked, "model": {"path": SOURCE, "model_type": "qwen2"},
                            "deployment": result, "transfers": results})
    report = entry["data"]["deployment"]
    assert report["needed_bytes"] == sum(inventories[h]["missing_bytes"] for h in ("mac2", "mac3", "mac4"))
    assert report["wire_bytes"] == inventories["mac2"]["missing_bytes"] + inventories["mac3"]["missing_bytes"]
    assert report["nodes"]["mac4"]["failed"] and "0 of 41943040" in report["nodes"]["mac4"]["msg"]
    assert entry["summary"][0] == "rank 0: mac1, layers 12-15, 2 files, needs 0.0 MB of 0.0 MB"
    assert entry["summary"][-1].startswith("mac4: 0.0 MB received in 0.0 s (0 linked, 0 pulled); FAILED: c.safe")
    # The one report's page and Markdown draw the section: the placement, the transfers, the cables.
    model = build_report_model({"mac1": {}}, {}, [], "Model deployment: m", {"playbook": "deploy-model.yml"}, [entry])
    assert_valid_report(json.loads(json.dumps(model)))
    text = render_markdown(model)
    assert "| mac2 | 3 | 0 | 3 | 0 | 41.9 MB | 2.0 | 21.0 |" in text and "| mac1\\>mac2 |" in text
    assert "crossed the Thunderbolt cables" in text
    assert "| 0 | mac1 | 12-15 | 4 | 2 |" in text and "mlx-lm 0.32.2, pipeline mode, per-rank copies" in text
    assert "<h3>Placement</h3>" in render_html(model) and "<td>mac1&gt;mac2</td>" in render_html(model)
    # Check mode (no deployment yet): the placement alone.
    planned = deploy_section({"name": "m", "plan": ranked, "model": {}, "deployment": None})
    assert [t["caption"] for t in planned["tables"]] == ["Placement"] and planned["data"]["deployment"] is None


def test_a_plan_without_the_cables_is_an_error_a_person_can_read():
    from ansible.errors import AnsibleFilterError
    plan = placement()
    broken = applied()
    broken["mac2"]["en2"] = {"link_id": "L1"}
    with pytest.raises(AnsibleFilterError, match="model_deployment"):
        deployment(plan, "mac1", SOURCE, DEST, empty_inventories(plan), volumes(), broken, 0, "/")


def test_a_progress_line_says_bytes_share_rate_and_time_left():
    from ansible_collections.macops.cluster.plugins.plugin_utils._deploy_section import progress_line
    line = progress_line({"bytes_done": 412000000, "bytes_total": 980300000, "bytes_per_second": 19800000,
                          "file": "model-00003-of-00016.safetensors", "seconds": 20.8})
    assert line == ("412.0 MB of 980.3 MB (42%), 19.8 MB/s, about 28 s left; now model-00003-of-00016.safetensors")
    assert progress_line({"bytes_done": 5, "bytes_total": 5, "bytes_per_second": 1, "file": "x"}) == (
        "0.0 MB of 0.0 MB (100%), 0.0 MB/s")
    assert progress_line({"bytes_done": 0, "bytes_total": 0}) is None and progress_line("garbage") is None


def test_a_deployment_without_a_name_is_named_by_its_source():
    plan = placement()
    ranked = dict(plan, model_bytes=1, context_tokens=1, ranks=[
        dict(r, layers=[0, 4], layer_count=4, disk_bytes=1, weight_bytes=1, kv_reserve_bytes=1, need_bytes=1,
             wired_limit_bytes=2, wired_limit_source="iogpu.wired_limit_mb", headroom_bytes=1) for r in plan["ranks"]])
    entry = deploy_section({"plan": ranked, "model": {"path": SOURCE}})
    assert entry["title"] == "Model deployment: %s" % SOURCE and entry["data"]["name"] == SOURCE


def test_a_removal_is_the_deploy_section_with_what_each_node_removed_and_validates():
    removed = {"mac1": [{"path": "/Users/admin/models/m", "bytes": 3 * MB},
                        {"path": "/Users/admin/models/.hub/m", "bytes": 5 * MB}],
               "mac2": [{"path": "/Users/admin/models/m", "bytes": 2 * MB}], "mac3": [], "mac4": None}
    entry = deploy_section({"name": "m", "removed": removed})
    assert entry["title"] == "Model removal: m" and entry["data"]["removed"]["mac4"] == []
    assert entry["summary"] == ["mac1: removed 2 directories, 8.4 MB", "mac2: removed 1 directory, 2.1 MB",
                                "mac3: held nothing of it", "mac4: held nothing of it"]
    assert entry["notes"] == ["m is gone from every node: 10.5 MB of files removed."]
    model = build_report_model({"mac1": {}}, {}, [], "Model removal: m", {"playbook": "deploy-model.yml"}, [entry])
    assert_valid_report(json.loads(json.dumps(model)))
    assert "| mac1 | /Users/admin/models/.hub/m | 5.2 MB |" in render_markdown(model)
