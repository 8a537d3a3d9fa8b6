# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What preflight decides about a node from its one node read (macops_mac, macops_node): each
check with its verdict, and a catalogue problem for each that failed. Also the one place that
decides whether a node's macOS build is off the cluster's (exo and RDMA need the identical build):
the topology plan does not judge builds, so a node that fails here leaves before it is planned."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from collections import Counter

from ansible_collections.macops.cluster.plugins.module_utils._problems import ERROR, WARNING, problem
from ansible_collections.macops.cluster.plugins.module_utils._sw_vers import release, release_sort_key

GIB = 1073741824


def version_key(version):
    """'26.2' -> (26, 2): numeric parts compare as numbers, anything else as 0."""
    return tuple(int(piece) if piece.isdigit() else 0 for piece in str(version or "").split("."))


def _release(mac):
    """A node's release as macOS names it: 26.3.1, or 26.3.1 (a) with a security response."""
    return release(mac.get("macos_version") or "", mac.get("macos_version_extra"))


def cluster_build(macs):
    """(build, release, hosts on it) most nodes run; on a tie the newest (a security response after its release),
    so that the older nodes are the ones told to update (nodes can update, not downgrade). None when no node has a
    build."""
    builds = dict((host, str(mac["macos_build"])) for host, mac in macs.items() if mac and mac.get("macos_build"))
    if not builds:
        return None
    first = {}
    for host, build in builds.items():
        first.setdefault(build, macs[host])
    counts = Counter(builds.values())
    target = max(counts, key=lambda build: (counts[build], release_sort_key(_release(first[build])), build))
    return target, _release(first[target]), sorted(host for host, build in builds.items() if build == target)


def _drift(mac, target_mac):
    """What a node's build differs by, when a security response is the difference: a sentence, else ''."""
    mine, theirs = mac.get("macos_version_extra"), target_mac.get("macos_version_extra")
    if mine == theirs or mac.get("macos_version") != target_mac.get("macos_version"):
        return ""
    if mine and not theirs:
        return (" It carries the security response %s, which the others do not: installed by itself (automatic "
                "security responses on: site.yml --tags power turns them off) or by hand. A response is not taken "
                "back: update the others to it (update-macos.yml -e 'macos_update_version=\"%s\"')." % (
                    mine, _release(mac)))
    return " The others carry the security response %s, which it does not." % theirs


def _number(value):
    """16.0 -> 16, 20.5 -> 20.5: limits print as the user wrote them."""
    value = float(value)
    return int(value) if value.is_integer() else value


def _check(code, severity, name, ok, detail, message, fix, host):
    check = {"name": name, "ok": bool(ok), "detail": detail, "code": code}
    return check, (None if ok else problem(code, message, fix, host=host, severity=severity))


def needed_tools(settings):
    """{tool: why} of the programs the roles of a run need on the Mac and no role installs, from those roles'
    settings (a role not in the play gives None for its settings): Homebrew for python_env's interpreter and
    exo's installs, Rust (and node) for an exo built from its source (exo's README: rustup's nightly toolchain
    for its Rust bindings, node for its dashboard)."""
    settings = settings or {}
    needs = {}
    source = settings.get("python_env_interpreter_source")
    if source in ("homebrew", "uv"):
        needs["homebrew"] = "python_env installs its interpreter with it (python_env_interpreter_source %s)" % source
    method = settings.get("exo_install_method") if settings.get("exo_install") in (True, "true", "True") else None
    if method in ("pip", "source", "app"):
        needs.setdefault("homebrew", "the exo role installs exo's %s with it (exo_install_method %s)"
                         % ({"pip": "Python", "source": "uv", "app": "app"}[method], method))
    spec = settings.get("exo_package_spec") or ""
    if method == "source" or (method == "pip" and "git+" in spec):
        built = "exo_install_method source" if method == "source" else "exo_package_spec %s" % spec
        needs["rust"] = "exo's Rust bindings are built on the Mac (%s)" % built
        if method == "source":
            needs["node"] = "exo's dashboard is built on the Mac (exo_install_method source)"
    return needs


def _tool_checks(host, node, tools, needs):
    """The Homebrew and exo build tool checks, one per needed tool: any of its paths there will do."""
    found = (node or {}).get("programs") or {}
    results = []
    if "homebrew" in needs:
        paths = tools.get("homebrew") or []
        there = [path for path in paths if found.get(path)]
        results.append(_check(
            "homebrew_missing", ERROR, "homebrew", there, "%s %s" % (", ".join(paths), "there" if there else "missing"),
            "%s has no Homebrew at %s; %s." % (host, " or ".join(paths), needs["homebrew"]),
            "Install Homebrew on %s as the admin user (the installer at https://brew.sh, in Terminal or over `ssh -t`), "
            "or set python_env_interpreter_source path, then run again." % host, host))
    missing = [tool for tool in ("rust", "node") if tool in needs
               and not any(found.get(path) for path in tools.get(tool) or [])]
    if "rust" in needs:
        names = {"rust": "Rust's cargo (%s)" % " or ".join(tools.get("rust") or []),
                 "node": "node (%s)" % " or ".join(tools.get("node") or [])}
        results.append(_check(
            "exo_build_tools_missing", ERROR, "exo_build_tools", not missing,
            "missing: %s" % ", ".join(missing) if missing else "cargo%s there" % (" and node" if "node" in needs else ""),
            "%s lacks %s; %s, so its install would fail." % (host, " and ".join(names[tool] for tool in missing),
                                                             needs["rust"]),
            "On %s as the admin user: %s. Or install exo without building it: exo_package_spec from your package "
            "index with built wheels, exo_install_method app, or an MLX-only cluster without exo "
            "(macops_exo_enabled false)."
            % (host, "; ".join({"rust": "curl https://sh.rustup.rs | sh, then `rustup toolchain install nightly`",
                                "node": "`brew install node`"}[tool] for tool in missing)), host))
    return results


