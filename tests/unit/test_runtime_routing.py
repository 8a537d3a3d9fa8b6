"""The collection's versions add up (issue 51): what a release shipped either still exists or is routed.

tests/unit/released/<version>.json lists what each release shipped: every public plugin by type (a
module and its action plugin are one) with its options, and every role with its entry points and their
options. It is written once, from the release's tree, when the release is cut (docs/lab.md,
"Changelog"), so the checks need no git history (CI's clone may be shallow):

    .venv/bin/python tests/unit/test_runtime_routing.py > tests/unit/released/0.2.0.json

Then:
- a plugin a release shipped that the tree lacks has a `redirect` (to a plugin that exists) or a
  `tombstone` in meta/runtime.yml, whose text names the macops.cluster replacement, so a play written
  against that release gets that text instead of "not found"; a role has no routing in Ansible, so a
  role a release shipped keeps its directory (roles/cluster_reboot: a stub that fails naming its new
  name);
- meta/runtime.yml routes only what a release shipped and the tree no longer has;
- every plugin, option, role entry point and role option says the version that first shipped it:
  `version_added` on itself or on what holds it (the option above it, the plugin, the entry point);
  none says the first release, which is what no `version_added` means;
- galaxy.yml's version is the next release while changelog fragments wait, and every `version_added`
  and tombstone names a released version or that one.
The last tests show the checks fail on doctored inputs.
"""
import ast
import copy
import functools
import glob
import json
import os
import sys

import pytest
import yaml
from packaging.version import Version

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RELEASED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "released")
FQCN = "macops.cluster."
# The public plugin types and the method of a Jinja plugin file that names its plugins.
PLUGIN_TYPES = {"modules": None, "action": None, "filter": "filters", "test": "tests", "lookup": None,
                "callback": None, "inventory": None}


def _documentation(path):
    """(DOCUMENTATION parsed, {method: the keys of the dict literal it returns}) of a plugin file, unimported."""
    doc, returns = None, {}
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        targets = [target.id for target in getattr(node, "targets", []) if isinstance(target, ast.Name)]
        if isinstance(node, ast.Assign) and targets == ["DOCUMENTATION"]:
            doc = yaml.safe_load(node.value.value)
        if isinstance(node, ast.FunctionDef) and node.name in ("filters", "tests"):
            result = [item.value for item in node.body if isinstance(item, ast.Return)]
            assert result and isinstance(result[0], ast.Dict), "%s: %s() returns no dict literal" % (path, node.name)
            returns[node.name] = [key.value for key in result[0].keys]
    return doc or {}, returns


def _options(options, holder, prefix=""):
    """{option path: its own version_added, else the nearest holder's} over options and their sub-options."""
    found = {}
    for name, spec in (options or {}).items():
        spec = spec or {}
        said = str(spec["version_added"]) if "version_added" in spec else holder
        found[prefix + name] = said
        found.update(_options(spec.get("options") or spec.get("suboptions"), said, prefix + name + "."))
    return found


def surface(root):
    """{"plugins": {type: {name: {"version_added", "options"}}}, "roles": {role: {entry point: ...}}} of a tree;
    version_added None where nothing says it. Action plugins count as the module of their name."""
    plugins = {kind: {} for kind in PLUGIN_TYPES if kind != "action"}
    for kind, method in PLUGIN_TYPES.items():
        for path in sorted(glob.glob(os.path.join(root, "plugins", kind, "*.py"))):
            stem = os.path.splitext(os.path.basename(path))[0]
            if stem.startswith("_"):
                continue
            doc, returns = _documentation(path)
            top = str(doc["version_added"]) if "version_added" in doc else None
            entry = {"version_added": top, "options": _options(doc.get("options"), top)}
            kind = "modules" if kind == "action" else kind
            for name in returns.get(method, [stem]) if method else [stem]:
                # A Jinja plugin file documents the plugin of its name only.
                plugins[kind].setdefault(name, entry if name == stem else {"version_added": None, "options": {}})
    roles = {}
    for path in sorted(glob.glob(os.path.join(root, "roles", "*", "meta", "argument_specs.yml"))):
        role = path.split(os.sep)[-3]
        with open(path, encoding="utf-8") as handle:
            specs = (yaml.safe_load(handle) or {}).get("argument_specs") or {}
        roles[role] = {}
        for name, spec in specs.items():
            top = str(spec["version_added"]) if "version_added" in spec else None
            roles[role][name] = {"version_added": top, "options": _options(spec.get("options"), top)}
    for path in sorted(glob.glob(os.path.join(root, "roles", "*", "tasks", "main.yml"))):
        roles.setdefault(path.split(os.sep)[-3], {})
    return {"plugins": plugins, "roles": roles}


