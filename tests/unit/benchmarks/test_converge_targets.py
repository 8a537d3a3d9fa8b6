"""benchmarks/converge's count targets (issue 51): at most 36 task executions per host and 30 macOS commands per
node on an idempotent site.yml; the smoke run in make test fails on a missed count, naming the host and figure."""
import importlib.machinery
import importlib.util
import os

import pytest

PATH = os.path.join(os.path.dirname(__file__), "..", "..", "..", "benchmarks", "converge")
loader = importlib.machinery.SourceFileLoader("converge_benchmark", PATH)
spec = importlib.util.spec_from_loader("converge_benchmark", loader)
converge = importlib.util.module_from_spec(spec)
loader.exec_module(converge)


def test_the_targets_are_the_issue_s():
    assert (converge.TARGET_EXECUTIONS, converge.TARGET_COMMANDS, converge.TARGET_RATIO) == (36, 30, 4.0)


def test_counts_at_their_targets_are_met():
    assert converge.missed_counts({"mac1": 36, "mac2": 30}, {"mac1": 30, "mac2": 29}) == []


@pytest.mark.parametrize("executions, commands, named", [
    ({"mac1": 37, "mac2": 30}, {"mac1": 30, "mac2": 30}, ["task executions per host: mac1 37 (target <= 36)"]),
    ({"mac1": 36, "mac2": 30}, {"mac1": 30, "mac2": 31}, ["macOS commands per node: mac2 31 (target <= 30)"]),
    ({"mac1": 40, "mac2": 38}, {"mac1": 34, "mac2": 34},
     ["task executions per host: mac1 40, mac2 38 (target <= 36)",
      "macOS commands per node: mac1 34, mac2 34 (target <= 30)"]),
])
def test_a_missed_count_is_named_with_its_host_and_figure(executions, commands, named):
    assert converge.missed_counts(executions, commands) == named
