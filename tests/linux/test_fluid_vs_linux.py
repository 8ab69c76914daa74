"""The embedded engine against real kernel TCP/MPTCP: mean throughput per phase within 15 %.

Both engines run the same plan (same resolve_plan), the linux engine in network
namespaces with HTB shaping (its goodput tops out near 0.956 of a link's rate,
since HTB counts Ethernet frames), the fluid engine as a flow-level model.
"""

from __future__ import annotations

import pytest

from subflow.runplan.resolve import resolve_plan
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


# ---------------------------------------------------------------- loss: the validation grid, sampled
# Cells of subflow_testbeds.grid, 25 s runs, goodput after 5 s, compared at the scenario's (configured)
# RTT: the kernel honours it within max(0.5 ms, 3 %) (test_delay_accuracy.py; before the delay line held
# packets from the kernel's receive timestamp its own latency lengthened the kernel's RTT, and this test ran
# the fluid engine at the RTT the kernel measured). The fluid figure is the mean over the grid's
# FLUID_SEEDS (the kernel's loss is not seeded). docs/validation has the whole grid.
#
# One 20 s kernel window is a small sample where loss is rare against the window: at 100 ms and
# 0.5 % a flow of ~2 Mbit/s sees about 17 loss events in it, and two kernel runs of the same cell
# gave 2.49 and 1.56 Mbit/s on this machine (the fluid engine's 2.0 sat between them). So the
# reference is the mean of up to KERNEL_RUNS kernel runs: a cell passes once the fluid figure is within
# 15 % of the pooled kernel mean, and fails when it still is not after KERNEL_RUNS runs. A model
# that is off by more than 15 % on a cell fails it however many runs are pooled.
# The jitter cell is ±5 ms: with ±20 ms the kernel's own goodput swung 1.12-2.00 Mbit/s between runs
# (queue clumping behind late draws), which the engine does not model (docs/validation).
# CUBIC at 1 % pins Linux's window arithmetic (Reno-friendly α kept for the whole epoch, whole-segment
# reductions): with RFC 9438's α switch and real-valued halving the engine was 1.18 there.
KERNEL_RUNS = 3


#: representative cells where the engine misses the kernel at the configured RTT (docs/validation): expected
#: to fail until the engine explains them, reported as xfail (an unexpected pass is reported too)
KNOWN_MISSES = {
    "newreno, RTT 20 ms, loss on one link | 5 %":
        "at the configured 20 ms the engine is 1.22x the kernel (2.81 against 2.31 [2.18-2.38] Mbit/s over 30 s "
        "runs); the kernel's smoothed RTT averages 22.6 ms (minimum 20.1 ms, idle path 20.0-20.4 ms), TCP's own "
        "excess, not the delay line's; it matched (0.92) only when compared at that longer RTT",
    "jitter on every link (newreno, RTT 100 ms, 0.5 % loss on one link) | ±5 ms":
        "the engine reads 1.99-2.04 Mbit/s, 1.16 of the kernel's pooled median (1.61 over eleven runs, 1.37-2.31) "
        "and 1.21-1.25 against three CI runs (1.63-1.77); the kernel's mean RTT is 110 ms against the engine's "
        "~101 ms: the unpaced kernel sends its window in bursts, which queue behind late jitter draws on every "
        "hop, while the engine spaces packets at the flow's mean rate (docs/validation, reading the grid, item 3)",
}


def _grid_cells():
    from subflow_testbeds.grid import REPRESENTATIVE_CELLS, cells

    by_key = {f"{c.row} | {c.label}": c for c in cells(duration_s=25.0)}
    return [pytest.param(by_key[k], id=k, marks=[pytest.mark.xfail(reason=KNOWN_MISSES[k], strict=False)]
                         if k in KNOWN_MISSES else []) for k in REPRESENTATIVE_CELLS]


def _window(cell) -> tuple[float, float]:
    """The goodput window of ``cell`` (seconds): from 5 s (slow start excluded) to the run's end."""
    return 5.0, float(cell.scenario["run"]["duration_s"])


def _fluid(cell) -> float:
    """Mean goodput (Mbit/s, over :func:`_window`) of the fluid engine on ``cell``, mean over the grid's
    ``FLUID_SEEDS``."""
    from subflow_testbeds.grid import FLUID_SEEDS

    doc = cell.scenario
    runs = []
    for seed in FLUID_SEEDS:
        p = resolve_plan({**doc, "run": {**doc["run"], "seed": seed}}, cell.strategy, "fluid")
        runs.append(_mean_in(fluid_run(p).flows[0], *_window(cell)))
    return sum(runs) / len(runs)


@pytest.mark.parametrize("cell", _grid_cells())
def test_grid_cells_match_real_tcp(cell, need_linux, no_leftovers):
    if not need_linux.loss_mechanism or not need_linux.delay_mechanism:
        pytest.skip("linux engine: no loss or delay mechanism on this host")
    if cell.strategy.startswith("mptcp") and not (need_linux.mptcp_enabled and need_linux.mptcp_endpoints
                                         and need_linux.mptcpize):
        pytest.skip("linux engine: MPTCP needs net.mptcp.enabled=1, 'ip mptcp' and mptcpize (Debian mptcpd)")
    m = _fluid(cell)
    goodputs, report = [], []
    for _ in range(KERNEL_RUNS):
        real = linux.run(resolve_plan(cell.scenario, cell.strategy, "linux")).flows[0]
        goodputs.append(_mean_in(real, *_window(cell)))
        client = (real.iperf3 or {}).get("client", {})
        r = sum(goodputs) / len(goodputs)
        report.append(f"kernel runs {', '.join(f'{g:.2f}' for g in goodputs)} (mean {r:.2f}; RTT mean/min "
                      f"{client.get('mean_rtt_ms')}/{client.get('min_rtt_ms')} ms) fluid {m:.2f} Mbit/s at the "
                      f"configured RTT {cell.rtt_s * 1000:g} ms ({m / r:.2f})")
        if 0.85 <= m / r <= 1.15:
            break
    msg = f"{cell.row} | {cell.label}: " + "; ".join(report)
    print("\n" + msg)
    assert 0.85 <= m / r <= 1.15, msg
