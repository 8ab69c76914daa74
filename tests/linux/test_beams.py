"""Shared beams on the real kernel: the members' time shares of a beam's carrier are the plan's capacity
changes of their links, applied by ``tc class change`` at the plan's change points like a link budget's
MODCOD steps (docs/satcom.md, "Shared beams").

References, not computed by the engine:

* a terminal's capacity alone is the beam's symbol rate × its MODCOD's spectral efficiency (ETSI EN 302 307-1
  Table 13, bit/symbol: 16APSK 2/3 2.637201, 16APSK 5/6 3.300184, 32APSK 5/6 4.119540, QPSK 2/3 1.322253);
  with equal airtime two saturated terminals get half the time each;
* a bulk TCP flow alone on an HTB class of rate R carries R × 1448/1514 of goodput (Ethernet framing);
* the fluid engine's figures for the same plan, where a phase's figure depends on TCP's dynamics (MPTCP).

Real time: 30 s, 34 s and 34 s of traffic, each after a few seconds of set-up.
"""

from __future__ import annotations

import pytest

from subflow.runplan.document import goodput_fraction
from subflow.runplan.resolve import resolve_plan
from subflow.runplan.topology import NetworkTimeline
from subflow_engines import linux
from subflow_engines.fluid import run as fluid_run

from .scenarios import BEAM_FADE_END_S, BEAM_FADE_START_S, SECOND_START_S, beam_fade_uav, beam_two_ships

pytestmark = pytest.mark.linux

PAYLOAD = goodput_fraction(1448)
#: a change is applied this soon after its time, s (as in test_capacity_steps)
APPLIED_WITHIN_S = 0.5
#: the bins after a change or a start left out of a phase: the queue drains, the 1 s bins straddle the change,
#: and TCP's first RTTs over the GEO path (≈ 0.52 s) are slow start
SETTLE_S = 2.0
UAV_PATH = ["ship2", "uav", "gcs", "teleport", "shore"]
SAT_PATH = ["ship2", "kasat", "teleport", "shore"]


def _vals(series, t_s, t0: float, t1: float) -> list[float]:
    return [v for t, v in zip(t_s, series) if t >= t0 - 1e-9 and t + 1.0 <= t1 + 1e-9]


