# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: what update-macos.yml installs where, behind the macops.cluster.macos_update_plan
# filter. Names and behaviour may change without notice. Stdlib only, Python 3.9 compatible.
"""The update plan, from every node's one read (node_facts: macos, updates, volumes) and its owner check
(macops.cluster.macos_update_owner). Nothing here connects anywhere: problems come back, the role stops on errors
before any node changes.

- **The target**: ``version`` (macos_update_version) when asked; else the newest minor update of the running
  major version that the nodes offer. A major upgrade is installed only when asked for by version.
- **One build for all**: every node that installs must offer the same label (``<title>-<build>``): a staged rollout
  or a newer build that reached only some nodes would split the cluster's build, which RDMA, JACCL and exo need
  identical. A node already on the target build installs nothing (a second run changes nothing).
- **Each node can take it**: it offers the target's label itself (a node offered nothing, or another build,
  would fail or install another build); free disk for the update plus ``free_margin_bytes``; the owner is a volume
  owner there; where FileVault is on, ``fdesetup supportsauthrestart`` says an authenticated restart can unlock the
  next boot (else the restart stops at the unlock screen with no SSH). The password check (``diskutil apfs
  unlockVolume -verify``) is only a warning: its form is not confirmed on a Mac, and the canary's own "Failed to
  authenticate" stops the run before any other node installs.
- **A Mac softwareupdate no longer offers the asked version** (a new or restored Mac on an older build, once Apple
  offers it only newer ones): where the node read Apple's full installers (node_facts' installers, read when a version
  is asked) and one of that version is signed and offered (not deferred, not a beta), with the build the others run or
  are offered, the node installs with it (``method`` installer: fetched while serving goes on, startosinstall at its
  wave), in place, nothing erased. startosinstall needs a user logged in at the Mac's screen: a node without one is
  refused before anything changes.
- **Waves**: ``canary_parallel`` (one canary, then every other node together), ``rolling`` (one at a time) or
  ``parallel`` (all together), in play order, the canary first."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.macops.cluster.plugins.module_utils._problems import problem
from ansible_collections.macops.cluster.plugins.module_utils._sw_vers import release, release_sort_key
from ansible_collections.macops.cluster.plugins.plugin_utils._update_canary import canary_plan

STRATEGIES = ("canary_parallel", "rolling", "parallel")
GB = 1e9


def _version(text):
    """'26.3.1' -> (26, 3, 1); anything else sorts first."""
    return tuple(int(part) for part in re.findall(r"[0-9]+", str(text or "")))


def _major(text):
    return (_version(text) or (0,))[0]


def macos_updates(facts):
    """The macOS updates a node offers (items whose title, else label, starts with macOS)."""
    return [u for u in facts.get("updates") or [] if str(u.get("title") or u.get("label") or "").startswith("macOS")]


def _release(entry, extra_key):
    """A running macOS (facts' macos: version, extra) or an offered update (version, version_extra) as its release:
    26.3, or 26.3.1 (a) with a security response."""
    return release(entry.get("version") or "", entry.get(extra_key))


def _wanted(facts, version):
    """The update `facts`' node should install for `version` (a release; None: the newest minor one, a security
    response included), or None."""
    running = (facts.get("macos") or {}).get("version")
    offered = macos_updates(facts)
    if version:
        wanted = release_sort_key(version)
        return next((u for u in offered if release_sort_key(_release(u, "version_extra")) == wanted), None)
    minors = [u for u in offered if _major(u.get("version")) == _major(running)]
    return max(minors, key=lambda u: release_sort_key(_release(u, "version_extra"))) if minors else None


def _on_target(facts, target):
    macos = facts.get("macos") or {}
    if target.get("build"):
        return macos.get("build") == target["build"]
    return release_sort_key(_release(macos, "extra")) == release_sort_key(target.get("version"))


def _free_bytes(facts):
    volumes = facts.get("volumes") or {}
    root = volumes.get("/") or (list(volumes.values())[0] if volumes else None)
    return int(root["free_kib"]) * 1024 if root else None


def full_installer(facts, version):
    """Apple's full installer of `version` this node lists (node_facts' installers), signed and offered: not deferred,
    not a beta; or None."""
    wanted = release_sort_key(version)
    return next((entry for entry in ((facts.get("installers") or {}).get("offered") or [])
                 if not entry.get("deferred") and not entry.get("beta")
                 and release_sort_key(entry.get("version") or "") == wanted), None)


def installer_label(entry):
    """The label an installer's progress goes by: ``Install macOS Tahoe 26.3-25D60``."""
    return "Install %s %s-%s" % (entry.get("title"), entry.get("version"), entry.get("build"))


