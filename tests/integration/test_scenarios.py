"""Scenario REST API on PostgreSQL: CRUD, versioning, validation errors."""

from __future__ import annotations

import copy
from datetime import datetime

import pytest

pytestmark = pytest.mark.integration


def _names(api) -> list[str]:
    r = api.get("/scenarios", params={"limit": 1000})
    assert r.status_code == 200, r.text
    return [s["name"] for s in r.json()["data"]]


def test_health_strategies_schema(pg_stack):
    api = pg_stack.api
    assert api.get("/health").json()["status"] == "ok"  # the parts: test_observability.py
    strategies = {s["name"]: s for s in api.get("/strategies").json()}
    assert strategies["sptcp"]["multipath"] is False and strategies["mptcp"]["multipath"] is True
    schema = api.get("/scenarios/schema").json()
    assert "nodes" in schema["properties"] and "links" in schema["properties"]


def test_scenario_crud_and_versioning(pg_stack, example):
    api = pg_stack.api
    doc = example()

    r = api.post("/scenarios", json=doc)
    assert r.status_code == 201, r.text
    created = r.json()
    sid = created["id"]
    assert created["name"] == doc["name"] and created["version"] == 1
    assert created["description"] == doc["description"]
    assert created["scenario"]["nodes"][0]["id"] == doc["nodes"][0]["id"]

    r = api.get(f"/scenarios/{sid}")
    assert r.status_code == 200 and r.json() == created
    assert r.headers["etag"] == '"v1"' and created["updated_by"] == pg_stack.admin[0]

    listing = api.get("/scenarios", params={"limit": 1000}).json()
    assert listing["count"] == len(listing["data"])
    mine = [s for s in listing["data"] if s["id"] == sid]
    assert len(mine) == 1 and mine[0]["version"] == 1 and "scenario" not in mine[0]

    # same name again: 409, nothing stored
    count = listing["count"]
    r = api.post("/scenarios", json=doc)
    assert r.status_code == 409
    assert doc["name"] in r.json()["detail"] and "already exists" in r.json()["detail"]
    assert api.get("/scenarios").json()["count"] == count

    # PUT (If-Match: the version edited) replaces the document and increments the version
    edited = copy.deepcopy(doc)
    edited["description"] = "edited"
    edited["run"]["duration_s"] = 80
    r = api.put(f"/scenarios/{sid}", json=edited, headers={"If-Match": '"v1"'})
    assert r.status_code == 200, r.text
    assert r.headers["etag"] == '"v2"'
    v2 = r.json()
    assert v2["version"] == 2 and v2["description"] == "edited"
    assert v2["scenario"]["run"]["duration_s"] == 80
    assert v2["created_at"] == created["created_at"]
    assert datetime.fromisoformat(v2["updated_at"]) > datetime.fromisoformat(created["updated_at"])
    assert api.get(f"/scenarios/{sid}").json() == v2
    r = api.put(f"/scenarios/{sid}", json=edited, headers={"If-Match": '"v2"'})
    assert r.json()["version"] == 3

    # renaming onto another scenario's name: 409, unchanged
    other = example()
    assert api.post("/scenarios", json=other).status_code == 201
    clash = copy.deepcopy(edited)
    clash["name"] = other["name"]
    r = api.put(f"/scenarios/{sid}", json=clash, headers={"If-Match": '"v3"'})
    assert r.status_code == 409
    assert api.get(f"/scenarios/{sid}").json()["version"] == 3

    # delete
    assert api.delete(f"/scenarios/{sid}").status_code == 204
    assert api.get(f"/scenarios/{sid}").status_code == 404
    assert api.delete(f"/scenarios/{sid}").status_code == 404
    assert doc["name"] not in _names(api)


def _unknown_link_node(doc):
    doc["links"][0]["dst"] = "nowhere"
    return ["body", "links", 0, "dst"]


def _negative_bandwidth(doc):
    doc["links"][1]["bandwidth_mbps"] = -5
    return ["body", "links", 1, "bandwidth_mbps"]


def _loss_one(doc):
    doc["links"][2]["loss"] = 1.0
    return ["body", "links", 2, "loss"]


def _flow_to_missing_node(doc):
    doc["flows"][1]["dst"] = "ghost"
    return ["body", "flows", 1, "dst"]


@pytest.mark.parametrize(
    "breaks", [_unknown_link_node, _negative_bandwidth, _loss_one, _flow_to_missing_node], ids=lambda f: f.__name__[1:]
)
def test_invalid_scenario_is_422_naming_the_field(pg_stack, example, breaks):
    api = pg_stack.api
    before = api.get("/scenarios", params={"limit": 1000}).json()

    doc = example()
    loc = breaks(doc)
    r = api.post("/scenarios", json=doc)
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert isinstance(detail, list) and detail
    assert loc in [d["loc"] for d in detail], detail
    assert all(d["msg"] for d in detail)

    after = api.get("/scenarios", params={"limit": 1000}).json()
    assert after["count"] == before["count"]
    assert after["data"] == before["data"]
    assert doc["name"] not in [s["name"] for s in after["data"]]

    # the same problem in a PUT leaves the stored scenario unchanged
    good = example()
    stored = api.post("/scenarios", json=good).json()
    bad = copy.deepcopy(good)
    breaks(bad)
    r = api.put(f"/scenarios/{stored['id']}", json=bad, headers={"If-Match": '"v1"'})
    assert r.status_code == 422 and loc in [d["loc"] for d in r.json()["detail"]]
    assert api.get(f"/scenarios/{stored['id']}").json() == stored
    api.delete(f"/scenarios/{stored['id']}")


def test_not_found(pg_stack):
    api = pg_stack.api
    assert api.get("/scenarios/00000000-0000-0000-0000-000000000000").status_code == 404
    assert api.get("/scenarios/nope/comparisons").status_code == 404
    assert api.post("/scenarios/nope/comparisons", json={}).status_code == 404


def test_odd_input_is_422_on_postgresql_not_500(pg_stack, example):
    """Odd input on the real database: NUL characters, NaN, a huge skip."""
    api = pg_stack.api
    doc = example()
    doc["name"] = "nul\x00name"
    r = api.post("/scenarios", json=doc)
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "name"], r.text
    r = api.post("/scenarios", content=b'{"name": "n", "nodes": [], "run": {"duration_s": NaN}}',
                 headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "run", "duration_s"], r.text
    for skip in (2**63, 2**31):
        r = api.get("/scenarios", params={"skip": skip})
        assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["query", "skip"], r.text
    assert api.get("/scenarios", params={"skip": 2**31 - 1}).json()["data"] == []
    assert "nul\x00name" not in _names(api)
