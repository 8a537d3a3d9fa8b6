"""The GPU wired limit's plan (plugins/module_utils/_wired_limit.py): the reserve from the table in RAM order, an
explicit limit or reserve over the table, a limit that leaves nothing refused, unexpected sysctl output a parse
error."""
import pytest

from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError
from ansible_collections.macops.cluster.plugins.module_utils._wired_limit import parse_memory, plan_limit, reserve_for

GB = 1024


TABLE = [{"max_ram_mb": 98304, "reserve_mb": 8192}, {"max_ram_mb": 32768, "reserve_mb": 6144},
         {"max_ram_mb": 262144, "reserve_mb": 12288}, {"max_ram_mb": 999999999, "reserve_mb": 16384}]


@pytest.mark.parametrize("ram_gb, reserve_gb", [(16, 6), (32, 6), (36, 8), (64, 8), (96, 8), (128, 12),
                                                 (256, 12), (512, 16)])
def test_reserve_follows_the_table_in_ram_order(ram_gb, reserve_gb):
    assert reserve_for(ram_gb * GB, TABLE) == reserve_gb * GB


def test_explicit_limit_and_reserve_override_the_table():
    assert plan_limit(65536, wired_limit_mb=60000, table=TABLE) == (60000, 5536)
    assert plan_limit(65536, reserve_mb=4096, table=TABLE) == (61440, 4096)


@pytest.mark.parametrize("kwargs", [{"wired_limit_mb": 65536}, {"wired_limit_mb": 70000}, {"reserve_mb": 65536}])
def test_a_limit_that_leaves_nothing_is_refused(kwargs):
    with pytest.raises(ValueError, match="does not fit"):
        plan_limit(65536, table=TABLE, **kwargs)


@pytest.mark.parametrize("text", ["", "68719476736\n", "68719476736\nsysctl: unknown oid\n", "a\nb\n"])
def test_unexpected_sysctl_output_is_a_parse_error(text):
    with pytest.raises(ParseError):
        parse_memory(text)
