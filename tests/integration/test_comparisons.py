"""Comparisons end to end on PostgreSQL + Redis + Celery worker + emulator agent."""

from __future__ import annotations

import copy
import time

import pytest

from subflow.comparison.compare import compare
from subflow.results.document import ZERO_THRESHOLD_MBPS
from subflow_engines import run_plan

pytestmark = pytest.mark.integration

STRATEGIES = ["sptcp", "mptcp"]


def zero_runs(t_s: list[float], values: list[float]) -> list[tuple[float, int]]:
    """``(start time, length in samples)`` of each run of zero throughput."""
    runs: list[tuple[float, int]] = []
    start, n = None, 0
    for t, v in zip(t_s, values):
        if v < ZERO_THRESHOLD_MBPS:
            start, n = (t if n == 0 else start), n + 1
        else:
            if n:
                runs.append((start, n))
            n = 0
    if n:
        runs.append((start, n))
    return runs


def first_difference(a, b, path: str = "$") -> str | None:
    """JSON path and values of the first difference between two documents, or None."""
    if type(a) is not type(b) and not (isinstance(a, (int, float)) and isinstance(b, (int, float))):
        return f"{path}: {a!r} != {b!r}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                return f"{path}.{k}: only in {'first' if k in a else 'second'}"
            d = first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: length {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{path}: {a!r} != {b!r}"


def assert_naval_shape(result: dict) -> None:
    """sptcp: every flow is cut for >= 2 s right after the handover at t = 60 s; mptcp: never cut."""
    assert result["version"] == 1
    assert set(result["strategies"]) == set(STRATEGIES)
    sptcp, mptcp = result["strategies"]["sptcp"], result["strategies"]["mptcp"]
    assert [f["id"] for f in sptcp["flows"]] == ["f1", "f2"]
    for flow in sptcp["flows"]:
        cuts = [(t, n) for t, n in zero_runs(flow["t_s"], flow["throughput_mbps"]) if 59.5 <= t <= 62.5]
        assert cuts and cuts[0][1] >= 2, (flow["id"], zero_runs(flow["t_s"], flow["throughput_mbps"]))
    for s in sptcp["summary"]["flows"]:
        assert s["longest_zero_s"] >= 2
    for flow in mptcp["flows"]:
        assert flow["throughput_mbps"] and min(flow["throughput_mbps"]) >= ZERO_THRESHOLD_MBPS, flow["id"]
    assert mptcp["summary"]["zero_s"] == 0
    kinds = {e["kind"] for e in sptcp["events"]}
    assert "association" in kinds


def test_comparison_request_errors(pg_stack, example):
    api = pg_stack.api
    sid = api.post("/scenarios", json=example()).json()["id"]
    url = f"/scenarios/{sid}/comparisons"

    r = api.post(url, json={"strategies": ["sptcp", "quic"]})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "strategies"]
    assert "quic" in r.json()["detail"][0]["msg"]
    r = api.post(url, json={"strategies": ["sptcp"], "engine": "ns3"})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "engine"]
    r = api.post(url, json={"strategies": ["mptcp", "mptcp"]})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "strategies"]
    r = api.post(url, json={"strategies": []})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "strategies"]
    assert api.get(url).json() == {"data": [], "count": 0}

    # a flow to a node that exists but is never connected: 422 before anything is queued
    doc = example()
    doc["nodes"].append({"id": "island", "kind": "host", "position": {"x_m": 0, "y_m": 5000}})
    doc["flows"].append({"id": "f3", "src": "sta1", "dst": "island", "rate_mbps": 1})
    r = api.post("/scenarios", json=doc)
    assert r.status_code == 201, r.text
    url = f"/scenarios/{r.json()['id']}/comparisons"
    r = api.post(url, json={"strategies": STRATEGIES})
    assert r.status_code == 422, r.text
    detail = r.json()["detail"][0]
    assert detail["loc"] == ["scenario", "flows", 2] and "f3" in detail["msg"]
    assert api.get(url).json()["count"] == 0


