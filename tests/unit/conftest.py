"""Prints how many bad-input cases the generated validator test ran (acceptance: the count shows). Here, beside
`tests/unit` itself, so that pytest-xdist's controller (make unit runs four processes), which loads the conftest files
of its arguments' directories but collects no test, prints it from its workers' reports."""


def pytest_terminal_summary(terminalreporter):
    ran = [report for report in terminalreporter.stats.get("passed", []) + terminalreporter.stats.get("failed", [])
           if "test_a_bad_value_is_refused_naming_the_variable" in report.nodeid and report.when == "call"]
    if ran:
        passed = len([r for r in ran if r.passed])
        terminalreporter.write_line("validate_inputs: %d generated bad-input cases ran, %d refused as they must"
                                    % (len(ran), passed))
