"""Day-2 membership on the serving lane's lab, after serving is done (issue 35, acceptance 1; docs/membership.md):
a fifth Mac, on the shelf until now (`maclab up --spare 1`), joins with the documented steps (its cables plugged
in, the cluster's build, the inventory, one site.yml run) and the report is healthy with five nodes, each reaching
every other over SSH; then it is retired (unplugged, out of the inventory, one site.yml run) and its key opens no
session on any remaining node, which trust its host key no more."""
import json
import os

import pytest
import yaml

from labtools import HOSTS, INVENTORY, REPO, maclab, read_json, run_playbook, ssh, valid_report

SITE = os.path.join(REPO, "site.yml")
NEW = "mac5"


@pytest.fixture(scope="module")
def membership(converged, tmp_path_factory):
    tmp_dir = str(tmp_path_factory.mktemp("membership"))
    # The owner's inventory with the new Mac in the group macs, beside the lab's (its group_vars apply).
    with open(INVENTORY) as handle:
        inventory = yaml.safe_load(handle)
    groups = inventory["all"]["children"]
    groups["macs"]["hosts"].update(groups.pop("spare")["hosts"])
    with_new = os.path.join(os.path.dirname(INVENTORY), "hosts-with-%s.yml" % NEW)
    with open(with_new, "w") as handle:
        yaml.safe_dump(inventory, handle, default_flow_style=False)

    def site(inventory_path):
        report_dir = os.path.join(tmp_dir, "report-%d" % len(os.listdir(tmp_dir)))
        run_playbook(SITE, "--skip-tags", "exo", "-e", json.dumps({"report_dir": report_dir}), workdir=tmp_dir,
                     inventory=inventory_path, timeout=1200)
        return valid_report(report_dir)

    yield site, with_new
    os.remove(with_new)


def mesh_session(source, target):
    """Whether `source` opens an SSH session on `target` with its mesh key, as mlx.launch does (BatchMode)."""
    return ssh(source, "ssh -o BatchMode=yes -o ConnectTimeout=5 %s true" % target, check=False)


def test_a_fifth_mac_joins_with_one_site_run_and_once_retired_its_key_opens_no_session(membership):
    site, with_new = membership
    # The new Mac on the cluster's build (the README's prerequisites), then cabled in: a cable to every node.
    # The release with its security response, where the cluster carries one (this lane's nodes do).
    cluster_os = read_json("hosts", "mac1", "state.json")["os"]
    maclab("macos", " ".join(filter(None, (cluster_os["version"], cluster_os.get("extra")))), cluster_os["build"], NEW)
    maclab("plug", NEW)
    joined = site(with_new)
    assert joined["verdict"] == "healthy", [p for p in joined["problems"] if p["severity"] != "info"]
    assert [node["name"] for node in joined["nodes"]] == HOSTS + [NEW]
    assert (joined["summary"]["links"], joined["topology"]["class"]) == (10, "full_mesh")  # every pair of five
    for host in HOSTS:
        assert mesh_session(NEW, host).returncode == 0 and mesh_session(host, NEW).returncode == 0
    # Retired: unplugged, out of the inventory, one site.yml run on the four.
    maclab("unplug", NEW)
    retired = site(INVENTORY)
    assert retired["verdict"] == "healthy", [p for p in retired["problems"] if p["severity"] != "info"]
    assert [node["name"] for node in retired["nodes"]] == HOSTS and retired["summary"]["links"] == 6
    for host in HOSTS:
        refused = mesh_session(NEW, host)
        assert refused.returncode != 0 and "Permission denied" in refused.stderr, (host, refused.stderr)
        # Its host key is trusted no more, and the record the next run revokes from lists the four alone.
        assert NEW not in ssh(host, "cat ~/.ssh/known_hosts").stdout
        record = ssh(host, "cat ~/.ssh/macops-cluster-keys").stdout
        assert sorted(line.split()[0] for line in record.splitlines()) == HOSTS
