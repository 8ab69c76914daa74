"""The agent's HTTP API in-process (the integration suite runs it as a real process)."""

from __future__ import annotations

import re
import threading
import time

import httpx
import pytest
from fastapi.testclient import TestClient

from subflow.errors import AgentUnavailable
from subflow.runplan.resolve import resolve_plan
from subflow_agent.app import _Run, app, settings
from subflow_engines import run_plan
from subflow_worker.agent_client import AgentClient, POLL_TIMEOUTS_TOLERATED

client = TestClient(app)
AUTH = {"Authorization": f"Bearer {settings.agent_token}"}


def test_health_needs_no_token_but_everything_else_does():
    assert client.get("/health").json() == {"status": "ok"}
    assert client.get("/capabilities").status_code == 401
    assert client.get("/capabilities", headers={"Authorization": "Bearer wrong"}).status_code == 401
    caps = client.get("/capabilities", headers=AUTH).json()
    fluid = next(e for e in caps["engines"] if e["name"] == "fluid")
    assert fluid["available"] and {"sptcp", "mptcp"} <= set(fluid["strategies"])


def test_run_returns_the_engine_output(naval_direct):
    plan = resolve_plan(naval_direct, "sptcp")
    r = client.post("/runs", json=plan.model_dump(mode="json"), headers=AUTH)
    assert r.status_code == 202 and r.json()["status"] in ("queued", "running")
    run_id = r.json()["id"]
    deadline = time.time() + 30
    while True:
        body = client.get(f"/runs/{run_id}", headers=AUTH).json()
        if body["status"] not in ("queued", "running") or time.time() > deadline:
            break
        time.sleep(0.05)
    assert body["status"] == "succeeded" and body["progress"] == 1.0
    assert body["output"] == run_plan(plan).model_dump(mode="json")


def test_bad_plans_are_422_and_unknown_runs_404(naval_direct):
    plan = resolve_plan(naval_direct, "sptcp").model_dump(mode="json")
    plan["engine"] = "warp-drive"
    r = client.post("/runs", json=plan, headers=AUTH)
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "engine"]
    r = client.post("/runs", json={"strategy": "sptcp"}, headers=AUTH)
    assert r.status_code == 422
    assert client.get("/runs/nope", headers=AUTH).status_code == 404


@pytest.mark.parametrize("method, path", [("get", "/runs/x"), ("delete", "/runs/x"), ("post", "/runs")])
def test_every_run_endpoint_requires_the_token(method, path):
    assert getattr(client, method)(path).status_code == 401


def test_a_run_over_its_time_budget_is_stopped_and_marked(naval_direct, monkeypatch):
    monkeypatch.setattr(settings, "agent_run_time_budget_s", 0.0)
    plan = resolve_plan(naval_direct, "mptcp")
    run_id = client.post("/runs", json=plan.model_dump(mode="json"), headers=AUTH).json()["id"]
    deadline = time.time() + 30
    while (body := client.get(f"/runs/{run_id}", headers=AUTH).json())["status"] in ("queued", "running"):
        assert time.time() < deadline
        time.sleep(0.02)
    assert body["status"] == "failed" and "time budget of 0 s exceeded" in body["error"]
    assert body["output"] is None


def test_a_plan_the_linux_engine_cannot_honour_is_refused_before_it_starts(naval_direct):
    from subflow_engines import all_engines

    if not all_engines()["linux"].available:
        pytest.skip("the linux engine is not available on this host (needs root, ip, tc, iperf3)")
    naval_direct["nodes"][2]["rate_table"] = [{"distance_m": 100, "bandwidth_mbps": 10}]
    plan = resolve_plan(naval_direct, "sptcp", engine="linux")
    r = client.post("/runs", json=plan.model_dump(mode="json"), headers=AUTH)
    assert r.status_code == 422 and "rate_table" in r.json()["detail"][0]["msg"]


def test_a_run_that_breaks_a_physical_invariant_fails_naming_it(naval_direct, monkeypatch):
    """An engine result that cannot be (here: a network step that hands flows twice what their last
    hop sent) never becomes an output: the agent's run ends ``failed`` with the engine's reason,
    naming the invariant, the flow or link and the time, which the worker stores on the comparison."""
    from subflow_engines.fluid import scalar

    from tests.unit.engines.test_fluid_invariants import doubling_serve

    monkeypatch.setattr(scalar, "serve", doubling_serve)
    plan = resolve_plan(naval_direct, "sptcp-spurious")  # runs on the scalar kernel
    run_id = client.post("/runs", json=plan.model_dump(mode="json"), headers=AUTH).json()["id"]
    deadline = time.time() + 30
    while (body := client.get(f"/runs/{run_id}", headers=AUTH).json())["status"] in ("queued", "running"):
        assert time.time() < deadline
        time.sleep(0.02)
    assert body["status"] == "failed" and body["output"] is None
    assert re.search(r"fluid engine broke an invariant \(.+\) at t = [0-9.]+ s on (flow|link) ", body["error"]), \
        body["error"]


