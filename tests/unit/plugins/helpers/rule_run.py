"""Run one input rule on a role's values the way the validator does, and read the variables it refuses."""
from ansible_collections.macops.cluster.plugins.plugin_utils._input_rule_base import Context, Params

MACS = ["mac1", "mac2", "mac3", "mac4"]
MANAGEMENT = {"mac1": "198.18.0.11", "mac2": "198.18.0.12", "mac3": "198.18.0.13", "mac4": "198.18.0.14"}


def run(rule, values, **context):
    ctx = Context(context.pop("host", "mac1"), context.pop("macs", MACS), context.pop("management", MANAGEMENT),
                  **context)
    return [(p["code"], p["details"].get("variable"), p["message"]) for p in rule(Params(values), ctx)]


def variables(found):
    return [variable for _, variable, _ in found]
