"""The report's Markdown tables (plugins/plugin_utils/_markdown.py): a header row, the separator with one column
per header, then one line per row with each cell as text, written as given."""
from ansible_collections.macops.cluster.plugins.plugin_utils._markdown import md_table


def test_a_table_is_its_header_its_separator_and_a_line_per_row():
    assert md_table(["Node", "Files", "GB"], [["mac1", 5, 1.5], ["mac2", 0, None]]) == [
        "| Node | Files | GB |",
        "|---|---|---|",
        "| mac1 | 5 | 1.5 |",
        "| mac2 | 0 | None |",
    ]


def test_a_table_without_rows_is_its_header_alone_and_cells_are_not_escaped():
    assert md_table(["A"], []) == ["| A |", "|---|"]
    assert md_table(["A"], [["a|b_c"]])[2] == "| a|b_c |"  # the caller escapes what needs it
