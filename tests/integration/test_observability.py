"""Observability on real processes: ``/api/health`` (database, broker, agent), request ids across
API → worker → agent in the JSON log lines, and the Prometheus metrics of the API and the agent."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import httpx
import pytest
import redis
from prometheus_client.parser import text_string_to_metric_families

from tests.integration.conftest import AGENT_TOKEN, METRICS_TOKEN, PYTHON, Proc, base_env, free_port

pytestmark = pytest.mark.integration


def _lines(path: Path) -> list[dict]:
    """The JSON log lines of ``path`` (every line a process writes is one JSON object)."""
    out = []
    for line in path.read_text(errors="replace").splitlines():
        line = line.strip()
        if line.startswith("{"):
            out.append(json.loads(line))
    return out


def _wait_lines(path: Path, match, timeout_s: float = 15.0) -> list[dict]:
    deadline = time.monotonic() + timeout_s
    while True:
        found = [x for x in _lines(path) if match(x)]
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def _samples(text: str) -> dict[tuple[str, tuple], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def test_health_reports_each_dependency(pg_stack):
    r = httpx.get(f"{pg_stack.base_url}/api/health", timeout=10)
    assert r.status_code == 200
    assert r.json() == {"status": "ok", "database": {"status": "ok", "error": None},
                        "broker": {"status": "ok", "error": None}, "agent": {"status": "ok", "error": None}}


def test_health_is_degraded_without_the_agent(dead_agent_stack):
    r = httpx.get(f"{dead_agent_stack.base_url}/api/health", timeout=10)
    assert r.status_code == 200  # the API still serves; comparisons wait for the agent
    body = r.json()
    assert body["status"] == "degraded"
    assert body["agent"] == {"status": "unavailable", "error": "ConnectError"}
    assert body["database"]["status"] == body["broker"]["status"] == "ok"
    assert "127.0.0.1" not in r.text  # public: no addresses


def test_health_is_503_without_the_database(tmp_path, agent_url):
    """An API whose PostgreSQL and Redis are not there (closed ports) answers 503 naming both."""
    port = free_port()
    env = base_env(DATABASE_URL=f"postgresql+psycopg://nobody@127.0.0.1:{free_port()}/none",
                   CELERY_BROKER_URL=f"redis://127.0.0.1:{free_port()}/0", AGENT_URL=agent_url,
                   SUBFLOW_DATA_DIR=str(tmp_path))
    api = Proc.start("nodb-api", [PYTHON, "-m", "uvicorn", "subflow_backend.main:app", "--port", str(port)],
                     env, tmp_path / "nodb-api.log")
    try:
        deadline = time.monotonic() + 30
        while True:
            api.check_alive()
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=10)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "API did not start"
                time.sleep(0.2)
        assert r.status_code == 503
        body = r.json()
        assert body["status"] == "unavailable"
        assert body["database"]["status"] == "unavailable" and body["database"]["error"] == "OperationalError"
        assert body["broker"]["status"] == "unavailable"
        assert body["agent"] == {"status": "ok", "error": None}
    finally:
        api.stop()


def test_request_id_is_answered_kept_or_replaced(pg_stack):
    mine = f"it-{uuid.uuid4().hex}"
    r = pg_stack.api.get("/strategies", headers={"X-Request-ID": mine})
    assert r.status_code == 200 and r.headers["x-request-id"] == mine
    fresh = pg_stack.api.get("/strategies").headers["x-request-id"]
    assert len(fresh) == 32 and fresh != mine
    bad = pg_stack.api.get("/strategies", headers={"X-Request-ID": "no spaces; or quotes\""}).headers["x-request-id"]
    assert len(bad) == 32 and " " not in bad


def test_request_and_comparison_ids_reach_worker_and_agent_logs(pg_stack, example, wait_comparison, logs_dir):
    sid = pg_stack.api.post("/scenarios", json=example()).json()["id"]
    rid = f"it-{uuid.uuid4().hex}"
    r = pg_stack.api.post(f"/scenarios/{sid}/comparisons", json={"strategies": ["sptcp", "mptcp"]},
                          headers={"X-Request-ID": rid})
    assert r.status_code == 202, r.text
    cid = r.json()["id"]
    body, _ = wait_comparison(pg_stack, sid, cid, timeout_s=120)
    assert body["status"] == "succeeded", body

    api_log = next(p.log for p in pg_stack.procs if p.name.endswith("api"))
    posted = _wait_lines(api_log, lambda x: x.get("request_id") == rid and x.get("event") == "request")
    assert posted and posted[0]["status"] == 202 and posted[0]["route"] == "/api/scenarios/{scenario_id}/comparisons"
    assert posted[0]["service"] == "backend" and posted[0]["duration_ms"] > 0

    worker = _wait_lines(pg_stack.worker_log,
                         lambda x: x.get("comparison_id") == cid and "succeeded" in x.get("event", ""))
    assert worker, "no worker line with the comparison id"
    assert worker[0]["request_id"] == rid and worker[0]["task"] == "subflow.run_comparison"
    assert worker[0]["service"] == "worker"

    runs = _wait_lines(logs_dir / "agent.log", lambda x: x.get("comparison_id") == cid and x.get("event") == "run finished")
    assert sorted(x["strategy"] for x in runs) == ["mptcp", "sptcp"]
    assert all(x["request_id"] == rid and x["status"] == "succeeded" and x["engine"] == "fluid" and x["engine_s"] > 0
               and x["service"] == "agent" for x in runs)


def test_metrics_need_the_token_and_count_requests_runs_and_engine_time(pg_stack, example, wait_comparison, agent_url):
    url = f"{pg_stack.base_url}/metrics"
    assert httpx.get(url, timeout=10).status_code == 404
    assert httpx.get(url, headers={"Authorization": "Bearer wrong"}, timeout=10).status_code == 404
    sid = pg_stack.api.post("/scenarios", json=example()).json()["id"]
    before = _samples(httpx.get(url, headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=10).text)
    cid = pg_stack.api.post(f"/scenarios/{sid}/comparisons", json={"strategies": ["sptcp"]}).json()["id"]
    body, _ = wait_comparison(pg_stack, sid, cid, timeout_s=120)
    assert body["status"] == "succeeded"

    r = httpx.get(url, headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=10)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    after = _samples(r.text)
    key = ("subflow_comparisons", (("state", "succeeded"),))
    assert after[key] == before.get(key, 0) + 1
    posted = ("subflow_http_request_duration_seconds_count",
              (("method", "POST"), ("route", "/api/scenarios/{scenario_id}/comparisons"), ("status", "202")))
    assert after[posted] == before.get(posted, 0) + 1
    broker = redis.Redis.from_url(pg_stack.env["CELERY_BROKER_URL"])
    try:
        assert after[("subflow_queue_depth", ())] == broker.llen("celery")  # nothing waiting once it finished
    finally:
        broker.close()

    assert httpx.get(f"{agent_url}/metrics", timeout=10).status_code == 401
    agent = _samples(httpx.get(f"{agent_url}/metrics", headers={"Authorization": f"Bearer {AGENT_TOKEN}"},
                               timeout=10).text)
    runs = agent[("subflow_engine_run_seconds_count", (("engine", "fluid"), ("status", "succeeded")))]
    seconds = agent[("subflow_engine_run_seconds_sum", (("engine", "fluid"), ("status", "succeeded")))]
    assert runs >= 1 and seconds > 0
    assert agent[("subflow_agent_runs_active", ())] == 0
