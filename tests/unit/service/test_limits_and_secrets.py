"""Bounds by settings (subflow.service.limits, the backend's body-size middleware) and the one rule
for placeholder secrets (subflow.service.secrets) shared by the backend and the agent."""

from __future__ import annotations

import time

import pytest
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient
from pydantic import ValidationError

from subflow.errors import LimitExceeded, ScenarioInvalid
from subflow.scenario.document import load_scenario
from subflow.service.limits import Limits, check_scenario, check_sweep
from subflow.service.secrets import is_placeholder, new_token

from subflow_agent.settings import AgentSettings
from subflow_backend.body_limit import BodySizeLimit, MULTIPART_ALLOWANCE_BYTES, limit_for_path
from subflow_backend.settings import Settings

from tests.conftest import load_example


# --------------------------------------------------------------------------- secrets


@pytest.mark.parametrize("value", [None, "", "   ", "local-dev-token", "CHANGETHIS", "changeme", "short-15-chars!"])
def test_placeholders(value):
    assert is_placeholder(value)


def test_generated_tokens_are_not_placeholders_and_differ():
    a, b = new_token(), new_token()
    assert not is_placeholder(a) and a != b and len(a) >= 40


@pytest.mark.parametrize("env", ["local", "test", "production"])
@pytest.mark.parametrize("token", ["", "local-dev-token", "tooshort"])
def test_agent_refuses_placeholder_tokens_in_every_mode(monkeypatch, env, token):
    monkeypatch.setenv("SUBFLOW_ENV", env)
    monkeypatch.setenv("AGENT_TOKEN", token)
    with pytest.raises(ValidationError, match="AGENT_TOKEN is unset or a placeholder") as err:
        AgentSettings()
    assert "input_value" not in str(err.value)  # a mistyped secret is not echoed into logs


def test_agent_listens_on_loopback_by_default(monkeypatch):
    monkeypatch.setenv("AGENT_TOKEN", new_token())
    monkeypatch.delenv("AGENT_HOST", raising=False)
    assert AgentSettings().agent_host == "127.0.0.1"


def test_backend_refuses_placeholder_token_in_production(monkeypatch):
    monkeypatch.setenv("AGENT_TOKEN", "local-dev-token")
    monkeypatch.setenv("SUBFLOW_ENV", "production")
    with pytest.raises(ValidationError, match="AGENT_TOKEN is unset or a placeholder"):
        Settings()
    monkeypatch.setenv("AGENT_TOKEN", new_token())
    assert Settings().SUBFLOW_ENV == "production"


# --------------------------------------------------------------------------- scenario limits


def test_list_sizes_name_the_setting():
    sc = load_scenario(load_example("naval-direct-move"))  # 5 nodes, 4 links, 2 flows
    check_scenario(sc, Limits(max_nodes=5, max_links=4, max_flows=2))
    for limits, setting, loc in [
        (Limits(max_nodes=4), "MAX_NODES", ["nodes"]),
        (Limits(max_links=3), "MAX_LINKS", ["links"]),
        (Limits(max_flows=1), "MAX_FLOWS", ["flows"]),
    ]:
        with pytest.raises(LimitExceeded) as err:
            check_scenario(sc, limits)
        assert isinstance(err.value, ScenarioInvalid)
        (entry,) = err.value.errors
        assert entry["loc"] == loc and entry["type"] == "limit_exceeded" and setting in entry["msg"]


def test_samples_are_duration_over_interval():
    doc = load_example("naval-direct-move")
    doc["run"].update(duration_s=100, interval_s=0.01)  # 10 000 samples
    sc = load_scenario(doc)
    check_scenario(sc, Limits(max_samples=10_000))
    with pytest.raises(LimitExceeded, match=r"10000 samples .* exceed MAX_SAMPLES = 9999") as err:
        check_scenario(sc, Limits(max_samples=9_999))
    assert err.value.errors[0]["loc"] == ["run", "interval_s"]


def test_timeline_size_is_bounded_while_it_is_computed():
    doc = load_example("naval-random-walk")
    check_scenario(load_scenario(doc), Limits())
    # a one-day random walk redrawing its heading every millisecond: 86.4 million legs per station
    doc["run"].update(duration_s=86_400, interval_s=1)
    i = next(i for i, n in enumerate(doc["nodes"]) if n.get("mobility", {}).get("model") == "random_walk")
    doc["nodes"][i]["mobility"]["step_s"] = 0.001
    sc = load_scenario(doc)
    t0 = time.perf_counter()
    with pytest.raises(LimitExceeded, match="MAX_TIMELINE_LEGS = 1000") as err:
        check_scenario(sc, Limits(max_timeline_legs=1_000))
    assert time.perf_counter() - t0 < 2.0
    assert err.value.errors[0]["loc"] == ["nodes", i, "mobility"]


def test_sweep_units():
    check_sweep(10, 100, Limits(max_sweep_units=1_000))
    with pytest.raises(LimitExceeded, match="1001 runs .* exceed MAX_SWEEP_UNITS = 1000") as err:
        check_sweep(7, 143, Limits(max_sweep_units=1_000))
    assert err.value.errors[0]["loc"] == ["sweep", "values"]
    with pytest.raises(LimitExceeded) as err:
        check_sweep(1, 2, Limits(max_sweep_units=1))
    assert err.value.errors[0]["loc"] == ["repetitions"]


def test_backend_settings_reach_the_library(monkeypatch):
    monkeypatch.setenv("MAX_NODES", "7")
    monkeypatch.setenv("MAX_SWEEP_UNITS", "3")
    limits = Settings().limits
    assert limits.max_nodes == 7 and limits.max_sweep_units == 3 and limits.max_links == Limits().max_links


# --------------------------------------------------------------------------- request bodies


def _app() -> TestClient:
    app = FastAPI()
    app.add_middleware(BodySizeLimit, limit=limit_for_path(1000, 5000))

    @app.post("/api/echo")
    async def echo(request: Request) -> dict:
        return {"bytes": len(await request.body())}

    @app.post("/api/imports")
    async def upload(request: Request) -> dict:
        return {"bytes": len(await request.body())}

    return TestClient(app)


def test_bodies_over_the_bound_are_refused_with_413_naming_it():
    client = _app()
    assert client.post("/api/echo", content=b"x" * 1000).json() == {"bytes": 1000}
    r = client.post("/api/echo", content=b"x" * 1001)
    assert r.status_code == 413 and "MAX_BODY_BYTES = 1000" in r.json()["detail"]


def test_chunked_bodies_are_counted_as_they_arrive():
    client = _app()

    def chunks():
        for _ in range(50):
            yield b"y" * 100

    r = client.post("/api/echo", content=chunks())  # no Content-Length: chunked
    assert r.status_code == 413 and "MAX_BODY_BYTES" in r.json()["detail"]


def test_uploads_have_their_own_bound():
    client = _app()
    assert client.post("/api/imports", content=b"z" * 5000).status_code == 200
    r = client.post("/api/imports", content=b"z" * (5001 + MULTIPART_ALLOWANCE_BYTES))
    assert r.status_code == 413 and "MAX_UPLOAD_BYTES" in r.json()["detail"]
