"""Acceptance 1 (first half): `maclab up` builds a 4-Studio TB5 mesh whose hosts answer SSH."""
import json
import os
import stat
import subprocess

from labtools import (HOSTS, INVENTORY, LAB_INVENTORY_VARS, LAB_UP, LINK_RATE, REPO, ROOT, in_netns, maclab, read_json, ssh,
                      tc_rate)
from macsim import exo_dist, layout, wheelhouse


def test_every_host_answers_ssh_within_30_seconds(lab):
    assert lab["up_seconds"] < 30 + 15  # up includes key generation and the self-check
    for index, host in enumerate(HOSTS, 1):
        proc = ssh(host, "hostname; cat /proc/1/comm; id -u; id -Gn; echo $HOME")
        name, comm, uid, groups, home = proc.stdout.split("\n")[:5]
        assert (name, comm, uid, home) == (host, "launchd", "501", "/Users/admin")
        assert "admin" in groups.split() and "staff" in groups.split()


def test_default_cluster_is_two_512_and_two_256_studios(lab):
    profiles = [h["profile"] for h in lab["lab"]["hosts"]]
    assert profiles == ["studio512", "studio512", "studio256", "studio256"]
    for host, gib in zip(HOSTS, (512, 512, 256, 256)):
        state = read_json("hosts", host, "state.json")
        assert state["hardware"]["model_id"] == "Mac15,14"
        assert state["hardware"]["memory_bytes"] == gib * 1024 ** 3
        assert state["os"] == {"version": "26.2", "build": "25C56", "darwin": "25.2.0"}


def test_full_mesh_avoids_receptacle_1_and_is_shaped(lab):
    cables = lab["lab"]["cables"]
    pairs = {frozenset((c["a"], c["b"])) for c in cables}
    assert len(cables) == 6 and len(pairs) == 6
    for host in HOSTS:
        used = sorted(c[end + "_port"] for c in cables for end in ("a", "b") if c[end] == host)
        assert used == [2, 3, 4], (host, used)  # receptacle 1 (en2) cannot do RDMA
        links = json.loads(in_netns(host, "ip", "-j", "link", "show"))
        state = {l["ifname"]: l for l in links}
        for device in ("en3", "en4", "en5"):
            assert "LOWER_UP" in state[device]["flags"], (host, device)
        for device in ("en2", "en6", "en7"):
            assert "NO-CARRIER" in state[device]["flags"], (host, device)  # idle ports exist
        qdisc = in_netns(host, "tc", "qdisc", "show", "dev", "en3")
        assert "tbf" in qdisc and "rate %s" % tc_rate(LINK_RATE) in qdisc
    assert {c["speed"] for c in cables} == {"80 Gb/s"}


def test_cables_connect_the_planned_ports(lab):
    for cable in lab["lab"]["cables"]:
        a_link = json.loads(in_netns(cable["a"], "ip", "-j", "-d", "link", "show", "dev", cable["a_device"]))[0]
        b_link = json.loads(in_netns(cable["b"], "ip", "-j", "-d", "link", "show", "dev", cable["b_device"]))[0]
        # A veth's link index is its peer's ifindex.
        assert a_link["link_index"] == b_link["ifindex"] and b_link["link_index"] == a_link["ifindex"]


def test_thunderbolt_bridge_has_stp(lab):
    for host in HOSTS:
        detail = json.loads(in_netns(host, "ip", "-j", "-d", "link", "show", "dev", "bridge0"))[0]
        assert detail["linkinfo"]["info_data"]["stp_state"] == 1


