"""update-macos.yml's problem codes (plugins/module_utils/_update_problems.py): macos_update_ codes of the update
area, each in the one registry as its own entry."""
from ansible_collections.macops.cluster.plugins.module_utils._update_problems import UPDATE_CODES

from registry_check import check_part


def test_the_update_codes_are_macos_update_codes_of_the_one_registry():
    check_part("update", ("macos_",), ("update",))
    assert any(entry["severity"] == "warning" for entry in UPDATE_CODES.values())
