"""examples/naval-geo-shared-beam.json: three ships in one Ka spot beam sharing its return carrier in equal
airtime, ship 2 under a scripted rain fade, ship 2 also reachable through a UAV relay.

Expected figures are worked by hand from the spectral efficiencies of ETSI EN 302 307-1 Table 13 (bit/symbol:
8PSK 2/3 1.980636, 16APSK 3/4 2.966728, QPSK 3/5 1.188304, QPSK 1/3 0.656448) at the beam's 5 Msym/s, the
flows' rates on the wire (× 1514/1448: 5 → 5.227901, 1 → 1.045580 Mbit/s) and the equal-airtime rule
(docs/satcom.md, "Shared beams"):

* alone: ship 1 (8PSK 2/3) 9.90318, ship 2 clear (16APSK 3/4) 14.83364, ship 3 (QPSK 3/5) 5.94152 Mbit/s;
* [0, 30) s, ships 1 and 2: ship 2 needs 5.227901/14.83364 = 0.352436 of the time (< ½), ship 1 gets the rest,
  0.647564 → 6.41294 Mbit/s;
* [30, 60) s, ship 3 joins needing 1.04558/5.94152 = 0.175978: the others may have (1 − 0.175978)/2 = 0.412011
  each, ship 2 needs less (0.352436) and ship 1 gets 1 − 0.352436 − 0.175978 = 0.471586 → 4.67017 Mbit/s;
* from 60 s ship 2 is at 8PSK 2/3 (9.90318 alone) and needs 0.527900 > 0.412011: ships 1 and 2 both get
  0.412011 → 4.08022 Mbit/s each; at the fade's peak [100, 140) s, QPSK 1/3 (3.28224 alone): ship 2
  0.412011 × 3.28224 = 1.35232 Mbit/s, ship 1 unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from subflow.runplan.document import goodput_fraction
from subflow.runplan.resolve import resolve_plan
from subflow.runplan.topology import NetworkTimeline
from subflow.scenario.document import load_scenario

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "naval-geo-shared-beam.json"
UP1, UP2, UP3 = "ship1-ka:ship1>kasat", "ship2-ka:ship2>kasat", "ship3-ka:ship3>kasat"
PAYLOAD = goodput_fraction(1448)


def _doc() -> dict:
    return json.loads(EXAMPLE.read_text())


def _capacity(plan, resource: str, t: float) -> float:
    value = next(r.capacity_mbps for r in plan.resources if r.id == resource)
    for c in plan.capacity_changes:
        if c.resource == resource and c.t_s <= t:
            value = c.capacity_mbps
    return value


def _mean(values, t0: int, t1: int) -> float:
    return sum(values[t0:t1]) / (t1 - t0)


def test_the_example_is_valid_and_ship2s_modcod_steps_down_in_the_fade():
    load_scenario(_doc())
    net = NetworkTimeline(_doc())
    up = dict(zip(net.link_budgets["ship2-ka"].t_s.tolist(), net.link_budgets["ship2-ka"].up_modcod))
    assert [up[t] for t in (0.0, 59.0, 60.0, 80.0, 100.0, 139.0, 140.0, 160.0, 180.0)] == [
        "16APSK 3/4", "16APSK 3/4", "8PSK 2/3", "QPSK 3/5", "QPSK 1/3", "QPSK 1/3", "QPSK 3/5", "8PSK 2/3",
        "16APSK 3/4"]
    # the clear-sky ships keep one MODCOD throughout
    assert set(net.link_budgets["ship1-ka"].up_modcod) == {"8PSK 2/3"}
    assert set(net.link_budgets["ship3-ka"].up_modcod) == {"QPSK 3/5"}


def test_the_other_ships_shares_change_with_the_fade_and_ship3s_start():
    plan = resolve_plan(_doc(), "sptcp")
    assert _capacity(plan, UP1, 10.0) == pytest.approx(6.41294, rel=1e-5)
    assert _capacity(plan, UP1, 45.0) == pytest.approx(4.67017, rel=1e-5)
    assert _capacity(plan, UP1, 70.0) == pytest.approx(4.08022, rel=1e-5)
    assert _capacity(plan, UP2, 70.0) == pytest.approx(4.08022, rel=1e-5)
    assert _capacity(plan, UP2, 120.0) == pytest.approx(1.35232, rel=1e-5)
    assert _capacity(plan, UP1, 120.0) == pytest.approx(4.08022, rel=1e-5)
    # after the fade, the shares of [30, 60) s again
    assert _capacity(plan, UP1, 200.0) == pytest.approx(4.67017, rel=1e-5)


def test_fluid_sptcp_and_mptcp_react_to_the_fade():
    """On the fluid engine: ship 1's bulk goodput follows its share (4.67017 → 4.08022 Mbit/s × 1448/1514);
    single-path ship 2 (over SATCOM, the fewest hops) carries its 5 Mbit/s in clear sky and drops to its faded
    share at the peak (1.35232 × 1448/1514 = 1.2934); MPTCP keeps the UAV subflow at its 3 Mbit/s backhaul
    (× 1448/1514 = 2.869) and its SATCOM subflow falls to the faded share: the UAV's part of the flow rises."""
    from subflow_engines import run_plan

    sp = {f.id: f for f in run_plan(resolve_plan(_doc(), "sptcp")).flows}
    assert _mean(sp["f1"].throughput_mbps, 40, 60) == pytest.approx(4.67017 * PAYLOAD, rel=0.03)
    assert _mean(sp["f1"].throughput_mbps, 110, 140) == pytest.approx(4.08022 * PAYLOAD, rel=0.03)
    assert _mean(sp["f2"].throughput_mbps, 40, 60) == pytest.approx(5.0, rel=0.02)
    assert _mean(sp["f2"].throughput_mbps, 110, 140) == pytest.approx(1.35232 * PAYLOAD, rel=0.03)
    mp = next(f for f in run_plan(resolve_plan(_doc(), "mptcp")).flows if f.id == "f2")
    by_path = {tuple(s.path): s for s in mp.subflows}
    uav = by_path[("ship2", "uav", "gcs", "teleport", "shore")].throughput_mbps
    sat = by_path[("ship2", "kasat", "teleport", "shore")].throughput_mbps
    assert _mean(uav, 40, 60) == pytest.approx(3.0 * PAYLOAD, rel=0.03)
    assert _mean(uav, 110, 140) == pytest.approx(3.0 * PAYLOAD, rel=0.03)
    assert _mean(sat, 110, 140) == pytest.approx(1.35232 * PAYLOAD, rel=0.05)
    share_clear = _mean(uav, 40, 60) / _mean(mp.throughput_mbps, 40, 60)
    share_fade = _mean(uav, 110, 140) / _mean(mp.throughput_mbps, 110, 140)
    assert share_fade > share_clear + 0.1
