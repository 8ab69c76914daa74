"""Scenario exports over REST: JSON round trip, Mininet-WiFi script, ns-2 trace."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration


def test_exports(pg_stack, example):
    doc = example()
    sid = pg_stack.api.post("/scenarios", json=doc).json()["id"]
    r = pg_stack.api.get(f"/scenarios/{sid}/export", params={"format": "json"})
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    again = r.json()
    assert again["name"] == doc["name"] and len(again["links"]) == len(doc["links"])
    r = pg_stack.api.get(f"/scenarios/{sid}/export", params={"format": "mininet-wifi", "strategy": "mptcp"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/x-python")
    script = r.text
    compile(script, "exported.py", "exec")  # a valid standalone Python program
    assert "mn_wifi" in script and "mptcpize" in script and "setPropagationModel" in script
    r = pg_stack.api.get(f"/scenarios/{sid}/export", params={"format": "ns2"})
    assert r.status_code == 200 and "setdest" in r.text
    assert pg_stack.api.get(f"/scenarios/{sid}/export", params={"format": "pdf"}).status_code == 422
    r = pg_stack.api.get(f"/scenarios/{sid}/export", params={"format": "mininet-wifi", "strategy": "warp"})
    assert r.status_code == 422
    assert pg_stack.api.get("/scenarios/nope/export").status_code == 404
