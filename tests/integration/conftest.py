"""Integration fixtures: real PostgreSQL, Redis, emulator agent, Celery worker and API processes.

Nothing of ours is mocked. Per test session:

* a fresh PostgreSQL database ``subflow_it_<random>`` (dropped at the end),
  migrated with ``alembic upgrade head``;
* Redis databases 15 (main stack), 14 (dead-agent stack) and 13 (wrong-token
  stack), flushed first;
* one emulator agent (``uvicorn subflow_agent.app:app``) on a free port;
* stacks of API (``uvicorn subflow_backend.main:app``) + worker
  (``celery -A subflow_worker.celery_app worker --pool=solo``) processes:
  ``pg_stack`` (PostgreSQL + Redis + live agent), ``dead_agent_stack``
  (same database, its own Redis db, AGENT_URL on a closed port) and
  ``embedded_stack`` (SQLite + filesystem broker under a temporary
  SUBFLOW_DATA_DIR, live agent); ``wrong_token_stack`` (live agent, wrong
  AGENT_TOKEN).

Every stack's database gets its first admin from ``subflow-seed --no-examples`` (the
credentials file in the data directory, as ``make run`` writes it); ``stack.api`` then
signs in with the OAuth2 password form and sends a personal API token of scope
``write`` (``stack.token``); ``stack.login(username, password)`` and
``stack.client(token)`` give clients for other users.

Environment overrides: ``SUBFLOW_IT_PG`` (admin URL, default
``postgresql://postgres@127.0.0.1:5432/test``), ``SUBFLOW_IT_REDIS`` (default
``redis://127.0.0.1:6379``), ``SUBFLOW_IT_REDIS_DBS`` (default ``15,14,13``). If PostgreSQL or Redis cannot be reached, the
tests that need them are skipped with the reason.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from subflow_testbeds.processes import exited_check, free_port, tail, wait_http

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
PYTHON = sys.executable
PG_ADMIN_URL = os.environ.get("SUBFLOW_IT_PG", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("SUBFLOW_IT_REDIS", "redis://127.0.0.1:6379").rstrip("/")
#: Redis databases of the main, dead-agent and wrong-token stacks (``SUBFLOW_IT_REDIS_DBS``, default
#: ``15,14,13``): two test sessions on one Redis server at once need different ones, or their workers
#: take each other's messages.
REDIS_DBS = [int(x) for x in os.environ.get("SUBFLOW_IT_REDIS_DBS", "15,14,13").split(",")]
AGENT_TOKEN = f"it-{uuid.uuid4().hex}"
#: Bearer token of the API's ``/metrics`` in every stack.
METRICS_TOKEN = f"it-metrics-{uuid.uuid4().hex}"
#: how long a started process may take to answer its health check: a few seconds on a quiet machine, over 30 s
#: when the host runs other heavy work (imports alone took 9 s at a load of 10); a process that dies fails at once
STARTUP_TIMEOUT_S = 120.0

# variables of ours that must not leak from the caller's environment into the processes
_OWN_VARS = (
    "SUBFLOW_", "DATABASE_URL", "CELERY_", "AGENT_", "TASK_", "ENGINES", "FRONTEND_DIST", "BACKEND_CORS", "METRICS_", "LOG_",
)


def base_env(**overrides: str) -> dict[str, str]:
    """The caller's environment without Subflow settings, plus ``overrides``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_OWN_VARS)}
    env.update(SUBFLOW_ENV="test", PYTHONUNBUFFERED="1", AGENT_TOKEN=AGENT_TOKEN, METRICS_TOKEN=METRICS_TOKEN)
    # every test signs in from 127.0.0.1 (and schemathesis fuzzes the sign-in form): the per-address
    # limit would lock them all out; tests/unit/backend/test_guards.py tests it
    env.update(LOGIN_MAX_FAILURES_PER_ADDRESS="1000000")
    env.update(overrides)
    return env


