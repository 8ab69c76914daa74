"""Failure analysis, capacity search and 2-D sweeps over REST, on the real stack (worker, agent, SSE)."""

from __future__ import annotations

import uuid

import pytest

from subflow.analysis.capacity import CapacityRequest, capacity_search
from subflow.analysis.failures import FailureRequest, analyse_failures
from subflow.comparison.compare import compare
from subflow.comparison.sweeps import SweepSpec, aggregate, expand, unit_summary
from subflow_engines import run_plan

from tests.integration.test_timeline_events import sse_messages

pytestmark = pytest.mark.integration


def _wait_job(stack, job_id: str) -> tuple[dict, list[dict]]:
    """Follow the job's event stream to its end, then read the job: (job, messages)."""
    messages, _ = sse_messages(stack, f"/jobs/{job_id}/events", timeout_s=180)
    return stack.api.get(f"/jobs/{job_id}").json(), messages


def test_failures_inline_and_in_the_worker_equal_the_library(pg_stack, example):
    doc = example("hsln-10node")
    sid = pg_stack.api.post("/scenarios", json=doc).json()["id"]
    r = pg_stack.api.post(f"/scenarios/{sid}/failures", json={"metric": "delay", "nodes": True})
    assert r.status_code == 200, r.text
    want = analyse_failures(doc, FailureRequest(metric="delay", nodes=True)).model_dump(mode="json")
    assert r.json() == want
    worst = r.json()["cases"][0]
    assert worst["lost_mbps"] == max(c["lost_mbps"] for c in want["cases"])
    r = pg_stack.api.post(f"/scenarios/{sid}/failures", json={"metric": "delay", "background": True})
    assert r.status_code == 202, r.text
    job, messages = _wait_job(pg_stack, r.json()["job_id"])
    assert job["status"] == "succeeded", job["error"]
    assert job["result"] == analyse_failures(doc, FailureRequest(metric="delay")).model_dump(mode="json")
    assert messages[-1]["status"] == "succeeded" and messages[-1]["progress"] == 1.0


def test_failures_refusals(pg_stack, example):
    sid = pg_stack.api.post("/scenarios", json=example()).json()["id"]
    r = pg_stack.api.post(f"/scenarios/{sid}/failures", json={"links": ["satcom-ship", "nope"]})
    assert r.status_code == 422 and "nope" in r.text
    assert r.json()["detail"][0]["loc"] == ["body", "links", 1]
    r = pg_stack.api.post(f"/scenarios/{sid}/failures", json={"metric": "warp"})
    assert r.status_code == 422


def test_capacity_search_job_reports_runs_and_matches_the_library(pg_stack, example):
    doc = example("uav-backhaul-planning")
    sid = pg_stack.api.post("/scenarios", json=doc).json()["id"]
    body = {"parameter": "links.uav-ship.bandwidth_mbps", "low": 0.5, "high": 10, "min_mean_mbps": 2.5,
            "strategy": "mptcp", "repetitions": 1, "tolerance": 0.5, "max_steps": 8}
    r = pg_stack.api.post(f"/scenarios/{sid}/capacity-searches", json=body)
    assert r.status_code == 202, r.text
    job, messages = _wait_job(pg_stack, r.json()["job_id"])
    assert job["status"] == "succeeded", (job["error"], pg_stack.logs())
    result = job["result"]
    # the agent runs the same fluid engine: the same trace as the in-process search
    want = capacity_search(doc, CapacityRequest(**body), run_plan).model_dump(mode="json")
    assert [(s["value"], s["passed"]) for s in result["trace"]] == [(s["value"], s["passed"]) for s in want["trace"]]
    assert result["status"] == "found" and result["value"] == want["value"]
    assert result["value"] >= 5 * 1514 / 1448 - 2  # closed-form lower bound on the backhaul needed
    # progress: runs done grow to the number run, out of the bound max_steps × repetitions
    done = [m["runs_done"] for m in messages if m.get("runs_done") is not None]
    assert done == sorted(done) and done[-1] == result["runs"] == len(result["trace"])
    assert any(m.get("runs_total") == 8 for m in messages)
    assert job["runs_done"] == job["runs_total"] == result["runs"]


