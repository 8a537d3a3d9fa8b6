"""The attribute blocks the modules share (plugins/doc_fragments/attributes.py): each fragment is YAML that adds
attributes and no option, every module names only fragments it has, and ansible-doc shows a module the
fragment's attributes (a read-only module's, a facts module's, an action plugin's)."""
import json
import os
import re

import pytest
import yaml

from ansible_collections.macops.cluster.plugins.doc_fragments.attributes import ModuleDocFragment

from ansible_cli import BIN, ROOT, run_ansible

FRAGMENTS = {"macops.cluster.attributes": "DOCUMENTATION", "macops.cluster.attributes.facts": "FACTS",
             "macops.cluster.attributes.action": "ACTION"}
MODULES = os.path.join(ROOT, "plugins", "modules")


def fragment(name):
    return yaml.safe_load(getattr(ModuleDocFragment, FRAGMENTS[name]))


@pytest.mark.parametrize("name", sorted(FRAGMENTS))
def test_each_fragment_adds_attributes_and_no_option(name):
    found = fragment(name)
    assert found["options"] == {} and found["attributes"]
    for attribute, entry in found["attributes"].items():
        assert entry["description"].strip() and entry["support"] in ("full", "partial", "none", "N/A"), attribute


def test_every_module_names_only_fragments_the_class_has():
    used = {}
    for name in sorted(os.listdir(MODULES)):
        if name.endswith(".py") and name != "__init__.py":
            with open(os.path.join(MODULES, name)) as handle:
                text = handle.read()
            documentation = yaml.safe_load(re.search(r'DOCUMENTATION = r"""\n(.*?)"""', text, re.S).group(1))
            for entry in documentation.get("extends_documentation_fragment") or []:
                if entry.startswith("macops.cluster."):
                    used.setdefault(entry, []).append(name[:-3])
    assert set(used) <= set(FRAGMENTS), sorted(set(used) - set(FRAGMENTS))
    assert len(used["macops.cluster.attributes"]) >= 10 and used["macops.cluster.attributes.action"]


def test_ansible_doc_shows_a_module_its_fragments_attributes(tmp_path):
    result = run_ansible([os.path.join(BIN, "ansible-doc"), "--json", "macops.cluster.system_profiler",
                          "macops.cluster.check_result"], tmp_path)
    assert result.returncode == 0, result.stderr
    docs = json.loads(result.stdout)
    shown = docs["macops.cluster.system_profiler"]["doc"]["attributes"]
    expected = dict(fragment("macops.cluster.attributes")["attributes"],
                    **fragment("macops.cluster.attributes.facts")["attributes"])
    assert shown == expected
    action = docs["macops.cluster.check_result"]["doc"]["attributes"]
    for attribute, entry in fragment("macops.cluster.attributes.action")["attributes"].items():
        assert action[attribute] == entry, attribute
