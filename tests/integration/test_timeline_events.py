"""``POST /api/timeline`` and the server-sent progress events of a comparison, on real processes."""

from __future__ import annotations

import json
import math
import time

import pytest

pytestmark = pytest.mark.integration


def sse_messages(stack, path: str, timeout_s: float = 90.0) -> tuple[list[dict], list[str]]:
    """Read a server-sent event stream until the server ends it: (data payloads, raw lines)."""
    assert stack.api is not None
    payloads: list[dict] = []
    lines: list[str] = []
    deadline = time.monotonic() + timeout_s
    with stack.api.stream("GET", path, timeout=timeout_s) as r:
        assert r.status_code == 200, r.read()
        assert r.headers["content-type"].startswith("text/event-stream")
        for line in r.iter_lines():
            lines.append(line)
            if line.startswith("data: "):
                payloads.append(json.loads(line[len("data: "):]))
            assert time.monotonic() < deadline, "the event stream did not end"
    return payloads, lines


def at(corners: list[list[float]], t: float) -> tuple[float, float]:
    """Position on a piecewise-linear path given by its [t, x, y] corners."""
    for (t0, x0, y0), (t1, x1, y1) in zip(corners, corners[1:]):
        if t0 <= t <= t1:
            u = 0.0 if t1 == t0 else (t - t0) / (t1 - t0)
            return x0 + u * (x1 - x0), y0 + u * (y1 - y0)
    return corners[-1][1], corners[-1][2]


def test_timeline_matches_the_scenario_geometry(pg_stack, example):
    api = pg_stack.api
    doc = example("naval-direct-move")
    r = api.post("/timeline", json=doc)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["duration_s"] == doc.get("run", {}).get("duration_s", 100.0)
    uav = next(n for n in doc["nodes"] if n["id"] == "uav")
    stations = [n for n in doc["nodes"] if n["kind"] == "station"]
    # every node has a trajectory (static ones a single leg at their position)
    assert set(body["trajectories"]) == {n["id"] for n in doc["nodes"]}
    assert body["trajectories"]["uav"][0][1:] == [uav["position"]["x_m"], uav["position"]["y_m"]]
    assert body["geo_trajectories"] is None and body["origin"] is None
    for st in stations:
        corners = body["trajectories"][st["id"]]
        assert corners[0][0] == 0 and corners[-1][0] == body["duration_s"]
        assert [c[0] for c in corners] == sorted(c[0] for c in corners)
        m = st["mobility"]
        assert corners[0][1:] == [m["start"]["x_m"], m["start"]["y_m"]]
        # independent check: a linear mover at speed v is |v·t| from its start while moving
        x, y = at(corners, 30.0)
        assert math.hypot(x - m["start"]["x_m"], y - m["start"]["y_m"]) == pytest.approx(30.0 * m["speed_mps"])
    # each association starts when the station is exactly at the range border and lasts
    # association_delay_s before carrying traffic
    assert {a["station"] for a in body["associations"]} == {"sta1", "sta2"}
    for a in body["associations"]:
        x, y = at(body["trajectories"][a["station"]], a["t_start_s"])
        dist = math.hypot(x - uav["position"]["x_m"], y - uav["position"]["y_m"])
        assert dist == pytest.approx(uav["range_m"], abs=1e-6)
        assert a["t_associated_s"] - a["t_start_s"] == pytest.approx(uav["association_delay_s"])
    kinds = [e["kind"] for e in body["events"]]
    assert kinds.count("handover_start") == 2 and kinds.count("association") == 2
    assert [e["t_s"] for e in body["events"]] == sorted(e["t_s"] for e in body["events"])
    # the network's windows: contiguous over the run, cut at every association change; the routes request
    # answers on the same windows (merged where the routes do not change)
    windows = body["windows"]
    assert windows[0][0] == 0 and windows[-1][1] == body["duration_s"]
    assert all(w0 < w1 for w0, w1 in windows) and all(a[1] == b[0] for a, b in zip(windows, windows[1:]))
    starts = {w[0] for w in windows}
    for a in body["associations"]:
        for t in (a["t_start_s"], a["t_associated_s"], a["t_end_s"]):
            assert t >= body["duration_s"] or t in starts, t
    sid = api.post("/scenarios", json=doc).json()["id"]
    routes = api.post(f"/scenarios/{sid}/routes", json={"metric": "hop", "pairs": [["sta1", "ship"]]})
    assert routes.status_code == 200, routes.text
    assert {w["t_start_s"] for w in routes.json()["windows"]} <= starts


