"""What every input rule reads and the refusals they share (plugins/plugin_utils/_input_rule_base.py): a role's values
as given and as the spec filled them, the host's context, and an input_invalid problem naming the variable, the
value, why and the fix."""
import pytest

from ansible_collections.macops.cluster.plugins.module_utils._problems import is_problem
from ansible_collections.macops.cluster.plugins.plugin_utils._input_rule_base import (Context, Params, absolute_path,
                                                                                      at_least, bad, ipv4_networks,
                                                                                      launchd_label)

HERE = Context("mac2", ["mac1", "mac2"], {"mac1": "198.18.0.11", "mac2": ""})


def refused(found):
    return [(p["details"]["variable"], p["message"]) for p in found]


def test_params_tell_a_value_as_given_from_one_the_spec_filled():
    params = Params({"serve_port": 8080, "serve_limits": {"max_tokens": 512}}, given={"serve_limits": {}})
    assert params["serve_port"] == 8080 and params.get("absent", "x") == "x"
    assert params.has("serve_port", "serve_limits") and not params.has("serve_port", "absent")
    assert params.given("serve_limits") == {} and params.given("serve_port") is None
    assert params.given("absent", "default") == "default"  # not a value of the role: the default, not the given
    assert Params({"a": 1}).given("a") == 1  # without the given values, they are the values


def test_the_context_knows_the_host_the_group_and_other_variables():
    assert (HERE.host, HERE.macs, HERE.management) == ("mac2", ["mac1", "mac2"], {"mac1": "198.18.0.11", "mac2": ""})
    assert HERE.values_on("mlx_version") == {} and HERE.variable("reboot_mode", "serial") == "serial"
    told = Context("mac1", values_on=lambda name: {"mac1": name}, variable=lambda name, default=None: name.upper())
    assert told.values_on("x") == {"mac1": "x"} and told.variable("mode") == "MODE"


def test_a_refusal_is_input_invalid_on_the_host_naming_variable_value_why_and_fix():
    found = bad(HERE, "serve_port", "http", "it must be a number", "Set serve_port to 8080.", got="str")
    assert is_problem(found) and (found["code"], found["host"]) == ("input_invalid", "mac2")
    assert found["message"] == "serve_port = 'http' is refused: it must be a number."
    assert found["fix"] == "Set serve_port to 8080." and found["details"] == {"variable": "serve_port", "got": "str"}
    assert bad(HERE, "serve_port", 0, "too small", "Raise it.")["message"] == "serve_port = 0 is refused: too small."


def test_numbers_below_their_minimum_are_refused_each_with_its_reason():
    params = Params({"a": 0, "b": 5, "c": 2.5})
    found = at_least(params, HERE, [("a", 1, "a cluster has nodes"), ("b", 5, "x"), ("c", 3, "three"), ("d", 1, "y")])
    assert refused(found) == [("a", "a = 0 is refused: it must be 1 or more (a cluster has nodes)."),
                              ("c", "c = 2.5 is refused: it must be 3 or more (three).")]


@pytest.mark.parametrize("label, ok", [("org.macops.exo", True), ("exo", True), ("-exo", False),
                                       ("org macops", False), ("org/macops", False)])
def test_a_launchd_label_is_reverse_dns_characters(label, ok):
    found = launchd_label(Params({"exo_label": label}), HERE, "exo_label", "org.macops.exo")
    assert (found == []) is ok
    assert launchd_label(Params({}), HERE, "exo_label", "org.macops.exo") == []


def test_a_path_must_be_absolute_and_may_be_empty_only_where_allowed():
    params = Params({"dir": "models", "empty": "", "ok": "/opt/macops", "none": None})
    assert refused(absolute_path(params, HERE, "dir")) == [("dir", "dir = 'models' is refused: it must be an absolute "
                                                                   "path.")]
    assert refused(absolute_path(params, HERE, "empty"))[0][0] == "empty"
    assert absolute_path(params, HERE, "empty", empty_ok=True) == []
    assert absolute_path(params, HERE, "ok") == absolute_path(params, HERE, "none") == []
    assert absolute_path(params, HERE, "dir", what="a path on the node", empty_ok=True)[0]["fix"] == (
        "Set dir to a path on the node or leave it empty.")


def test_networks_must_be_ipv4_addresses_or_networks():
    params = Params({"nets": ["198.18.0.0/16", " 10.0.0.1 ", "fd00::/8", "banana"]})
    assert [value for _variable, value in refused(ipv4_networks(params, HERE, "nets"))] == [
        "nets = 'fd00::/8' is refused: 'fd00::/8' is not an IPv4 address or network.",
        "nets = 'banana' is refused: 'banana' is not an IPv4 address or network."]
    assert ipv4_networks(Params({"nets": None}), HERE, "nets") == []
