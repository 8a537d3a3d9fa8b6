"""The serving lane (make e2e runs it on lab 2, beside labs 0 and 1): a lab converged by one site.yml run,
what serving needs (the environment, the hostfiles, the firewall), without exo, which serving with mlx-lm
does not use (its pip install is a tenth of an end-to-end run's CPU). site.yml's own acceptance on a
converged lab (check mode, idempotence) is lab 0's (tests/e2e/conftest.py), so this lane does not pay for it
again."""
import glob
import os

import pytest

from labtools import ROOT

# The serving job's logs on each simulated Mac (serve_log_dir's default): what a failed serving test needs to be
# understood after the lab is gone.
SERVE_LOGS = ("serve.log", "rank.log")
SERVE_LOG_TAIL_BYTES = 6000


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):  # noqa: ARG001 - pytest's hook signature
    """A failed serving test carries the tail of every node's serving logs in its report (CI keeps only the
    output; the lab is taken down after the run)."""
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed:
        return
    for path in sorted(glob.glob(os.path.join(ROOT, "hosts", "*", "fs", "Library", "Logs", "macops", "serve", "*"))):
        if os.path.basename(path) not in SERVE_LOGS:
            continue
        with open(path, "rb") as handle:
            handle.seek(max(0, os.path.getsize(path) - SERVE_LOG_TAIL_BYTES))
            tail = handle.read().decode("utf-8", "replace")
        report.sections.append(("serving log %s" % os.path.relpath(path, ROOT), tail))


# The lane's Macs carry a security response (issue 48), as Macs on 26.3.1 took the Background Security Improvement
# 26.3.1 (a) in March 2026: site.yml, doctor.yml, serving and update-macos.yml all run on such nodes here.
RESPONSE_OS = "26.3.1 (a):25D771280a"


@pytest.fixture(scope="session")
def lab_shape():
    """Four Macs in the cluster and a fifth on the shelf (up, its cables unplugged, outside the group macs), which
    test_serve_membership.py adds to the cluster and retires again once serving is done; each on RESPONSE_OS."""
    return ("--nodes", "5", "--spare", "1", "--macos", RESPONSE_OS)


@pytest.fixture(scope="session")
def converged(site):
    # An MLX-only cluster by the one switch (issue 49): no exo installed, no build tools asked for.
    site("-e", '{"macops_exo_enabled": false}')
    return {}
