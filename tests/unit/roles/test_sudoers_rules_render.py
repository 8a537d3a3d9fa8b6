"""The sudoers role's rule list as Ansible renders it (no node, no change: the role's tasks are
skipped and only its variables are read): the interfaces come from preflight's facts, the pmset
rules follow the power role's variables, the launchd rules the roles' labels."""
import json
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
PLAYBOOK = """---
- name: Render the sudoers rules
  hosts: localhost
  gather_facts: false
  vars:
    ansible_user: admin
  tasks:
    - name: Pretend preflight ran
      ansible.builtin.set_fact:
        ansible_facts: {facts}
    - name: Write the rules
      ansible.builtin.copy:
        content: "{{{{ _sudoers_all_commands | to_json }}}}"
        dest: {dest}
        mode: "0600"
  roles:
    - role: macops.cluster.sudoers
      when: false
"""
STUDIO_PORTS = {"macops_mac": {"thunderbolt_ports": [{"interface": "en3"}, {"interface": "en2"},
                                                    {"interface": None}, {"receptacle": 4}]}}


def render(tmp_path, facts, *extra):
    dest = tmp_path / "rules.json"
    playbook = tmp_path / "render.yml"
    playbook.write_text(PLAYBOOK.format(facts=json.dumps(facts), dest=dest))
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(REPO, "collections"),
               ANSIBLE_LOCAL_TEMP=str(tmp_path / "tmp"), ANSIBLE_NOCOLOR="1")
    argv = [os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i", "localhost,", "-c", "local",
            "-e", "ansible_python_interpreter=%s" % sys.executable, str(playbook)] + list(extra)
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, env=env,
                          cwd=str(tmp_path), timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    return json.loads(dest.read_text())


@pytest.fixture(scope="module")
def defaults(tmp_path_factory):
    return render(tmp_path_factory.mktemp("defaults"), STUDIO_PORTS)


def test_interface_rules_name_the_nodes_thunderbolt_ports_only(defaults):
    assert "/sbin/ifconfig ^(en2|en3) inet [0-9]+[.][0-9]+[.][0-9]+[.][0-9]+ netmask 255[.]255[.]255[.]252$" in defaults
    assert "/sbin/route ^change [0-9]+[.][0-9]+[.][0-9]+[.][0-9]+ -interface (en2|en3)$" in defaults


def test_the_default_list_is_the_tools_lines_the_labels_and_the_power_settings(defaults):
    assert defaults[:2] == ['/bin/ls ""', "/sbin/ifconfig bridge0 down"]
    assert defaults[4:6] == ["/usr/sbin/sysctl ^(-n |-w )?iogpu[.]wired_limit_mb(.[0-9]+)?$", "/sbin/shutdown -r now"]
    assert [c for c in defaults if c.startswith("/bin/launchctl")] == [
        "/bin/launchctl kickstart -k system/org.macops.exo", "/bin/launchctl kickstart -k system/org.macops.gpu-memory",
        "/bin/launchctl kickstart -k system/org.macops.pf", "/bin/launchctl print system/org.macops.exo",
        "/bin/launchctl print system/org.macops.gpu-memory", "/bin/launchctl print system/org.macops.pf"]
    assert [c for c in defaults if c.startswith("/usr/bin/pmset")] == [
        "/usr/bin/pmset -a autorestart 1", "/usr/bin/pmset -a disksleep 0", "/usr/bin/pmset -a displaysleep 10",
        "/usr/bin/pmset -a sleep 0", "/usr/bin/pmset -a womp 1"]
    assert len(defaults) == 17


def test_rules_follow_the_other_roles_variables_and_facts(tmp_path):
    rules = render(tmp_path, {}, "-e", json.dumps({
        "power_sleep_minutes": 5, "power_wake_on_network": False, "power_extra_settings": {"powernap": 0},
        "exo_launchd_label": "com.example.exo", "sudoers_extra_commands": ["/usr/bin/fdesetup authrestart"]}))
    # No facts (site.yml's fact-free first step, a role run without preflight): any enN.
    assert "/sbin/route ^change [0-9]+[.][0-9]+[.][0-9]+[.][0-9]+ -interface en[0-9]+$" in rules
    assert "/usr/bin/pmset -a sleep 5" in rules and "/usr/bin/pmset -a womp 0" in rules
    assert "/usr/bin/pmset -a powernap 0" in rules and "/usr/bin/pmset -a sleep 0" not in rules
    assert "/bin/launchctl kickstart -k system/com.example.exo" in rules
    assert "/bin/launchctl kickstart -k system/org.macops.exo" not in rules
    assert rules[-1] == "/usr/bin/fdesetup authrestart"
