"""A fixture the node_facts tests of module_utils share."""
import pytest


@pytest.fixture
def exo_api(monkeypatch):
    """/state's answers, one per question (the last repeats), and the URLs asked."""
    from ansible_collections.macops.cluster.plugins.module_utils import _exo_probe

    state = {"answers": [(True, 4)], "urls": []}

    def ask(url, timeout=5):
        state["urls"].append(url)
        return state["answers"].pop(0) if len(state["answers"]) > 1 else state["answers"][0]

    monkeypatch.setattr(_exo_probe, "ask_state", ask)
    monkeypatch.setattr(_exo_probe, "DELAY_SECONDS", 0)
    return state