def test_network_stays_inside_the_lab(lab):
    for index, host in enumerate(HOSTS, 1):
        assert in_netns(host, "ip", "route", "show", "default").strip() == ""
        assert in_netns(host, "cat", "/proc/sys/net/ipv4/ip_forward").strip() == "0"
        addrs = json.loads(in_netns(host, "ip", "-j", "-4", "addr", "show"))
        for iface in addrs:
            for addr in iface["addr_info"]:
                assert addr["local"].startswith(("198.18.", "198.19.", "127.")), addr
        en0 = json.loads(in_netns(host, "ip", "-j", "link", "show", "dev", "en0"))[0]
        assert en0["address"] == layout.mgmt_mac(index)
    with open("/proc/sys/net/ipv4/ip_forward") as handle:
        assert handle.read().strip() == "0"


def test_host_looks_like_a_mac_from_inside(lab):
    proc = ssh("mac2", "uname -s; /usr/bin/python3 -c 'import platform, os; print(platform.system(), "
                       "platform.machine(), os.environ.get(\"PYTHONPATH\"))'; sw_vers -productVersion; "
                       "command -v apt-get dpkg systemctl lsb_release || true; "
                       "readlink /Library/Developer/CommandLineTools/usr/bin/python3; ls -ld /tmp /root; "
                       "sudo -n true 2>&1; echo sudo_rc=$?")
    lines = proc.stdout.splitlines()
    assert lines[0] == "Darwin"
    assert lines[1] == "Darwin arm64 None"  # PYTHONPATH does not leak into the module's env
    assert lines[2] == "26.2"
    assert lines[3].endswith("/python3.9")  # Debian tools were hidden: next line is the CLT python
    assert "password is required" in proc.stdout and "sudo_rc=1" in proc.stdout
    modes = {line.split()[-1]: line.split()[0] for line in lines[4:6]}
    assert modes == {"/tmp": "drwxrwxrwt", "/root": "drwxr-xr-x"}  # own tmpfs /tmp, open /root


def test_child_pythons_run_as_plain_linux(lab):
    proc = ssh("mac3", "/usr/bin/python3 -c 'import subprocess, sys; "
                       "print(subprocess.run([sys.executable, \"-c\", \"import platform; print(platform.system())\"],"
                       " stdout=subprocess.PIPE, universal_newlines=True).stdout.strip())'")
    assert proc.stdout.strip() == "Linux"
    logged = [json.loads(line) for line in open(os.path.join(ROOT, "hosts", "mac3", "log", "exec.log"))]
    assert any(entry["argv"][1:2] == ["-c"] and "platform" in entry["argv"][2] for entry in logged)


def test_every_process_of_a_host_preloads_the_recv_wait_and_the_machine_does_not(lab):
    """lab/macsim/recv_wait.c: the MLX ranks of a simulated Mac wait for their sockets instead of spinning on the
    cores the controller shares (a lab without a C compiler runs without it)."""
    library = lab["lab"].get("recv_wait")
    assert library and os.path.exists(library)
    assert ssh("mac2", "cat /etc/ld.so.preload").stdout.strip() == library
    assert library in ssh("mac2", "cat /proc/self/maps").stdout
    assert not os.path.exists("/etc/ld.so.preload")


def test_hosts_are_isolated_from_each_other(lab):
    ssh("mac1", "echo mine > /tmp/isolation-probe")
    assert ssh("mac2", "test -e /tmp/isolation-probe", check=False).returncode == 1
    assert not os.path.exists("/tmp/isolation-probe")
    with open("/etc/passwd") as handle:
        assert not any(line.startswith("admin:") for line in handle)  # the machine's /etc untouched


