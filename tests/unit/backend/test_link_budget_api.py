"""SATCOM link budgets at the REST edge (FastAPI TestClient on SQLite): bad budgets are 422 naming the field and
store nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.backend_sqlite import CAPABILITIES, api, fake_agent, queue, sessions  # noqa: F401

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "naval-geo-rain-fade.json"


@pytest.mark.parametrize("field, value, loc", [
    ("terminal_eirp_dbw", -60, ["links", 0, "budget", "terminal_eirp_dbw"]),
    ("symbol_rate_msps", 0, ["links", 0, "budget", "symbol_rate_msps"]),
    ("modcod", "QPSK 7/8", ["links", 0, "budget", "modcod"]),
    ("rain_rate_mm_h", [[0, 400]], ["links", 0, "budget", "rain_rate_mm_h", 0, 1]),
])
def test_bad_budget_is_422_naming_the_field_and_stores_nothing(api, field, value, loc):
    doc = json.loads(EXAMPLE.read_text())
    doc["links"][0]["budget"][field] = value
    before = api.get("/api/scenarios").json()["count"]
    r = api.post("/api/scenarios", json=doc)
    assert r.status_code == 422, r.text
    assert any(d["loc"][-len(loc):] == loc for d in r.json()["detail"]), r.text
    assert api.get("/api/scenarios").json()["count"] == before
