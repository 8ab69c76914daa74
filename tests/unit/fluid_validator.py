"""An independent check that a ``fluid`` engine output is physically possible for its plan.

Written from the plan contract (:mod:`subflow.runplan.document`) and the output contract
(:mod:`subflow.results.document`) only: nothing here imports the engine or reuses its invariant code or
its per-step numbers. What it checks, per output sample ``k`` of length ``L_k`` (``interval_s``,
shorter for a last partial sample), in bits unless said:

1. every sample (flow and subflow goodput, congestion window) is finite and non-negative;
2. a flow's goodput is the sum of its subflows' (to the output's 1e-6 Mbit/s rounding);
3. a subflow delivers at most ``max_P min_{r∈P} G_r·L_k + T``: ``G_r`` the goodput capacity of
   resource ``r`` (its ``capacity_mbps`` times MSS/(MSS+66), the payload share of a full-size
   frame: 20 B IPv4 + 20 B TCP + 12 B timestamps + 14 B Ethernet, computed here), the largest
   value ``r`` has during the sample, ``P`` every path the subflow has during the sample; the
   tolerance for interval edges ``T = Σ_{r∈∪P} (B_r + G_r·STEP_S)`` is what the subflow can hold
   in those queues when the sample begins (``B_r`` = queue_packets·MSS·8 bits) and in transit
   between two hops within one fluid step (at most :data:`STEP_S`);
4. on every resource ``r``, the subflows whose path is the same in every segment of the run
   ("static": summing only them can only make the left side smaller) deliver together at most
   ``G_r·L_k + Σ_{u∈D_r} (B_u + G_u·STEP_S)``, ``D_r`` the resource ``r`` itself and every
   resource after it on those subflows' paths: bits delivered in the sample crossed ``r``
   during it or were held after ``r`` when it began (a queue holds at most ``B_u``, whoever
   owns the bits);
5. a flow with a demand (``rate_mbps``) delivers at most ``rate·L_k`` plus what its paths can
   hold (``Σ B_r``, as in 3);
6. a finite transfer delivers at most ``size_bytes`` plus one MSS (one segment of slack for the
   goodput rounding);
7. the summary that :func:`subflow.results.document.summarize` builds from the output (as
   :func:`subflow.comparison.compare.run_strategy` does), and the output's own summary when it is a
   :class:`~subflow.results.document.StrategyResult`, have finite numbers and Jain's index in [1/n, 1].

The bounds hold for any fluid or packet network with drop-tail FIFO queues that does not
create bits; the tolerances only grow with buffers, so a steady overshoot of 2× (or 10^96)
fails them. :func:`violations` lists what fails (empty: valid); :func:`assert_valid` raises.
"""

from __future__ import annotations

import bisect
import math
from collections import defaultdict
from dataclasses import dataclass

from subflow.results.document import EngineOutput, summarize
from subflow.runplan.document import RunPlan

#: bytes a full-size frame carries besides the payload: IPv4 (20) + TCP (20) + timestamps
#: option (12) + Ethernet header and FCS (14)
FRAME_OVERHEAD_BYTES = 66
#: the largest time step of a fluid model we accept: bits in transit between two hops over one
#: step are part of the edge tolerance (the fluid engine's documented grid is 1-10 ms)
STEP_S = 0.01
#: slack for segment and capacity-change times falling between steps
EDGE_S = 0.011
#: output rounding of goodput, Mbit/s
ROUND_MBPS = 1e-6
#: relative slack of capacity sums (floating point over many steps)
REL = 1e-6


@dataclass
class _Timeline:
    """Capacity of one resource over time: ``values[i]`` from ``times[i]`` on (Mbit/s)."""

    times: list[float]
    values: list[float]

    def max_over(self, a: float, b: float) -> float:
        """Largest capacity in force at some time in [a, b]."""
        i = max(0, bisect.bisect_right(self.times, a) - 1)
        j = bisect.bisect_right(self.times, b)
        return max(self.values[i:max(j, i + 1)])


def _capacities(plan: RunPlan) -> dict[str, _Timeline]:
    tl = {r.id: _Timeline([-math.inf], [r.capacity_mbps]) for r in plan.resources}
    for ch in sorted(plan.capacity_changes, key=lambda c: c.t_s):
        tl[ch.resource].times.append(ch.t_s)
        tl[ch.resource].values.append(ch.capacity_mbps)
    return tl


def _summary_numbers(obj) -> list[tuple[str, float]]:
    out = []
    for name, value in obj:
        if isinstance(value, float):
            out.append((name, value))
    return out


