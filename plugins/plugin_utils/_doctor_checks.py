# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What doctor.yml decides about a node from its one sweep (macops.cluster.node_facts with every
read-only group): each check with its verdict and a catalogue problem for each that failed.

The checks that site.yml's preflight also makes (macOS version and build across nodes, memory,
free disk, FileVault, Remote Login) are preflight's own (`_preflight_checks.node_checks`): one
place decides them. The others judge what the node reads themselves already judged (the cable
pings and routes of `links`, RDMA readiness, exo's health), so this module only gathers them,
adds the checks no read judges (wired limit, pending updates, exo's networksetup daemon, the
applied plan) and names each check once, in the order docs/doctor.md lists them."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible_collections.macops.cluster.plugins.module_utils._problems import ERROR, INFO, SEVERITIES, WARNING, problem
from ansible_collections.macops.cluster.plugins.plugin_utils._doctor_cabling import (cabling_problems, doctor_topology,
                                                                                     lit_cables, planned_peers)
from ansible_collections.macops.cluster.plugins.plugin_utils._doctor_serve import serving
from ansible_collections.macops.cluster.plugins.plugin_utils._mlx_hostfiles import hostfile_name
from ansible_collections.macops.cluster.plugins.plugin_utils._preflight_checks import node_checks

# The hostfiles the rdma role writes when it chose an RDMA backend: RDMA is then promised, also when
# macops_rdma_required is off.
RDMA_HOSTFILES = (hostfile_name("jaccl"), hostfile_name("jaccl-ring"))

# exo.app's daemon that keeps resetting network settings (exo #2067, #2279).
EXO_NETWORKSETUP_LABEL = "io.exo.networksetup"


def _on(host, problems):
    """The node reads' own problems, each tied to this node (a module does not know its inventory name)."""
    return [dict(found, host=found.get("host") or host) for found in problems or []]


def _verdict(name, ok, detail, found=None):
    return {"name": name, "ok": bool(ok), "detail": detail, "code": found["code"] if found else ""}, found


def _judged(name, detail, problems):
    """A check that failed on its first problem, with the rest of its problems after it; passed when there is none."""
    return [_verdict(name, not problems, detail, problems[0] if problems else None)] + [
        (None, found) for found in problems[1:]]


def _links(host, node, plan_file):
    links = node.get("links")
    if links is None:
        return []
    if not links.get("plan_found"):
        found = problem(
            "tb_plan_missing", "%s has no applied Thunderbolt plan (%s): its cables were never configured by "
            "site.yml, so doctor.yml cannot check them." % (host, plan_file),
            "Run site.yml once (it addresses every cable and writes the plan), then doctor.yml again.", host=host)
        return [_verdict("thunderbolt_links", False, "no applied plan at %s" % plan_file, found)]
    answered = [link for link in links.get("links") or [] if link.get("ok")]
    detail = "%d of %d cables answer over their own port" % (len(answered), links.get("planned_links", 0))
    problems = _on(host, links.get("problems"))
    return _judged("thunderbolt_links", detail, problems)


def rdma_promised(node):
    """Whether this node's hostfiles promise an RDMA backend (the rdma role wrote a jaccl hostfile)."""
    files = node.get("files") or {}
    return any(entry.get("exists") for path, entry in files.items() if path.rsplit("/", 1)[-1] in RDMA_HOSTFILES)


def _rdma(host, node, rdma_required):
    rdma = node.get("rdma")
    if rdma is None:
        return []
    # A cluster that does not ask for RDMA and has it off is fine: only readiness that was meant
    # (required, enabled, or promised by the hostfiles MLX runs from) counts.
    wanted = rdma_required or rdma.get("enabled") or rdma_promised(node)
    problems = _on(host, rdma.get("problems")) if wanted else []
    detail = "ready" if rdma.get("ready") else ("not ready" if wanted else "off (not required)")
    return _judged("rdma", detail, problems)


def _network(host, node):
    network = node.get("network")
    if network is None or not network.get("plan_found"):
        return []  # no applied plan: the links check says so (tb_plan_missing)
    problems = _on(host, network.get("problems"))
    differences = network.get("differences") or []
    detail = "as applied" if not differences else "%d difference(s) from the applied plan" % len(differences)
    return _judged("thunderbolt_config", detail, problems)


def _cabling(host, cabling):
    if cabling is None:
        return []
    problems = [found for found in cabling if found.get("host") == host]
    detail = "every cable as the planner wants it" if not problems else "%d cable finding(s)" % len(problems)
    return _judged("cabling", detail, problems)


def _wired_limit(host, node):
    wired = node.get("wired_limit")
    if wired is None:
        return []
    live, target = wired.get("live_mb"), wired.get("target_mb")
    if target is None:
        return [_verdict("wired_limit", True, "not managed here (no %s)" % wired.get("plist"))]
    ok = live == target
    found = None if ok else problem(
        "gpu_wired_limit_differs", "%s's GPU wired limit is %s MB, but its LaunchDaemon sets %s MB at boot: "
        "something changed it since, or the LaunchDaemon did not run." % (host, live, target),
        "sudo launchctl print system/org.macops.gpu-memory (last exit code) on %s; run site.yml --tags "
        "gpu_memory to set it again." % host, host=host, details={"live_mb": live, "target_mb": target})
    return [_verdict("wired_limit", ok, "iogpu.wired_limit_mb %s, set at boot %s" % (live, target), found)]


def _exo(host, node, exo_expected):
    exo = node.get("exo")
    if exo is None or (not exo.get("installed") and not exo_expected):
        return [] if exo is None else [_verdict("exo", True, "not installed here")]
    ok = exo.get("healthy")
    found = None if ok else problem(
        "service_not_running", exo.get("message") or "exo is not healthy on %s." % host,
        "Read %s on %s; `sudo launchctl kickstart -k system/%s` restarts it, and site.yml --tags "
        "python_env,exo installs it." % (exo.get("log_file") or "exo's log", host, exo.get("label") or "org.macops.exo"),
        host=host, details={"service": "exo", "nodes_seen": exo.get("nodes_seen"),
                            "nodes_expected": exo.get("nodes_expected")})
    detail = "running, /state lists %s of %s nodes" % (exo.get("nodes_seen"), exo.get("nodes_expected")) \
        if ok else (exo.get("message") or "unhealthy")
    return [_verdict("exo", ok, detail, found)]


def _current_exo_ids(sweeps):
    """Every swept node's exo id, or None when one cannot be known (a node not swept, or whose exo is
    installed but did not answer): a node without exo has no id, so one listed for it is stale."""
    ids = set()
    for other in sweeps.values():
        exo = other.get("exo") if isinstance(other, dict) else None
        if not isinstance(exo, dict):
            return None
        if exo.get("installed"):
            if not exo.get("node_id"):
                return None
            ids.add(exo["node_id"])
    return ids


def _exo_peers(host, node, sweeps):
    """exo's API port over each cable: the peer's exo must answer at its Thunderbolt address with its
    own id, as exo confirms its peers. Only where the peer's exo answered on its node and the cable
    itself answers pings (a dead cable or a stopped exo is its own finding)."""
    exo = node.get("exo")
    if not isinstance(exo, dict) or not isinstance(exo.get("peers"), list) or not exo["peers"]:
        return []
    pinged = dict((link.get("interface"), link.get("ok")) for link in (node.get("links") or {}).get("links") or [])
    problems = []
    for answer in exo["peers"]:
        other = sweeps.get(answer.get("peer"))
        peer_id = ((other or {}).get("exo") or {}).get("node_id") if isinstance(other, dict) else None
        if not peer_id or pinged.get(answer.get("interface")) is False or answer.get("node_id") == peer_id:
            continue
        said = "answers as %s" % answer["node_id"] if answer.get("node_id") else "does not answer"
        problems.append(problem(
            "exo_port_unreachable", "%s: exo on %s %s at %s over %s (port %s): exo cannot confirm that peer over this "
            "cable, so it neither places a ring nor RDMA across it." % (
                answer.get("interface"), answer.get("peer"), said, answer.get("address"), answer.get("interface"),
                exo.get("api_port")),
            "Let exo's ports (TCP 52414-52415, UDP 52413) in from the Thunderbolt networks on %s: site.yml --tags "
            "firewall puts the collection's pf rules back (`sudo pfctl -a macops -s rules` lists them), and the macOS "
            "Application Firewall must allow exo's Python." % answer.get("peer"),
            host=host, port=answer.get("interface"), peer=answer.get("peer"),
            details={"address": answer.get("address"), "answered": answer.get("node_id"), "expected": peer_id}))
    detail = "%d of %d cables reach the peer's exo" % (len(exo["peers"]) - len(problems), len(exo["peers"]))
    return _judged("exo_over_thunderbolt", detail, problems)


def _exo_stale(host, node, sweeps):
    exo = node.get("exo")
    if not isinstance(exo, dict) or not exo.get("node_id"):
        return []
    label = exo.get("label") or "org.macops.exo"
    current = _current_exo_ids(sweeps)
    if current is None:
        return [_verdict("exo_node_ids", True, "not judged: not every node's exo answered with its id")]
    stale = [found for found in exo.get("node_ids") or [] if found not in current]
    found = stale and problem(
        "exo_stale_node_id", "exo on %s still lists %s, which no node has now (a node that left, or came back with "
        "a new id): exo will not place an RDMA instance until every node restarts (exo #2194)." % (
            host, ", ".join(stale)),
        "Stop exo on every node, then start it on every node: `ansible macs -b -m ansible.builtin.command -a "
        "'launchctl bootout system/%s'`, then `ansible macs -b -m ansible.builtin.command -a 'launchctl bootstrap "
        "system /Library/LaunchDaemons/%s.plist'` (or reboot-cluster.yml)." % (label, label),
        host=host, details={"stale_ids": stale, "current_ids": sorted(current)})
    detail = "%d stale id(s)" % len(stale) if stale else "every id in /state is a node's"
    return [_verdict("exo_node_ids", not stale, detail, found or None)]


def _networksetup_daemon(host, node):
    loaded = (node.get("launchd") or {}).get(EXO_NETWORKSETUP_LABEL)
    if loaded is None:
        return []
    found = None if not loaded else problem(
        "tb_exo_networksetup_daemon", "exo's %s daemon is loaded on %s: it puts the Thunderbolt addresses "
        "back to DHCP every half hour, also after exo is gone." % (EXO_NETWORKSETUP_LABEL, host),
        "sudo launchctl bootout system/%s and remove /Library/LaunchDaemons/%s.plist on %s, or run site.yml "
        "(the exo role disables it)." % (EXO_NETWORKSETUP_LABEL, EXO_NETWORKSETUP_LABEL, host), host=host)
    return [_verdict("exo_networksetup_daemon", not loaded, "loaded" if loaded else "not loaded", found)]


def _updates(host, node):
    updates = node.get("updates")
    if updates is None:
        return []
    macos = [update for update in updates if "macos" in (update.get("title") or update.get("label") or "").lower()]
    found = None if not macos else problem(
        "macos_update_pending", "%s has a macOS update waiting (%s): installed on one node alone it splits the "
        "cluster's build, and exo and RDMA need the identical build everywhere." % (
            host, ", ".join(update.get("title") or update.get("label") for update in macos)),
        "Update every node together with update-macos.yml (a volume owner's password from the vault or an AWX "
        "credential; a canary first, then the others), with automatic macOS installs off (site.yml).",
        host=host, severity=WARNING, details={"updates": [update.get("label") for update in macos]})
    detail = "%d pending (%d macOS)" % (len(updates), len(macos))
    return [_verdict("macos_updates", not macos, detail, found)]


def _power(host, node):
    power = (node.get("settings") or {}).get("power")
    if power is None:
        return []
    results = []
    sleep, restart = power.get("sleep"), power.get("autorestart")
    if sleep is not None:
        found = None if sleep == "0" else problem(
            "power_sleep_on", "%s sleeps after %s minute(s) idle (pmset sleep %s): a sleeping node drops out of "
            "the cluster, and RDMA has been seen dead after idle." % (host, sleep, sleep),
            "Run site.yml --tags power (it sets sleep 0), or `sudo pmset -a sleep 0` on %s." % host, host=host,
            details={"sleep": sleep})
        results.append(_verdict("power_sleep", found is None, "pmset sleep %s" % sleep, found))
    if restart is not None:
        found = None if restart == "1" else problem(
            "power_autorestart_off", "%s does not start again by itself after a power cut (pmset autorestart %s): "
            "after an outage it stays off until someone presses its power button." % (host, restart),
            "Run site.yml --tags power (it sets autorestart 1), or `sudo pmset -a autorestart 1` on %s." % host,
            host=host, details={"autorestart": restart})
        results.append(_verdict("power_autorestart", found is None, "pmset autorestart %s" % restart, found))
    return results


# What a node installs by itself, by the keys that let it (the power role turns each off): macOS updates, and security
# responses (Rapid Security Responses, CriticalUpdateInstall; Background Security Improvements on 26.1 and later,
# SplatEnabled). Either changes the node's build alone.
AUTO_INSTALLS = (("macOS updates", ("AutomaticallyInstallMacOSUpdates",)),
                 ("security responses", ("CriticalUpdateInstall", "SplatEnabled")))


def _auto_updates(host, node):
    auto = (node.get("settings") or {}).get("auto_updates")
    if auto is None:
        return []
    installs = [(what, [key for key in keys if auto.get(key) is True]) for what, keys in AUTO_INSTALLS]
    installs = [(what, keys) for what, keys in installs if keys]
    keys = [key for _what, found in installs for key in found]
    what = " and ".join(kind for kind, _keys in installs)
    found = None if not installs else problem(
        "macos_auto_update_on", "%s installs %s by itself (%s in %s): one node changing its build alone splits the "
        "cluster, and exo and RDMA need it identical everywhere." % (
            host, what, ", ".join(keys), (node.get("settings") or {}).get("software_update_plist")),
        "Run site.yml --tags power (%s off on %s, checking kept on; or `sudo defaults write "
        "/Library/Preferences/com.apple.SoftwareUpdate <key> -bool false` for each), and update every node together "
        "with update-macos.yml." % (", ".join(keys), host), host=host, details={"keys": keys})
    detail = ("installs %s by itself" % what) if installs else "neither macOS updates nor security responses install by themselves"
    return [_verdict("macos_auto_updates", not installs, detail, found)]


def software(sweep):
    """The report's software shape (python, mlx, mlx_lm, exo) of a sweep's packages and exo reads,
    or None when neither was read."""
    packages, exo = sweep.get("packages"), sweep.get("exo")
    if not isinstance(packages, dict) and not isinstance(exo, dict):
        return None
    versions = (packages or {}).get("versions") or {}
    return {"python": (packages or {}).get("python"), "mlx": versions.get("mlx"), "mlx_lm": versions.get("mlx-lm"),
            "exo": (exo or {}).get("version")}


def _pin_problem(host, key, installed, spec):
    # packaging is ansible-core's own dependency on the controller, imported here (not at the top)
    # so that the plugin still loads where it is imported without it (ansible-test's import check).
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.version import InvalidVersion

    try:
        wanted = Requirement(spec)
    except InvalidRequirement:
        return None  # the input check refuses such a pin before anything connects
    try:
        if installed is None or wanted.specifier.contains(installed, prereleases=True):
            return None
    except InvalidVersion:
        pass
    where = ("site.yml --tags python_env,exo on %s (the exo role installs the pinned exo into its own environment, "
             "with the pip settings python_env publishes, and restarts it)" % host) if key == "exo" else \
        "site.yml on %s (it installs the pinned version into the cluster's environment)" % host
    return problem(
        "software_pin_mismatch", "%s runs %s %s, but the cluster pins %s." % (host, key, installed, spec),
        "Run %s, or change the pin for every node." % where, host=host,
        details={"package": key, "installed": installed, "pinned": spec})


def _software(host, sweep, settings):
    """The cluster environment there and at its pins. Versions that differ between nodes are the
    report's finding (software_version_mismatch, one computation over every node's software)."""
    mine = software(sweep)
    packages = sweep.get("packages")
    if mine is None or not isinstance(packages, dict):
        return []
    if not packages.get("found"):
        found = problem(
            "software_missing", "%s has no usable cluster environment: %s." % (host, packages.get("error")),
            "Run site.yml on %s (the python_env and mlx roles make it)." % host, host=host)
        return [_verdict("software", False, "no environment at %s" % packages.get("python_path"), found)]
    problems = [found for found in (_pin_problem(host, key, mine.get(key), spec)
                                    for key, spec in sorted((settings.get("pins") or {}).items())) if found]
    detail = ", ".join("%s %s" % (key, mine[key]) for key in ("python", "mlx", "mlx_lm", "exo") if mine.get(key))
    return _judged("software", detail, problems)


def _firewall(host, node, settings):
    """pf on with the cluster's anchor, where the firewall role installed its LaunchDaemon. ``pf_by_host``
    maps every node to its own read (pf_status registered on each node); None: the check is off."""
    wanted = settings.get("firewall") or {}
    reads = wanted.get("pf_by_host")
    pf = reads.get(host) if isinstance(reads, dict) else None
    entry = (node.get("files") or {}).get(wanted.get("plist")) or {}
    if not isinstance(pf, dict) or pf.get("skipped") or not entry.get("exists"):
        return []
    if pf.get("failed") or pf.get("unreachable") or "enabled" not in pf:
        found = problem(
            "check_failed", "pf's status could not be read on %s: %s" % (host, (pf.get("msg") or "")[-300:]),
            "pfctl needs root even to read: pass the become password (-K, or ansible_become_password from a vault), "
            "or set doctor_check_firewall false.", host=host)
        return [_verdict("firewall", False, "pf not read", found)]
    fix = ("Run site.yml --tags firewall (it loads the rules and enables pf), or on %s `sudo pfctl -E -f /etc/pf.conf`; "
           "the firewall role's LaunchDaemon does the same at every boot." % host)
    if not pf["enabled"]:
        found = problem("firewall_pf_disabled", "pf is disabled on %s: exo's and MLX's ports are open to every network, "
                        "not only the cluster's." % host, fix, host=host)
        return [_verdict("firewall", False, "pf disabled", found)]
    if not pf.get("anchor_rules"):
        found = problem("firewall_rules_missing", "pf is on on %s but its anchor %s holds no rules (a macOS update that "
                        "replaced /etc/pf.conf, or pfctl -F): exo's and MLX's ports are open to every network." % (
                            host, pf.get("anchor")), fix, host=host)
        return [_verdict("firewall", False, "anchor %s empty" % pf.get("anchor"), found)]
    return [_verdict("firewall", True, "pf enabled, %d rules in anchor %s" % (len(pf["anchor_rules"]), pf.get("anchor")))]


def _smoke_lines(smoke):
    """The JSON line each rank of the smoke script printed (roles/mlx/templates/mlx_smoke.py)."""
    ranks = []
    for line in smoke.get("stdout_lines") or []:
        line = line.strip()
        if line.startswith("{") and line.endswith("}"):
            try:
                answer = json.loads(line)
            except ValueError:
                continue
            if isinstance(answer, dict) and "rank" in answer:
                ranks.append(answer)
    return ranks


def _mlx_smoke(host, settings):
    """doctor_mlx_smoke: MLX's all_sum over the ring hostfile, judged on the node that launched it."""
    smoke = settings.get("mlx_smoke")
    if not isinstance(smoke, dict) or settings.get("mlx_smoke_host") != host:
        return []
    if smoke.get("skipped"):
        return [_verdict("mlx_allsum", True, "not run: not every node was swept (each is its own finding)")]
    ranks = _smoke_lines(smoke)
    size = max([answer.get("size") or 0 for answer in ranks] or [0])
    good = sorted(answer["rank"] for answer in ranks if answer.get("ok") is True)
    if smoke.get("rc") == 0 and size and len(good) == size:
        return [_verdict("mlx_allsum", True, "all_sum over %d ranks = %s (expected %s)" % (
            size, ranks[0].get("sum"), ranks[0].get("expected")))]
    said = (smoke.get("stderr") or smoke.get("msg") or "").strip()[-400:]
    found = problem(
        "mlx_smoke_failed", "MLX's all_sum smoke over the ring hostfile, launched from %s, failed (exit %s): %d of %s "
        "ranks gave the right sum. %s" % (host, smoke.get("rc", "none"), len(good), size or "?", said),
        "Check that the planned Thunderbolt addresses are on the ports (the thunderbolt_links check), that the MLX "
        "ports are open between the nodes, and that every node reaches every other over SSH (the ssh_mesh check); "
        "site.yml --tags python_env,mlx runs the same test and writes the script and the hostfile.",
        host=host, details={"ranks_ok": good, "ranks": size, "rc": smoke.get("rc")})
    return [_verdict("mlx_allsum", False, "%d of %s ranks right" % (len(good), size or "?"), found)]


def _ssh(host, node):
    ssh = node.get("ssh")
    if ssh is None:
        return []
    problems = _on(host, ssh.get("problems"))
    results = ssh.get("results") or []
    detail = "%d of %d connections (by name and over each cable)" % (len([r for r in results if r.get("ok")]),
                                                                     len(results))
    return _judged("ssh_mesh", detail, problems)


def _sudo(host, node):
    sudo = node.get("sudo")
    if sudo is None:
        return []
    problems = _on(host, sudo.get("problems"))
    # An unsafe rule the owner accepted is a note (info): the rules still count as intact.
    first = next((found for found in problems if found["severity"] != INFO), None)
    detail = "the passwordless rules are active" if sudo.get("rc") == 0 else "sudo -n -l failed (exit %s)" % sudo.get("rc")
    others = [(None, found) for found in problems if found is not first]
    return [_verdict("sudo_rules", first is None, detail, first)] + others


def node_findings(host, mac, node, macs, settings, cabling=None, sweeps=None):
    """{'checks': [...], 'problems': [...]} for one node swept by doctor.yml. ``settings``: the
    preflight limits (min_macos, require_same_build, min_memory_gb, min_free_disk_gb,
    filevault_allowed) and rdma_required, exo_expected, plan_file. ``cabling``: the cluster's
    cabling_problems(), or None to skip that check."""
    preflight = node_checks(host, mac, node, macs, settings.get("min_macos", "26.2"),
                            settings.get("require_same_build", True), settings.get("min_memory_gb", 16),
                            settings.get("min_free_disk_gb", 20), settings.get("filevault_allowed", True))
    results = [(check, None) for check in preflight["checks"]]
    results += _links(host, node, settings.get("plan_file", "the plan file"))
    results += _network(host, node)
    results += _cabling(host, cabling)
    results += _rdma(host, node, bool(settings.get("rdma_required")))
    results += _wired_limit(host, node)
    results += _exo(host, node, bool(settings.get("exo_expected")))
    results += _exo_peers(host, node, sweeps or {host: node})
    results += _exo_stale(host, node, sweeps or {host: node})
    results += _networksetup_daemon(host, node)
    results += _updates(host, node)
    results += _auto_updates(host, node)
    results += _power(host, node)
    results += _software(host, node, settings)
    results += _sudo(host, node)
    results += _ssh(host, node)
    results += _firewall(host, node, settings)
    results += _mlx_smoke(host, settings)
    results += serving(host, node, settings, _verdict)
    return {"checks": [pair[0] for pair in results if pair[0] is not None],
            "problems": _once(preflight["problems"] + [pair[1] for pair in results if pair[1] is not None])}


def after_update_findings(host, node, plan_file):
    """The problems of a node that a macOS update just restarted (update-macos.yml's canary), judged as the sweep
    judges them, that the run cannot set right itself: RDMA where it is meant (only Recovery enables it), and every
    cable of the applied plan to its peers. An update can reset the Thunderbolt settings (bridge, addresses), which
    update-macos.yml sets again after the last wave: where the node's settings differ from the applied plan, those
    differences and the cables they silence are not held against the update. ``node``: node_facts' read of links,
    network, rdma, wired_limit and files."""
    settings_reset = [found for dummy, found in _network(host, node) if found is not None]
    results = _rdma(host, node, False) + ([] if settings_reset else _links(host, node, plan_file)) + \
        _wired_limit(host, node)
    return _once([found for dummy, found in results if found is not None])


def _once(problems):
    """One finding per code, host and port: where two reads found the same (RDMA readiness and the
    cabling both see a Thunderbolt 4 link), the one that names the peer is kept, in the first's place."""
    best = {}
    for found in problems:
        key = (found["code"], found.get("host"), found.get("port"))
        if key not in best or (found.get("peer") and not best[key].get("peer")):
            best[key] = found
    seen, kept = set(), []
    for found in problems:
        key = (found["code"], found.get("host"), found.get("port"))
        if key not in seen:
            seen.add(key)
            kept.append(best[key])
    return kept


def _summary(host, reachable, problems):
    counts = dict((severity, len([p for p in problems if p["severity"] == severity])) for severity in SEVERITIES)
    if not reachable:
        return "%s: NOT SWEPT (%s)" % (host, problems[0]["code"] if problems else "unreachable")
    if not problems:
        return "%s: healthy" % host
    return "%s: %d error(s), %d warning(s), %d note(s): %s" % (
        host, counts[ERROR], counts[WARNING], counts[INFO], ", ".join(sorted(set(p["code"] for p in problems))))


def _not_answering(host, timed_out, lit, timeout):
    """node_not_answering: a node that took the connection but never answered (``timed_out``), or
    whose cables to swept peers are ``lit`` (it has power) while SSH does not reach it."""
    said = []
    if timed_out:
        said.append("took the SSH connection but did not answer within %s s" % timeout)
    if lit:
        said.append("its Thunderbolt cable%s from %s %s lit, so it has power" % (
            "s" if len(lit) > 1 else "", ", ".join("%s %s" % pair for pair in lit), "are" if len(lit) > 1 else "is"))
    return problem(
        "node_not_answering", "%s %s: it is still booting, or hung before SSH and Python answer." % (
            host, " and ".join(said)),
        "If %s was restarting, wait a minute and run doctor.yml again. If it stays so, it is hung: power-cycle it "
        "(reboot-cluster.yml power-cycles a node that does not come back when the inventory names its PDU outlet; "
        "otherwise hold its power button for 10 s), then run doctor.yml again." % host,
        host=host, details={"lit_cables": [{"peer": peer, "port": port} for peer, port in lit],
                            "timed_out": bool(timed_out)})


def _not_swept(host, python_check, sweep, timeout, lit=()):
    """The one finding of a node whose sweep did not run through, or None when it did. An
    unreachable node has none here (the report derives node_unreachable from reachable=false)
    unless its cables are ``lit`` (the swept peers' ports the plan cables to it report a Mac):
    then it has power and is not answering. So is a node whose Python check timed out."""
    if python_check.get("timedout"):
        return False, _not_answering(host, True, lit, timeout)
    if python_check.get("unreachable") or sweep.get("unreachable"):
        return False, _not_answering(host, False, lit, timeout) if lit else None
    if python_check.get("version") is None:
        return True, problem("node_python_unusable", python_check.get("msg") or "%s has no usable Python." % host,
                             "Install the Command Line Tools on %s (`xcode-select --install`), then run doctor.yml "
                             "again." % host, host=host)
    message = str(sweep.get("msg") or "")
    if sweep.get("timedout") or "timed out" in message.lower() or "exceeded the timeout" in message.lower():
        return True, problem("doctor_sweep_timeout", "%s answered, but its sweep did not finish within %s s (%s)."
                             % (host, timeout, message[:200]),
                             "Log in to %s and look for the hung command (`ps -ax`); reboot it with reboot-cluster.yml "
                             "if it does not recover, then run doctor.yml again." % host, host=host)
    # A sweep that ran through always returns the hardware read (group mac).
    if not isinstance(sweep.get("mac"), dict):
        return True, problem("check_failed", "The sweep of %s failed: %s" % (host, message[:300]),
                             "Run doctor.yml -v --limit %s and read the sweep's output." % host, host=host)
    return True, "swept"


def cluster_context(sweeps, settings):
    """What every node's judgement shares, computed once per run: the swept nodes' hardware (the macOS
    build is judged against the cluster's), the applied plan's peers as the nodes read it, and the
    cabling check's findings (None: no check)."""
    macs = dict((name, result["mac"]) for name, result in sweeps.items()
                if isinstance(result, dict) and isinstance(result.get("mac"), dict))
    planned = planned_peers(sweeps, settings.get("plan_file"))
    return {"macs": macs, "planned": planned, "cabling": cabling_problems(macs, settings, planned)}


def node_result(host, sweep, python_check, sweeps, settings, context=None):
    """macops_doctor for one node: {host, reachable, swept_at, checks, problems, summary} from its
    registered node_python and node_facts results; ``sweeps`` maps every swept node to its node_facts
    result, ``context`` is cluster_context() of them (computed here when not given)."""
    context = context if context is not None else cluster_context(sweeps, settings)
    macs, planned = context["macs"], context["planned"]
    lit = lit_cables(host, settings.get("topology_problems"), macs, planned) if host not in macs else []
    reachable, outcome = _not_swept(host, python_check or {}, sweep or {}, settings.get("timeout"), lit)
    found = {"checks": [], "problems": []}
    if outcome == "swept":
        found = node_findings(host, sweep["mac"], sweep, macs, settings, context["cabling"], sweeps)
    elif outcome is not None:
        found["problems"] = [outcome]
    result = {"host": host, "reachable": reachable, "swept": outcome == "swept", "swept_at": settings.get("swept_at"),
              "checks": found["checks"], "problems": found["problems"],
              "summary": _summary(host, reachable, found["problems"])}
    if outcome == "swept":
        result.update(_shown(sweep, bool(settings.get("rdma_required"))))
    return result


def cluster_findings(sweeps, python_checks, topology, settings):
    """doctor.yml's judgement of every node at once: {"nodes": {host: macops_doctor}, "topology": the
    topology role's plan with only its findings about the cables as they are (the report's cables)}.
    ``python_checks`` maps every node of the play to its node_python result, ``sweeps`` to its node_facts
    result; what the nodes share (cluster_context) is computed once."""
    settings = dict(settings, topology_problems=(topology or {}).get("problems"))
    context = cluster_context(sweeps, settings)
    hosts = list(python_checks) + [host for host in sweeps if host not in python_checks]
    nodes = dict((host, node_result(host, sweeps.get(host) or {}, python_checks.get(host) or {}, sweeps, settings,
                                    context)) for host in hosts)
    return {"nodes": nodes, "topology": doctor_topology(topology or {}, list(context["macs"]), context["planned"])}


def _shown(sweep, rdma_required):
    """What the report shows of the sweep where a role's result would be: RDMA (rdma_status' shape;
    only when it is meant, as the rdma check judges it: the report derives its problems), the wired
    limit (gpu_memory's) and exo (exo_health's)."""
    shown = {}
    if isinstance(sweep.get("rdma"), dict) and (rdma_required or sweep["rdma"].get("enabled") or rdma_promised(sweep)):
        shown["rdma"] = sweep["rdma"]
    wired = sweep.get("wired_limit")
    if isinstance(wired, dict) and wired.get("target_mb") is not None:
        shown["gpu"] = {"wired_limit_mb": wired.get("live_mb"), "target_mb": wired.get("target_mb")}
    if isinstance(sweep.get("packages"), dict) and sweep["packages"].get("found"):
        shown["software"] = software(sweep)
    exo = sweep.get("exo")
    if isinstance(exo, dict) and exo.get("installed"):
        shown["exo"] = {"running": exo.get("running"), "version": exo.get("version"),
                        "detail": exo.get("message") or ""}
    return shown
