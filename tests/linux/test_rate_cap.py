"""A rated flow on the kernel never sends above its rate, even after an outage.

``iperf3 -b`` throttles the average since its test began, so after 8 s without a path it sends
as fast as the path allows until the average has caught up: a 4 Mbit/s flow through a 10 Mbit/s
access point ran at ~9.5 Mbit/s for several seconds after the cut (and naval-geo's flows at
9.5–13 Mbit/s through the UAV). The ``linux`` engine holds each rated flow to its rate at every
instant (:mod:`subflow.runplan.ratecap`), so once the path is back the flow resumes at its rate,
as the fluid engine's flow does. The reference is the flow's own rate (the scenario's
``rate_mbps``), not any engine's output.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from subflow.runplan.output_checks import check_output
from subflow.runplan.resolve import resolve_plan
from subflow_engines import linux

from .scenarios import CUT_END_S, CUT_START_S, path_cut

pytestmark = pytest.mark.linux

#: what a receiver counts over a window may exceed rate × window by what the network held when the
#: window began (queues, data an MPTCP receiver reorders) and by the sampler's bin edges: at most
#: 2 s of the flow's rate on these paths (base RTT 12–22 ms, queues drain in under a second)
HELD_S = 2.0
#: the cut ends at 18 s; single-path TCP's next retransmission after 8 s without a path comes 1–8 s later
DURATION_S = 34.0


def _rated(doc: dict, rate_mbps: float) -> dict:
    doc["flows"][0]["rate_mbps"] = rate_mbps
    return doc


def _after(flow, t0: float) -> list[tuple[float, float]]:
    return [(t, v) for t, v in zip(flow.t_s, flow.throughput_mbps) if t >= t0 - 1e-9]


def _largest_excess(samples: list[tuple[float, float]], rate_mbps: float, interval_s: float = 1.0) -> float:
    """Largest (bits delivered − rate × duration) over any run of consecutive samples, Mbit."""
    best = run = 0.0
    for _, v in samples:
        run = max(0.0, run + (v - rate_mbps) * interval_s)
        best = max(best, run)
    return best


def test_a_rated_flow_does_not_burst_after_an_outage(need_mptcp, no_leftovers):
    """Single-path TCP at 4 Mbit/s through the access point (cut for 8 s), and MPTCP at 6 Mbit/s over
    the access point and a 3 Mbit/s wired path (the wired path carries < 3 Mbit/s during the cut): after
    the cut, no run of samples holds more than the rate allows (plus what the network held), and the flow
    delivers its rate again."""
    sp_plan = resolve_plan(_rated(path_cut(with_wired_path=False, duration_s=DURATION_S), 4.0), "sptcp", "linux")
    mp_plan = resolve_plan(_rated(path_cut(duration_s=DURATION_S), 6.0), "mptcp", "linux")
    with ThreadPoolExecutor(2) as ex:
        sp, mp = [f.result() for f in [ex.submit(linux.run, sp_plan), ex.submit(linux.run, mp_plan)]]
    for out, rate, plan in ((sp, 4.0, sp_plan), (mp, 6.0, mp_plan)):
        check_output(plan, out)  # what the engine registry and the agent check on every kernel run
        f = out.flows[0]
        print(f"\n{out.strategy} rate {rate}: {[round(v, 2) for v in f.throughput_mbps]}")
        assert [c["flow"] for c in out.linux["rate_caps"]] == ["f"]
        excess = _largest_excess(_after(f, CUT_END_S), rate)
        assert excess <= rate * HELD_S, (
            f"{out.strategy}: {excess:.1f} Mbit more than {rate} Mbit/s over a window after the cut: "
            f"{[round(v, 2) for v in f.throughput_mbps]}")
        before = [v for t, v in zip(f.t_s, f.throughput_mbps) if 3.0 <= t < CUT_START_S - 1]
        back = next(t for t, v in _after(f, CUT_END_S) if v >= 0.5 * rate)  # TCP's RTO backoff decides when
        resumed = [v for t, v in _after(f, back + 1.0)]
        assert len(resumed) >= 3, f"{out.strategy} resumed at {back} s only"
        assert sum(before) / len(before) == pytest.approx(rate, rel=0.1)
        assert sum(resumed) / len(resumed) == pytest.approx(rate, rel=0.1)
    cut = [v for t, v in zip(sp.flows[0].t_s, sp.flows[0].throughput_mbps) if CUT_START_S + 1 <= t < CUT_END_S - 1]
    assert max(cut) < 0.05  # the single path was really cut
