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

from .scenarios import SECOND_START_S, beam_two_ships

pytestmark = pytest.mark.linux

PAYLOAD = goodput_fraction(1448)
#: a change is applied this soon after its time, s (as in test_capacity_steps)
APPLIED_WITHIN_S = 0.5
#: the bins after a change or a start left out of a phase: the queue drains, the 1 s bins straddle the change,
#: and TCP's first RTTs over the GEO path (≈ 0.52 s) are slow start
SETTLE_S = 2.0


def _vals(series, t_s, t0: float, t1: float) -> list[float]:
    return [v for t, v in zip(t_s, series) if t >= t0 - 1e-9 and t + 1.0 <= t1 + 1e-9]


def _median(series, t_s, t0: float, t1: float) -> float:
    vals = sorted(_vals(series, t_s, t0, t1))
    n = len(vals)
    return 0.5 * (vals[(n - 1) // 2] + vals[n // 2])


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