def test_inventory_pins_host_keys_and_hides_the_password(lab):
    with open(INVENTORY) as handle:
        inventory = handle.read()
    password_file = os.path.join(ROOT, "controller", "become_password")
    with open(password_file) as handle:
        password = handle.read().strip()
    assert password not in inventory
    assert stat.S_IMODE(os.stat(password_file).st_mode) == 0o600
    assert "StrictHostKeyChecking=no" not in inventory and "StrictHostKeyChecking=yes" in inventory
    assert "macs:" in inventory and "ansible_host: %s" % layout.mgmt_ip(4) in inventory
    with open(os.path.join(ROOT, "controller", "known_hosts")) as handle:
        known = handle.read().splitlines()
    assert len(known) == 4 and known[0].startswith("mac1,%s ssh-ed25519 " % layout.mgmt_ip(1))
    with open(LAB_INVENTORY_VARS) as handle:
        group_vars = handle.read()
    # the index URL carries a token (the secrets scan looks for it in every log)
    for expected in ("macops_pip_index_url: http://maclab:", "@%s:8101/simple/" % layout.CONTROLLER_IP, "mlx[cpu]==0.32.4",
                     "198.19.0.0/16"):
        assert expected in group_vars
    ignored = subprocess.run(["git", "-C", REPO, "check-ignore", "-q", os.path.join(layout.INVENTORY_DIR, "hosts.yml")])
    kept = subprocess.run(["git", "-C", REPO, "check-ignore", "-q", os.path.join(layout.INVENTORY_DIR, "README.md")])
    # Lab 0's README is in git; lab n's directory (inventories/lab<n>/) is ignored whole.
    assert (ignored.returncode, kept.returncode) == (0, 1 if layout.LAB_NUMBER == 0 else 0)


def test_package_index_serves_the_wheelhouse(lab):
    proc = ssh("mac1", "curl -fsS %s" % layout.PACKAGE_INDEX_URL)
    assert "<!DOCTYPE html>" in proc.stdout
    # The lab's own exo (its stand-in, built at `up`) at the pin and the release before, always there.
    assert 'href="exo/"' in proc.stdout
    page = ssh("mac1", "curl -fsS %sexo/" % layout.PACKAGE_INDEX_URL).stdout
    assert all("exo-%s-py3-none-any.whl" % v in page for v in exo_dist.lab_versions()), page
    cached = os.listdir(wheelhouse.CACHE_DIR) if os.path.isdir(wheelhouse.CACHE_DIR) else []
    if any(name.startswith("mlx-") for name in cached):
        assert 'href="mlx/"' in proc.stdout
        python = read_json("lab.json")["pythons"].get("3.12")
        if python:  # what the roles' pip in a Homebrew python@3.12 venv will do
            proc = ssh("mac1", "%s/bin/python3.12 -m pip download --disable-pip-version-check --no-deps -q "
                               "--index-url %s --trusted-host %s "
                               "-d /tmp/dl mlx==0.32.4 && ls /tmp/dl" % (python, layout.PACKAGE_INDEX_URL, layout.CONTROLLER_IP))
            assert proc.stdout.startswith("mlx-0.32.4-cp312-")


def test_up_again_is_a_no_op(lab):
    before = {h: open(os.path.join(ROOT, "supervisor-%s.pid" % h)).read() for h in HOSTS}
    # The options the session's lab came up with (conftest): the same lab is already up.
    proc = maclab("up", *LAB_UP)
    assert "already up" in proc.stdout
    after = {h: open(os.path.join(ROOT, "supervisor-%s.pid" % h)).read() for h in HOSTS}
    assert before == after


def test_status_json_reports_every_host(lab):
    data = json.loads(maclab("status", "--json").stdout)
    assert [h["name"] for h in data["hosts"]] == HOSTS
    assert all(h["power"] == "on" and h["ssh"] and h["supervisor"] for h in data["hosts"])
    assert data["http"] is True


def test_maclab_ssh_runs_a_command(lab):
    proc = maclab("ssh", "mac4", "--", "hostname")
    assert proc.stdout.strip() == "mac4"


def test_hosts_resolve_no_public_names(lab):
    """Nothing inside a host may reach the machine's nameserver: its resolver is its own loopback."""
    for host in HOSTS:
        resolv = ssh(host, "cat /etc/resolv.conf").stdout
        assert [l.split()[1] for l in resolv.splitlines() if l.startswith("nameserver")] == ["127.0.0.1"]
