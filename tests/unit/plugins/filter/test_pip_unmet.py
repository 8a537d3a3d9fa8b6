"""macops.cluster.pip_unmet: met only when certain, so a skipped pip run never hides a missing package."""
import pytest

from ansible_collections.macops.cluster.plugins.filter import pip_unmet as pip_filter

INSTALLED = {"mlx": "0.32.4", "mlx_lm": "0.32.2", "pip": "25.3", "Huggingface-Hub": "1.1.0"}


@pytest.mark.parametrize("requirement", ["mlx==0.32.4", "mlx-lm==0.32.2", "MLX_LM===0.32.2", "mlx.lm == 0.32.2",
                                         "pip", "huggingface_hub", "huggingface-hub==1.1.0"])
def test_installed_requirements_are_met(requirement):
    assert pip_filter.pip_unmet([requirement], INSTALLED) == []


@pytest.mark.parametrize("requirement", [
    "mlx==0.32.5",             # another version
    "mlx==0.32",               # pip would call it equal; not certain here, so pip decides
    "transformers",            # not installed
    "mlx>=0.30",               # a range
    "mlx[cpu]==0.32.4",        # extras bring their own dependencies, unknown in this shape
    "mlx==0.32.4; python_version>'3.9'",  # a marker
    "https://example.invalid/mlx-0.32.4-py3-none-any.whl",
    "./wheels/mlx-0.32.4.whl",
])
def test_anything_uncertain_is_unmet(requirement):
    assert pip_filter.pip_unmet([requirement], INSTALLED) == [requirement]


def test_missing_environment_leaves_everything_unmet_in_order():
    wanted = ["pip", "mlx==0.32.4", "mlx-lm==0.32.2"]
    assert pip_filter.pip_unmet(wanted, None) == wanted
    assert pip_filter.pip_unmet(wanted, {}) == wanted
    assert pip_filter.pip_unmet(wanted, {"mlx": "0.32.4"}) == ["pip", "mlx-lm==0.32.2"]


def test_registered_as_a_filter():
    assert pip_filter.FilterModule().filters()["pip_unmet"] is pip_filter.pip_unmet


# The shape python_env's read prints: each distribution's version and what each extra requires.
DETAILED = {"mlx": {"version": "0.32.4", "extras": {"cpu": ["mlx-cpu"], "cuda": ["mlx-cuda", "nvidia-cublas"]}},
            "mlx_cpu": {"version": "0.32.4", "extras": {}},
            "mlx-lm": {"version": "0.32.2", "extras": {}}}


@pytest.mark.parametrize("requirement, unmet", [
    ("mlx[cpu]==0.32.4", False),       # the extra's distribution is there
    ("mlx[CPU]", False),
    ("mlx[cuda]==0.32.4", True),       # its distributions are missing
    ("mlx[cpu,cuda]==0.32.4", True),
    ("mlx[metal]==0.32.4", True),      # an extra the distribution does not declare
    ("mlx[cpu]==0.32.5", True),
    ("mlx-lm==0.32.2", False),
    ("mlx_cpu==0.32.4", False),
])
def test_extras_are_met_only_when_what_they_require_is_installed(requirement, unmet):
    assert pip_filter.pip_unmet([requirement], DETAILED) == ([requirement] if unmet else [])