def installer_app(entry):
    """Where ``softwareupdate --fetch-full-installer`` puts it: ``/Applications/Install macOS Tahoe.app``."""
    return "/Applications/Install %s.app" % entry.get("title")


def _not_offered(host, running, version, facts):
    offers = ", ".join(u["label"] for u in macos_updates(facts)) or "no macOS update"
    read = facts.get("installers")
    listed = "; Apple's full installers it lists: %s" % (read.get("error") or ", ".join(
        "%s (%s)%s" % (e.get("version"), e.get("build"), ", deferred" if e.get("deferred") else "")
        for e in read.get("offered") or []) or "none") if isinstance(read, dict) else ""
    return problem("macos_update_not_offered", "%s runs macOS %s (%s) and does not offer %s (it offers %s%s)." % (
        host, _release(running, "extra"), running.get("build"), version, offers, listed), host=host,
        details={"offers": offers})


def choose_target(facts_by_host, version):
    """({version, build, label, size_bytes} or None, {host: full installer entry}, [problem]) over every node."""
    problems, chosen, installers = [], {}, {}
    for host, facts in sorted(facts_by_host.items()):
        update = _wanted(facts, version)
        running = facts.get("macos") or {}
        if update is not None:
            chosen[host] = update
        elif version and release_sort_key(_release(running, "extra")) > release_sort_key(version):
            problems.append(_ahead_problem(host, running, version))
        elif version and release_sort_key(_release(running, "extra")) != release_sort_key(version):
            if full_installer(facts, version):
                installers[host] = full_installer(facts, version)
            else:
                problems.append(_not_offered(host, running, version, facts))
        majors = [u for u in macos_updates(facts) if _major(u.get("version")) > _major(running.get("version"))]
        if majors and not version:
            problems.append(problem("macos_update_major_not_asked", "%s offers the major upgrade %s; it is installed "
                                    "only when macos_update_version names it." % (host, majors[0]["label"]),
                                    host=host))
    labels = sorted(set(u["label"] for u in chosen.values()))
    if len(labels) > 1:
        problems.append(problem("macos_update_label_mismatch", "The nodes offer different macOS updates: %s. "
                                "Installing them would split the cluster's build." % "; ".join(
                                    "%s: %s" % (host, u["label"]) for host, u in sorted(chosen.items())),
                                details={"labels": dict((h, u["label"]) for h, u in chosen.items())}))
        return None, {}, problems
    if labels:
        update = list(chosen.values())[0]
        target = {"version": _release(update, "version_extra"), "build": update.get("build"), "label": update["label"],
                  "title": update.get("title"), "size_bytes": update.get("size_bytes") or 0}
    elif installers:
        # Nobody is offered the version by softwareupdate: the build is the one the nodes on it run, else the
        # installers'.
        entry = sorted(installers.items())[0][1]
        on_it = [f["macos"].get("build") for f in facts_by_host.values() if (f.get("macos") or {}).get("build") and
                 release_sort_key(_release(f["macos"], "extra")) == release_sort_key(version)]
        target = {"version": entry.get("version"), "build": on_it[0] if on_it else entry.get("build"),
                  "label": installer_label(entry),
                  "title": entry.get("title"), "size_bytes": 0}
    else:
        return None, {}, problems
    for host, entry in sorted(installers.items()):
        if entry.get("build") != target["build"]:
            problems.append(problem("macos_update_not_offered", "%s does not offer %s, and Apple's full installer of "
                                    "%s it lists is build %s, not the cluster's %s." % (
                                        host, version, version, entry.get("build"), target["build"]), host=host,
                                    details={"installer_build": entry.get("build")}))
    return target, installers, problems