def listing(tree):
    """What a release shipped, as tests/unit/released/<version>.json holds it: names and option paths."""
    return {"plugins": {kind: {name: sorted(entry["options"]) for name, entry in sorted(names.items())}
                        for kind, names in tree["plugins"].items()},
            "roles": {role: {name: sorted(entry["options"]) for name, entry in sorted(entries.items())}
                      for role, entries in tree["roles"].items()}}


def _load(*parts):
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def releases():
    """{version: its listing} for every release of changelogs/changelog.yaml, oldest first."""
    versions = sorted(_load("changelogs", "changelog.yaml")["releases"] or {}, key=Version)
    found = {}
    for version in versions:
        path = os.path.join(RELEASED, version + ".json")
        assert os.path.isfile(path), "release %s has no listing %s" % (version, os.path.relpath(path, ROOT))
        with open(path, encoding="utf-8") as handle:
            found[version] = json.load(handle)
    return found


def unrouted(released, tree, routing, next_version):
    """Sentences for each plugin a release shipped that is gone without routing, each routing entry that
    is wrong, and each role a release shipped that is gone."""
    found = []
    shipped = {}
    for version, shipment in released.items():
        for kind, names in shipment["plugins"].items():
            for name in names:
                shipped.setdefault((kind, name), version)
        for role in shipment["roles"]:
            if role not in tree["roles"]:
                found.append("the role %s (%s) is gone: keep a stub that fails naming its successor" % (role, version))
    for (kind, name), version in sorted(shipped.items()):
        if name in tree["plugins"].get(kind, {}):
            continue
        route = (routing.get(kind) or {}).get(name)
        if not route or not ({"tombstone", "redirect"} & set(route)):
            found.append("%s %s (%s) is gone and meta/runtime.yml routes it nowhere" % (kind, name, version))
            continue
        target = route.get("redirect")
        if target and target.startswith(FQCN) and target[len(FQCN):] not in tree["plugins"].get(kind, {}):
            found.append("%s %s redirects to %s, which does not exist" % (kind, name, target))
        tombstone = route.get("tombstone") or {}
        if tombstone:
            removed = Version(str(tombstone.get("removal_version")))
            if not Version(version) < removed <= Version(next_version):
                found.append("%s %s: tombstone removal_version %s is not after %s and at most %s"
                             % (kind, name, removed, version, next_version))
            if FQCN not in tombstone.get("warning_text", ""):
                found.append("%s %s: the tombstone's warning_text names no %s* replacement" % (kind, name, FQCN))
    for kind, names in sorted(routing.items()):
        for name, route in sorted((names or {}).items()):
            if name in tree["plugins"].get(kind, {}) and {"tombstone", "redirect"} & set(route):
                found.append("%s %s exists but meta/runtime.yml routes it away" % (kind, name))
            elif (kind, name) not in shipped:
                found.append("%s %s is routed but no release shipped it" % (kind, name))
    return found


