"""Benchmark of the fluid engine (prints figures; not a test).

Run: ``.venv/bin/python benchmarks/engine.py`` (Kdl from $SUBFLOW_SHARED_DIR/data, else ../shared/data).

0. A machine reference (a plain Python loop), since the figures scale with it.
1. ``naval-direct-move`` (100 s, 1 s intervals): wall time per strategy and the
   speed-up over real time.
2. 200 random bulk flows over Topology Zoo ``Kdl`` (754 nodes) for 100 s:
   wall time, peak memory, time per simulated flow-second; compared in the
   same run with the scalar kernel (the named peer) on the first 10 s.
"""

from __future__ import annotations

import json
import os
import random
import resource
import sys
import time
from pathlib import Path

from subflow.imports import import_scenario
from subflow.resolve import resolve_plan
from subflow_engines.fluid import run

ROOT = Path(__file__).resolve().parents[1]
KDL = Path(os.environ.get("SUBFLOW_SHARED_DIR") or ROOT.parent / "shared") / "data" / "topology-zoo" / "Kdl.graphml"


def timed(fn, repeat: int = 1) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def naval() -> None:
    doc = json.loads((ROOT / "examples" / "naval-direct-move.json").read_text())
    print("naval-direct-move, 100 s simulated:")
    for strategy in ("sptcp", "mptcp", "sptcp-spurious"):
        plan = resolve_plan(doc, strategy)
        wall = timed(lambda: run(plan), repeat=5)
        print(f"  {strategy:15s} {wall * 1000:7.1f} ms   {100 / wall:7.0f}x real time")


def kdl(flows: int = 200, duration_s: float = 100.0) -> None:
    if not KDL.exists():
        print(f"Kdl benchmark skipped: {KDL} not found")
        return
    doc = import_scenario(KDL.read_bytes(), source="Kdl.graphml").scenario.model_dump(mode="json")
    rng = random.Random(1)
    ids = [n["id"] for n in doc["nodes"]]
    doc["flows"] = [{"id": f"f{i}", "src": a, "dst": b} for i, (a, b) in
                    enumerate(rng.sample(ids, 2) for _ in range(flows))]
    doc["run"] = {"duration_s": duration_s, "interval_s": 1.0}
    t = time.perf_counter()
    plan = resolve_plan(doc, "sptcp")
    plan_s = time.perf_counter() - t
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    wall = timed(lambda: run(plan))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    short = resolve_plan({**doc, "run": {"duration_s": 10.0, "interval_s": 1.0}}, "sptcp")
    vec10 = timed(lambda: run(short, kernel="vector"))
    sca10 = timed(lambda: run(short, kernel="scalar"))
    print(f"Kdl ({len(doc['nodes'])} nodes, {len(doc['links'])} links), {flows} sptcp flows, {duration_s:g} s simulated:")
    print(f"  plan (routing, segments)     {plan_s:7.2f} s")
    print(f"  engine (vectorised kernel)   {wall:7.2f} s   target <= 10 s")
    print(f"  peak memory (process)        {peak_mb:7.0f} MB  target <= 500 MB (before run: {before / 1024:.0f} MB)")
    print(f"  per simulated flow-second    {wall / (flows * duration_s) * 1e6:7.1f} us")
    print(f"  first 10 s: vectorised {vec10:.2f} s vs scalar kernel {sca10:.2f} s -> {sca10 / vec10:.1f}x")


def machine() -> None:
    """How fast this machine runs plain Python: the engines are Python/NumPy, so their
    figures scale with it; print it to compare figures taken on different machines."""

    def loop() -> None:
        s = 0
        for i in range(10_000_000):
            s += i

    print(f"machine reference: 10^7-iteration Python loop {timed(loop, 3):.2f} s")


if __name__ == "__main__":
    machine()
    naval()
    kdl(*(int(a) for a in sys.argv[1:2]))
