"""The benchmark's plots (plugins/plugin_utils/_bench_plots.py): real PNGs linked from the page and the Markdown,
the history plot following each model's generation speed."""
import json

import pytest

from ansible_collections.macops.cluster.plugins.plugin_utils._bench_results import history_entry

from benchmark_pages import benchmark_pages
from generate_fixture import document_with_generate
from links_fixture import TESTS, document


def test_the_history_plot_follows_each_models_generation_speed(tmp_path):
    from ansible_collections.macops.cluster.plugins.plugin_utils import _bench_plots
    from ansible_collections.macops.cluster.plugins.plugin_utils._bench_results import history_entry

    first = document_with_generate()
    later = json.loads(json.dumps(first))
    later["run"].update(id="20261202T120000Z", finished="2026-12-02T12:00:00Z")
    history = [history_entry(first), history_entry(later)]
    assert _bench_plots._subjects(history, "tokens/s", "generation_tps ") == [
        "generation_tps tiny-qwen2 1 nodes", "generation_tps tiny-qwen2 4 nodes"]
    assert _bench_plots._subjects(history, "Gbit/s") == []
    images = _bench_plots.draw_plots(str(tmp_path), first, history)
    assert "history.png" in [name for name, _caption in images]
    assert (tmp_path / "history.png").stat().st_size > 5000


def test_the_report_draws_real_plots_and_links_them(tmp_path):
    image = pytest.importorskip("matplotlib.image")
    doc = document(TESTS)
    later = json.loads(json.dumps(doc))
    later["run"].update(id="20261201T130000Z", finished="2026-12-01T13:00:00Z")
    history = [history_entry(doc), history_entry(later)]
    images, page, markdown = benchmark_pages(str(tmp_path), doc, history)
    assert [name for name, _ in images] == ["links.png", "history.png"]
    for name, _caption in images:
        pixels = image.imread(str(tmp_path / name))
        assert pixels.shape[0] > 200 and pixels.shape[1] > 400 and pixels[..., :3].std() > 0.05
    assert '<img src="links.png"' in page and '<img src="history.png"' in page and page.count("LOW: tb4_cable") == 2
    assert 'href="benchmark.json"' in page and 'href="history.jsonl"' in page
    assert "![Bandwidth per cable and direction](links.png)" in markdown
    first_only = benchmark_pages(str(tmp_path), doc, history[:1])[0]
    assert [name for name, _ in first_only] == ["links.png"]
