"""The severities and the registry entry's shape (plugins/module_utils/_problem_codes.py), the same ones the one
registry re-exports, and every entry built by registry_entry."""
from ansible_collections.macops.cluster.plugins.module_utils import _problem_codes as codes, _problems


def test_the_severities_worst_first_are_the_registry_s():
    assert codes.SEVERITIES == ("error", "warning", "info") == (codes.ERROR, codes.WARNING, codes.INFO)
    assert (_problems.ERROR, _problems.WARNING, _problems.INFO) == codes.SEVERITIES


def test_an_entry_is_severity_area_meaning_and_fix():
    entry = codes.registry_entry(codes.WARNING, "serve", "It means this.", "Do that.")
    assert entry == {"severity": "warning", "area": "serve", "meaning": "It means this.", "fix": "Do that."}
    assert all(set(found) == set(entry) for found in _problems.REGISTRY.values())