def _ahead_problem(host, running, version):
    """A node on a newer macOS than the cluster's target (a new or replaced Mac): softwareupdate cannot go back."""
    return problem("macos_update_node_ahead", "%s runs macOS %s (%s), newer than the target %s: softwareupdate "
                   "installs no older macOS, so it cannot join the others' build this way." % (
                       host, _release(running, "extra"), running.get("build"), version), host=host,
                   details={"running": _release(running, "extra"), "target": version})


def _offered_problem(host, facts, target):
    labels = [u.get("label") for u in macos_updates(facts)]
    if target["label"] in labels:
        return []
    running = facts.get("macos") or {}
    if release_sort_key(_release(running, "extra")) > release_sort_key(target["version"]):
        return [_ahead_problem(host, running, target["version"])]
    return [problem("macos_update_not_offered", "%s runs macOS %s (%s) and does not offer %s (it offers %s)." % (
        host, _release(running, "extra"), running.get("build"), target["label"], ", ".join(labels) or "no macOS update"),
        host=host, details={"offers": labels})]


def _filevault_problem(host, facts):
    """FileVault on needs an authenticated restart (softwareupdate's own, or the deadline's fdesetup authrestart)."""
    filevault = facts.get("filevault") or {}
    state = filevault.get("state")
    if state == "pending":
        why = ("FileVault turns on at its next restart (fdesetup status: %s), and that restart stops at the unlock "
               "screen whatever restarts it" % filevault.get("status"))
    elif state == "on" and filevault.get("supports_authrestart") is False:
        why = "FileVault is on and fdesetup supportsauthrestart says false: its restart would stop at the unlock screen"
    else:
        return []
    return [problem("macos_update_filevault_unlock", "%s: %s, with no SSH until someone types a password." % (
        host, why), host=host, details={"filevault": state})]


def _managed_problems(host, facts, target):
    """What an MDM does to this node's updates (node_facts' managed): a deferral that holds offers back, and an
    install declarative management enforces on its own schedule (none where it enforces the run's own target)."""
    managed = facts.get("managed") or {}
    problems = []
    server = managed.get("server") or "its MDM"
    deferred = dict((kind, days) for kind, days in (managed.get("deferred_days") or {}).items() if days)
    if deferred:
        problems.append(problem(
            "macos_update_mdm_deferred", "%s: %s defers %s: softwareupdate offers such an update only that long after "
            "its release, so a node managed otherwise is offered another build, or none." % (
                host, server, ", ".join("%s updates by %d days" % (kind, days) for kind, days in sorted(deferred.items()))),
            host=host, details={"deferred_days": deferred}))
    for enforced in managed.get("enforced") or []:
        if target and enforced["version"] == target["version"] and enforced.get("build") in (None, target["build"]):
            continue
        problems.append(problem(
            "macos_update_mdm_enforced", "%s: %s enforces macOS %s%s by %s (declarative device management): macOS "
            "installs it and restarts the node then on its own, whatever this run does." % (
                host, server, enforced["version"], " (%s)" % enforced["build"] if enforced.get("build") else "",
                enforced.get("at") or "a date it sets"),
            host=host, details=dict(enforced)))
    return problems