def misdated(released, tree, next_version):
    """Sentences for each plugin, option, entry point and role option whose version_added is not the release
    that first shipped it (next_version for what no release shipped)."""
    first = min(released, key=Version) if released else next_version
    shipped = {}
    for version, shipment in released.items():
        for kind, names in shipment["plugins"].items():
            for name, options in names.items():
                shipped.setdefault(("plugin", kind, name), version)
                for option in options:
                    shipped.setdefault(("plugin", kind, name, option), version)
        for role, entries in shipment["roles"].items():
            for name, options in entries.items():
                shipped.setdefault(("role", role, name), version)
                for option in options:
                    shipped.setdefault(("role", role, name, option), version)
    found = []
    things = [(("plugin", kind, name), entry)
              for kind, names in tree["plugins"].items() for name, entry in names.items()]
    things += [(("role", role, name), entry)
               for role, entries in tree["roles"].items() for name, entry in entries.items()]
    for key, entry in sorted(things):
        said = entry["version_added"] or first
        if said != shipped.get(key, next_version):
            found.append("%s says %s, first shipped in %s" % (" ".join(key), said, shipped.get(key, next_version)))
        for option, version in sorted(entry["options"].items()):
            want = shipped.get(key + (option,), next_version)
            if (version or first) != want:
                found.append("%s option %s says %s, first shipped in %s"
                             % (" ".join(key), option, version or first, want))
    return found


@functools.lru_cache(maxsize=None)
def _inputs():
    """(releases, this tree's surface, meta/runtime.yml's plugin_routing, galaxy.yml's version), read once."""
    routing = (_load("meta", "runtime.yml") or {}).get("plugin_routing") or {}
    return releases(), surface(ROOT), routing, str(_load("galaxy.yml")["version"])


def test_the_listings_are_the_releases_of_the_changelog():
    """Each release has its listing; a listing holds the plugins the changelog lists as new in that release, and
    none the changelog never listed as new."""
    changelog = _load("changelogs", "changelog.yaml")["releases"] or {}
    listed = releases()
    assert sorted(os.listdir(RELEASED)) == sorted(version + ".json" for version in changelog)
    assert "0.1.0" in listed and "cluster_reboot" in listed["0.1.0"]["roles"]
    ever = set()
    for version in listed:
        new = {("modules", entry["name"]) for entry in changelog[version].get("modules") or []}
        new.update((kind, entry["name"]) for kind, entries in (changelog[version].get("plugins") or {}).items()
                   for entry in entries)
        ever |= new
        shipped = {(kind, name) for kind, names in listed[version]["plugins"].items() for name in names}
        assert new <= shipped <= ever, (version, sorted(new - shipped), sorted(shipped - ever))


def test_galaxy_yml_is_the_next_release_while_fragments_wait():
    version = Version(str(_load("galaxy.yml")["version"]))
    released = [Version(v) for v in _load("changelogs", "changelog.yaml")["releases"] or {}]
    fragments = glob.glob(os.path.join(ROOT, "changelogs", "fragments", "*.y*ml"))
    assert not released or version >= max(released), "galaxy.yml says %s, below the released %s" % (
        version, max(released))
    if fragments and released:
        assert version > max(released), ("changelog fragments wait for the next release, but galaxy.yml still says "
                                         "the released %s: set it to the next version" % version)


def test_every_plugin_and_role_a_release_shipped_exists_or_is_routed():
    assert unrouted(*_inputs()) == []


def test_every_version_added_is_the_release_that_first_shipped_it():
    released, tree, _, version = _inputs()
    assert misdated(released, tree, version) == []


def test_the_surface_is_read():
    """The checks run over the collection's plugins and roles: a broken reader would pass everything."""
    tree = _inputs()[1]
    assert {"node_facts", "validate_inputs", "cluster_report"} <= set(tree["plugins"]["modules"])
    assert {"problem", "per_host"} <= set(tree["plugins"]["filter"])
    assert "controller_address" in tree["plugins"]["lookup"]
    assert tree["plugins"]["modules"]["cluster_report"]["options"]["keep"] == "0.2.0"
    assert tree["roles"]["reboot_cluster"]["before"]["options"]["reboot_cluster_mode"] == "0.2.0"
    assert "macops" in tree["roles"] and "main" in tree["roles"]["cluster_reboot"]
    assert json.loads(dump(listing(tree))) == listing(tree)


