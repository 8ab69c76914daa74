"""Benchmark of the fluid engine (prints figures and their validity checks; not a test).

Run: ``.venv/bin/python benchmarks/engine.py [FLOWS ...]`` (Kdl from $SUBFLOW_SHARED_DIR/data, else
../shared/data; default flow counts 200 and 2000).

0. A machine reference (a plain Python loop) and the load average, since the figures scale with them.
1. ``naval-direct-move`` (100 s, 1 s intervals): wall time per strategy and the speed-up over
   real time; its validity checks.
2. Random bulk flows over Topology Zoo ``Kdl`` (754 nodes) for 100 s: wall time, peak memory,
   time per simulated flow-second, and the validity checks of the output; compared in the same
   run with the scalar kernel (the named peer) on the first 10 s: the time ratio and the ratio
   of the two kernels' mean goodputs.

Validity checks are made here on the engine's output, independently of the checks the engine
makes on itself (:mod:`subflow_engines.fluid.invariants`, which would have raised): every sample
finite and ≥ 0; every subflow's mean per sample against the goodput capacity of the narrowest hop
of its path (largest ratio); every link direction's load, the sum of the subflows crossing it,
against its goodput capacity (largest ratio); a flow's goodput equal to the sum of its subflows'.
A ratio above 1 by more than the buffers along the path allow (a drained queue) is a failure.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import time
from collections import defaultdict
from pathlib import Path

from subflow.io.imports import import_scenario
from subflow.results.document import EngineOutput
from subflow.runplan.document import RunPlan
from subflow.runplan.resolve import resolve_plan
from subflow_engines.fluid import run
from subflow_testbeds.loads import random_bulk_flows

ROOT = Path(__file__).resolve().parents[1]
KDL = Path(os.environ.get("SUBFLOW_SHARED_DIR") or ROOT.parent / "shared") / "data" / "topology-zoo" / "Kdl.graphml"
#: goodput share of a frame as a shaper counts it (MSS payload of MSS + 66 bytes: IPv4, TCP with
#: timestamps, Ethernet), written out here rather than taken from the engine
FRAME_OVERHEAD_BYTES = 66


def timed(fn, repeat: int = 1) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def validity(plan: RunPlan, out: EngineOutput) -> dict:
    """Checks of the output against the plan (see the module docstring). A sample's capacity is
    the largest a resource has during it (the plan's capacity changes); a subflow's narrowest hop
    is taken over every path it has during the sample (its segments); link loads count the
    subflows whose path never changes (with mobility the others are left out of that check)."""
    mss = plan.transport.mss_bytes
    goodput = mss / (mss + FRAME_OVERHEAD_BYTES)
    base = {r.id: r.capacity_mbps for r in plan.resources}
    changes = defaultdict(list)
    for c in plan.capacity_changes:
        changes[c.resource].append((c.t_s, c.capacity_mbps))
    interval = plan.interval_s

    def cap_max(rid: str, t0: float) -> float:
        """Largest capacity of ``rid`` during [t0, t0 + interval), Mbit/s."""
        cur, best = base[rid], None
        for t, v in sorted(changes[rid]):
            if t <= t0:
                cur = v
            elif t < t0 + interval:
                best = max(best or cur, v)
        return max(cur, best or cur)

    spans = defaultdict(list)  # (flow, subflow) -> [(t_start, t_end, resources)]
    for fp in plan.flows:
        for seg in fp.segments:
            for sp in seg.subflows:
                spans[(fp.id, sp.id)].append((seg.t_start_s, seg.t_end_s, sp.resources))
    finite = True
    worst_sub, worst_sum_gap, n_samples = 0.0, 0.0, 0
    load: dict[tuple[str, int], float] = defaultdict(float)
    for f in out.flows:
        for k, v in enumerate(f.throughput_mbps):
            n_samples += 1
            finite &= math.isfinite(v) and v >= 0
            worst_sum_gap = max(worst_sum_gap, abs(v - sum(s.throughput_mbps[k] for s in f.subflows)))
        for s in f.subflows:
            sp = spans.get((f.id, s.id), [])
            static = len({tuple(r) for _, _, r in sp}) == 1
            for k, (t0, v) in enumerate(zip(s.t_s, s.throughput_mbps)):
                finite &= math.isfinite(v) and v >= 0
                paths = [r for a, b, r in sp if a < t0 + interval and b > t0 and r]
                if not paths:
                    continue
                narrow = max(min(cap_max(r, t0) for r in path) for path in paths) * goodput
                worst_sub = max(worst_sub, v / narrow)
                if static:
                    for r in paths[0]:
                        load[(r, k)] += v
    worst_link = max((v / (cap_max(r, k * interval) * goodput) for (r, k), v in load.items()), default=0.0)
    return {"finite": finite, "samples": n_samples, "max_subflow_over_narrowest": worst_sub,
            "max_link_load_over_capacity": worst_link, "max_flow_minus_subflows_mbps": worst_sum_gap}


def show(checks: dict, indent: str = "  ") -> None:
    ok = (checks["finite"] and checks["max_subflow_over_narrowest"] <= 1.05
          and checks["max_link_load_over_capacity"] <= 1.05 and checks["max_flow_minus_subflows_mbps"] <= 1e-5)
    print(f"{indent}valid: {'yes' if ok else 'NO'} — {checks['samples']} samples all finite and >= 0: "
          f"{checks['finite']}; max subflow / narrowest hop {checks['max_subflow_over_narrowest']:.3f}; "
          f"max link load / capacity {checks['max_link_load_over_capacity']:.3f}; "
          f"max |flow − Σ subflows| {checks['max_flow_minus_subflows_mbps']:.1e} Mbit/s")


def naval() -> None:
    doc = json.loads((ROOT / "examples" / "naval-direct-move.json").read_text())
    print("naval-direct-move, 100 s simulated (target >= 2000x real time):")
    for strategy in ("sptcp", "mptcp", "sptcp-spurious"):
        plan = resolve_plan(doc, strategy)
        wall, out = timed(lambda: run(plan), repeat=5)
        print(f"  {strategy:15s} {wall * 1000:7.1f} ms   {100 / wall:7.0f}x real time")
        show(validity(plan, out), "    ")


def kdl_doc(flows: int, duration_s: float) -> dict:
    doc = import_scenario(KDL.read_bytes(), source="Kdl.graphml").scenario.model_dump(mode="json")
    return random_bulk_flows(doc, flows, duration_s)


def mean_mbps(out: EngineOutput) -> float:
    v = [x for f in out.flows for x in f.throughput_mbps]
    return sum(v) / len(v)


def kdl(flows: int, duration_s: float = 100.0, target_s: float = 5.0, target_mb: float = 1000.0,
        peer: bool = True) -> None:
    if not KDL.exists():
        print(f"Kdl benchmark skipped: {KDL} not found")
        return
    doc = kdl_doc(flows, duration_s)
    t = time.perf_counter()
    plan = resolve_plan(doc, "sptcp")
    plan_s = time.perf_counter() - t
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    wall, out = timed(lambda: run(plan))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"Kdl ({len(doc['nodes'])} nodes, {len(doc['links'])} links), {flows} sptcp flows, "
          f"{duration_s:g} s simulated:")
    print(f"  plan (routing, segments)     {plan_s:7.2f} s")
    print(f"  engine (vectorised kernel)   {wall:7.2f} s   target <= {target_s:g} s")
    print(f"  peak memory (process)        {peak_mb:7.0f} MB  target <= {target_mb:g} MB "
          f"(before run: {before / 1024:.0f} MB)")
    print(f"  per simulated flow-second    {wall / (flows * duration_s) * 1e6:7.1f} us")
    print(f"  mean goodput per flow        {mean_mbps(out):7.3f} Mbit/s")
    show(validity(plan, out))
    if peer:
        short = resolve_plan({**doc, "run": {"duration_s": 10.0, "interval_s": 1.0}}, "sptcp")
        vec10, vout = timed(lambda: run(short, kernel="vector"))
        sca10, sout = timed(lambda: run(short, kernel="scalar"))
        print(f"  first 10 s: vectorised {vec10:.2f} s vs scalar kernel {sca10:.2f} s -> {sca10 / vec10:.1f}x; "
              f"mean goodput vectorised/scalar {mean_mbps(vout) / mean_mbps(sout):.6f}")


def machine() -> None:
    """How fast this machine runs plain Python, and how loaded it is: the engines are
    Python/NumPy, so their figures scale with it; print it to compare figures taken on different
    machines."""

    def loop() -> None:
        s = 0
        for i in range(10_000_000):
            s += i

    wall, _ = timed(loop, 3)
    print(f"machine reference: 10^7-iteration Python loop {wall:.2f} s; load average "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("flows", nargs="*", type=int, default=[200, 2000],
                    help="Kdl flow counts to run (default 200 2000); up to 500 also runs the scalar peer")
    args = ap.parse_args()
    machine()
    naval()
    for n in args.flows:
        if n <= 500:
            kdl(n)
        else:
            kdl(n, target_s=30.0, peer=False)
    machine()
