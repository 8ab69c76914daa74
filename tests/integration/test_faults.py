"""Runs survive dead processes, on both deployments, with real processes and a real ``kill -9``.

The whole service is started as the README says, with ``scripts/serve.sh`` (which starts a
process again when it dies): on the embedded defaults (SQLite, filesystem broker) and on
PostgreSQL + Redis (``DATABASE_URL`` / ``CELERY_BROKER_URL`` set). The PostgreSQL server is one
this test starts itself (``initdb`` in a temporary folder, its own port, run as the
``postgres`` user), never the machine's shared one; Redis is the shared server, database 12.

With a comparison (one long run), a sweep (units) and a background planning job (all-pairs
routes) running, the worker, the agent and the API are each killed in turn (``SIGKILL``);
on PostgreSQL the database server is also stopped for 10 s and started again. After each
fault every job must end — comparisons ``succeeded`` or ``failed`` with a reason, the
planning job ``succeeded`` or ``failed`` with a reason — within :data:`BOUND_S` of the
fault, and the stored scenarios and finished comparisons are unchanged.

Tuning for the test (documented settings, small values so it runs quickly):
``STALE_AFTER_S=6``, ``HEARTBEAT_INTERVAL_S=1``, ``REAPER_INTERVAL_S=1``; four worker threads
(``SUBFLOW_WORKER_CONCURRENCY``) so that the three jobs run at once. On PostgreSQL the API runs as two
processes (``SUBFLOW_API_WORKERS=2``, as compose runs it).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from subflow_testbeds.processes import free_port, sign_in, start_serve, stop_group, tail, wait_http
from tests.integration.conftest import REDIS_URL, ROOT, _example, base_env

pytestmark = pytest.mark.integration

#: Seconds from a fault to every job having ended (measured: well under half of this on 2 cores).
BOUND_S = 150.0
FINISHED = ("succeeded", "failed", "cancelled")
TUNING = {"STALE_AFTER_S": "6", "HEARTBEAT_INTERVAL_S": "1", "REAPER_INTERVAL_S": "1",
          "SUBFLOW_WORKER_CONCURRENCY": "4", "METRICS_TOKEN": "faults-metrics-token"}


def grid_scenario(n: int) -> dict[str, Any]:
    """An n × n grid of switches (lossy links): all-pairs 3-shortest routes take seconds."""
    nodes = [{"id": f"s{i}_{j}", "kind": "switch", "position": {"x_m": i * 100.0, "y_m": j * 100.0}}
             for i in range(n) for j in range(n)]
    links = []
    for i in range(n):
        for j in range(n):
            for di, dj in ((1, 0), (0, 1)):
                if i + di < n and j + dj < n:
                    links.append({"id": f"l{i}_{j}_{di}", "src": f"s{i}_{j}", "dst": f"s{i + di}_{j + dj}",
                                  "bandwidth_mbps": 100, "delay_ms": 1 + (i * 7 + j * 3) % 9,
                                  "loss": ((i + 2 * j) % 5) / 250, "queue_packets": 100})
    return {"schema_version": 1, "name": f"it-{uuid.uuid4().hex[:8]}-grid{n}", "nodes": nodes, "links": links,
            "flows": [{"id": "f1", "src": "s0_0", "dst": f"s{n - 1}_{n - 1}", "rate_mbps": 10, "start_s": 0}],
            "run": {"duration_s": 10, "interval_s": 1, "seed": 1}}


class PostgresServer:
    """A PostgreSQL server of this test's own: initdb in a temporary folder, its own port."""

    def __init__(self, folder: Path):
        self.bin = Path(subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True).stdout.strip()
                        or "/usr/lib/postgresql/15/bin")
        self.folder = folder
        self.data = folder / "pgdata"
        self.port = free_port()
        self.log = folder / "postgres.log"
        folder.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:  # initdb refuses root: the server runs as the postgres user
            shutil.chown(folder, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8")

    def _run(self, tool: str, *args: str) -> None:
        cmd = [str(self.bin / tool), *args]
        if os.geteuid() == 0:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        result = subprocess.run(cmd, capture_output=True, text=True, cwd=self.folder)
        if result.returncode != 0:
            raise RuntimeError(f"{tool} failed: {result.stdout}{result.stderr}\n{tail(self.log)}")

    def start(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60",
                  "-o", f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off", "start")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"


class Service:
    """``scripts/serve.sh`` with its own data folder and ports; ``pid(name)`` of its processes."""

    def __init__(self, data: Path, env: dict[str, str]):
        self.data = data
        self.port, self.agent_port = free_port(), free_port()
        dist = data / "dist"
        dist.mkdir(parents=True, exist_ok=True)
        (dist / "index.html").write_text("<!doctype html><title>Subflow</title><div id=root></div>")
        self.env = base_env(SUBFLOW_DATA_DIR=str(data), SUBFLOW_PORT=str(self.port), AGENT_PORT=str(self.agent_port),
                            SUBFLOW_SKIP_BOOTSTRAP="1", FRONTEND_DIST=str(dist), **TUNING, **env)
        self.log = data / "serve.log"
        self.popen = start_serve(ROOT, self.env, self.log)
        access = sign_in(self.base_url, data / "admin-credentials")
        self.api = httpx.Client(base_url=f"{self.base_url}/api", timeout=30,
                                headers={"Authorization": f"Bearer {access}"})

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def pid(self, name: str) -> int:
        return int((self.data / "run" / f"{name}.pid").read_text())

    def logs(self) -> str:
        folder = self.data / "logs"
        return "\n".join(f"--- {p.name} ---\n{tail(p, 25)[-4000:]}" for p in sorted(folder.glob("*.log")))

    def call(self, method: str, path: str, **kwargs: Any) -> httpx.Response | None:
        """A request that tolerates the API being down or answering 503 (None then)."""
        try:
            r = self.api.request(method, path, **kwargs)
        except httpx.TransportError:
            return None
        return None if r.status_code == 503 else r

    def kill(self, name: str) -> None:
        """``kill -9`` the process and wait until serve.sh has started it again and it answers."""
        old = self.pid(name)
        os.kill(old, signal.SIGKILL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                new = self.pid(name)
            except (OSError, ValueError):
                new = old
            if new != old:
                break
            time.sleep(0.1)
        else:
            raise AssertionError(f"{name} was not started again:\n{self.logs()}")
        url = {"backend": f"{self.base_url}/api/health", "agent": f"http://127.0.0.1:{self.agent_port}/health"}.get(name)
        if url:
            wait_http(url, timeout_s=max(0.0, deadline - time.monotonic()), what=self.logs())

    def stop(self) -> None:
        self.api.close()
        stop_group(self.popen)


@pytest.fixture(params=["embedded", "postgresql+redis"])
def service(request, tmp_path_factory) -> Iterator[tuple[str, Service, PostgresServer | None]]:
    folder = tmp_path_factory.mktemp(f"faults-{request.param.replace('+', '-')}")
    pg = None
    # one strategy at a time: the long comparison must leave one of the agent's two run slots to the sweep's
    # units, so that all three kinds of work are in flight when a process is killed
    env: dict[str, str] = {"PARALLEL_STRATEGIES": "1"}
    if request.param != "embedded":
        if shutil.which("pg_config") is None and not Path("/usr/lib/postgresql/15/bin/initdb").exists():
            pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) are not installed")
        import redis

        try:
            redis.Redis.from_url(f"{REDIS_URL}/12", socket_connect_timeout=3).flushdb()
        except redis.exceptions.ConnectionError as exc:
            pytest.skip(f"Redis not reachable at {REDIS_URL}: {exc}")
        # not under pytest's temporary folders: those are readable by root only
        pg = PostgresServer(Path(tempfile.mkdtemp(prefix="subflow-it-pg-")))
        pg.start()
        # two API processes, as compose runs it: a killed API takes its worker processes with it
        env |= {"DATABASE_URL": pg.url, "CELERY_BROKER_URL": f"{REDIS_URL}/12", "SUBFLOW_API_WORKERS": "2"}
    svc = Service(folder / "data", env)
    try:
        yield request.param, svc, pg
    finally:
        svc.stop()
        if pg is not None:
            try:
                pg.stop()
            except RuntimeError:
                pass
            shutil.rmtree(pg.folder, ignore_errors=True)


def _submit(svc: Service, ids: dict[str, str]) -> dict[str, str]:
    """Start a long comparison, a sweep and a background planning job; returns their paths."""
    api = svc.api
    long_path = f"/scenarios/{ids['naval']}/comparisons"
    single = api.post(long_path, json={"strategies": ["sptcp", "mptcp"]})
    sweep = api.post(long_path, json={"strategies": ["sptcp", "mptcp"], "repetitions": 3,
                                      "sweep": {"parameter": "run.duration_s", "values": [1200, 1500, 1800, 2100]}})
    job = api.post(f"/scenarios/{ids['grid']}/routes", json={"metric": "delay", "k": 3, "background": True})
    assert single.status_code == 202 and sweep.status_code == 202 and job.status_code == 202, (
        single.text, sweep.text, job.text)
    return {"single": f"{long_path}/{single.json()['id']}", "sweep": f"{long_path}/{sweep.json()['id']}",
            "job": f"/jobs/{job.json()['job_id']}"}


def _state(svc: Service, path: str) -> dict[str, Any] | None:
    r = svc.call("GET", path)
    return None if r is None else r.json()


def _wait_running(svc: Service, jobs: dict[str, str]) -> None:
    """Until the comparison and the sweep run (the sweep has a unit done) and the job runs."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        single, sweep, job = (_state(svc, jobs[k]) for k in ("single", "sweep", "job"))
        if (single and single["status"] == "running" and sweep and sweep["units_done"] >= 1
                and job and job["status"] == "running"):
            return
        time.sleep(0.2)
    brief = [None if x is None else (x["status"], x.get("units_done"), x.get("error")) for x in (single, sweep, job)]
    raise AssertionError(f"the jobs did not all run at once: {brief}\n{svc.logs()}")


def _wait_ended(svc: Service, jobs: dict[str, str], since: float, fault: str) -> dict[str, tuple[str, str | None]]:
    """Until every job has ended; each must end within BOUND_S of ``since``."""
    ended: dict[str, tuple[str, str | None]] = {}
    while len(ended) < len(jobs):
        for name, path in jobs.items():
            if name in ended:
                continue
            state = _state(svc, path)
            if state and state["status"] in FINISHED:
                ended[name] = (state["status"], state["error"])
        elapsed = time.monotonic() - since
        assert elapsed < BOUND_S, (
            f"after killing {fault}: {sorted(set(jobs) - set(ended))} still not ended after {elapsed:.0f} s "
            f"(bound {BOUND_S:g} s)\n{svc.logs()}")
        time.sleep(0.3)
    return ended


def _stored(svc: Service, ids: dict[str, str], finished: str) -> tuple:
    """The stored scenarios and the finished comparison, as the API returns them."""
    scenarios = tuple(svc.api.get(f"/scenarios/{sid}").json() for sid in ids.values())
    return scenarios, svc.api.get(finished).json()


def test_every_run_ends_after_each_process_is_killed(service):
    deployment, svc, pg = service
    api = svc.api
    naval = _example()
    naval["run"]["duration_s"] = 30000  # 5-10 s of engine time per strategy (the fluid engine runs ~4,000x real time):
    # the comparison must still run when the sweep has finished a unit and the planning job has started (the
    # kernels release the interpreter lock, so the sweep's units run beside it in the agent)
    naval["run"]["interval_s"] = 10  # 3,000 samples per flow keep the stored result small
    ids = {"naval": api.post("/scenarios", json=naval).json()["id"],
           "grid": api.post("/scenarios", json=grid_scenario(10)).json()["id"]}
    first = api.post(f"/scenarios/{ids['naval']}/comparisons", json={"strategies": ["sptcp"]}).json()["id"]
    finished = f"/scenarios/{ids['naval']}/comparisons/{first}"
    deadline = time.monotonic() + 120
    while api.get(finished).json()["status"] != "succeeded":
        assert time.monotonic() < deadline, svc.logs()
        time.sleep(0.2)
    before = _stored(svc, ids, finished)

    faults = ["worker", "agent", "backend"] + (["postgresql"] if pg is not None else [])
    outcomes: dict[str, dict[str, tuple[str, str | None]]] = {}
    for fault in faults:
        jobs = _submit(svc, ids)
        _wait_running(svc, jobs)
        since = time.monotonic()
        if fault == "postgresql":
            pg.stop()
            time.sleep(10)
            pg.start()
        else:
            svc.kill(fault)
        outcomes[fault] = _wait_ended(svc, jobs, since, fault)
        for name, (status, error) in outcomes[fault].items():
            assert status in ("succeeded", "failed"), (fault, name, status, error)
            assert status == "succeeded" or (error and len(error) > 10), (fault, name, error)
        print(f"{deployment}: kill {fault}: ended in {time.monotonic() - since:.1f} s: {outcomes[fault]}")

    # nothing stored was lost or changed
    assert _stored(svc, ids, finished) == before
    # the comparisons were re-run, not given up: a dead worker, agent or API costs a restart, not the result
    for fault, ended in outcomes.items():
        assert ended["single"][0] == "succeeded" and ended["sweep"][0] == "succeeded", (fault, ended)
    # every process that was killed was started again by serve.sh, and said so in its appended log
    for name in ("worker", "agent", "backend"):
        assert "starting it again" in (svc.data / "logs" / f"{name}.log").read_text()


def test_a_cancelled_sweep_does_not_hold_back_later_work(service):
    """A cancel stops a sweep's units at once: a comparison submitted right after it starts
    running within seconds, not after the cancelled sweep's units have drained."""
    deployment, svc, _pg = service
    api = svc.api
    doc = _example()
    sid = api.post("/scenarios", json=doc).json()["id"]
    path = f"/scenarios/{sid}/comparisons"
    big = api.post(path, json={"strategies": ["sptcp", "mptcp"], "repetitions": 50,
                               "sweep": {"parameter": "run.duration_s", "values": list(range(100, 2100, 100))}})
    assert big.status_code == 202, big.text
    big_id = big.json()["id"]
    deadline = time.monotonic() + 60
    while api.get(f"{path}/{big_id}").json()["units_done"] < 1:
        assert time.monotonic() < deadline, svc.logs()
        time.sleep(0.1)
    assert api.post(f"{path}/{big_id}/cancel").json()["status"] == "cancelled"
    cancelled_at = time.monotonic()
    later = api.post(path, json={"strategies": ["sptcp"]}).json()["id"]
    while (state := api.get(f"{path}/{later}").json())["status"] not in FINISHED:
        assert time.monotonic() - cancelled_at < 30, f"the later comparison waited: {state}\n{svc.logs()}"
        time.sleep(0.1)
    assert state["status"] == "succeeded", state
    waited = time.monotonic() - cancelled_at
    cancelled = api.get(f"{path}/{big_id}").json()
    assert cancelled["status"] == "cancelled" and cancelled["units_done"] < 20, cancelled
    print(f"{deployment}: after cancelling a {cancelled['units_total']}-unit sweep, the next comparison "
          f"succeeded in {waited:.1f} s")


def test_metrics_count_every_request_of_every_api_process(service):
    """``GET /metrics`` counts the requests of all API processes, whichever process answers the
    scrape (two on PostgreSQL: prometheus_client's multiprocess mode; one embedded)."""
    from prometheus_client.parser import text_string_to_metric_families

    deployment, svc, _pg = service
    url = f"{svc.base_url}/metrics"
    auth = {"Authorization": f"Bearer {TUNING['METRICS_TOKEN']}"}

    def listed() -> float:
        text = httpx.get(url, headers=auth, timeout=10).text
        return sum(s.value for f in text_string_to_metric_families(text) for s in f.samples
                   if s.name == "subflow_http_request_duration_seconds_count"
                   and s.labels == {"method": "GET", "route": "/api/scenarios", "status": "200"})

    before = listed()
    for _ in range(40):  # new connections, so both processes answer some
        assert httpx.get(f"{svc.base_url}/api/scenarios", headers=svc.api.headers, timeout=10).status_code == 200
    counted = [listed() - before for _ in range(4)]  # several scrapes: any process may answer each
    assert counted == [40, 40, 40, 40], (deployment, before, counted)
