"""benchmark.yml's pages as the tests read them: the run's plots drawn beside the report, its section of
the one report model (checked against docs/report.schema.json), and the one renderer's page and Markdown."""
import json

from report_schema import assert_valid_report

from ansible_collections.macops.cluster.plugins.plugin_utils._bench_plots import draw_plots
from ansible_collections.macops.cluster.plugins.plugin_utils._bench_section import benchmark_section
from ansible_collections.macops.cluster.plugins.plugin_utils._report_model import build_report_model
from ansible_collections.macops.cluster.plugins.plugin_utils._report_render import render_html, render_markdown


def benchmark_pages(dest, document, history):
    """(images, page, markdown); ``dest`` None draws no plot."""
    images = draw_plots(dest, document, history) if dest else []
    model = build_report_model({"mac1": {}}, {}, document["problems"], "Mac cluster benchmark",
                               {"playbook": "benchmark.yml"}, [benchmark_section(document, images)])
    assert_valid_report(json.loads(json.dumps(model)))
    return images, render_html(model), render_markdown(model)
