"""Soak benchmark: memory of the API, worker and agent processes under long mixed traffic (prints figures).

Run: ``.venv/bin/python benchmarks/soak.py [--deployment postgresql|embedded] [--minutes 30]
[--warmup-minutes 2] [--readers 4] [--streams 40] [--callers 8] [--sample-s 30]``. Loopback only.

The whole service is started by ``scripts/serve.sh`` (:mod:`benchmarks.service`; defaults: one API process,
the worker's thread pool, the agent), then for ``--warmup-minutes`` and ``--minutes`` after it these run at once:

* ``--readers`` threads, each reading in turn a scenario, the scenario list (20), a comparison and the
  comparison list, one request every 50 ms;
* a writer saving its own scenario (``PUT`` with ``If-Match``) every second;
* a submitter posting a comparison (``sptcp``, naval-direct-move) every 3 s, followed by ``--streams`` / 4
  progress streams (``GET .../events``) of that comparison until it finishes;
  (the traffic is spread over ``--callers`` API tokens of the first admin, so that no caller meets its quotas)
* stream churn: ``--streams`` threads, each opening a progress stream of a random finished or running
  comparison, reading it for up to 5 s, closing it (the per-stream state a leak would keep) and waiting 1 s;
* a planner: inline routes (hop metric, all pairs) and, every fourth time, a background routes job followed
  over its event stream, once a second.

The resident set size (RSS, ``/proc/<pid>/status`` ``VmRSS``) of each process group that serve.sh
supervises (the API, the worker, the agent: a group holds a process and everything it started) is sampled
every ``--sample-s`` seconds. Printed: the load, the request counts and errors per kind, p50/p99 of the
reads, the RSS at the end of the warm-up (start) and at the end, the growth in % and as a ratio, the peak,
and the machine's load average (``/proc/loadavg``) at start and end.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from service import Service, example  # noqa: E402

from subflow_testbeds.processes import sign_in

ROLES = ("backend", "worker", "agent")


def rss_mb(data: Path) -> dict[str, float]:
    """RSS (MB) of each supervised process group of serve.sh (``<data>/run/<role>.pid`` leads the group)."""
    leaders = {role: int((data / "run" / f"{role}.pid").read_text()) for role in ROLES}
    out = dict.fromkeys(ROLES, 0.0)
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            pgrp = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[2])
            role = next((r for r, pid in leaders.items() if pid == pgrp), None)
            if role is None:
                continue
            for line in (proc / "status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    out[role] += int(line.split()[1]) / 1024
        except (OSError, IndexError, ValueError):
            continue
    return out


class Traffic:
    """The mixed traffic of the module's docstring, on ``base_url`` with ``token``, until :attr:`stop` is set."""

    def __init__(self, base_url: str, tokens: list[str], scenario_id: str):
        self.base, self.tokens, self.sid = base_url, tokens, scenario_id
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.counts: dict[str, int] = defaultdict(int)
        self.errors: dict[str, int] = defaultdict(int)
        self.read_ms: list[float] = []
        self.comparisons: list[str] = []

    def client(self) -> httpx.Client:
        """A client with one of the tokens, in turn (each token is a caller with its own quotas)."""
        with self.lock:
            self.turn = getattr(self, "turn", -1) + 1
            token = self.tokens[self.turn % len(self.tokens)]
        return httpx.Client(base_url=f"{self.base}/api", timeout=60, headers={"Authorization": f"Bearer {token}"})

    def note(self, kind: str, r: httpx.Response | None, ok: tuple[int, ...] = (200,)) -> None:
        with self.lock:
            self.counts[kind] += 1
            if r is None or r.status_code not in ok:
                self.errors[f"{kind} {r.status_code if r is not None else 'exception'}"] += 1

    def stream(self, client: httpx.Client, path: str, seconds: float) -> None:
        """Read the event stream at ``path`` for at most ``seconds``."""
        end = time.monotonic() + seconds
        try:
            with client.stream("GET", path, timeout=seconds + 10) as r:
                self.note("stream", r)
                for _ in r.iter_lines():
                    if time.monotonic() > end or self.stop.is_set():
                        break
        except httpx.HTTPError:
            self.note("stream", None)

    def reader(self) -> None:
        with self.client() as c:
            while not self.stop.is_set():
                cid = random.choice(self.comparisons) if self.comparisons else None
                for path in (f"/scenarios/{self.sid}", "/scenarios?limit=20",
                             f"/scenarios/{self.sid}/comparisons/{cid}" if cid else None,
                             f"/scenarios/{self.sid}/comparisons?limit=20"):
                    if path is None or self.stop.is_set():
                        continue
                    t0 = time.perf_counter()
                    try:
                        r = c.get(path)
                    except httpx.HTTPError:
                        r = None
                    with self.lock:
                        self.read_ms.append((time.perf_counter() - t0) * 1000)
                    self.note("read", r)
                    self.stop.wait(0.05)

    def writer(self) -> None:
        with self.client() as c:
            doc = example()
            r = c.post("/scenarios", json=doc)
            own, etag = r.json()["id"], r.headers.get("ETag", '"v1"')
            while not self.stop.wait(1.0):
                doc["run"] = {**doc["run"], "seed": doc["run"].get("seed", 1) + 1}
                try:
                    r = c.put(f"/scenarios/{own}", json=doc, headers={"If-Match": etag})
                    etag = r.headers.get("ETag", etag)
                except httpx.HTTPError:
                    r = None
                self.note("write", r)

    def submitter(self, followers: int) -> None:
        with self.client() as c:
            while not self.stop.wait(3.0):
                try:
                    r = c.post(f"/scenarios/{self.sid}/comparisons", json={"strategies": ["sptcp"]})
                except httpx.HTTPError:
                    r = None
                self.note("submit", r, (202,))
                if r is None or r.status_code != 202:
                    continue
                cid = r.json()["id"]
                with self.lock:
                    self.comparisons = (self.comparisons + [cid])[-200:]
                path = f"/scenarios/{self.sid}/comparisons/{cid}/events"
                for _ in range(followers):
                    threading.Thread(target=self.follow, args=(path,), daemon=True).start()

    def follow(self, path: str) -> None:
        with self.client() as c:
            self.stream(c, path, 60)

    def churn(self) -> None:
        with self.client() as c:
            while not self.stop.is_set():
                if not self.comparisons:
                    self.stop.wait(0.5)
                    continue
                cid = random.choice(self.comparisons)
                self.stream(c, f"/scenarios/{self.sid}/comparisons/{cid}/events", random.uniform(0.5, 5.0))
                self.stop.wait(1.0)

    def planner(self) -> None:
        with self.client() as c:
            n = 0
            while not self.stop.wait(1.0):
                n += 1
                background = n % 4 == 0
                try:
                    r = c.post(f"/scenarios/{self.sid}/routes", json={"metric": "hop", "background": background})
                except httpx.HTTPError:
                    r = None
                self.note("routes", r, (202,) if background else (200,))
                if background and r is not None and r.status_code == 202:
                    self.stream(c, f"/jobs/{r.json()['job_id']}/events", 30)