def test_naval_comparison_end_to_end(pg_stack, example, wait_comparison):
    api = pg_stack.api
    doc = example("naval-direct-move")
    scenario = api.post("/scenarios", json=doc).json()
    sid = scenario["id"]

    r = api.post(f"/scenarios/{sid}/comparisons", json={"strategies": STRATEGIES, "engine": "fluid", "seed": None})
    assert r.status_code == 202, r.text
    queued = r.json()
    assert queued["status"] == "queued" and queued["progress"] == 0 and queued["result"] is None
    assert queued["scenario_version"] == 1 and queued["strategies"] == STRATEGIES

    done, seen = wait_comparison(pg_stack, sid, queued["id"])
    assert done["status"] == "succeeded", f"{done['error']}\n{pg_stack.logs()}"
    assert done["error"] is None and done["progress"] == 1.0
    assert seen == sorted(seen) and seen[-1] == 1.0
    assert done["started_at"] and done["finished_at"] and done["finished_at"] >= done["started_at"]
    result = done["result"]
    assert_naval_shape(result)

    # one code path: the same numbers as the library + engine in-process
    expected = compare(doc, STRATEGIES, runner=run_plan, engine="fluid").model_dump(mode="json")
    assert result == expected, first_difference(result, expected)

    # listed without the result document
    listing = api.get(f"/scenarios/{sid}/comparisons").json()
    assert listing["count"] == 1 and listing["data"][0]["id"] == queued["id"]
    assert "result" not in listing["data"][0]

    # a later edit does not touch the comparison; a seed override is part of the snapshot
    edited = copy.deepcopy(doc)
    edited["description"] = "v2"
    assert api.put(f"/scenarios/{sid}", json=edited, headers={"If-Match": '"v1"'}).json()["version"] == 2
    r = api.post(f"/scenarios/{sid}/comparisons", json={"strategies": ["mptcp"], "seed": 7})
    second, _ = wait_comparison(pg_stack, sid, r.json()["id"])
    assert second["status"] == "succeeded" and second["scenario_version"] == 2 and second["seed"] == 7
    assert second["result"]["scenario"]["run"]["seed"] == 7
    again = api.get(f"/scenarios/{sid}/comparisons/{queued['id']}").json()
    assert again["scenario_version"] == 1 and again["result"] == result

    # deleting the scenario deletes its comparisons
    assert api.delete(f"/scenarios/{sid}").status_code == 204
    assert api.get(f"/scenarios/{sid}/comparisons/{queued['id']}").status_code == 404


def test_agent_down_fails_with_reason(dead_agent_stack, pg_stack, example, wait_comparison):
    api = dead_agent_stack.api
    scenario = api.post("/scenarios", json=example()).json()
    sid = scenario["id"]

    started = time.monotonic()
    r = api.post(f"/scenarios/{sid}/comparisons", json={"strategies": STRATEGIES})
    assert r.status_code == 202, r.text
    done, _ = wait_comparison(dead_agent_stack, sid, r.json()["id"], timeout_s=40)
    elapsed = time.monotonic() - started

    assert done["status"] == "failed", done
    agent_url = dead_agent_stack.env["AGENT_URL"]
    assert done["error"] == f"emulator agent unreachable at {agent_url} after 3 retries: connection refused"
    assert done["result"] is None and done["finished_at"]
    assert elapsed < 20, f"took {elapsed:.1f} s"

    # the scenario is untouched, through either API (same database)
    assert api.get(f"/scenarios/{sid}").json() == scenario
    assert pg_stack.api.get(f"/scenarios/{sid}").json() == scenario


def test_agent_rejection_fails_without_retries(wrong_token_stack, example, wait_comparison):
    api = wrong_token_stack.api
    scenario = api.post("/scenarios", json=example()).json()
    started = time.monotonic()
    r = api.post(f"/scenarios/{scenario['id']}/comparisons", json={"strategies": STRATEGIES})
    done, _ = wait_comparison(wrong_token_stack, scenario["id"], r.json()["id"], timeout_s=30)
    assert done["status"] == "failed", done
    assert "HTTP 401" in done["error"] and "bearer token" in done["error"], done["error"]
    assert time.monotonic() - started < 5, "a rejection is permanent: no retries"
    assert api.get(f"/scenarios/{scenario['id']}").json() == scenario