def _node_problems(host, facts, owner, target, margin, offered_checked, installer=None):
    problems = ([] if offered_checked or installer else _offered_problem(host, facts, target)) + _filevault_problem(
        host, facts)
    free = _free_bytes(facts)
    size = int((installer or {}).get("size_bytes") or 0) if installer else int(target["size_bytes"])
    need = size + margin
    if free is not None and free < need:
        problems.append(problem("macos_update_disk_short", "%s has %.1f GB free; %s needs about %.1f GB (%.1f GB "
                                "to download and %.1f GB to prepare it)." % (
                                    host, free / GB, installer_label(installer) if installer else target["label"],
                                    need / GB, size / GB, margin / GB), host=host,
                                details={"free_bytes": free, "need_bytes": need}))
    if installer and not (facts.get("installers") or {}).get("console_user"):
        problems.append(problem("macos_update_installer_needs_login", "%s is brought to %s with Apple's full "
                                "installer (softwareupdate does not offer it), whose startosinstall needs a user "
                                "logged in at the Mac's screen, and nobody is (the login window)." % (
                                    host, installer.get("version")), host=host))
    owner = owner or {}
    if not owner.get("volume_owner"):
        problems.append(problem("macos_update_owner_invalid", "%s: %s is not a volume owner there (%s)." % (
            host, owner.get("owner") or "the owner", owner.get("why") or "not among diskutil apfs listUsers / owners"),
            host=host, details={"guid": owner.get("guid")}))
    elif owner.get("password_ok") is False:
        problems.append(problem("macos_update_password_unverified", "%s: diskutil apfs unlockVolume -verify did not "
                                "accept the password given for %s; if it is wrong, the canary's install fails to "
                                "authenticate and no other node installs." % (host, owner.get("owner")), host=host))
    return problems


def waves(hosts, strategy, canary):
    """The nodes to install, in waves: the canary alone first (canary_parallel), one by one (rolling), or all."""
    if not hosts:
        return []
    if strategy == "parallel":
        return [list(hosts)]
    first = canary if canary in hosts else hosts[0]
    rest = [h for h in hosts if h != first]
    if strategy == "rolling":
        return [[first]] + [[h] for h in rest]
    return [[first]] + ([rest] if rest else [])


def update_plan(facts_by_host, owners_by_host, settings):
    """The plan: ``target``, per node ``nodes`` ({from_version, from_build, install}), ``waves``, ``canary`` (what the
    canary proves and whether serving comes back between waves: _update_canary.canary_plan) and ``problems``.
    ``settings``: version, strategy, canary, free_margin_gb, order (the play's hosts, in order), serving (rank 0's
    serving configuration, or None), max_regression_percent and prepare_first (default true)."""
    order = [h for h in settings.get("order") or sorted(facts_by_host) if h in facts_by_host]
    plan = {"target": None, "nodes": {}, "waves": [], "problems": [], "strategy": settings["strategy"],
            "canary": canary_plan([], settings["strategy"], None, 0)}
    target, installers, problems = choose_target(facts_by_host, settings.get("version") or "")
    plan["problems"] = problems + [p for host in order for p in _managed_problems(host, facts_by_host[host], target)]
    for host in order:
        macos = facts_by_host[host].get("macos") or {}
        plan["nodes"][host] = {"from_version": _release(macos, "extra"), "from_build": macos.get("build"),
                               "install": bool(target) and not _on_target(facts_by_host[host], target),
                               "filevault": bool((facts_by_host[host].get("filevault") or {}).get("on"))}
        plan["nodes"][host].update(_method(target, installers.get(host)))
    if target is None:
        for host in order:
            plan["nodes"][host]["says"] = "%s: macOS %s (%s); no macOS update to install." % (
                host, plan["nodes"][host]["from_version"], plan["nodes"][host]["from_build"])
        return plan
    plan["target"] = target
    installing = [h for h in order if plan["nodes"][h]["install"]]
    margin = int(float(settings.get("free_margin_gb") or 0) * GB)
    # choose_target already named the nodes that do not offer an asked-for version.
    named = set(p.get("host") for p in problems
                if p["code"] in ("macos_update_not_offered", "macos_update_node_ahead"))
    for host in installing:
        plan["problems"] += _node_problems(host, facts_by_host[host], (owners_by_host or {}).get(host), target,
                                           margin, host in named, installers.get(host))
    plan["waves"] = waves(installing, settings["strategy"], settings.get("canary"))
    plan["canary"] = canary_plan(plan["waves"], settings["strategy"], settings.get("serving"),
                                 settings.get("max_regression_percent"),
                                 len(set(node["from_build"] for node in plan["nodes"].values())) == 1)
    served = isinstance(settings.get("serving"), dict)
    for host in order:
        plan["nodes"][host]["says"] = _says(host, plan["nodes"][host], target, plan["waves"]) + (
            _serving_says(host, plan, settings.get("prepare_first", True)) if served else "")
    return plan