def test_timeline_rejects_an_invalid_document_naming_the_field(pg_stack, example):
    doc = example("naval-direct-move")
    doc["links"][0]["loss"] = 1.5
    r = pg_stack.api.post("/timeline", json=doc)
    assert r.status_code == 422
    assert [d["loc"] for d in r.json()["detail"]] == [["body", "links", 0, "loss"]]
    doc = example("naval-direct-move")
    doc["flows"][0]["dst"] = "nowhere"
    r = pg_stack.api.post("/timeline", json=doc)
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "flows", 0, "dst"]


def test_events_stream_progress_until_finished(pg_stack, example):
    api = pg_stack.api
    sid = api.post("/scenarios", json=example("naval-direct-move")).json()["id"]
    cid = api.post(f"/scenarios/{sid}/comparisons", json={"strategies": ["sptcp", "mptcp"]}).json()["id"]

    payloads, lines = sse_messages(pg_stack, f"/scenarios/{sid}/comparisons/{cid}/events")
    assert payloads, lines
    for p in payloads:
        assert set(p) == {"status", "progress", "error", "units_done", "units_total"}
    # only changes are sent, progress never goes back, the last message is the final state
    assert all(a != b for a, b in zip(payloads, payloads[1:]))
    progress = [p["progress"] for p in payloads]
    assert progress == sorted(progress)
    final = api.get(f"/scenarios/{sid}/comparisons/{cid}").json()
    assert final["status"] == "succeeded", final["error"]
    assert payloads[-1] == {"status": final["status"], "progress": final["progress"], "error": final["error"],
                            "units_done": final["units_done"], "units_total": final["units_total"]}
    assert all(p["status"] in ("queued", "running") for p in payloads[:-1])

    # a finished comparison: one message, then the stream ends
    again, _ = sse_messages(pg_stack, f"/scenarios/{sid}/comparisons/{cid}/events", timeout_s=10)
    assert again == [payloads[-1]]


def test_events_of_unknown_comparison_or_scenario_are_404(pg_stack, example):
    api = pg_stack.api
    sid = api.post("/scenarios", json=example("naval-direct-move")).json()["id"]
    assert api.get(f"/scenarios/{sid}/comparisons/nope/events").status_code == 404
    assert api.get("/scenarios/nope/comparisons/nope/events").status_code == 404


def test_events_stream_ends_when_a_comparison_is_cancelled(pg_stack, example):
    api = pg_stack.api
    doc = example("naval-direct-move")
    doc["run"] = {**doc.get("run", {}), "duration_s": 1200, "interval_s": 0.1}
    sid = api.post("/scenarios", json=doc).json()["id"]
    r = api.post(
        f"/scenarios/{sid}/comparisons",
        json={"strategies": ["sptcp", "mptcp"], "sweep": {"parameter": "nodes.uav.range_m", "values": [100, 200, 300, 400]}},
    )
    if r.status_code == 422:
        pytest.skip(f"sweeps are not accepted by this backend: {r.text}")
    cid = r.json()["id"]
    cancel = api.post(f"/scenarios/{sid}/comparisons/{cid}/cancel")
    if cancel.status_code in (404, 405):
        pytest.skip("this backend has no cancel endpoint")
    assert cancel.status_code == 202, cancel.text
    payloads, _ = sse_messages(pg_stack, f"/scenarios/{sid}/comparisons/{cid}/events", timeout_s=60)
    assert payloads[-1]["status"] == "cancelled"
    assert api.get(f"/scenarios/{sid}/comparisons/{cid}").json()["status"] == "cancelled"
