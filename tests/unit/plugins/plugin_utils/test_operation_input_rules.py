"""The operations' input rules (plugins/plugin_utils/_operation_input_rules.py): deploy-model.yml's model, its node
and sensible paths; update-macos.yml's version a release or a security response."""
import pytest

from ansible_collections.macops.cluster.plugins.plugin_utils import _input_rules as rules

from rule_run import run, variables

# Stands for a model directory on the controller (with a config.json) that the test makes.
CONTROLLER_MODEL = "@controller-model@"
GOOD_DEPLOY = {"deploy_model_source": "/Users/admin/staging/m", "deploy_model_source_host": "mac2",
               "deploy_model_dir": "/Users/admin/models", "deploy_model_name": "", "deploy_model_stall_timeout": 120}


@pytest.mark.parametrize("change, variable, reason", [
    ({}, None, None),
    ({"deploy_model_source": ""}, "deploy_model_source", "the model to deploy is not named"),
    ({"deploy_model_source": "", "deploy_model_hub_id": ""}, "deploy_model_source", "the model to deploy is not named"),
    ({"deploy_model_source": "staging/m"}, "deploy_model_source", "an absolute path on the source node"),
    ({"deploy_model_source_host": "mac9"}, "deploy_model_source_host", "a node of the group macs (mac1, mac2"),
    ({"deploy_model_dir": "models"}, "deploy_model_dir", "an absolute path on every node"),
    ({"deploy_model_name": "a/b/c"}, "deploy_model_name", "a directory name or a Hugging Face id"),
    ({"deploy_model_name": "../b"}, "deploy_model_name", "not a path"),
    ({"deploy_model_name": "org/"}, "deploy_model_name", "not a path"),
    ({"deploy_model_name": "mlx-community/m"}, None, None),
    ({"deploy_model_runtime": "exo"}, "deploy_model_name", "exo finds a model in its models directories only"),
    ({"deploy_model_runtime": "exo", "deploy_model_name": "plain"}, "deploy_model_name", "as <org>--<name>"),
    ({"deploy_model_runtime": "exo", "deploy_model_name": "mlx-community/m"}, None, None),
    ({"deploy_model_runtime": "exo", "deploy_model_source": "/s/mlx-community--m"}, None, None),
    ({"deploy_model_source": "", "deploy_model_hub_id": "mlx-community/m"}, None, None),
    ({"deploy_model_runtime": "exo", "deploy_model_source": "", "deploy_model_hub_id": "mlx-community/m"}, None, None),
    ({"deploy_model_hub_id": "just-a-name"}, "deploy_model_hub_id", "a Hugging Face id is org/name"),
    ({"deploy_model_source": "", "deploy_model_controller_source": CONTROLLER_MODEL}, None, None),
    ({"deploy_model_controller_source": CONTROLLER_MODEL, "deploy_model_hub_id": "org/m"},
     "deploy_model_controller_source", "either from the controller or from the hub"),
    ({"deploy_model_controller_source": "/nonexistent/model"}, "deploy_model_controller_source",
     "a model directory (with its config.json)"),
    ({"deploy_model_controller_source": "relative/model"}, "deploy_model_controller_source", "an absolute path"),
    ({"deploy_model_hub_id": "org/m; rm -rf /"}, "deploy_model_hub_id", "a Hugging Face id is org/name"),
    ({"deploy_model_hub_id": "org/m", "deploy_model_hub_endpoint": "ftp://x"}, "deploy_model_hub_endpoint",
     "http:// or https:// URL"),
    ({"deploy_model_hub_id": "org/m", "deploy_model_hub_revision": ""}, "deploy_model_hub_revision",
     "the revision is empty"),
    ({"deploy_model_stall_timeout": 1}, "deploy_model_stall_timeout", "5 or more"),
    ({"deploy_model_nodes": ["mac3", "mac1"]}, None, None),
    ({"deploy_model_nodes": ["mac1", "studio-9"]}, "deploy_model_nodes", "each must be a node of the group macs (mac1"),
    # absent removes a model by its name: no source, no source host needed; the name must be one.
    ({"deploy_model_state": "absent", "deploy_model_source": "", "deploy_model_source_host": "", "deploy_model_name": "m"},
     None, None),
    ({"deploy_model_state": "absent", "deploy_model_source": "", "deploy_model_source_host": "",
      "deploy_model_hub_id": "mlx-community/m"}, None, None),
    ({"deploy_model_state": "absent", "deploy_model_source": "", "deploy_model_source_host": ""}, "deploy_model_name",
     "removes a model by its name, and none is given"),
    ({"deploy_model_state": "absent", "deploy_model_name": "../m"}, "deploy_model_name", "not a path"),
    ({"deploy_model_state": "absent", "deploy_model_name": ".hub"}, "deploy_model_name", "a leading dot"),
    ({"deploy_model_name": "org/.m"}, "deploy_model_name", "a leading dot"),
    ({"deploy_model_state": "absent", "deploy_model_name": "m", "deploy_model_source_host": "mac9"},
     "deploy_model_source_host", "a node of the group macs"),
])
def test_deploy_model_names_the_model_its_node_and_sensible_paths(change, variable, reason, tmp_path):
    """A plain name or a Hugging Face id (the nodes get org--name, exo's layout, which exo needs)."""
    (tmp_path / "config.json").write_text("{}")
    change = dict((key, str(tmp_path) if value == CONTROLLER_MODEL else value) for key, value in change.items())
    found = run(rules.deploy_model, dict(GOOD_DEPLOY, **change))
    if variable is None:
        assert found == []
    else:
        assert variables(found) == [variable] and reason in found[0][2]


@pytest.mark.parametrize("version, refused", [
    ("", False), ("26.3", False), ("26.3.1", False), ("26.3.1 (a)", False), ("26.3.1(b)", False),
    ("26.3.1 a", True), ("26.3.1 (A)", True), ("latest", True), ("26.x", True),
])
def test_macos_update_version_is_a_release_or_a_security_response(version, refused):
    """Issue 48: a security response is asked for as macOS names it, 26.3.1 (a)."""
    found = [f for f in run(rules.macos_update, {"macos_update_version": version}) if f[1] == "macos_update_version"]
    assert bool(found) == refused, found
    if refused:
        assert "a security response such as 26.3.1 (a)" in found[0][2]
