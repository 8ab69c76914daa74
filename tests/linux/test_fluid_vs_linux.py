"""The embedded engine against real kernel TCP/MPTCP: mean throughput per phase within 15 %.

Both engines run the same plan (same resolve_plan), the linux engine in network
namespaces with HTB shaping (its goodput tops out near 0.956 of a link's rate,
since HTB counts Ethernet frames), the fluid engine as a flow-level model.
"""

from __future__ import annotations

import pytest

from subflow.resolve import resolve_plan
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


# ---------------------------------------------------------------- loss (issue 11): the validation grid, sampled
# A 4-node chain (3 links) keeps the delay line's per-hop latency small against the RTT; 25 s runs,
# goodput after 5 s. fluid: mean of seeds 1-3 (the kernel's loss is not seeded). Retried once, as the
# kernel's figures move with the load of a shared machine.
def _grid_cells():
    from subflow.testbeds.grid import chain, wireless_access

    return [
        ("lossless 20 Mbit/s bottleneck (framing)", "sptcp",
         chain(0.0, "one", 20.0, bottleneck_mbps=20.0, queue_packets=100, duration_s=25.0, n_nodes=4)),
        ("newreno, 1 % on one link, RTT 100 ms", "sptcp", chain(0.01, "one", 100.0, duration_s=25.0, n_nodes=4)),
        ("cubic, 1 % on one link, RTT 100 ms", "sptcp",
         chain(0.01, "one", 100.0, "cubic", duration_s=25.0, n_nodes=4)),
        ("newreno, 0.5 % on every link, RTT 100 ms", "sptcp", chain(0.005, "all", 100.0, duration_s=25.0, n_nodes=4)),
        ("2 % wireless loss on the access point's air", "sptcp", wireless_access(0.02, duration_s=25.0)),
    ]


@pytest.mark.flaky(reruns=1, reruns_delay=2)
@pytest.mark.parametrize("name, strategy, doc", _grid_cells(), ids=lambda v: v if isinstance(v, str) else "")
def test_lossy_paths_match_real_tcp(name, strategy, doc, need_linux, no_leftovers):
    if not need_linux.loss_mechanism or not need_linux.delay_mechanism:
        pytest.skip("linux engine: no loss or delay mechanism on this host")
    plan = resolve_plan(doc, strategy, "linux")
    fluid = []
    for seed in (1, 2, 3):
        p = resolve_plan({**doc, "run": {**doc["run"], "seed": seed}}, strategy, "linux")
        fluid.append(_mean_in(fluid_run(p).flows[0], 5.0, 25.0))
    m = sum(fluid) / len(fluid)
    r = _mean_in(linux.run(plan).flows[0], 5.0, 25.0)
    print(f"\n{name}: linux {r:.2f} fluid {m:.2f} Mbit/s ({m / r:.2f})")
    assert 0.85 <= m / r <= 1.15, f"{name}: linux {r:.2f} fluid {m:.2f} Mbit/s"
