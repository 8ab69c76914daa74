"""Scale-out of sweeps over workers: a 200-run sweep with 1, then 2 worker + agent pairs.

Each pair is a Celery worker (``--pool=solo``: one unit at a time) with its own emulator agent
(``AGENT_URL`` of that agent: the engine runs next to the worker, as on a worker machine of the
README), all on one PostgreSQL database and one Redis broker, behind one API. The same sweep —
naval-direct-move, strategies ``sptcp`` and ``mptcp``, ``nodes.uav.range_m`` over 100 values ×
2 repetitions = 200 units — is posted to the API and timed from its ``created_at`` to its ``finished_at``
(the server's clock; the client polls once a second, so its polling costs the API next to nothing);
the speed-up is t(1 pair) ÷ t(2 pairs) (target ≥ 1.7 on a 2-core machine). It also prints how
the units were shared between the workers (their ``run_unit`` log lines), the CPU time the API,
the workers and the agents spent during the sweep (``/proc``), and the load average.

    python benchmarks/scaleout.py [--values 100] [--repetitions 2] [--pairs 1 2]

Needs PostgreSQL (``SUBFLOW_BENCH_PG``, default ``postgresql://postgres@127.0.0.1:5432/postgres``,
an admin URL: a fresh database is created and dropped) and Redis (``SUBFLOW_BENCH_REDIS``, default
``redis://127.0.0.1:6379/11``, flushed first).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime
from pathlib import Path

import httpx
import psycopg
import redis
from psycopg import sql

from subflow_testbeds.processes import cpu_s, exited_check, free_port, wait_http

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
PG_ADMIN = os.environ.get("SUBFLOW_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("SUBFLOW_BENCH_REDIS", "redis://127.0.0.1:6379/11")


def start(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    with log.open("ab") as fh:
        return subprocess.Popen(args, env=env, cwd=ROOT, stdout=fh, stderr=subprocess.STDOUT)


def stop(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        p.terminate()
    for p in procs:
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()


def run_sweep(pairs: int, env: dict[str, str], logs: Path, admin: tuple[str, str], values: int,
              repetitions: int) -> tuple[float, dict[str, int], dict[str, float]]:
    """Start the API and ``pairs`` worker + agent pairs, time one sweep; returns (seconds, units per
    worker, CPU seconds spent during the sweep by the API, the workers and the agents)."""
    procs: list[subprocess.Popen] = []
    roles: dict[str, list[subprocess.Popen]] = {"api": [], "workers": [], "agents": []}
    try:
        port = free_port()
        api_log = logs / f"api-{pairs}.log"
        procs.append(start([PYTHON, "-m", "uvicorn", "subflow_backend.main:app", "--port", str(port)], env, api_log))
        roles["api"].append(procs[-1])
        workers = []
        for i in range(pairs):
            agent_port = free_port()
            agent_log = logs / f"agent-{pairs}-{i}.log"
            agent = start([PYTHON, "-m", "uvicorn", "subflow_agent.app:app", "--port", str(agent_port)], env, agent_log)
            procs.append(agent)
            roles["agents"].append(agent)
            wait_http(f"http://127.0.0.1:{agent_port}/health", alive=exited_check(agent, agent_log, "agent"))
            name = f"bench{pairs}-{i}-{uuid.uuid4().hex[:4]}"
            worker_log = logs / f"worker-{pairs}-{i}.log"
            procs.append(start([PYTHON, "-m", "celery", "-A", "subflow_worker.celery_app", "worker", "--pool=solo",
                                "--loglevel=INFO", "--without-mingle", "--without-gossip", "--hostname", f"{name}@%h"],
                               {**env, "AGENT_URL": f"http://127.0.0.1:{agent_port}"}, worker_log))
            roles["workers"].append(procs[-1])
            workers.append(worker_log)
        base = f"http://127.0.0.1:{port}"
        wait_http(f"{base}/api/health", alive=exited_check(procs[0], api_log, "API"))
        for log in workers:  # every worker consumes before the clock starts
            deadline = time.monotonic() + 60
            while " ready." not in log.read_text(errors="replace"):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"worker not ready\n{log.read_text()[-3000:]}")
                time.sleep(0.2)
        token = httpx.post(f"{base}/api/auth/login", data={"username": admin[0], "password": admin[1]},
                           timeout=30).json()["access_token"]
        api = httpx.Client(base_url=f"{base}/api", headers={"Authorization": f"Bearer {token}"}, timeout=60)
        doc = json.loads((ROOT / "examples" / "naval-direct-move.json").read_text())
        doc["name"] = f"bench-{uuid.uuid4().hex[:8]}"
        sid = api.post("/scenarios", json=doc).raise_for_status().json()["id"]
        sweep = {"parameter": "nodes.uav.range_m", "values": [100 + 5 * i for i in range(values)]}
        cpu_before = {role: sum(cpu_s(p.pid) for p in ps) for role, ps in roles.items()}
        started = time.perf_counter()
        r = api.post(f"/scenarios/{sid}/comparisons",
                     json={"strategies": ["sptcp", "mptcp"], "repetitions": repetitions, "sweep": sweep})
        r.raise_for_status()
        cid = r.json()["id"]
        while True:  # slow polling: the time comes from the comparison's own timestamps, and the API's
            body = api.get(f"/scenarios/{sid}/comparisons/{cid}").json()  # CPU is for the sweep
            if body["status"] not in ("queued", "running"):
                break
            time.sleep(1.0)
        took = (datetime.fromisoformat(body["finished_at"]) - datetime.fromisoformat(body["created_at"])).total_seconds()
        print(f"  (POST to finished_at {took:.1f} s; to the client seeing it {time.perf_counter() - started:.1f} s)",
              flush=True)
        cpu = {role: sum(cpu_s(p.pid) for p in ps) - cpu_before[role] for role, ps in roles.items()}
        if body["status"] != "succeeded":
            raise RuntimeError(f"sweep {body['status']}: {body.get('error')}")
        if body["units_total"] != values * repetitions:
            raise RuntimeError(f"{body['units_total']} units, expected {values * repetitions}")
        shares = {}
        for i, log in enumerate(workers):
            shares[f"worker {i}"] = sum(1 for line in log.read_text(errors="replace").splitlines()
                                        if "subflow.run_unit" in line and "succeeded in" in line and cid in line)
        api.close()
        return took, shares, cpu
    finally:
        stop(procs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--values", type=int, default=100, help="sweep points (default 100)")
    parser.add_argument("--repetitions", type=int, default=2, help="repetitions per point (default 2)")
    parser.add_argument("--pairs", type=int, nargs="+", default=[1, 2], help="worker + agent pairs to try")
    opts = parser.parse_args()

    db = f"subflow_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as admin_conn:
        admin_conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(db)))
    info = psycopg.conninfo.conninfo_to_dict(PG_ADMIN)
    db_url = (f"postgresql+psycopg://{info.get('user', 'postgres')}"
              f"{':' + info['password'] if info.get('password') else ''}"
              f"@{info.get('host', '127.0.0.1')}:{info.get('port', '5432')}/{db}")
    broker = redis.Redis.from_url(REDIS_URL)
    broker.flushdb()
    logs = Path(tempfile.mkdtemp(prefix="subflow-scaleout-"))
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SUBFLOW_", "DATABASE_URL", "CELERY_", "AGENT_", "TASK_", "METRICS_", "LOG_"))}
    env.update(SUBFLOW_ENV="test", PYTHONUNBUFFERED="1", DATABASE_URL=db_url, CELERY_BROKER_URL=REDIS_URL,
               AGENT_TOKEN=f"bench-{uuid.uuid4().hex}", SUBFLOW_DATA_DIR=str(logs / "data"), LOG_LEVEL="INFO")
    try:
        subprocess.run([PYTHON, "-m", "alembic", "upgrade", "head"], env=env, cwd=ROOT, check=True,
                       capture_output=True)
        subprocess.run([PYTHON, "-m", "subflow_backend.seed", "--no-examples"], env=env, cwd=ROOT, check=True,
                       capture_output=True)
        username, password = (logs / "data" / "admin-credentials").read_text().strip().split(":", 1)
        units = opts.values * opts.repetitions
        print(f"# Scale-out: a {units}-unit sweep (naval-direct-move, sptcp + mptcp, {opts.values} points × "
              f"{opts.repetitions} repetitions), PostgreSQL + Redis, worker (solo pool) + agent pairs")
        print(f"- machine: {os.cpu_count()} cores; load average at start {os.getloadavg()[0]:.2f}")
        times = {}
        for pairs in opts.pairs:
            load = os.getloadavg()[0]
            took, shares, cpu = run_sweep(pairs, env, logs, (username, password), opts.values, opts.repetitions)
            times[pairs] = took
            share = ", ".join(f"{k}: {v}" for k, v in shares.items())
            spent = ", ".join(f"{role} {seconds:.1f} s" for role, seconds in cpu.items())
            print(f"- {pairs} pair{'s' if pairs > 1 else ''}: {took:.1f} s, {units / took:.1f} units/s "
                  f"(units per worker: {share}; load average before {load:.2f}, after {os.getloadavg()[0]:.2f})")
            print(f"  CPU during the sweep: {spent}; {sum(cpu.values()) / took:.2f} cores busy on average")
        if 1 in times:
            for pairs, took in times.items():
                if pairs != 1:
                    print(f"- speed-up with {pairs} pairs: {times[1] / took:.2f}× (target with 2: ≥ 1.7×)")
    finally:
        broker.flushdb()
        broker.close()
        with psycopg.connect(PG_ADMIN, autocommit=True) as admin_conn:
            admin_conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(db)))


if __name__ == "__main__":
    main()
