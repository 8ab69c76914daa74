"""The embedded engine against real kernel TCP/MPTCP: mean throughput per phase within 15 %.

Both engines run the same plan (same resolve_plan), the linux engine in network
namespaces with HTB shaping (its goodput tops out near 0.956 of a link's rate,
since HTB counts Ethernet frames), the fluid engine as a flow-level model.
"""

from __future__ import annotations

import pytest

from subflow.plan import resolve_plan
from subflow_engines import linux
from subflow_engines.fluid import run as fluid_run

from .scenarios import CUT_END_S, CUT_START_S, path_cut, two_path

pytestmark = pytest.mark.linux


def _mean_in(flow, t0: float, t1: float) -> float:
    vals = [v for t, v in zip(flow.t_s, flow.throughput_mbps) if t >= t0 - 1e-9 and t + 1.0 <= t1 + 1e-9]
    return sum(vals) / len(vals)


def _both(doc: dict, strategy: str):
    """The fluid run first (milliseconds), then the real-time kernel run with the CPU to itself:
    the linux engine's delay line runs in this process and must not compete with the model."""
    plan = resolve_plan(doc, strategy, "linux")
    model = fluid_run(plan)
    return linux.run(plan), model


def test_two_path_phases_match_real_tcp(need_mptcp, no_leftovers):
    report = []
    for strategy, doc in (("mptcp", two_path(15.0)), ("sptcp", two_path(15.0, with_slow_path=False))):
        real, model = _both(doc, strategy)
        r, m = _mean_in(real.flows[0], 3.0, 15.0), _mean_in(model.flows[0], 3.0, 15.0)
        report.append(f"{strategy}: linux {r:.2f} fluid {m:.2f} Mbit/s")
        assert m == pytest.approx(r, rel=0.15), report
    print("\n" + "; ".join(report))


def test_path_cut_phases_match_real_tcp(need_mptcp, no_leftovers):
    phases = {"before": (2.0, CUT_START_S), "during": (CUT_START_S + 1.0, CUT_END_S), "after": (CUT_END_S + 6.0, 28.0)}
    report = []
    for strategy, doc in (("mptcp", path_cut(with_wired_path=True)), ("sptcp", path_cut(with_wired_path=False))):
        real, model = _both(doc, strategy)
        for phase, (t0, t1) in phases.items():
            r, m = _mean_in(real.flows[0], t0, t1), _mean_in(model.flows[0], t0, t1)
            report.append(f"{strategy} {phase}: linux {r:.2f} fluid {m:.2f}")
            if r < 0.05:  # a cut single path: both must be at zero
                assert m < 0.05, report
            else:
                assert m == pytest.approx(r, rel=0.15), report
    print("\n" + "; ".join(report))
