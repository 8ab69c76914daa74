"""Start the whole Subflow service for a benchmark, as the README says (``scripts/serve.sh``).

``Service("embedded")``: SQLite and the filesystem broker in a temporary data folder.
``Service("postgresql")``: a fresh database ``subflow_bench_<random>`` on the PostgreSQL server at
``SUBFLOW_BENCH_PG`` (admin URL, default ``postgresql://postgres@127.0.0.1:5432/test``; the database
is dropped afterwards) and Redis database ``SUBFLOW_BENCH_REDIS_DB`` (default 11) of ``SUBFLOW_BENCH_REDIS`` (default
``redis://127.0.0.1:6379``, flushed first). Loopback only: every port is on 127.0.0.1.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

import httpx

from subflow_testbeds.processes import free_port, sign_in, start_serve, stop_group

ROOT = Path(__file__).resolve().parents[1]
PG_ADMIN_URL = os.environ.get("SUBFLOW_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("SUBFLOW_BENCH_REDIS", "redis://127.0.0.1:6379").rstrip("/")
#: Redis database of the benchmark's broker (``SUBFLOW_BENCH_REDIS_DB``, default 11; it is flushed at start).
REDIS_DB = int(os.environ.get("SUBFLOW_BENCH_REDIS_DB", "11"))
_OWN_VARS = ("SUBFLOW_", "DATABASE_URL", "CELERY_", "AGENT_", "TASK_", "ENGINES", "FRONTEND_DIST", "BACKEND_CORS")


def example(name: str = "naval-direct-move") -> dict[str, Any]:
    import json

    doc = json.loads((ROOT / "examples" / f"{name}.json").read_text())
    doc["name"] = f"bench-{uuid.uuid4().hex[:8]}-{name}"
    return doc


class Service:
    """The service on ``deployment`` (``embedded`` or ``postgresql``), signed in as its first admin
    with a personal write token (``token``); ``api`` is an httpx client on ``/api``."""

    def __init__(self, deployment: str, **settings: str):
        self.deployment = deployment
        self.data = Path(tempfile.mkdtemp(prefix=f"subflow-bench-{deployment}-"))
        self.port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith(_OWN_VARS)}
        env.update(SUBFLOW_DATA_DIR=str(self.data), SUBFLOW_PORT=str(self.port), AGENT_PORT=str(free_port()),
                   SUBFLOW_SKIP_BOOTSTRAP="1", PYTHONUNBUFFERED="1", **settings)
        self.db_name = None
        if deployment == "postgresql":
            import psycopg
            import redis

            self.db_name = f"subflow_bench_{uuid.uuid4().hex[:8]}"
            with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
                admin.execute(f'CREATE DATABASE "{self.db_name}"')
            info = psycopg.conninfo.conninfo_to_dict(PG_ADMIN_URL)
            redis.Redis.from_url(f"{REDIS_URL}/{REDIS_DB}").flushdb()
            env.update(DATABASE_URL=f"postgresql+psycopg://{info.get('user', 'postgres')}@{info.get('host', '127.0.0.1')}:"
                                    f"{info.get('port', '5432')}/{self.db_name}",
                       CELERY_BROKER_URL=f"{REDIS_URL}/{REDIS_DB}")
        elif deployment != "embedded":
            raise ValueError(f"deployment {deployment!r}: embedded or postgresql")
        self.log = self.data / "serve.log"
        self.popen = start_serve(ROOT, env, self.log)
        access = sign_in(self.base_url, self.data / "admin-credentials")
        r = httpx.post(f"{self.base_url}/api/users/me/tokens", json={"name": "bench", "scope": "write"},
                       headers={"Authorization": f"Bearer {access}"}, timeout=30)
        r.raise_for_status()
        self.token = r.json()["token"]
        self.api = httpx.Client(base_url=f"{self.base_url}/api", timeout=60,
                                headers={"Authorization": f"Bearer {self.token}"})

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.api.close()
        stop_group(self.popen)
        if self.db_name:
            import psycopg

            with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{self.db_name}" WITH (FORCE)')
        if os.environ.get("SUBFLOW_BENCH_KEEP") == "1":
            print(f"(kept {self.data})", file=sys.stderr)
        else:
            shutil.rmtree(self.data, ignore_errors=True)

    def __enter__(self) -> "Service":
        return self

    def __exit__(self, *_: Any) -> None:
        self.stop()