def _method(target, installer):
    """How a node installs the target: ``method`` (softwareupdate, or installer: Apple's full installer where
    softwareupdate does not offer it), the ``label`` its progress goes by, and an installer's ``installer_version`` and
    ``installer_app``."""
    if installer:
        return {"method": "installer", "label": installer_label(installer), "installer_version": installer["version"],
                "installer_app": installer_app(installer)}
    return {"method": "softwareupdate", "label": (target or {}).get("label"), "installer_version": None,
            "installer_app": None}


def _says(host, node, target, planned):
    """What the run does on `host`, in a sentence (the role shows it, check mode included)."""
    now = "macOS %s (%s)" % (node["from_version"], node["from_build"])
    if not node["install"]:
        return "%s: %s already, the target: nothing to install." % (host, now)
    wave = _wave_number(host, planned)
    how = (" with Apple's full installer (softwareupdate does not offer it; fetched first, installed in place)"
           if node["method"] == "installer" else "")
    return "%s: %s -> %s (%s)%s, wave %d of %d." % (host, now, target["version"], target["build"], how, wave,
                                                    len(planned))


def _wave_number(host, waves):
    """The wave (counted from 1) in which `host` installs."""
    return next(index for index, hosts in enumerate(waves, 1) if host in hosts)


def _serving_says(host, plan, prepare_first):
    """What the served model does around `host`'s wave, in a sentence after _says (so --check says it too): when
    serving stops (for the restart, or the download too without prepare_first), when it is back (after this wave,
    or after the last where the cluster cannot serve across two builds) and what the canary's figure decides."""
    if not plan["nodes"][host]["install"]:
        return ""
    waves, canary = plan["waves"], plan["canary"]
    wave = _wave_number(host, waves)
    stops = "restart" if prepare_first else "download, preparation and restart"
    if canary["between_waves"] or len(waves) == 1:
        says = " Serving stops for this wave's %s and is back after it." % stops
    elif wave == 1:
        says = " Serving stops for this wave's %s and is back after wave %d (%s)." % (
            stops, len(waves), canary["reason"])
    else:
        says = " Serving stays stopped from wave 1 until wave %d is back." % len(waves)
    if canary["compare"] == "canary" and host == canary["host"]:
        says += (" Its served figure is compared with the one before: more than %g %% slower stops the rollout "
                 "here." % canary["max_regression_percent"])
    return says


def update_outcome(plan, results):
    """Where the cluster stands after the installs: ``updated`` (back on the target build), ``failed`` (its
    install or restart failed), ``untouched`` (planned, not started: a wave after a failure), ``current`` (on the
    target already), ``unreachable`` (failed nodes that did not answer at the end: left out of the steps after) and
    ``one_build`` (every node still runs the same build, so what was served may run again).
    ``results``: per node, macos_update_wait's result or the failure the role's rescue recorded."""
    found = {"updated": [], "failed": [], "untouched": [], "current": [], "unreachable": [], "one_build": True}
    builds = set()
    for host, node in sorted((plan.get("nodes") or {}).items()):
        result = (results or {}).get(host)
        if not node.get("install"):
            found["current"].append(host)
            builds.add(node.get("from_build"))
        elif not isinstance(result, dict):
            found["untouched"].append(host)
            builds.add(node.get("from_build"))
        elif result.get("failed"):
            found["failed"].append(host)
            if result.get("reachable") is False:
                found["unreachable"].append(host)
            builds.add(result.get("build") if result.get("rebooted") else node.get("from_build"))
        else:
            found["updated"].append(host)
            builds.add(result.get("build"))
    found["one_build"] = len(builds) <= 1
    return found