def _median(series, t_s, t0: float, t1: float) -> float:
    vals = sorted(_vals(series, t_s, t0, t1))
    n = len(vals)
    return 0.5 * (vals[(n - 1) // 2] + vals[n // 2])


def _mean(series, t_s, t0: float, t1: float) -> float:
    vals = _vals(series, t_s, t0, t1)
    return sum(vals) / len(vals)


def test_the_first_terminals_kernel_throughput_halves_when_the_second_starts(need_linux, no_leftovers):
    """Two ships on a 2.5 Msym/s return carrier, equal airtime. Ship1 closes 16APSK 2/3: alone 2.5 × 2.637201 =
    6.593003 Mbit/s, 6.305 of goodput; when ship2's flow starts at 10 s each has half the time: 3.296501 Mbit/s,
    3.153 of goodput. On the kernel the class changes within APPLIED_WITHIN_S of 10 s and ship1's median 1 s
    goodput after it is half the one before within ±15 % (each within 5 % of its reference)."""
    doc = beam_two_ships()
    net = NetworkTimeline(doc)
    assert set(net.link_budgets["ship1-ka"].up_modcod) == {"16APSK 2/3"}
    assert set(net.link_budgets["ship2-ka"].up_modcod) == {"16APSK 5/6"}
    plan = resolve_plan(doc, "sptcp", "linux")
    out = linux.run(plan)
    f1, f2 = (next(f for f in out.flows if f.id == fid) for fid in ("f1", "f2"))
    print(f"\nship1: {[round(v, 2) for v in f1.throughput_mbps]}\nship2: {[round(v, 2) for v in f2.throughput_mbps]}")
    applied = [c for c in out.linux["capacity_changes"] if c["resource"] == "ship1-ka:ship1>kasat"]
    assert [(c["t_s"], round(c["capacity_mbps"], 5)) for c in applied] == [(SECOND_START_S, 3.2965)]
    assert 0.0 <= applied[0]["applied_s"] - SECOND_START_S < APPLIED_WITHIN_S
    assert any("satcom.beams[0] (ka-spot)" in n for n in out.linux["notes"])
    before = _median(f1.throughput_mbps, f1.t_s, 6.0, SECOND_START_S)
    after = _median(f1.throughput_mbps, f1.t_s, SECOND_START_S + SETTLE_S, plan.duration_s)
    print(f"ship1 median {before:.3f} → {after:.3f} Mbit/s ({after / before:.3f})")
    assert after / before == pytest.approx(0.5, rel=0.15)
    assert before == pytest.approx(6.593003 * PAYLOAD, rel=0.05)
    assert after == pytest.approx(3.296501 * PAYLOAD, rel=0.05)
    # the second ship carries its own half: 2.5 × 3.300184 / 2 = 4.12523 Mbit/s, 3.945 of goodput
    assert _median(f2.throughput_mbps, f2.t_s, SECOND_START_S + 6.0, plan.duration_s) == pytest.approx(
        4.12523 * PAYLOAD, rel=0.05)


def _fade_plan(strategy: str):
    doc = beam_fade_uav()
    net = NetworkTimeline(doc)
    up = dict(zip(net.link_budgets["ship2-ka"].t_s.tolist(), net.link_budgets["ship2-ka"].up_modcod))
    assert up[10.0] == "32APSK 5/6" and up[20.0] == "QPSK 2/3"
    return resolve_plan(doc, strategy, "linux")


#: ship2 alone on the 2 Msym/s return carrier: 2 × 4.119540 = 8.23908 Mbit/s clear, 2 × 1.322253 = 2.644506 in
#: the fade
CLEAR_MBPS, FADED_MBPS = 8.23908, 2.644506


def test_sptcp_over_satcom_drops_to_the_faded_capacity(need_linux, no_leftovers):
    """Single-path TCP takes the SATCOM path (3 hops against the UAV's 4): on the kernel its median 1 s goodput
    is 8.23908 × 1448/1514 = 7.880 Mbit/s before the fade and 2.644506 × 1448/1514 = 2.529 in it (each within
    5 %, as the class rate; the mean within 15 %)."""
    plan = _fade_plan("sptcp")
    assert [sp.nodes for s in plan.flows[0].segments for sp in s.subflows] == [SAT_PATH]
    out = linux.run(plan)
    f = out.flows[0]
    print(f"\nsptcp in the fade: {[round(v, 2) for v in f.throughput_mbps]}")
    applied = [(c["t_s"], round(c["capacity_mbps"], 5)) for c in out.linux["capacity_changes"]
               if c["resource"] == "ship2-ka:ship2>kasat"]
    assert applied == [(BEAM_FADE_START_S, round(FADED_MBPS, 5)), (BEAM_FADE_END_S, round(CLEAR_MBPS, 5))]
    assert all(0.0 <= c["applied_s"] - c["t_s"] < APPLIED_WITHIN_S for c in out.linux["capacity_changes"])
    fade = (BEAM_FADE_START_S + SETTLE_S, BEAM_FADE_END_S)
    assert _median(f.throughput_mbps, f.t_s, 7.0, BEAM_FADE_START_S) == pytest.approx(CLEAR_MBPS * PAYLOAD, rel=0.05)
    assert _median(f.throughput_mbps, f.t_s, *fade) == pytest.approx(FADED_MBPS * PAYLOAD, rel=0.05)
    assert _mean(f.throughput_mbps, f.t_s, *fade) == pytest.approx(FADED_MBPS * PAYLOAD, rel=0.15)


def test_mptcp_shifts_to_the_uav_in_the_fade(need_linux, no_leftovers):
    """MPTCP over SATCOM and the UAV relay (3 Mbit/s backhaul): in the fade its SATCOM subflow falls to the faded
    capacity and the UAV's part of the flow rises (on the fluid engine from 2.87/10.75 = 27 % to 2.87/5.40 =
    53 %); on the kernel the UAV's part of the bytes in the fade exceeds its part before it by at least 0.15, and
    the flow's median 1 s goodput in the fade is within ±20 % of the fluid engine's."""
    plan = _fade_plan("mptcp")
    assert sorted(sp.nodes for s in plan.flows[0].segments for sp in s.subflows) == sorted([SAT_PATH, UAV_PATH])
    model = fluid_run(plan).flows[0]
    out = linux.run(plan)
    f = out.flows[0]
    by_path = {tuple(s.path): s for s in f.subflows}
    uav, sat = by_path[tuple(UAV_PATH)], by_path[tuple(SAT_PATH)]
    print(f"\nmptcp in the fade: {[round(v, 2) for v in f.throughput_mbps]}\n  uav {[round(v, 2) for v in uav.throughput_mbps]}"
          f"\n  sat {[round(v, 2) for v in sat.throughput_mbps]}")
    clear, fade = (7.0, BEAM_FADE_START_S), (BEAM_FADE_START_S + SETTLE_S, BEAM_FADE_END_S)
    share = {name: _mean(uav.throughput_mbps, uav.t_s, *ph) / _mean(f.throughput_mbps, f.t_s, *ph)
             for name, ph in (("clear", clear), ("fade", fade))}
    total, fluid_total = _median(f.throughput_mbps, f.t_s, *fade), _median(model.throughput_mbps, model.t_s, *fade)
    print(f"UAV share {share['clear']:.2f} → {share['fade']:.2f}; fade total linux {total:.3f} fluid {fluid_total:.3f}")
    assert share["fade"] >= share["clear"] + 0.15
    assert total == pytest.approx(fluid_total, rel=0.20)
    assert _median(sat.throughput_mbps, sat.t_s, *fade) == pytest.approx(FADED_MBPS * PAYLOAD, rel=0.20)
