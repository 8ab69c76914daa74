"""The interactive loop: POST a comparison → ``succeeded`` seen on its progress stream (prints figures).

Run: ``.venv/bin/python benchmarks/quick_loop.py [--runs 20] [--deployment embedded]``.

The whole service is started as ``make run`` does (``scripts/serve.sh``, embedded defaults unless
``--deployment postgresql``); naval-direct-move with ``sptcp`` and ``mptcp``, as the browser's
Run button sends it. Each run opens the server-sent events stream right after the POST (as the
browser does) and stops the clock at the ``succeeded`` event. Where the time goes, from the
comparison's stored timestamps (same machine clock): the POST itself, queued (created →
started: broker and worker pick-up), running (started → finished: plans, agent, engine,
storing), and telling (finished → the event reaches the client). The engine's own time is
measured in this process (``subflow.comparison.compare`` with the fluid engine called directly) as the peer.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from datetime import datetime
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from service import Service, example  # noqa: E402

STRATEGIES = ["sptcp", "mptcp"]


def _ts(value: str) -> float:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def one(svc: Service, sid: str) -> dict[str, float]:
    """One POST → succeeded; the phases in seconds."""
    t0 = time.time()
    r = svc.api.post(f"/scenarios/{sid}/comparisons", json={"strategies": STRATEGIES})
    t_post = time.time()
    r.raise_for_status()
    cid = r.json()["id"]
    status = None
    with svc.api.stream("GET", f"/scenarios/{sid}/comparisons/{cid}/events") as stream:
        for line in stream.iter_lines():
            if line.startswith("data: "):
                status = json.loads(line[6:])["status"]
                if status in ("succeeded", "failed", "cancelled"):
                    break
    t_seen = time.time()
    if status != "succeeded":
        raise RuntimeError(f"comparison {cid} ended {status}")
    row = svc.api.get(f"/scenarios/{sid}/comparisons/{cid}").json()
    created, started, finished = _ts(row["created_at"]), _ts(row["started_at"]), _ts(row["finished_at"])
    return {"total": t_seen - t0, "post": t_post - t0, "queued": started - created, "running": finished - started,
            "telling": t_seen - finished}


def engine_time(doc: dict, repeat: int = 5) -> float:
    """Best wall time of the comparison with the engine called in this process (no services)."""
    from subflow.comparison.compare import compare
    from subflow_engines import run_plan

    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        compare(doc, STRATEGIES, runner=run_plan, engine="fluid")
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--deployment", default="embedded")
    args = ap.parse_args()
    doc = example()
    with Service(args.deployment) as svc:
        sid = svc.api.post("/scenarios", json=doc).json()["id"]
        for _ in range(3):  # warm-up: imports, numba caches, connections
            one(svc, sid)
        load = os.getloadavg()[0]
        runs = [one(svc, sid) for _ in range(args.runs)]
    engine = engine_time(doc)
    print(f"# Quick loop: POST comparison → succeeded (naval-direct-move, {' + '.join(STRATEGIES)}, "
          f"{args.deployment})\n")
    print(f"- {args.runs} runs after 3 warm-up runs; load average {load:.2f} (1 min) at start, "
          f"{os.getloadavg()[0]:.2f} at the end; {os.cpu_count()} cores\n")
    print("| phase | p50 | p90 | max |")
    print("|---|---|---|---|")
    for phase in ("total", "post", "queued", "running", "telling"):
        values = sorted(r[phase] for r in runs)
        p90 = values[min(len(values) - 1, int(round(0.9 * (len(values) - 1))))]
        print(f"| {phase} | {statistics.median(values) * 1000:.0f} ms | {p90 * 1000:.0f} ms | "
              f"{values[-1] * 1000:.0f} ms |")
    total = statistics.median(r["total"] for r in runs)
    print(f"\n- engine alone (same comparison, in process, best of 5): {engine * 1000:.0f} ms; "
          f"the service adds {max(0.0, total - engine) * 1000:.0f} ms at p50 (total ÷ engine = {total / engine:.2f})")
    print(f"- target POST → succeeded p50 ≤ 500 ms: {'met' if total <= 0.5 else 'NOT met'} ({total * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
