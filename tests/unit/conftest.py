"""Prints how many bad-input cases the generated validator test ran (acceptance: the count shows), and how many
plugin files have no mirrored test (issue 51: none). Here, beside `tests/unit` itself, so that pytest-xdist's
controller (make unit runs four processes), which loads the conftest files of its arguments' directories but collects
no test, prints them from its workers' reports."""


def pytest_terminal_summary(terminalreporter):
    ran = [report for report in terminalreporter.stats.get("passed", []) + terminalreporter.stats.get("failed", [])
           if "test_a_bad_value_is_refused_naming_the_variable" in report.nodeid and report.when == "call"]
    if ran:
        passed = len([r for r in ran if r.passed])
        terminalreporter.write_line("validate_inputs: %d generated bad-input cases ran, %d refused as they must"
                                    % (len(ran), passed))
    if any("test_tests_mirror_code.py" in report.nodeid for kind in ("passed", "failed")
           for report in terminalreporter.stats.get(kind, [])):
        from test_tests_mirror_code import plugin_files, unmirrored
        terminalreporter.write_line("tests mirror the code: %d plugin files, %d without a mirrored test"
                                    % (len(plugin_files()), len(unmirrored())))
