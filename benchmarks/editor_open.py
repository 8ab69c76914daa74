"""Opening the editor on Kdl (Topology Zoo, 754 nodes): navigation → drawn → first tap answered.

Builds the frontend's e2e build (``npm run build:e2e``: the build with the test hooks the benchmark reads),
starts the whole service on embedded defaults (:class:`service.Service`) serving it, and runs the Playwright
benchmark ``e2e/bench/benchmark.spec.ts`` "Kdl …" in Debian's chromium: five openings of the Kdl editor and,
in the same run, of the named peer (the 5-node naval example on the same page). Prints the figures, the
ratio to the peer and the machine's load average (target: Kdl interactive ≤ 2 s).

Run (hold the shared lock on a shared machine)::

    flock /tmp/subflow-heavy.lock .venv/bin/python benchmarks/editor_open.py

``SUBFLOW_BENCH_SKIP_BUILD=1`` reuses an existing ``frontend/dist-e2e``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from service import ROOT, Service  # noqa: E402

RESULT = ROOT / "e2e" / "test-results" / "bench" / "benchmark.json"


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} / {five:.2f} / {fifteen:.2f} on {os.cpu_count()} CPUs"


def main() -> int:
    if os.environ.get("SUBFLOW_BENCH_SKIP_BUILD") != "1":
        subprocess.run(["npm", "run", "--silent", "build:e2e"], cwd=ROOT / "frontend", check=True,
                       stdout=subprocess.DEVNULL)
    print(f"before: {_load()}")
    with Service("embedded", FRONTEND_DIST=str(ROOT / "frontend" / "dist-e2e")) as svc:
        env = {**os.environ, "SUBFLOW_BENCH": "1", "SUBFLOW_BASE_URL": svc.base_url,
               "SUBFLOW_ADMIN_CREDENTIALS": str(svc.data / "admin-credentials")}
        RESULT.unlink(missing_ok=True)
        run = subprocess.run(["npx", "playwright", "test", "--project=bench", "-g", "Kdl"], cwd=ROOT / "e2e", env=env)
    print(f"after: {_load()}")
    if run.returncode != 0 or not RESULT.exists():
        print("the benchmark failed", file=sys.stderr)
        return 1
    fig = json.loads(RESULT.read_text())["kdl_draw"]
    print(f"Kdl ({json.loads(RESULT.read_text()).get('kdl_nodes')} nodes) editor, navigation → first tap answered: "
          f"median {fig['median_interactive_ms']} ms (target ≤ {fig['target_ms']} ms); "
          f"peer naval (5 nodes): median {fig['peer_median_interactive_ms']} ms; ratio {fig['ratio_to_peer']}×")
    print("Kdl runs (drawn, interactive) ms:", [(r["rendered_ms"], r["interactive_ms"]) for r in fig["runs"]])
    print("naval runs (drawn, interactive) ms:", [(r["rendered_ms"], r["interactive_ms"]) for r in fig["peer_naval_5_nodes"]])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
