"""Routes, allocations and planned-vs-measured over REST on the real stack: all-pairs routes in the worker with real progress,
route summaries, and planned vs measured of an ``mptcp-fdm`` comparison."""

from __future__ import annotations

import time
import uuid

import pytest

from tests.unit.planning_helpers import ZOO, data_file

pytestmark = pytest.mark.integration


def test_all_pairs_routes_of_kdl_report_progress_as_they_go(pg_stack):
    kdl = data_file(ZOO / "Kdl.graphml")
    r = pg_stack.api.post("/imports", files={"file": (kdl.name, kdl.read_bytes(), "application/xml")},
                          data={"name": f"it-{uuid.uuid4().hex[:8]}-kdl"})
    assert r.status_code == 201, r.text
    sid, doc = r.json()["id"], r.json()["scenario"]
    n = len(doc["nodes"])
    r = pg_stack.api.post(f"/scenarios/{sid}/routes", json={"metric": "tcpbp", "summary_limit": 50, "background": True})
    assert r.status_code == 202, r.text
    url = r.json()["status_url"].removeprefix("/api")
    seen: list[tuple[int, int]] = []
    deadline = time.monotonic() + 180
    while (job := pg_stack.api.get(url).json())["status"] in ("queued", "running"):
        assert time.monotonic() < deadline, pg_stack.logs()
        if job["done"] is not None:
            seen.append((job["done"], job["total"]))
            assert job["progress"] == pytest.approx(job["done"] / job["total"])
        time.sleep(0.05)
    assert job["status"] == "succeeded", job["error"]
    assert job["done"] == job["total"] == n * (n - 1)
    # real progress: at least one intermediate count, never going back
    assert any(0 < d < n * (n - 1) for d, _ in seen), seen
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert all(t == n * (n - 1) for _, t in seen)
    result = job["result"]
    assert result["pairs_total"] == n * (n - 1) and result["truncated"] and len(result["link_use"]) == len(doc["links"])
    # every best route has at least one hop: the link counts sum to at least the reachable pairs
    assert sum(u["routes"] for u in result["link_use"]) >= result["pairs_reachable"] > 0
    costs = [p["paths"][0]["cost"] for p in result["routes"] if p["reachable"]]
    assert len(costs) == 50 and costs == sorted(costs, reverse=True)


def test_route_summary_refuses_k_paths(pg_stack, example):
    sid = pg_stack.api.post("/scenarios", json=example()).json()["id"]
    r = pg_stack.api.post(f"/scenarios/{sid}/routes", json={"k": 3, "summary_limit": 10})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"][-1] == "summary_limit", r.text


def test_planned_vs_measured_of_an_fdm_comparison(pg_stack, example, wait_comparison):
    sid = pg_stack.api.post("/scenarios", json=example()).json()["id"]
    r = pg_stack.api.post(f"/scenarios/{sid}/comparisons", json={"strategies": ["mptcp-fdm", "mptcp"]})
    assert r.status_code == 202, r.text
    cid = r.json()["id"]
    r = pg_stack.api.get(f"/scenarios/{sid}/comparisons/{cid}/planned", params={"strategy": "mptcp-fdm"})
    assert r.status_code in (200, 409), r.text
    done, _ = wait_comparison(pg_stack, sid, cid, timeout_s=120)
    assert done["status"] == "succeeded", done["error"]
    fdm = done["result"]["strategies"]["mptcp-fdm"]
    assert done["result"]["strategies"]["mptcp"]["planned"] is None
    allocations = [e for e in fdm["events"] if e["kind"] == "allocation_change"]
    assert len(allocations) >= 2
    r = pg_stack.api.get(f"/scenarios/{sid}/comparisons/{cid}/planned", params={"strategy": "mptcp-fdm"})
    assert r.status_code == 200, r.text
    plan = r.json()
    assert plan == fdm["planned"]  # the stored document holds the whole-run table
    # the planned rate at each sample is the last allocation's rate at or before it, written out here
    series = {s["id"]: s for f in fdm["flows"] for s in f["subflows"]}
    for p in plan["subflows"]:
        t_s = series[p["subflow"]]["t_s"]
        for t, planned in zip(t_s, p["planned_mbps"]):
            last = [a for a in allocations if a["t_s"] <= t + 1e-9]
            want = last[-1]["rates_mbps"].get(p["subflow"]) if last else None
            assert planned == want
    # uav-ship (1 Mbit/s) carries the '/uav' subflows only: mean over the window of their rates
    t0, t1 = 70.0, 90.0
    r = pg_stack.api.get(f"/scenarios/{sid}/comparisons/{cid}/planned",
                         params={"strategy": "mptcp-fdm", "t0_s": t0, "t1_s": t1})
    assert r.status_code == 200, r.text
    row = next(x for x in r.json()["links"] if x["link"] == "uav-ship")
    uav = [s for sid_, s in series.items() if sid_.endswith("/uav")]
    ks = [k for k, t in enumerate(uav[0]["t_s"]) if t0 <= t < t1]
    measured = sum(s["throughput_mbps"][k] for s in uav for k in ks) / len(ks)
    planned = sum(next(p for p in plan["subflows"] if p["subflow"] == s["id"])["planned_mbps"][k] or 0.0
                  for s in uav for k in ks) / len(ks)
    assert row["measured_mbps"] == pytest.approx(measured) and row["planned_mbps"] == pytest.approx(planned)
    assert row["planned_utilization"] == pytest.approx(planned / 1.0) and planned > 0.1
    # refusals name the query parameter
    for params, field in (({"strategy": "mptcp"}, "strategy"), ({"strategy": "warp"}, "strategy"),
                          ({"strategy": "mptcp-fdm", "t0_s": 50, "t1_s": 40}, "t1_s")):
        r = pg_stack.api.get(f"/scenarios/{sid}/comparisons/{cid}/planned", params=params)
        assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["query", field], r.text
    r = pg_stack.api.get(f"/scenarios/{sid}/comparisons/nope/planned", params={"strategy": "mptcp-fdm"})
    assert r.status_code == 404