# The checks, on doctored inputs: each kind of mistake is caught.

@pytest.fixture
def inputs():
    """A copy of the inputs, to doctor."""
    return copy.deepcopy(_inputs())


def test_a_removed_plugin_without_routing_is_caught(inputs):
    released, tree, routing, version = inputs
    del routing["modules"]["mac_state"]
    del routing["filter"]["exo_node_count"]
    assert unrouted(released, tree, routing, version) == [
        "filter exo_node_count (0.1.0) is gone and meta/runtime.yml routes it nowhere",
        "modules mac_state (0.1.0) is gone and meta/runtime.yml routes it nowhere"]


def test_wrong_routing_is_caught(inputs):
    released, tree, routing, version = inputs
    routing["filter"]["mlx_hostfile"] = {"redirect": FQCN + "mlx_hostfiles"}
    routing["filter"]["problem"] = {"redirect": FQCN + "doctor_findings"}
    routing["filter"]["never_shipped"] = {"tombstone": {"removal_version": version, "warning_text": FQCN}}
    routing["modules"]["mac_state"]["tombstone"] = {"removal_version": "0.1.0", "warning_text": "gone"}
    assert unrouted(released, tree, routing, version) == [
        "filter mlx_hostfile redirects to macops.cluster.mlx_hostfiles, which does not exist",
        "modules mac_state: tombstone removal_version 0.1.0 is not after 0.1.0 and at most %s" % version,
        "modules mac_state: the tombstone's warning_text names no macops.cluster.* replacement",
        "filter never_shipped is routed but no release shipped it",
        "filter problem exists but meta/runtime.yml routes it away"]


def test_a_removed_role_is_caught(inputs):
    released, tree, routing, version = inputs
    del tree["roles"]["cluster_reboot"]
    assert unrouted(released, tree, routing, version) == [
        "the role cluster_reboot (0.1.0) is gone: keep a stub that fails naming its successor"]


def test_a_new_option_without_version_added_is_caught(inputs):
    released, tree, _, version = inputs
    tree["plugins"]["modules"]["cluster_report"]["options"]["keep"] = "0.1.0"
    tree["roles"]["report"]["main"]["options"]["report_keep"] = None
    tree["roles"]["serve"]["main"]["version_added"] = None
    found = misdated(released, tree, version)
    assert "plugin modules cluster_report option keep says 0.1.0, first shipped in %s" % version in found
    assert "role report main option report_keep says 0.1.0, first shipped in %s" % version in found
    assert "role serve main says 0.1.0, first shipped in %s" % version in found


def test_an_old_plugin_claiming_a_later_version_is_caught(inputs):
    released, tree, _, version = inputs
    tree["plugins"]["filter"]["problem"]["version_added"] = version
    assert misdated(released, tree, version) == ["plugin filter problem says %s, first shipped in 0.1.0" % version]


def dump(shipment):
    """A listing as JSON, one line per plugin and per entry point, so a release's diff reads by name."""
    parts = []
    for part in ("plugins", "roles"):
        groups = []
        for group, items in shipment[part].items():
            rows = ",\n".join("    %s: %s" % (json.dumps(name), json.dumps(value)) for name, value in items.items())
            groups.append("  %s: {%s}" % (json.dumps(group), "\n%s\n  " % rows if rows else ""))
        parts.append(" %s: {\n%s\n }" % (json.dumps(part), ",\n".join(groups)))
    return "{\n%s\n}\n" % ",\n".join(parts)


if __name__ == "__main__":
    # The listing of the tree this runs in (or of the tree named), for tests/unit/released/<version>.json.
    sys.stdout.write(dump(listing(surface(sys.argv[1] if len(sys.argv) > 1 else ROOT))))
