"""Demand-assigned (DAMA) sharing of a beam's carrier: a guaranteed minimum share per active terminal, the rest
in proportion to the unmet demand (:func:`subflow.runplan.beams.demand_assigned_shares`, docs/satcom.md).

Every expected figure below is worked by hand from the rule

    x_i = min(d_i / c_i, 1);  Σ x ≤ 1: c_i (1 − Σ_{j≠i} x_j);
    else g_i = min(x_i, m), R = 1 − Σ g, u_i = x_i − g_i, a_i = g_i + R u_i / Σ u, capacity a_i c_i

and the spectral efficiencies of ETSI EN 302 307-1 Table 13 (16APSK 4/5 3.165623, QPSK 3/5 1.188304 bit/symbol).
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subflow.errors import ScenarioInvalid
from subflow.runplan.beams import demand_assigned_shares, equal_airtime_shares
from subflow.runplan.resolve import resolve_plan
from subflow.scenario.document import load_scenario

from .test_beams import GOODPUT_FRACTION, RS_MSPS, beam_scenario

INF = math.inf


def test_three_terminals_short_of_time_by_hand():
    """c = 10, 10, 5 Mbit/s; demands bulk, 6 and 4 Mbit/s; m = 0.2. Needs x = 1, 0.6, 0.8 (Σ 2.4 > 1);
    guaranteed 0.2 each, R = 0.4; unmet 0.8, 0.4, 0.6 (Σ 1.8): a = 0.2 + 0.4·0.8/1.8 = 0.377778,
    0.2 + 0.4·0.4/1.8 = 0.288889, 0.2 + 0.4·0.6/1.8 = 0.333333 → 3.777778, 2.888889, 1.666667 Mbit/s."""
    got = demand_assigned_shares([10.0, 10.0, 5.0], [INF, 6.0, 4.0], 0.2)
    assert got == pytest.approx([3.7777778, 2.8888889, 1.6666667], rel=1e-6)
    # equal airtime gives the same three a third of the time each (3.333, 3.333, 1.667): DAMA moves time to
    # the bulk terminal, which asks for the most
    assert equal_airtime_shares([10.0, 10.0, 5.0], [INF, 6.0, 4.0]) == pytest.approx([10 / 3, 10 / 3, 5 / 3])


def test_a_small_demand_is_served_whole_and_the_bulk_terminal_takes_the_rest():
    """c = 10, 10; demands bulk and 1 Mbit/s; m = 0.5: x = 1, 0.1; guaranteed 0.5 and 0.1, R = 0.4, unmet 0.5
    and 0 → a = 0.9, 0.1: 9 and 1 Mbit/s (the small terminal gets exactly its demand)."""
    assert demand_assigned_shares([10.0, 10.0], [INF, 1.0], 0.5) == pytest.approx([9.0, 1.0])


def test_demands_that_fit_leave_the_free_time_to_each():
    """c = 10, 20; demands 2 and 4 (x = 0.2, 0.2, Σ 0.4 ≤ 1): each may use what the other leaves,
    10 × 0.8 = 8 and 20 × 0.8 = 16 Mbit/s."""
    assert demand_assigned_shares([10.0, 20.0], [2.0, 4.0], 0.25) == pytest.approx([8.0, 16.0])
    # a bulk terminal alone has the whole carrier
    assert demand_assigned_shares([7.0], [INF], 1.0) == pytest.approx([7.0])


def test_two_bulk_terminals_split_the_time_equally():
    """Both need the whole carrier: guaranteed m each, the rest in equal parts (equal unmet needs) → ½ each."""
    assert demand_assigned_shares([15.828115, 5.94152], [INF, INF], 0.1) == pytest.approx([7.9140575, 2.97076])


@pytest.mark.parametrize("caps, demands, m", [
    ([], [], 0.5), ([1.0], [1.0, 2.0], 0.5), ([0.0], [1.0], 0.5), ([1.0], [-1.0], 0.5),
    ([1.0, 1.0], [INF, INF], 0.6), ([1.0], [INF], 0.0),
])
def test_bad_arguments_raise(caps, demands, m):
    with pytest.raises(ValueError):
        demand_assigned_shares(caps, demands, m)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.floats(min_value=0.01, max_value=500),
                          st.floats(min_value=0.01, max_value=500) | st.just(INF)), min_size=1, max_size=12),
       st.floats(min_value=0.01, max_value=1.0))
def test_dama_properties(terminals, fraction):
    """Time shares sum to at most 1; every active terminal gets at least min_share (or its whole need, if
    smaller); while another terminal is short, none gets more than it needs; never above its capacity alone."""
    caps, demands = [c for c, _ in terminals], [d for _, d in terminals]
    m = fraction / len(caps)
    shares = demand_assigned_shares(caps, demands, m)
    need = [min(d / c, 1.0) for c, d in zip(caps, demands)]
    time = [s / c for s, c in zip(shares, caps)]
    assert all(0 < s <= c * (1 + 1e-9) for s, c in zip(shares, caps))
    assert sum(min(t, x) for t, x in zip(time, need)) <= 1 + 1e-9
    assert all(t >= min(m, x) * (1 - 1e-9) for t, x in zip(time, need))
    if sum(need) > 1:
        assert sum(time) == pytest.approx(1.0)
        assert all(t <= x * (1 + 1e-9) for t, x in zip(time, need))
        # bulk terminals (need the whole carrier) are never starved
        assert all(t >= m * (1 - 1e-9) for t, d in zip(time, demands) if d == INF)


def _dama_scenario(min_share: float | None = 0.25) -> dict:
    d = beam_scenario()
    d["satcom"]["beams"][0].update(policy="demand_assigned", min_share=min_share)
    d["flows"][1]["rate_mbps"] = 2.0
    return d


#: ship2's 2 Mbit/s of goodput on the wire: 2 × 1514/1448 = 2.091160 Mbit/s; of its 5.94152 Mbit/s alone
#: (QPSK 3/5) it needs x2 = 0.351957 of the time; ship1 (bulk) needs 1. m = 0.25: R = 0.5, unmet 0.75 and
#: 0.101957 (Σ 0.851957): a1 = 0.25 + 0.5 × 0.75/0.851957 = 0.690163, a2 = 0.309837 →
#: 0.690163 × 15.828115 = 10.923979 and 0.309837 × 5.94152 = 1.840903 Mbit/s
DAMA_SHIP1_MBPS, DAMA_SHIP2_MBPS = 10.923979, 1.840903


def test_plan_of_a_demand_assigned_beam():
    plan = resolve_plan(_dama_scenario(), "sptcp")
    shared = {c.resource: c.capacity_mbps for c in plan.capacity_changes if c.t_s == 0.0}
    assert shared["ship1-ka:kasat>ship1"] == pytest.approx(DAMA_SHIP1_MBPS, rel=1e-6)
    assert shared["ship2-ka:kasat>ship2"] == pytest.approx(DAMA_SHIP2_MBPS, rel=1e-6)
    assert DAMA_SHIP1_MBPS / (RS_MSPS * 3.165623) + DAMA_SHIP2_MBPS / (RS_MSPS * 1.188304) == pytest.approx(1.0)


def test_default_min_share_is_half_the_carrier_over_the_members():
    """min_share null with 2 members: m = 1/4, the same plan as min_share 0.25."""
    a = resolve_plan(_dama_scenario(None), "sptcp").capacity_changes
    b = resolve_plan(_dama_scenario(0.25), "sptcp").capacity_changes
    assert a == b


def test_fluid_goodputs_follow_the_demand_assigned_shares():
    """Each flow's goodput is its capacity × 1448/1514: 10.448 and 1.761 Mbit/s (ship2's 2 Mbit/s flow is short:
    the bulk flow's demand is the whole carrier)."""
    from subflow_engines import run_plan

    out = run_plan(resolve_plan(_dama_scenario(), "sptcp"))
    mean = {f.id: sum(f.throughput_mbps[10:]) / len(f.throughput_mbps[10:]) for f in out.flows}
    assert mean["f1"] == pytest.approx(DAMA_SHIP1_MBPS * GOODPUT_FRACTION, rel=0.03)
    assert mean["f2"] == pytest.approx(DAMA_SHIP2_MBPS * GOODPUT_FRACTION, rel=0.03)


@pytest.mark.parametrize("edit", [
    {"policy": "demand_assigned", "min_share": 0.6},       # above 1/2 with two members
    {"policy": "equal_airtime", "min_share": 0.2},         # no meaning under equal airtime
    {"policy": "demand_assigned", "min_share": 0.0},
])
def test_bad_min_share_refused_naming_the_field(edit):
    d = beam_scenario()
    d["satcom"]["beams"][0].update(edit)
    with pytest.raises(ScenarioInvalid) as exc:
        load_scenario(d)
    assert ["satcom", "beams", 0, "min_share"] in [list(e["loc"])[:4] for e in exc.value.errors]
