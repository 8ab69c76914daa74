"""The planning core over REST, inline and as background worker jobs."""

from __future__ import annotations

import time

import pytest

from subflow.planning.network import Network
from subflow.planning.shortest_paths import route_report

from tests.conftest import load_example

pytestmark = pytest.mark.integration


def test_routes_inline_and_in_the_worker_agree_with_the_library(pg_stack, example):
    doc = example("hsln-10node")
    sid = pg_stack.api.post("/scenarios", json=doc).json()["id"]
    body = {"metric": "tcpbp", "pairs": [["s1", "s10"]]}
    r = pg_stack.api.post(f"/scenarios/{sid}/routes", json=body)
    assert r.status_code == 200, r.text
    assert r.json()["routes"][0]["paths"][0]["nodes"] == ["s1", "s3", "s4", "s10"]  # thesis Table 4
    library = route_report(Network.from_scenario(load_example("hsln-10node")), "tcpbp", 1, [("s1", "s10")])
    # hsln-10node's network is the same all run long: one window, whose routes are the wired graph's
    assert {key: r.json()[key] for key in library} == library
    assert r.json()["t_s"] is None and [(w["t_start_s"], w["t_end_s"]) for w in r.json()["windows"]] == [(0.0, 60.0)]
    r = pg_stack.api.post(f"/scenarios/{sid}/routes", json={"metric": "hop", "background": True})
    assert r.status_code == 202
    job_url = r.json()["status_url"].removeprefix("/api")
    deadline = time.monotonic() + 60
    while (job := pg_stack.api.get(job_url).json())["status"] in ("queued", "running"):
        assert time.monotonic() < deadline, pg_stack.logs()
        time.sleep(0.2)
    assert job["status"] == "succeeded" and len(job["result"]["routes"]) == 90


def test_allocation_and_its_errors(pg_stack, example):
    doc = example()  # naval-direct-move: two 3 Mbit/s demands
    sid = pg_stack.api.post("/scenarios", json=doc).json()["id"]
    r = pg_stack.api.post(f"/scenarios/{sid}/allocations", json={"method": "fdm"})
    assert r.status_code == 200, r.text
    alloc = r.json()
    assert alloc["gamma"] == pytest.approx(6.0) and alloc["tempered"] == 1.0
    assert all(sum(p["rate"] for p in d["paths"]) == pytest.approx(d["demand"]) for d in alloc["demands"])
    r = pg_stack.api.post(f"/scenarios/{sid}/routes", json={"metric": "warp"})
    assert r.status_code == 422
    r = pg_stack.api.post(f"/scenarios/{sid}/routes", json={"pairs": [["sta1", "nowhere"]]})
    assert r.status_code == 422 and "nowhere" in r.text
