"""roles/deploy_model/files/mlx_lm_probe.py with the pinned mlx-lm (issue 47): a model type pipelines only when its
model class splits its layers by PipelineMixin's pipeline(), the rule the plan and serve_rank.py follow; kimi_k3's
own pipeline() (no split, the extra layers on the high ranks) would load other layers than planned."""
import json
import os
import subprocess
import sys

PROBE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "roles", "deploy_model", "files", "mlx_lm_probe.py")


def probe(model_type):
    return json.loads(subprocess.run([sys.executable, PROBE, model_type], stdout=subprocess.PIPE, check=True,
                                     universal_newlines=True).stdout)


def test_only_pipelinemixin_s_rule_counts_as_pipelined():
    assert probe("qwen2")["supports"] == {"pipeline": True, "tensor": True}
    assert probe("kimi_k2")["supports"]["pipeline"] is True  # deepseek_v3's class, PipelineMixin's rule
    kimi_k3 = probe("kimi_k3")
    assert kimi_k3["supports"] == {"pipeline": False, "tensor": True} and kimi_k3["error"] is None