def node_checks(host, mac, node, macs, min_macos="26.2", require_same_build=True, min_memory_gb=16,
                min_free_disk_gb=20, filevault_allowed=True, tools=None, needs=None):
    """{'checks': [{name, ok, detail, code}], 'problems': [...]} for one node.

    ``macs`` maps every node of the play to its macops_mac (for the build check); ``tools`` maps each
    tool to the paths where it may be ({"homebrew": ["/opt/homebrew/bin/brew"], ...}, node_facts'
    ``programs`` read them) and ``needs`` is needed_tools() of the run: a tool no role needs is not checked."""
    version, build = mac.get("macos_version") or "", mac.get("macos_build") or ""
    min_memory_gb, min_free_disk_gb = _number(min_memory_gb), _number(min_free_disk_gb)
    results = []

    results.append(_check(
        "macos_too_old", ERROR,
        "macos_version", version_key(version) >= version_key(min_macos),
        "macOS %s (%s), at least %s needed" % (version, build, min_macos),
        "%s runs macOS %s; the cluster needs %s or later." % (host, version, min_macos),
        "Update %s in System Settings > General > Software Update (an update needs the Mac owner's password "
        "and cannot be done over SSH), then run again." % host, host))

    majority = cluster_build(macs)
    if majority is not None:
        target, target_release, on_target = majority
        others = ", ".join(on_target)
        target_mac = macs[on_target[0]]
        results.append(_check(
            "macos_build_mismatch", ERROR if require_same_build else WARNING,
            "macos_build", build == target,
            "build %s; most nodes run %s (%s)" % (build, target, others),
            "%s runs macOS %s (build %s), the other nodes %s (%s, build %s); exo and RDMA need the identical build on "
            "every node.%s" % (host, _release(mac), build, target_release, others, target, _drift(mac, target_mac)),
            "Bring %s to build %s (macOS %s: same version, same beta or security response), or every node to one "
            "newer build: update-macos.yml (macos_update_version=\"%s\" where the node is offered it), or System "
            "Settings > General > Software Update." % (host, target, target_release, target_release),
            host))

    memory_gb = round(int(mac.get("memory_bytes") or 0) / GIB, 1)
    results.append(_check(
        "memory_too_small", ERROR,
        "memory", memory_gb >= float(min_memory_gb),
        "%s GiB unified memory, at least %s GiB needed" % (memory_gb, min_memory_gb),
        "%s has %s GiB of memory; the cluster needs at least %s GiB per node." % (host, memory_gb, min_memory_gb),
        "Take %s out of the macs group, or lower preflight_min_memory_gb if you accept that MLX may freeze it."
        % host, host))

    free_gb = node["volumes"]["/"]["free_gb"]
    results.append(_check(
        "disk_space_low", ERROR,
        "free_disk", float(free_gb) >= float(min_free_disk_gb),
        "%s GiB free on /, at least %s GiB needed" % (free_gb, min_free_disk_gb),
        "%s has %s GiB free on its boot volume; the cluster needs %s GiB." % (host, free_gb, min_free_disk_gb),
        "Free space on %s (old models in ~/.exo/models or ~/.cache/huggingface, local Time Machine snapshots: "
        "`tmutil listlocalsnapshots /`), then run again." % host, host))

    filevault = node["filevault"]
    pending = filevault.get("state", "on") == "pending"
    results.append(_check(
        "filevault_on", WARNING if filevault_allowed else ERROR,
        "filevault", not filevault["on"], filevault["status"],
        ("FileVault is about to be turned on on %s (%s): its next restart waits" % (host, filevault["status"])
         if pending else "FileVault is on on %s: after a plain reboot it waits" % host)
        + " at the pre-boot unlock screen and does not come back on the network.",
        ("Restart %s once with someone at the Mac to unlock it (fdesetup authrestart cannot skip it while "
         "FileVault is not on yet). Then: " % host if pending else "")
        + "Reboot %s only with `sudo fdesetup authrestart` (the collection's reboot playbook does), or turn "
          "FileVault off in System Settings > Privacy & Security > FileVault." % host, host))

    sshd = bool(node["launchd"].get("com.openssh.sshd"))
    results.append(_check(
        "remote_login_off", ERROR,
        "remote_login", sshd, "launchd job com.openssh.sshd %s" % ("loaded" if sshd else "not loaded"),
        "Remote Login (SSH) is off on %s; this run may be its last connection." % host,
        "Turn on System Settings > General > Sharing > Remote Login on %s, or run "
        "`sudo systemsetup -setremotelogin on` there." % host, host))

    results += _tool_checks(host, node, tools or {}, needs or {})

    return {"checks": [check for check, found in results],
            "problems": [found for check, found in results if found is not None]}
