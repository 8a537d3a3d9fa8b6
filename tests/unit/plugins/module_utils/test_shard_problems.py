"""model_shard's problem codes (plugins/module_utils/_shard_problems.py): shard_ codes of model_shard, and the model_
codes the report finds in the deployment records, each in the one registry as its own entry."""
from ansible_collections.macops.cluster.plugins.module_utils._shard_problems import SHARD_CODES

from registry_check import check_part


def test_the_shard_codes_are_model_shard_s_and_the_report_s_model_codes():
    check_part("shard", ("shard_", "model_"), ("model_shard", "report"))
    assert SHARD_CODES["model_copy_incomplete"]["area"] == "report"
    assert all(entry["area"] == "model_shard" for code, entry in SHARD_CODES.items() if code.startswith("shard_"))
