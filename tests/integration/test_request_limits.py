"""Requests over the MAX_* bounds (defaults of DEVELOPERS.md's settings table): 413 for bodies,
422 naming the setting for scenario sizes, samples, timeline size and sweep units; nothing stored."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration


def _count(stack) -> int:
    return stack.api.get("/scenarios").json()["count"]


def test_body_over_max_body_bytes_is_413(pg_stack, example):
    before = _count(pg_stack)
    doc = example()
    doc["description"] = "x" * 4000
    padding = " " * (5 * 1024 * 1024)  # MAX_BODY_BYTES default: 5 MiB
    r = pg_stack.api.post("/scenarios", content=padding + __import__("json").dumps(doc),
                          headers={"content-type": "application/json"})
    assert r.status_code == 413 and "MAX_BODY_BYTES" in r.json()["detail"]
    assert _count(pg_stack) == before


def test_too_many_nodes_is_422_naming_max_nodes(pg_stack, example):
    before = _count(pg_stack)
    doc = example()
    doc["nodes"] += [{"id": f"extra{i}", "kind": "host"} for i in range(2001)]  # MAX_NODES default: 2000
    r = pg_stack.api.post("/scenarios", json=doc)
    assert r.status_code == 422, r.text
    (entry,) = r.json()["detail"]
    assert entry["loc"] == ["body", "nodes"] and entry["type"] == "limit_exceeded" and "MAX_NODES" in entry["msg"]
    assert _count(pg_stack) == before


def test_timeline_over_max_timeline_legs_is_422(pg_stack, example):
    doc = example("naval-random-walk")
    doc["run"].update(duration_s=86_400, interval_s=1)
    i = next(i for i, n in enumerate(doc["nodes"]) if n.get("mobility", {}).get("model") == "random_walk")
    doc["nodes"][i]["mobility"]["step_s"] = 0.01  # 8.6 million legs
    r = pg_stack.api.post("/timeline", json=doc)
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["loc"] == ["body", "nodes", i, "mobility"]
    assert "MAX_TIMELINE_LEGS" in r.json()["detail"][0]["msg"]
    before = _count(pg_stack)
    assert pg_stack.api.post("/scenarios", json=doc).status_code == 422
    assert _count(pg_stack) == before


def test_sweep_over_max_sweep_units_is_422(pg_stack, example):
    sid = pg_stack.api.post("/scenarios", json=example()).json()["id"]
    body = {"strategies": ["sptcp"], "repetitions": 10,
            "sweep": {"parameter": "nodes.uav.range_m", "values": list(range(100, 250))}}  # 1500 runs
    r = pg_stack.api.post(f"/scenarios/{sid}/comparisons", json=body)
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["loc"] == ["body", "sweep", "values"]
    assert "MAX_SWEEP_UNITS = 1000" in r.json()["detail"][0]["msg"]
    assert pg_stack.api.get(f"/scenarios/{sid}/comparisons").json()["count"] == 0
