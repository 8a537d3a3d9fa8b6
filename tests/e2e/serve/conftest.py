"""The serving lane (make e2e runs it on lab 2, beside labs 0 and 1): a lab converged by one site.yml run,
what serving needs (the environment, the hostfiles, the firewall), without exo, which serving with mlx-lm
does not use (its pip install is a tenth of an end-to-end run's CPU). site.yml's own acceptance on a
converged lab (check mode, idempotence) is lab 0's (tests/e2e/conftest.py), so this lane does not pay for it
again."""
import pytest


@pytest.fixture(scope="session")
def lab_shape():
    """Four Macs in the cluster and a fifth on the shelf (up, its cables unplugged, outside the group macs), which
    test_serve_membership.py adds to the cluster and retires again once serving is done."""
    return ("--nodes", "5", "--spare", "1")


@pytest.fixture(scope="session")
def converged(site):
    site("--skip-tags", "exo")
    return {}
