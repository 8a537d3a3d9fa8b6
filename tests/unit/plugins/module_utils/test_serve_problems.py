"""Serving's problem codes (plugins/module_utils/_serve_problems.py): serve_ codes of the serve area, errors all (a
node that cannot serve stops the run before anything stops or starts), each in the one registry as its own entry."""
from ansible_collections.macops.cluster.plugins.module_utils._serve_problems import SERVE_CODES

from registry_check import check_part


def test_the_serve_codes_are_serve_errors_of_the_one_registry():
    check_part("serve", ("serve_",), ("serve",))
    assert set(entry["severity"] for entry in SERVE_CODES.values()) == {"error"}
    assert "serve_unreachable" in SERVE_CODES and "serve_not_ready" in SERVE_CODES
