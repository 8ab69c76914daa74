"""The water level shared by the 802.11 cells and the SATCOM beams (:mod:`subflow.runplan.shares`)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, strategies as st

from subflow.runplan.shares import water_level


def test_equal_time_with_one_light_contender():
    """Three terminals, one needing 10 % of the time: the other two split the remaining 90 % equally."""
    assert water_level([0.1, math.inf, math.inf], [1.0, 1.0, 1.0]) == pytest.approx(0.45)


def test_equal_throughput_is_heusses_harmonic_share():
    """Saturated 802.11 stations at 54 and 6 Mbit/s alone get 1/(1/54 + 1/6) = 5.4 Mbit/s each
    (Heusse et al. 2003): the level with weights 1/g_j."""
    assert water_level([math.inf, math.inf], [1 / 54, 1 / 6]) == pytest.approx(1 / (1 / 54 + 1 / 6))


def test_no_level_when_every_need_fits():
    assert water_level([0.2, 0.3], [1.0, 1.0]) is None


@given(st.lists(st.tuples(st.floats(0.01, 5.0), st.floats(0.01, 10.0)), min_size=1, max_size=30))
def test_the_level_fills_exactly_one_unit_of_time(pairs):
    needs, weights = [p[0] for p in pairs], [p[1] for p in pairs]
    level = water_level(needs, weights)
    if sum(needs) <= 1.0:
        assert level is None
    else:
        assert sum(min(x, level * w) for x, w in zip(needs, weights)) == pytest.approx(1.0, rel=1e-9)