def run(args: argparse.Namespace) -> None:
    load0 = Path("/proc/loadavg").read_text().split()[:3]
    print(f"# Soak: {args.deployment}, {args.warmup_minutes:g} min warm-up + {args.minutes:g} min; {args.callers} callers, "
          f"{args.readers} readers, {args.streams} churning streams (+{args.streams // 4} per comparison)")
    print(f"- machine: {os.cpu_count()} cores; load average at start {' '.join(load0)}")
    with Service(args.deployment) as svc:
        sid = svc.api.post("/scenarios", json=example()).json()["id"]
        access = sign_in(svc.base_url, svc.data / "admin-credentials")
        tokens = [svc.api.post("/users/me/tokens", json={"name": f"soak-{i}", "scope": "write"},
                               headers={"Authorization": f"Bearer {access}"}).json()["token"] for i in range(args.callers)]
        traffic = Traffic(svc.base_url, tokens, sid)
        threads = [threading.Thread(target=traffic.reader) for _ in range(args.readers)]
        threads += [threading.Thread(target=traffic.writer), threading.Thread(target=traffic.planner),
                    threading.Thread(target=traffic.submitter, args=(args.streams // 4,))]
        threads += [threading.Thread(target=traffic.churn) for _ in range(args.streams)]
        for t in threads:
            t.daemon = True
            t.start()
        t0 = time.monotonic()
        samples: list[tuple[float, dict[str, float]]] = []
        warm_end = args.warmup_minutes * 60
        end = warm_end + args.minutes * 60
        start_rss: dict[str, float] | None = None
        while (now := time.monotonic() - t0) < end:
            samples.append((now, rss_mb(svc.data)))
            if start_rss is None and now >= warm_end:
                start_rss = samples[-1][1]
                with traffic.lock:
                    traffic.read_ms.clear()
                    traffic.counts.clear()
                    traffic.errors.clear()
            time.sleep(min(args.sample_s, max(0.1, end - now)))
        final = rss_mb(svc.data)
        traffic.stop.set()
        report(traffic, samples, start_rss or samples[0][1], final, warm_end, load0)


def report(traffic: Traffic, samples: list[tuple[float, dict[str, float]]], start: dict[str, float],
           final: dict[str, float], warm_end: float, load0: list[str]) -> None:
    """Print the figures (after the warm-up)."""
    with traffic.lock:
        counts, errors, reads = dict(traffic.counts), dict(traffic.errors), sorted(traffic.read_ms)
    print("- requests after the warm-up: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    print("- errors: " + (", ".join(f"{k}: {v}" for k, v in sorted(errors.items())) or "none"))
    if reads:
        p99 = reads[min(len(reads) - 1, int(len(reads) * 0.99))]
        print(f"- reads: p50 {statistics.median(reads):.1f} ms, p99 {p99:.1f} ms ({len(reads)} reads)")
    for role in ROLES:
        peak = max(s[role] for t, s in samples if t >= warm_end) if any(t >= warm_end for t, _ in samples) else 0
        growth = (final[role] - start[role]) / start[role] * 100 if start[role] else float("nan")
        print(f"- {role} RSS: {start[role]:.0f} MB after warm-up → {final[role]:.0f} MB at the end "
              f"({growth:+.1f} %, ×{final[role] / start[role] if start[role] else float('nan'):.2f}); "
              f"peak {max(peak, final[role]):.0f} MB")
    print("- RSS samples (min: backend/worker/agent MB): " + "; ".join(
        f"{t / 60:.1f}: {s['backend']:.0f}/{s['worker']:.0f}/{s['agent']:.0f}" for t, s in samples[:: max(1, len(samples) // 12)]))
    print(f"- load average at start {' '.join(load0)}, at end {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--deployment", default="postgresql", choices=("postgresql", "embedded"))
    p.add_argument("--minutes", type=float, default=30.0, help="measured duration after the warm-up")
    p.add_argument("--warmup-minutes", type=float, default=2.0)
    p.add_argument("--readers", type=int, default=4)
    p.add_argument("--streams", type=int, default=40, help="churning progress streams (threads)")
    p.add_argument("--callers", type=int, default=8, help="API tokens the traffic is spread over (callers)")
    p.add_argument("--sample-s", type=float, default=30.0, help="seconds between two RSS samples")
    run(p.parse_args())


if __name__ == "__main__":
    main()
