"""A TB4 cable runs at a quarter of the lab's TB5 rate, whatever `maclab up --link-rate` set."""
import pytest

from macsim import topology


@pytest.mark.parametrize("link_rate, expected", [("4gbit", "1gbit"), ("1gbit", "250mbit"), ("2gbit", "500mbit"),
                                                 ("8gbit", "2gbit"), ("500mbit", "125mbit")])
def test_the_tb4_rate_is_a_quarter_of_the_tb5_rate(link_rate, expected):
    assert topology.tb4_rate(link_rate) == expected


def test_a_degraded_cable_takes_the_labs_own_tb4_rate():
    cable = {}
    topology.set_kind(cable, "tb4", "1gbit")
    assert (cable["speed"], cable["rate"]) == (topology.TB4_SPEED, "250mbit")
    assert topology.DEFAULT_TB4_RATE == "1gbit"


def test_a_rate_tc_does_not_take_is_refused():
    with pytest.raises(ValueError, match="not a tc rate"):
        topology.tb4_rate("fast")
