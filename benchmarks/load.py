"""Load benchmark of the REST API with locust (prints figures; not a test). Loopback only.

Run: ``.venv/bin/python benchmarks/load.py [--deployments embedded,postgresql] [--clients 50,200]
[--seconds 20] [--kinds reads,writes,submits] [--no-burst] [--api-workers N]``.

For each deployment (the whole service started by ``scripts/serve.sh``, see
:mod:`benchmarks.service`) and each number of clients, locust (headless,
``benchmarks/locustfile.py``) runs three phases of ``--seconds`` each: reads, writes and
comparison submissions. Each client sends one request per second from a random starting
point (clients are not in step), so N clients offer about N requests/s. The API runs as
``--api-workers`` processes (default: 1 embedded, one per core on PostgreSQL). Printed per request kind: requests, p50 and p99 (ms), error rate (non-2xx other
than a 429 from the queue bound), and 429s. After the submissions the backlog is cancelled
(``POST .../cancel``) and the next phase waits until the broker's queue is empty; then 100 comparisons are submitted at once (100 threads) and the
time until all have finished is printed with how many succeeded.
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from service import ROOT, Service, example  # noqa: E402

FINISHED = ("succeeded", "failed", "cancelled")
METRICS_TOKEN = "load-benchmark-metrics"


def locust(svc: Service, kind: str, clients: int, seconds: int, scenario_id: str) -> list[dict]:
    """One headless locust phase; returns its per-name rows (``name, requests, p50, p99, failures``)."""
    prefix = svc.data / f"locust-{kind}-{clients}"
    env = {**os.environ, "LOAD_KIND": kind, "SUBFLOW_TOKEN": svc.token, "SCENARIO_ID": scenario_id}
    cmd = [sys.executable, "-m", "locust", "-f", str(ROOT / "benchmarks" / "locustfile.py"), "--headless",
           "-u", str(clients), "-r", str(clients), "-t", f"{seconds}s", "--host", svc.base_url,
           "--csv", str(prefix), "--reset-stats", "--only-summary", "--loglevel", "WARNING"]
    done = subprocess.run(cmd, env=env, cwd=ROOT, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True)
    if done.returncode not in (0, 1):  # 1: some requests failed
        print(f"(locust {kind} × {clients} exited with {done.returncode}: {done.stderr[-500:]})", file=sys.stderr)
    rows = []
    with open(f"{prefix}_stats.csv", newline="") as fh:
        for r in csv.DictReader(fh):
            if r["Name"] == "Aggregated" or "(setup)" in r["Name"]:
                continue
            rows.append({"name": r["Name"], "requests": int(r["Request Count"]), "failures": int(r["Failure Count"]),
                         "p50": float(r["50%"] or 0), "p99": float(r["99%"] or 0), "rps": float(r["Requests/s"])})
    return rows


def cancel_unfinished(svc: Service, scenario_id: str) -> int:
    """Cancel every queued or running comparison of the scenario; returns how many."""
    n, skip = 0, 0
    while True:
        page = svc.api.get(f"/scenarios/{scenario_id}/comparisons", params={"skip": skip, "limit": 1000}).json()
        for c in page["data"]:
            if c["status"] not in FINISHED:
                try:
                    svc.api.post(f"/scenarios/{scenario_id}/comparisons/{c['id']}/cancel", timeout=120)
                    n += 1
                except httpx.TimeoutException:
                    print(f"(cancel of {c['id']} timed out after 120 s)", file=sys.stderr)
        skip += len(page["data"])
        if not page["data"] or skip >= page["count"]:
            return n


def burst(svc: Service, scenario_id: str, n: int = 100, timeout_s: float = 600) -> tuple[float, int, int]:
    """Submit ``n`` comparisons at once; (seconds until all finished, succeeded, refused)."""
    path = f"/scenarios/{scenario_id}/comparisons"
    headers = {"Authorization": f"Bearer {svc.token}"}

    def submit(_: int) -> httpx.Response:
        return httpx.post(f"{svc.base_url}/api{path}", json={"strategies": ["sptcp", "mptcp"]}, headers=headers,
                          timeout=120)

    started = time.monotonic()
    with ThreadPoolExecutor(n) as pool:
        responses = list(pool.map(submit, range(n)))
    ids = [r.json()["id"] for r in responses if r.status_code == 202]
    refused = sum(r.status_code != 202 for r in responses)
    pending = set(ids)
    succeeded = 0
    while pending and time.monotonic() - started < timeout_s:
        for cid in list(pending):
            state = svc.api.get(f"{path}/{cid}").json()["status"]
            if state in FINISHED:
                pending.discard(cid)
                succeeded += state == "succeeded"
        time.sleep(0.5)
    return time.monotonic() - started, succeeded, refused


def queue_depth(svc: Service) -> float:
    """Task messages waiting in the broker (``subflow_queue_depth`` of ``GET /metrics``)."""
    text = httpx.get(f"{svc.base_url}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=30).text
    return next(float(line.split()[-1]) for line in text.splitlines() if line.startswith("subflow_queue_depth "))


def wait_idle(svc: Service, scenario_id: str, timeout_s: float = 300) -> None:
    """Until no comparison of the scenario is queued or running and the broker holds no message (the
    cancelled comparisons' tasks, which a worker still takes and drops), so that the next phase
    measures the API alone."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        page = svc.api.get(f"/scenarios/{scenario_id}/comparisons", params={"limit": 1000}).json()
        if all(c["status"] in FINISHED for c in page["data"]) and queue_depth(svc) == 0:
            return
        time.sleep(1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deployments", default="embedded,postgresql")
    ap.add_argument("--clients", default="50,200")
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--kinds", default="reads,writes,submits", help="phases to run")
    ap.add_argument("--no-burst", action="store_true", help="skip the 100-comparison burst")
    ap.add_argument("--api-workers", type=int, default=None,
                    help="API processes (SUBFLOW_API_WORKERS of scripts/serve.sh); default 1 on the embedded "
                         "deployment, one per core on PostgreSQL (as compose and the README suggest)")
    args = ap.parse_args()
    print(f"# API load (locust {__import__('locust').__version__}, loopback)\n")
    print(f"- load at start: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores; each client 1 request/s; "
          f"{args.seconds} s per phase after all clients started\n")
    print("| deployment | API processes | clients | request | requests | req/s | p50 ms | p99 ms | errors | 429 |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    bursts = []
    for deployment in args.deployments.split(","):
        workers = args.api_workers or (1 if deployment == "embedded" else os.cpu_count() or 1)
        # every locust client sends the same token: the per-caller quotas would refuse a crowd as one caller
        with Service(deployment, SUBFLOW_API_WORKERS=str(workers), METRICS_TOKEN=METRICS_TOKEN, QUOTA_CONCURRENT="0",
                     QUOTA_REQUESTS_PER_MINUTE="0") as svc:
            sid = svc.api.post("/scenarios", json=example()).json()["id"]
            for clients in (int(c) for c in args.clients.split(",")):
                for kind in args.kinds.split(","):
                    rows = locust(svc, kind, clients, args.seconds, sid)
                    refused = sum(r["requests"] for r in rows if r["name"].endswith(" 429"))
                    for r in rows:
                        if r["name"].endswith(" 429"):
                            continue
                        rate = r["failures"] / r["requests"] if r["requests"] else 0.0
                        print(f"| {deployment} | {workers} | {clients} | `{r['name']}` | {r['requests']} | {r['rps']:.0f} | "
                              f"{r['p50']:.0f} | {r['p99']:.0f} | {rate:.2%} | "
                              f"{refused if kind == 'submits' else '–'} |", flush=True)
                    if kind == "submits":
                        cancel_unfinished(svc, sid)
                        wait_idle(svc, sid)
            if not args.no_burst:
                bursts.append((deployment, *burst(svc, sid), os.getloadavg()[0]))
    print("\n## 100 comparisons submitted at once (naval-direct-move, sptcp + mptcp)\n")
    print("| deployment | all finished after | succeeded | refused | load (1 min) |")
    print("|---|---|---|---|---|")
    for deployment, seconds, ok, refused, load in bursts:
        print(f"| {deployment} | {seconds:.1f} s | {ok}/100 | {refused} | {load:.2f} |")


if __name__ == "__main__":
    main()
