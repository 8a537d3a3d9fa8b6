"""What the installed mlx-lm can do with a model type: its version, and whether the model class has
mlx-lm's pipeline split (PipelineMixin's pipeline()) and tensor parallel (Model.shard()).

Run with the cluster's venv Python: python3 mlx_lm_probe.py MODEL_TYPE; prints one JSON object
{version, model_type, module, supports: {pipeline, tensor}, error}. mlx-lm maps some model types to
another module (MODEL_REMAPPING: kimi_k2 runs as deepseek_v3), so the probe asks that module.
"""
import importlib
import inspect
import json
import sys
from importlib import metadata

model_type = sys.argv[1] if len(sys.argv) > 1 else ""
found = {"version": metadata.version("mlx-lm"), "model_type": model_type, "module": None,
         "supports": {"pipeline": False, "tensor": False}, "error": None}
try:
    from mlx_lm.utils import MODEL_REMAPPING
except ImportError:
    MODEL_REMAPPING = {}
name = MODEL_REMAPPING.get(model_type, model_type)
try:
    module = importlib.import_module("mlx_lm.models." + name)
except ImportError as exc:
    found["error"] = "mlx-lm %s has no model type %s (%s)" % (found["version"], model_type, exc)
else:
    found["module"] = module.__name__
    classes = [value for value in vars(module).values()
               if inspect.isclass(value) and value.__module__ == module.__name__]
    # The plan splits layers by PipelineMixin.pipeline()'s rule (rank 0 the last layers, split counts honoured): a
    # class with a pipeline() of its own (kimi_k3's gives the extra layers to the high ranks, takes no split) would
    # load other layers than planned, so it counts as not pipelined.
    try:
        from mlx_lm.models.pipeline import PipelineMixin
        mixin_rule = getattr(PipelineMixin, "pipeline", None)
    except ImportError:
        mixin_rule = None
    found["supports"]["pipeline"] = any(callable(getattr(value, "pipeline", None)) and (
        mixin_rule is None or getattr(value, "pipeline") is mixin_rule) for value in classes)
    model = getattr(module, "Model", None)
    found["supports"]["tensor"] = model is not None and callable(getattr(model, "shard", None))
print(json.dumps(found))
