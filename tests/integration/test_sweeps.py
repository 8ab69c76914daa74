"""Sweeps and repetitions fanned out as units (a few at a time), and cancellation, on both deployments."""

from __future__ import annotations

import time

import pytest

from subflow.comparison.compare import compare
from subflow.comparison.sweeps import SweepSpec, aggregate, expand, unit_summary
from subflow_engines import run_plan

pytestmark = pytest.mark.integration

SWEEP = {"parameter": "nodes.uav.range_m", "values": [200, 400]}


def _expected(doc: dict, sweep: dict | None, repetitions: int) -> dict:
    spec = SweepSpec(**sweep) if sweep else None
    units = expand(doc, spec, repetitions)
    return aggregate(units, [unit_summary(compare(u.scenario, ["sptcp", "mptcp"], run_plan)) for u in units], spec)


@pytest.mark.parametrize("stack_name", ["pg_stack", "embedded_stack"])
def test_sweep_with_repetitions_aggregates_like_the_library(request, stack_name, example, wait_comparison):
    stack = request.getfixturevalue(stack_name)
    doc = example("naval-random-walk")
    sid = stack.api.post("/scenarios", json=doc).json()["id"]
    r = stack.api.post(f"/scenarios/{sid}/comparisons",
                       json={"strategies": ["sptcp", "mptcp"], "repetitions": 2, "sweep": SWEEP})
    assert r.status_code == 202, r.text
    assert r.json()["units_total"] == 4
    body, progress = wait_comparison(stack, sid, r.json()["id"], timeout_s=120)
    assert body["status"] == "succeeded", body["error"]
    assert body["units_done"] == 4 and progress[-1] == 1.0
    got = body["result"]["sweep"]
    want = _expected(doc, SWEEP, 2)["sweep"]
    assert got["parameter"] == "nodes.uav.range_m" and got["values"] == [200, 400]
    for g, w in zip(got["points"], want["points"]):
        for name in ("sptcp", "mptcp"):
            assert g["strategies"][name]["runs"] == 2
            assert g["strategies"][name]["mean_mbps"] == pytest.approx(w["strategies"][name]["mean_mbps"])
            assert g["strategies"][name]["ci95_mbps"] == pytest.approx(w["strategies"][name]["ci95_mbps"])
    # the timelines of the first unit are there as in a plain comparison
    assert set(body["result"]["strategies"]) == {"sptcp", "mptcp"}
    # every point's representative run (first repetition) is stored and served typed
    cid = r.json()["id"]
    listed = stack.api.get(f"/scenarios/{sid}/comparisons/{cid}/sweep-points")
    assert listed.status_code == 200, listed.text
    seed = doc.get("run", {}).get("seed", 1)
    assert listed.json() == {"parameter": "nodes.uav.range_m",
                             "data": [{"point": 0, "value": 200, "value_y": None, "seed": seed},
                                      {"point": 1, "value": 400, "value_y": None, "seed": seed}]}
    run1 = stack.api.get(f"/scenarios/{sid}/comparisons/{cid}/sweep-points/1").json()
    assert run1["value"] == 400 and run1["scenario"]["nodes"][[n["id"] for n in doc["nodes"]].index("uav")]["range_m"] == 400
    # the same run made by the library directly (point 1, repetition 0)
    unit = expand(doc, SweepSpec(**SWEEP), 2)[2]
    assert (unit.point, unit.repetition) == (1, 0)
    want_doc = compare(unit.scenario, ["sptcp", "mptcp"], run_plan)
    for name in ("sptcp", "mptcp"):
        got_flows = {f["id"]: f for f in run1["strategies"][name]["flows"]}
        for f in want_doc.strategies[name].flows:
            assert got_flows[f.id]["throughput_mbps"] == pytest.approx(f.throughput_mbps)
    assert stack.api.get(f"/scenarios/{sid}/comparisons/{cid}/sweep-points/2").status_code == 404


def test_repetitions_only(pg_stack, example, wait_comparison):
    doc = example("naval-random-walk")
    sid = pg_stack.api.post("/scenarios", json=doc).json()["id"]
    r = pg_stack.api.post(f"/scenarios/{sid}/comparisons", json={"strategies": ["sptcp", "mptcp"], "repetitions": 3})
    body, _ = wait_comparison(pg_stack, sid, r.json()["id"], timeout_s=120)
    assert body["status"] == "succeeded", body["error"]
    want = _expected(doc, None, 3)["repetitions"]
    for name in ("sptcp", "mptcp"):
        assert body["result"]["repetitions"][name]["mean_mbps"] == pytest.approx(want[name]["mean_mbps"])
        assert body["result"]["repetitions"][name]["runs"] == 3


def test_bad_sweeps_are_422_naming_the_field(pg_stack, example):
    sid = pg_stack.api.post("/scenarios", json=example()).json()["id"]
    before = pg_stack.api.get(f"/scenarios/{sid}/comparisons").json()["count"]
    r = pg_stack.api.post(f"/scenarios/{sid}/comparisons", json={"sweep": {"parameter": "nodes.ghost.range_m", "values": [1]}})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"][:3] == ["body", "sweep", "parameter"]
    r = pg_stack.api.post(f"/scenarios/{sid}/comparisons", json={"sweep": {"parameter": "nodes.uav.range_m", "values": [100, -1]}})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"][:4] == ["body", "sweep", "values", 1]
    r = pg_stack.api.post(f"/scenarios/{sid}/comparisons", json={"repetitions": 0})
    assert r.status_code == 422
    assert pg_stack.api.get(f"/scenarios/{sid}/comparisons").json()["count"] == before


def test_cancel_a_running_sweep(pg_stack, example, wait_comparison):
    sid = pg_stack.api.post("/scenarios", json=example("naval-random-walk")).json()["id"]
    values = [150 + 10 * k for k in range(30)]
    r = pg_stack.api.post(f"/scenarios/{sid}/comparisons",
                          json={"sweep": {"parameter": "nodes.uav.range_m", "values": values}, "repetitions": 2})
    cid = r.json()["id"]
    deadline = time.monotonic() + 30
    while pg_stack.api.get(f"/scenarios/{sid}/comparisons/{cid}").json()["units_done"] < 1:
        assert time.monotonic() < deadline, pg_stack.logs()
        time.sleep(0.1)
    r = pg_stack.api.post(f"/scenarios/{sid}/comparisons/{cid}/cancel")
    assert r.status_code == 202 and r.json()["status"] == "cancelled"
    time.sleep(3)
    body = pg_stack.api.get(f"/scenarios/{sid}/comparisons/{cid}").json()
    assert body["status"] == "cancelled" and body["result"] is None
    assert body["units_done"] < body["units_total"] == 60
    # cancelling a finished comparison changes nothing
    again = pg_stack.api.post(f"/scenarios/{sid}/comparisons/{cid}/cancel").json()
    assert again["status"] == "cancelled" and again["finished_at"] == body["finished_at"]
    # the scenario is intact
    assert pg_stack.api.get(f"/scenarios/{sid}").status_code == 200


def test_engines_lists_the_agents_capabilities(pg_stack, dead_agent_stack):
    body = pg_stack.api.get("/engines", params={"refresh": True}).json()
    assert body["agent_reachable"] is True
    fluid = next(e for e in body["engines"] if e["name"] == "fluid")
    assert fluid["available"] is True and "mptcp" in fluid["strategies"]
    down = dead_agent_stack.api.get("/engines", params={"refresh": True}).json()
    assert down["agent_reachable"] is False and [e["name"] for e in down["engines"]] == ["fluid"]
