"""All-pairs routes for a browser overlay on Kdl: the summary against the full document.

Not a test: it prints a Markdown table measured in one run on this machine.
For each metric it times, on Topology Zoo Kdl (754 nodes, 895 links,
567 762 ordered pairs), the routes document a browser would have to fetch:

* ``full``     — :func:`subflow.planning.shortest_paths.route_report` of every pair (what
  ``POST /routes`` answers without ``summary_limit``), serialised to JSON;
* ``summary``  — the same with ``summary_limit=100`` (per-link route counts and
  the 100 costliest routes: what the routes panel asks for), serialised to JSON,
  with progress reported in 50 batches as the worker does;

and prints wall time (best of ``--repeat`` after a warm-up), JSON size, and the
ratio full / summary. The browser's own time to first overlay (submit → worker →
poll → overlay drawn on the map) is measured by ``e2e/bench/planning.spec.ts``.

    .venv/bin/python benchmarks/routes_overlay.py [--repeat 3]

Requires ``$SUBFLOW_SHARED_DIR/data/topology-zoo/Kdl.graphml`` (default ../shared).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))
SHARED = Path(os.environ.get("SUBFLOW_SHARED_DIR", ROOT.parent / "shared"))
KDL = SHARED / "data" / "topology-zoo" / "Kdl.graphml"

from subflow.io.imports import import_scenario  # noqa: E402
from subflow.planning.network import Network  # noqa: E402
from subflow.planning.shortest_paths import route_report  # noqa: E402


def best(fn, repeat: int) -> tuple[float, object]:
    out = fn()  # warm-up: numba cache load, reduction build
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    if not KDL.exists():
        raise SystemExit(f"{KDL} not found: set SUBFLOW_SHARED_DIR to the shared data folder")
    doc = import_scenario(KDL.read_bytes(), "Kdl.graphml").scenario.model_dump(mode="json")
    net = Network.from_scenario(doc)
    load = os.getloadavg()
    print(f"Kdl: {net.n} nodes, {len(doc['links'])} links, {net.n * (net.n - 1)} ordered pairs; "
          f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print()
    print("| metric | document | time (s) | JSON (MB) | full / summary time | full / summary size |")
    print("|---|---|---:|---:|---:|---:|")
    for metric in ("hop", "delay", "tcpbp"):
        t_full, full = best(lambda: json.dumps(route_report(net, metric)), args.repeat)
        t_sum, summ = best(lambda: json.dumps(route_report(net, metric, summary_limit=100,
                                                           on_progress=lambda d, t: None)), args.repeat)
        print(f"| {metric} | full | {t_full:.2f} | {len(full) / 1e6:.1f} | | |")
        print(f"| {metric} | summary (100 routes + link counts) | {t_sum:.2f} | {len(summ) / 1e6:.2f} | "
              f"{t_full / t_sum:.1f} | {len(full) / len(summ):.0f} |")


if __name__ == "__main__":
    main()
