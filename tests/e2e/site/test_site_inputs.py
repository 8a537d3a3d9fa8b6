"""Issue 11, acceptance 1 end to end: on the converged lab, one bad value per role (generated from the
argument specs, so a new role is covered without editing this file) and `-e firewall_state=presnet`
fail in the first task of site.yml (of the operation playbook that runs the role otherwise:
reboot-cluster.yml, benchmark.yml, deploy-model.yml, doctor.yml, serve-model.yml, update-macos.yml), naming the
variable,
with changed=0 and not one command run on any simulated Mac."""
import json
import os

import pytest

from input_cases import one_case_per_role
from labtools import HOSTS, REPO, log_lines, recap, run_playbook

from ansible_collections.macops.cluster.plugins.plugin_utils._inputs import load_specs

SPECS = load_specs(os.path.join(REPO, "roles"))
# Every playbook's first play is the collection's one input check (playbooks/check_inputs.yml), and its one task this.
FIRST_TASK = "Check the inventory and every variable before anything connects"
# The roles site.yml does not run, and the playbook that checks their variables first.
PLAYBOOK_OF = {"reboot_cluster": "reboot-cluster.yml", "benchmark": "benchmark.yml",
               "deploy_model": "deploy-model.yml", "doctor": "doctor.yml", "serve": "serve-model.yml",
               "macos_update": "update-macos.yml", "support_bundle": "support-bundle.yml",
               "known_hosts": "known-hosts.yml"}


def playbook_of(role):
    """The playbook whose first task checks `role`'s variables."""
    return PLAYBOOK_OF.get(role, "site.yml")


def shim_lines():
    return dict((host, len(log_lines(host, "shim.log"))) for host in HOSTS)


@pytest.fixture(scope="module")
def playbook(converged, tmp_path_factory):
    workdir = str(tmp_path_factory.mktemp("inputs"))

    def run(name, extra_vars):
        return run_playbook(os.path.join(REPO, name), "-e", json.dumps(extra_vars), workdir=workdir, timeout=300,
                            check=False)
    return run


def assert_refused_before_anything_ran(proc, name, variable, before, after=None):
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out[-3000:]
    counts = recap(proc.stdout)
    assert set(counts) == set(HOSTS) and all(c["changed"] == 0 and c["failed"] == 1 for c in counts.values()), out[-3000:]
    # the first task is the one that failed, on every host (nothing ran before it, not even Ansible's
    # own argument check of a role), and its message names the variable
    tasks = [line for line in proc.stdout.splitlines() if line.startswith("TASK [")]
    assert len(tasks) == 1 and FIRST_TASK in tasks[0], tasks
    assert "%s = " % variable in out or "%s is not a macops.cluster variable" % variable in out, out[-3000:]
    # nothing connected: not one macOS command ran on any node, changing or not
    assert (shim_lines() if after is None else after) == before


CASES = one_case_per_role(SPECS)


def test_every_role_has_a_case():
    assert set(case[0] for case in CASES) == set(role for role, entries in SPECS.items() if any(entries.values()))


@pytest.fixture(scope="module")
def refused(playbook):
    """Each playbook run once with the bad value of every role whose variables it checks first (the check names
    every bad value of a run at once, so the roles share a run): {playbook: (process, shim lines before, after)}."""
    runs = {}
    for name in sorted(set(playbook_of(case[0]) for case in CASES)):
        bad_values = dict((case[1], case[2]) for case in CASES if playbook_of(case[0]) == name)
        before = shim_lines()
        runs[name] = (playbook(name, bad_values), before, shim_lines())
    return runs


@pytest.mark.parametrize("role, variable, bad, kind, expected", CASES, ids=[case[0] for case in CASES])
def test_one_bad_value_per_role_fails_in_the_first_task(refused, role, variable, bad, kind, expected):
    name = playbook_of(role)
    proc, before, after = refused[name]
    assert_refused_before_anything_ran(proc, name, variable, before, after)
    if expected is not None:
        assert "Did you mean %s" % expected in proc.stdout


def test_firewall_state_typo_says_did_you_mean_present_and_touches_no_node(playbook):
    before = shim_lines()
    proc = playbook("site.yml", {"firewall_state": "presnet"})
    assert_refused_before_anything_ran(proc, "site.yml", "firewall_state", before)
    assert "Did you mean present?" in proc.stdout


def test_survey_strings_are_coerced_and_a_typo_in_a_name_is_named(playbook):
    # AWX surveys and -e give strings: "false" and "32323" are what the specs want, once coerced;
    # a misspelt variable name is refused with the closest known one.
    before = shim_lines()
    proc = playbook("site.yml", {"macops_rdma_required": "false", "firewall_mlx_first_port": "32323",
                                 "macops_rdma_requried": True})
    assert_refused_before_anything_ran(proc, "site.yml", "macops_rdma_requried", before)
    assert "Did you mean macops_rdma_required?" in proc.stdout
    assert "macops_rdma_required = " not in proc.stdout and "firewall_mlx_first_port = " not in proc.stdout