@dataclass
class Proc:
    """A subprocess writing to a log file."""

    name: str
    popen: subprocess.Popen
    log: Path

    @classmethod
    def start(cls, name: str, args: list[str], env: dict[str, str], log: Path) -> "Proc":
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("wb") as fh:
            popen = subprocess.Popen(args, env=env, cwd=ROOT, stdout=fh, stderr=subprocess.STDOUT)
        return cls(name, popen, log)

    def check_alive(self) -> None:
        exited_check(self.popen, self.log, self.name)()

    def wait_http(self, url: str) -> None:
        wait_http(url, alive=self.check_alive, timeout_s=STARTUP_TIMEOUT_S, interval_s=0.1, what=tail(self.log))

    def wait_log(self, text: str) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while time.monotonic() < deadline:
            self.check_alive()
            if text in self.log.read_text(errors="replace"):
                return
            time.sleep(0.1)
        raise RuntimeError(f"{self.name} never logged {text!r}:\n{tail(self.log)}")

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(timeout=5)


@dataclass
class Stack:
    """API + worker processes sharing one environment; ``api`` is an httpx client on ``/api``
    authenticated as the first admin with a write token (``token``)."""

    name: str
    env: dict[str, str]
    base_url: str
    procs: list[Proc] = field(default_factory=list)
    api: httpx.Client | None = None
    admin: tuple[str, str] = ("", "")
    token: str = ""
    _clients: list[httpx.Client] = field(default_factory=list)

    def client(self, token: str | None = None) -> httpx.Client:
        """A client on ``/api`` sending ``Authorization: Bearer <token>`` (none: anonymous)."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        c = httpx.Client(base_url=f"{self.base_url}/api", timeout=30.0, headers=headers)
        self._clients.append(c)
        return c

    def login(self, username: str, password: str) -> str:
        """Sign in with the OAuth2 password form; returns the bearer access token."""
        r = httpx.post(f"{self.base_url}/api/auth/login", data={"username": username, "password": password},
                       timeout=30.0)
        assert r.status_code == 200, r.text
        return r.json()["access_token"]

    def new_token(self, access_token: str, scope: str = "write") -> str:
        """A personal API token of ``scope`` for the user of ``access_token``."""
        r = httpx.post(f"{self.base_url}/api/users/me/tokens", json={"name": f"it-{scope}", "scope": scope},
                       headers={"Authorization": f"Bearer {access_token}"}, timeout=30.0)
        assert r.status_code == 201, r.text
        return r.json()["token"]

    @property
    def worker_log(self) -> Path:
        return next(p.log for p in self.procs if p.name.endswith("worker"))

    def logs(self) -> str:
        return "\n".join(f"--- {p.name} ({p.log}) ---\n{tail(p.log)}" for p in self.procs)

    def stop(self) -> None:
        if self.api is not None:
            self.api.close()
        for c in self._clients:
            c.close()
        for p in reversed(self.procs):
            p.stop()


def migrate(env: dict[str, str], log: Path) -> None:
    """``alembic upgrade head`` with ``env`` (from the repository root, as the service does)."""
    result = subprocess.run(
        [PYTHON, "-m", "alembic", "upgrade", "head"], env=env, cwd=ROOT, capture_output=True, text=True
    )
    log.write_text(result.stdout + result.stderr)
    if result.returncode != 0:
        raise RuntimeError(f"alembic upgrade head failed:\n{result.stdout}{result.stderr}")


def seed_admin(env: dict[str, str], data_dir: Path) -> tuple[str, str]:
    """Create the first admin as ``make run`` does (``subflow-seed --no-examples``) and read its
    credentials file (or an earlier run's, if the database had its admin already)."""
    result = subprocess.run(
        [PYTHON, "-m", "subflow_backend.seed", "--no-examples"], env={**env, "SUBFLOW_DATA_DIR": str(data_dir)},
        cwd=ROOT, capture_output=True, text=True,
    )
    if result.returncode != 0:
        raise RuntimeError(f"subflow-seed failed:\n{result.stdout}{result.stderr}")
    cred = data_dir / "admin-credentials"
    assert cred.stat().st_mode & 0o777 == 0o600, oct(cred.stat().st_mode)
    username, password = cred.read_text().strip().split(":", 1)
    return username, password


def start_stack(name: str, env: dict[str, str], logs: Path, admin: tuple[str, str]) -> Stack:
    """Start an API (uvicorn) and a worker (celery, solo pool) with ``env``; ``admin`` are the
    first admin's credentials."""
    port = free_port()
    stack = Stack(name, env, f"http://127.0.0.1:{port}", admin=admin)
    try:
        worker = Proc.start(
            f"{name}-worker",
            [PYTHON, "-m", "celery", "-A", "subflow_worker.celery_app", "worker", "--pool=solo",
             "--loglevel=INFO", "--without-mingle", "--without-gossip",
             "--hostname", f"{name}-{uuid.uuid4().hex[:6]}@%h"],
            env,
            logs / f"{name}-worker.log",
        )
        stack.procs.append(worker)
        api = Proc.start(
            f"{name}-api",
            [PYTHON, "-m", "uvicorn", "subflow_backend.main:app", "--host", "127.0.0.1", "--port", str(port)],
            env,
            logs / f"{name}-api.log",
        )
        stack.procs.append(api)
        api.wait_http(f"{stack.base_url}/api/health")
        worker.wait_log(" ready.")
    except BaseException:
        stack.stop()
        raise
    stack.token = stack.new_token(stack.login(*admin), "write")
    stack.api = httpx.Client(base_url=f"{stack.base_url}/api", timeout=30.0,
                             headers={"Authorization": f"Bearer {stack.token}"})
    return stack


# --------------------------------------------------------------------------- session resources


@pytest.fixture(scope="session")
def logs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("logs")


@pytest.fixture(scope="session")
def agent_url(logs_dir: Path) -> Iterator[str]:
    """A real emulator agent process; yields its base URL."""
    port = free_port()
    proc = Proc.start(
        "agent",
        [PYTHON, "-m", "uvicorn", "subflow_agent.app:app", "--host", "127.0.0.1", "--port", str(port)],
        base_env(),
        logs_dir / "agent.log",
    )
    try:
        proc.wait_http(f"http://127.0.0.1:{port}/health")
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.stop()


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """A fresh PostgreSQL database (``postgresql+psycopg://...``), dropped at the end."""
    import psycopg
    from psycopg import sql

    name = f"subflow_it_{uuid.uuid4().hex[:10]}"
    try:
        admin = psycopg.connect(PG_ADMIN_URL, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL not reachable at {PG_ADMIN_URL}: {exc}")
    with admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    info = psycopg.conninfo.conninfo_to_dict(PG_ADMIN_URL)
    user = info.get("user", "postgres")
    password = f":{info['password']}" if info.get("password") else ""
    host, port = info.get("host", "127.0.0.1"), info.get("port", "5432")
    try:
        yield f"postgresql+psycopg://{user}{password}@{host}:{port}/{name}"
    finally:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def _redis_db(index: int) -> str:
    import redis

    client = redis.Redis.from_url(f"{REDIS_URL}/{index}", socket_connect_timeout=3)
    try:
        client.flushdb()
    except redis.exceptions.ConnectionError as exc:
        pytest.skip(f"Redis not reachable at {REDIS_URL}: {exc}")
    finally:
        client.close()
    return f"{REDIS_URL}/{index}"


@pytest.fixture(scope="session")
def migrated_pg_url(pg_url: str, logs_dir: Path) -> str:
    """``pg_url`` after ``alembic upgrade head``."""
    migrate(base_env(DATABASE_URL=pg_url), logs_dir / "migrate-pg.log")
    return pg_url


@pytest.fixture(scope="session")
def pg_admin(migrated_pg_url: str, tmp_path_factory) -> tuple[str, str]:
    """(username, password) of the first admin of the PostgreSQL database."""
    return seed_admin(base_env(DATABASE_URL=migrated_pg_url), tmp_path_factory.mktemp("pg-admin"))


@pytest.fixture(scope="session")
def pg_stack(migrated_pg_url: str, pg_admin, agent_url: str, logs_dir: Path, tmp_path_factory) -> Iterator[Stack]:
    """API + worker on PostgreSQL and Redis (db 15) with the live agent."""
    env = base_env(
        DATABASE_URL=migrated_pg_url,
        CELERY_BROKER_URL=_redis_db(REDIS_DBS[0]),
        AGENT_URL=agent_url,
        SUBFLOW_DATA_DIR=str(tmp_path_factory.mktemp("pg-data")),
    )
    stack = start_stack("pg", env, logs_dir, pg_admin)
    yield stack
    stack.stop()


@pytest.fixture(scope="session")
def dead_agent_stack(migrated_pg_url: str, pg_admin, logs_dir: Path, tmp_path_factory) -> Iterator[Stack]:
    """API + worker on the same PostgreSQL database, Redis db 14, and AGENT_URL on a closed port;
    three retries (1 + 2 + 4 s) instead of the default five, so the failure comes quickly."""
    env = base_env(
        TASK_MAX_RETRIES="3",
        DATABASE_URL=migrated_pg_url,
        CELERY_BROKER_URL=_redis_db(REDIS_DBS[1]),
        AGENT_URL=f"http://127.0.0.1:{free_port()}",
        SUBFLOW_DATA_DIR=str(tmp_path_factory.mktemp("dead-data")),
    )
    stack = start_stack("dead-agent", env, logs_dir, pg_admin)
    yield stack
    stack.stop()


@pytest.fixture(scope="session")
def wrong_token_stack(migrated_pg_url: str, pg_admin, agent_url: str, logs_dir: Path, tmp_path_factory) -> Iterator[Stack]:
    """API + worker on the same PostgreSQL database, Redis db 13, the live agent but a wrong AGENT_TOKEN."""
    env = base_env(
        DATABASE_URL=migrated_pg_url,
        CELERY_BROKER_URL=_redis_db(REDIS_DBS[2]),
        AGENT_URL=agent_url,
        AGENT_TOKEN="not-the-agent-token",
        SUBFLOW_DATA_DIR=str(tmp_path_factory.mktemp("wrong-token-data")),
    )
    stack = start_stack("wrong-token", env, logs_dir, pg_admin)
    yield stack
    stack.stop()


@pytest.fixture(scope="session")
def embedded_stack(agent_url: str, logs_dir: Path, tmp_path_factory) -> Iterator[Stack]:
    """API + worker on the embedded defaults: SQLite file and filesystem broker under
    a fresh SUBFLOW_DATA_DIR (no DATABASE_URL / CELERY_BROKER_URL set). A tiny
    built frontend is served from ``FRONTEND_DIST``."""
    data = tmp_path_factory.mktemp("embedded-data")
    dist = data / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text("<!doctype html><title>Subflow</title><div id=root></div>")
    (dist / "assets" / "app.js").write_text("console.log('subflow')")
    env = base_env(SUBFLOW_DATA_DIR=str(data), AGENT_URL=agent_url, FRONTEND_DIST=str(dist))
    migrate(env, logs_dir / "migrate-embedded.log")
    stack = start_stack("embedded", env, logs_dir, seed_admin(env, data))
    yield stack
    stack.stop()


# --------------------------------------------------------------------------- helpers for tests


def _example(name: str = "naval-direct-move", unique: bool = True) -> dict[str, Any]:
    """An example scenario document; with ``unique``, renamed ``it-<random>-<name>``."""
    doc = json.loads((EXAMPLES / f"{name}.json").read_text())
    if unique:
        doc["name"] = f"it-{uuid.uuid4().hex[:8]}-{name}"
    return doc


def _wait_comparison(stack: Stack, scenario_id: str, comparison_id: str, timeout_s: float = 60.0) -> tuple[dict, list[float]]:
    """Poll a comparison until it finishes; returns (final ComparisonPublic, progress values seen)."""
    assert stack.api is not None
    seen: list[float] = []
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        r = stack.api.get(f"/scenarios/{scenario_id}/comparisons/{comparison_id}")
        assert r.status_code == 200, r.text
        body = r.json()
        if not seen or seen[-1] != body["progress"]:
            seen.append(body["progress"])
        if body["status"] in ("succeeded", "failed", "cancelled"):
            return body, seen
        time.sleep(0.1)
    raise AssertionError(
        f"comparison {comparison_id} not finished after {timeout_s} s (last: {body['status']})\n{stack.logs()}"
    )


@pytest.fixture
def example():
    """``example(name="naval-direct-move", unique=True) -> dict``: an example scenario document."""
    return _example


@pytest.fixture
def wait_comparison():
    """``wait_comparison(stack, scenario_id, comparison_id, timeout_s=60) -> (comparison, progress seen)``."""
    return _wait_comparison