def test_capacity_search_refusals_and_rights(pg_stack, example):
    sid = pg_stack.api.post("/scenarios", json=example("uav-backhaul-planning")).json()["id"]
    base = {"parameter": "links.uav-ship.bandwidth_mbps", "low": 0.5, "high": 10, "min_mean_mbps": 2.5,
            "tolerance": 0.5}
    r = pg_stack.api.post(f"/scenarios/{sid}/capacity-searches", json={**base, "parameter": "links.nope.bandwidth_mbps"})
    assert r.status_code == 422 and "nope" in r.text
    assert r.json()["detail"][0]["loc"] == ["body", "parameter"]
    r = pg_stack.api.post(f"/scenarios/{sid}/capacity-searches", json={**base, "low": 20})
    assert r.status_code == 422 and "low" in r.text
    r = pg_stack.api.post(f"/scenarios/{sid}/capacity-searches", json={**base, "low": -1})  # a negative bandwidth
    assert r.status_code == 422 and r.json()["detail"][0]["loc"][:2] == ["body", "low"]
    r = pg_stack.api.post(f"/scenarios/{sid}/capacity-searches", json={**base, "strategy": "carrier-pigeon"})
    assert r.status_code == 422
    r = pg_stack.api.post(f"/scenarios/{sid}/capacity-searches", json={**base, "repetitions": 50, "max_steps": 40})
    assert r.status_code == 422 and "MAX_SWEEP_UNITS" in r.text
    assert pg_stack.api.get(f"/jobs/{uuid.uuid4()}/events").status_code == 404


def test_two_parameter_sweep_grid_with_progress(pg_stack, example, wait_comparison):
    doc = example("uav-backhaul-planning")
    sid = pg_stack.api.post("/scenarios", json=doc).json()["id"]
    sweep = {"parameter": "links.uav-ship.bandwidth_mbps", "values": [1, 4],
             "parameter_y": "links.satcom-ship.bandwidth_mbps", "values_y": [1, 3]}
    r = pg_stack.api.post(f"/scenarios/{sid}/comparisons",
                          json={"strategies": ["mptcp"], "repetitions": 2, "sweep": sweep})
    assert r.status_code == 202, r.text
    assert r.json()["units_total"] == 8
    cid = r.json()["id"]
    messages, _ = sse_messages(pg_stack, f"/scenarios/{sid}/comparisons/{cid}/events", timeout_s=180)
    units = [m["units_done"] for m in messages]
    assert units == sorted(units) and units[-1] == 8 and all(m["units_total"] == 8 for m in messages)
    body, _ = wait_comparison(pg_stack, sid, cid, timeout_s=60)
    assert body["status"] == "succeeded", body["error"]
    got = body["result"]["sweep"]
    spec = SweepSpec(**sweep)
    units_ = expand(doc, spec, 2)
    want = aggregate(units_, [unit_summary(compare(u.scenario, ["mptcp"], run_plan)) for u in units_], spec)["sweep"]
    assert got["parameter_y"] == "links.satcom-ship.bandwidth_mbps" and got["values_y"] == [1, 3]
    assert [(p["value"], p["value_y"]) for p in got["points"]] == [(1, 1), (1, 3), (4, 1), (4, 3)]
    for g, w in zip(got["points"], want["points"]):
        assert g["strategies"]["mptcp"]["mean_mbps"] == pytest.approx(w["strategies"]["mptcp"]["mean_mbps"])
        assert g["strategies"]["mptcp"]["ci95_mbps"] == pytest.approx(w["strategies"]["mptcp"]["ci95_mbps"])
    # more bandwidth on both backhauls never lowers the mean
    means = {(p["value"], p["value_y"]): p["strategies"]["mptcp"]["mean_mbps"] for p in got["points"]}
    assert means[(4, 3)] > means[(1, 1)]
    # the product is what the limit counts
    big = {**sweep, "values": list(range(1, 41)), "values_y": list(range(1, 31))}
    r = pg_stack.api.post(f"/scenarios/{sid}/comparisons", json={"strategies": ["mptcp"], "sweep": big})
    assert r.status_code == 422 and "MAX_SWEEP_UNITS" in r.text