def test_the_agent_answers_while_a_long_run_computes(naval_direct):
    """The fluid kernels release Python's interpreter lock while they compute, so the agent's HTTP
    threads answer during a long run (a kernel that held it answered nothing for the whole run, and
    the worker, timing out, re-submitted the run again and again)."""
    doc = {**naval_direct, "run": {**naval_direct["run"], "duration_s": 20000, "interval_s": 10}}
    plan = resolve_plan(doc, "sptcp")
    run_id = client.post("/runs", json=plan.model_dump(mode="json"), headers=AUTH).json()["id"]
    slowest, answers = 0.0, 0
    while True:
        asked = time.monotonic()
        body = client.get(f"/runs/{run_id}", headers=AUTH).json()
        if body["status"] not in ("queued", "running"):
            break
        assert client.get("/health").json() == {"status": "ok"}
        slowest = max(slowest, time.monotonic() - asked)
        answers += 1
        time.sleep(0.05)
    assert body["status"] == "succeeded"
    print(f"\n{answers} answers during the run, slowest {slowest:.3f} s")
    assert answers >= 10  # the run lasted long enough to ask
    assert slowest < 2.0


class _TimeoutInjector(httpx.BaseTransport):
    """The in-process agent's transport with its first ``n`` run polls timing out (as a busy
    agent's answer does); every other request reaches the real agent app."""

    def __init__(self, inner: httpx.BaseTransport, n: int):
        self.inner, self.left, self.polls = inner, n, 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "GET" and request.url.path.startswith("/runs/"):
            self.polls += 1
            if self.left > 0:
                self.left -= 1
                raise httpx.ReadTimeout("timed out", request=request)
        return self.inner.handle_request(request)


@pytest.mark.parametrize("timeouts, gives_up", [(POLL_TIMEOUTS_TOLERATED, False), (POLL_TIMEOUTS_TOLERATED + 1, True)])
def test_the_worker_asks_a_busy_agent_again_instead_of_giving_the_run_up(naval_direct, timeouts, gives_up):
    """A poll that times out is asked again (the run goes on in the agent) up to POLL_TIMEOUTS_TOLERATED
    times in a row; then the client gives up as unavailable (and the task retries)."""
    plan = resolve_plan(naval_direct, "sptcp")
    transport = _TimeoutInjector(client._transport, timeouts)
    with AgentClient("http://testserver", settings.agent_token, transport=transport) as agent:
        if gives_up:
            with pytest.raises(AgentUnavailable, match="timed out"):
                agent.run(plan)
        else:
            assert agent.run(plan).model_dump(mode="json") == run_plan(plan).model_dump(mode="json")
    assert transport.polls >= timeouts + (0 if gives_up else 1)


def _waiting(run: "_Run", **kwargs) -> threading.Event:
    """``run.wait(**kwargs)`` in a thread, returned once the thread waits; the event is set when it returns."""
    done, entered = threading.Event(), threading.Event()
    inner = run.changed.wait

    def wait(*args, **kw):
        entered.set()
        return inner(*args, **kw)

    run.changed.wait = wait
    threading.Thread(target=lambda: (run.wait(**kwargs), done.set()), daemon=True).start()
    assert entered.wait(10)
    return done


def test_a_long_poll_answers_a_progress_step_at_once_by_default():
    run = _Run(plan=None)
    run.set(status="running")
    done = _waiting(run, timeout_s=30)
    run.set(progress=0.01)  # below the 0.02 step
    assert not done.wait(0.2)
    run.set(progress=0.03)
    assert done.wait(10)


def test_a_long_poll_holds_a_progress_step_for_its_min_interval_but_tells_the_end_at_once():
    run = _Run(plan=None)
    run.set(status="running")
    done = _waiting(run, timeout_s=30, min_interval_s=30)
    run.set(progress=0.5)
    assert not done.wait(0.3)  # a step, but the 30 s are not over
    run.set(progress=1.0, status="succeeded")
    assert done.wait(10)


def test_a_long_poll_tells_a_held_step_once_its_min_interval_is_over():
    run = _Run(plan=None)
    run.set(status="running")
    asked = time.monotonic()
    done = _waiting(run, timeout_s=30, min_interval_s=0.5)
    run.set(progress=0.5)  # no change after this one: the wait ends by its own clock
    assert done.wait(20)
    assert time.monotonic() - asked >= 0.5


def test_the_client_asks_the_agent_for_progress_no_faster_than_its_interval(naval_direct):
    plan = resolve_plan(naval_direct, "sptcp")
    asked: list[httpx.URL] = []

    class Recording(httpx.BaseTransport):
        def handle_request(self, request: httpx.Request) -> httpx.Response:
            if request.method == "GET":
                asked.append(request.url)
            return client._transport.handle_request(request)

    with AgentClient("http://testserver", settings.agent_token, transport=Recording(),
                     progress_interval_s=0.25) as agent:
        assert agent.run(plan).model_dump(mode="json") == run_plan(plan).model_dump(mode="json")
    assert asked and all(u.params.get("min_interval_s") == "0.25" for u in asked)
