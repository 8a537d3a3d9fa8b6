"""macops.cluster.doctor_findings (doctor.yml's judge as a filter): it takes the sweep's registered results and
refuses anything else."""
import copy

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.macops.cluster.plugins.filter.doctor_findings import doctor_findings

from doctor_sweep import PYTHON_OK, healthy_sweep


def test_the_filter_takes_registered_results_and_refuses_anything_else():
    sweep = healthy_sweep()
    result = doctor_findings({"mac1": copy.deepcopy(sweep)}, {"mac1": PYTHON_OK}, {}, {"timeout": 120})
    assert result["nodes"]["mac1"]["problems"] == [] and result["topology"] == {"problems": []}
    with pytest.raises(AnsibleFilterError, match="registered result"):
        doctor_findings("not a result", {"mac1": PYTHON_OK}, {}, {})