def violations(plan: RunPlan, out: EngineOutput, limit: int = 20) -> list[str]:
    """Every broken check of the module docstring (up to ``limit``), as readable strings."""
    bad: list[str] = []

    def fail(msg: str) -> bool:
        bad.append(msg)
        return len(bad) >= limit

    mss = plan.transport.mss_bytes
    goodput = mss / (mss + FRAME_OVERHEAD_BYTES)
    buf_bits = {r.id: r.queue_packets * mss * 8.0 for r in plan.resources}
    caps = _capacities(plan)
    interval = plan.interval_s
    n_bins = max(1, math.ceil(plan.duration_s / interval - 1e-9))
    starts = [k * interval for k in range(n_bins)]
    lengths = [min(interval, plan.duration_s - t) for t in starts]

    def g_max(r: str, a: float, b: float) -> float:  # goodput capacity, bit/s
        return caps[r].max_over(a, b) * 1e6 * goodput

    def window(k: int) -> tuple[float, float]:
        return starts[k] - EDGE_S, starts[k] + lengths[k] + EDGE_S

    by_flow = {f.id: f for f in out.flows}
    plans = {fp.id: fp for fp in plan.flows}
    if set(by_flow) != set(plans):
        fail(f"flows in the output {sorted(by_flow)} are not the plan's {sorted(plans)}")
        return bad

    # subflow id -> list of (t0, t1, resources) over the segments
    paths: dict[tuple[str, str], list[tuple[float, float, tuple[str, ...]]]] = defaultdict(list)
    for fp in plan.flows:
        for seg in fp.segments:
            for sp in seg.subflows:
                if sp.resources:
                    paths[(fp.id, sp.id)].append((seg.t_start_s, seg.t_end_s, tuple(sp.resources)))

    # a subflow's last path stays after the flow stops (or the run ends): what it sent still
    # arrives, no more than its queues hold (the capacity term then only loosens the bound)
    last_end = {key: max(t1 for _, t1, _ in segs) for key, segs in paths.items()}

    def paths_during(key, a: float, b: float) -> list[tuple[str, ...]]:
        end = last_end.get(key)
        return list({p for t0, t1, p in paths.get(key, []) if t0 < b and (t1 > a or t1 == end)})

    for fid, fs in by_flow.items():
        fp = plans[fid]
        if len(fs.throughput_mbps) != n_bins or len(fs.t_s) != n_bins:
            if fail(f"{fid}: {len(fs.throughput_mbps)} samples, expected {n_bins}"):
                return bad
            continue
        # 1. finite, non-negative
        for k, v in enumerate(fs.throughput_mbps):
            if not (math.isfinite(v) and v >= 0):
                if fail(f"{fid} t={starts[k]:g}s: flow goodput {v!r} Mbit/s is not finite and >= 0"):
                    return bad
        subtotal = [0.0] * n_bins
        for sf in fs.subflows:
            key = (fid, sf.id)
            if len(sf.throughput_mbps) != n_bins:
                if fail(f"{fid}/{sf.id}: {len(sf.throughput_mbps)} samples, expected {n_bins}"):
                    return bad
                continue
            if key not in paths and any(v > 0 for v in sf.throughput_mbps):
                if fail(f"{sf.id}: delivers goodput but the plan gives it no path"):
                    return bad
            for k, v in enumerate(sf.throughput_mbps):
                if not (math.isfinite(v) and v >= 0):
                    if fail(f"{sf.id} t={starts[k]:g}s: goodput {v!r} Mbit/s is not finite and >= 0"):
                        return bad
                    continue
                subtotal[k] += v
                # 3. narrowest hop
                a, b = window(k)
                during = paths_during(key, a, b)
                narrow = max((min(g_max(r, a, b) for r in p) for p in during), default=0.0)
                union = {r for p in during for r in p}
                tol = sum(buf_bits[r] + g_max(r, a, b) * STEP_S for r in union)
                bound = (narrow * lengths[k] * (1 + REL) + tol) / lengths[k] / 1e6 + ROUND_MBPS
                if v > bound:
                    if fail(f"{sf.id} t={starts[k]:g}s: goodput {v:.6g} Mbit/s exceeds its narrowest hop "
                            f"{narrow / 1e6:.6g} Mbit/s + edge tolerance (bound {bound:.6g})"):
                        return bad
            for k, w in enumerate(sf.cwnd_packets):
                if not (math.isfinite(w) and w >= 0):
                    if fail(f"{sf.id} t={starts[k]:g}s: cwnd {w!r} packets is not finite and >= 0"):
                        return bad
        # 2. flow = sum of subflows
        slack = ROUND_MBPS * (len(fs.subflows) + 1)
        for k, (v, s) in enumerate(zip(fs.throughput_mbps, subtotal)):
            if math.isfinite(v) and abs(v - s) > slack + 1e-9 * abs(s):
                if fail(f"{fid} t={starts[k]:g}s: flow goodput {v!r} != sum of its subflows {s!r}"):
                    return bad
        # 5. demand
        if fp.rate_mbps is not None:
            for k, v in enumerate(fs.throughput_mbps):
                a, b = window(k)
                union = {r for sf in fs.subflows for p in paths_during((fid, sf.id), a, b) for r in p}
                tol = sum(buf_bits[r] + g_max(r, a, b) * STEP_S for r in union)
                bound = fp.rate_mbps * (1 + REL) + tol / lengths[k] / 1e6 + slack
                if math.isfinite(v) and v > bound:
                    if fail(f"{fid} t={starts[k]:g}s: goodput {v:.6g} Mbit/s exceeds its demand "
                            f"{fp.rate_mbps:g} Mbit/s + edge tolerance (bound {bound:.6g})"):
                        return bad
        # 6. finite transfers
        if fp.size_bytes is not None:
            sent = sum(v * 1e6 * L / 8 for v, L in zip(fs.throughput_mbps, lengths) if math.isfinite(v))
            extra = slack * 1e6 * plan.duration_s / 8
            if sent > fp.size_bytes + mss + extra:
                if fail(f"{fid}: delivered {sent:.0f} bytes of a {fp.size_bytes}-byte transfer"):
                    return bad
            if fs.completion_s is not None and not (0 <= fs.completion_s <= plan.duration_s - fp.start_s + 1e-6):
                if fail(f"{fid}: completion_s {fs.completion_s!r} outside the run"):
                    return bad

    # 4. per resource, static subflows
    static: dict[tuple[str, str], tuple[str, ...]] = {}
    for key, segs in paths.items():
        distinct = {p for _, _, p in segs}
        if len(distinct) == 1:
            static[key] = next(iter(distinct))
    crossing: dict[str, list[tuple[str, str]]] = defaultdict(list)
    after: dict[str, set[str]] = defaultdict(set)
    for key, p in static.items():
        for i, r in enumerate(p):
            crossing[r].append(key)
            after[r].update(p[i:])
    series = {(fid, sf.id): sf.throughput_mbps for fid, fs in by_flow.items() for sf in fs.subflows}
    for r, keys in crossing.items():
        for k in range(n_bins):
            total = sum(series[key][k] for key in keys if key in series and math.isfinite(series[key][k]))
            a, b = window(k)
            tol = sum(buf_bits[u] + g_max(u, a, b) * STEP_S for u in after[r])
            bound = (g_max(r, a, b) * (1 + REL) + tol / lengths[k]) / 1e6 + ROUND_MBPS * len(keys)
            if total > bound:
                if fail(f"{r} t={starts[k]:g}s: {len(keys)} subflows deliver {total:.6g} Mbit/s through it, "
                        f"capacity {g_max(r, a, b) / 1e6:.6g} Mbit/s + edge tolerance (bound {bound:.6g})"):
                    return bad

    # 7. the summary
    if all(math.isfinite(v) for fs in out.flows for v in fs.throughput_mbps):
        windows = {fp.id: (fp.start_s, fp.stop_s) for fp in plan.flows}
        base = EngineOutput(engine=out.engine, strategy=out.strategy, flows=out.flows, events=out.events)
        summaries = [summarize(base, interval, windows).summary]
        if getattr(out, "summary", None) is not None:  # a StrategyResult: its own summary too
            summaries.append(out.summary)
        for summary in summaries:
            for name, value in _summary_numbers(summary):
                if not math.isfinite(value):
                    fail(f"summary {name} = {value!r}")
            for fsum in summary.flows:
                for name, value in _summary_numbers(fsum):
                    if not math.isfinite(value):
                        fail(f"summary of {fsum.id}: {name} = {value!r}")
            n = len(summary.flows)
            if n and not (1 / n - 1e-12 <= summary.jain_index <= 1 + 1e-12):
                fail(f"summary jain_index {summary.jain_index!r} outside [1/{n}, 1]")
    return bad


def assert_valid(plan: RunPlan, out: EngineOutput) -> None:
    """Raise AssertionError listing the broken checks of :func:`violations`, if any."""
    bad = violations(plan, out)
    assert not bad, f"{len(bad)} physical check(s) fail on {plan.scenario_name}/{plan.strategy}:\n  " + "\n  ".join(bad)
