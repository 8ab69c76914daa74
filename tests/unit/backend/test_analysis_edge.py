"""The analysis routes' edge: 422s name the request body's field, jobs are recorded before they are sent."""

from __future__ import annotations

from tests.unit.backend_sqlite import CAPABILITIES, api, fake_agent, queue, sessions  # noqa: F401

from subflow_backend.queue import CAPACITY_TASK, FAILURES_TASK  # noqa: E402


def _create(api, doc) -> str:
    r = api.post("/api/scenarios", json=doc)
    assert r.status_code == 201, r.text
    return r.json()["id"]


def test_failures_inline_and_their_refusals(api, naval_direct, queue):
    sid = _create(api, naval_direct)
    r = api.post(f"/api/scenarios/{sid}/failures", json={})
    assert r.status_code == 200 and r.json()["cases"][0]["element"] == "satcom-ship"
    r = api.post(f"/api/scenarios/{sid}/failures", json={"links": ["uav-ship", "nope"]})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "links", 1]
    r = api.post(f"/api/scenarios/{sid}/failures", json={"background": True})
    assert r.status_code == 202 and queue.sent[-1][0] == FAILURES_TASK
    job_id = r.json()["job_id"]
    assert queue.backend.stored[job_id][0] == "RECEIVED"


def test_capacity_search_refusals_name_the_body(api, naval_direct, queue):
    sid = _create(api, naval_direct)
    base = {"parameter": "links.uav-ship.bandwidth_mbps", "low": 0.5, "high": 10, "min_mean_mbps": 2.5, "tolerance": 0.5}
    r = api.post(f"/api/scenarios/{sid}/capacity-searches", json={**base, "parameter": "links.nope.bandwidth_mbps"})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "parameter"]
    r = api.post(f"/api/scenarios/{sid}/capacity-searches", json={**base, "low": -1})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"][:2] == ["body", "low"]
    r = api.post(f"/api/scenarios/{sid}/capacity-searches", json={**base, "low": 11})
    assert r.status_code == 422
    r = api.post(f"/api/scenarios/{sid}/capacity-searches", json={**base, "repetitions": 50, "max_steps": 40})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "max_steps"]
    assert "MAX_SWEEP_UNITS" in r.json()["detail"][0]["msg"]
    assert queue.sent == []
    r = api.post(f"/api/scenarios/{sid}/capacity-searches", json=base)
    assert r.status_code == 202 and len(queue.sent) == 1
    task, (scenario_id, version, body) = queue.sent[0]
    assert (task, scenario_id, version) == (CAPACITY_TASK, sid, 1)
    assert {k: body[k] for k in base} == base and body["strategy"] == "mptcp"


def test_capacity_search_voice_targets(api, naval_direct, queue):
    """A MOS target needs a voice flow (naval-direct-move has tcp flows only: 422 naming min_mos); a request
    with no target at all is refused; on a scenario with a call the voice targets go to the worker as sent."""
    sid = _create(api, naval_direct)
    base = {"parameter": "links.uav-ship.bandwidth_mbps", "low": 0.5, "high": 10, "tolerance": 0.5}
    r = api.post(f"/api/scenarios/{sid}/capacity-searches", json={**base, "min_mos": 3.6})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "min_mos"]
    r = api.post(f"/api/scenarios/{sid}/capacity-searches", json=base)
    assert r.status_code == 422 and "at least one target" in r.json()["detail"][0]["msg"]
    r = api.post(f"/api/scenarios/{sid}/capacity-searches", json={**base, "min_mos": 5})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "min_mos"]
    assert queue.sent == []
    call = {"id": "call", "src": "sta1", "dst": "ship", "kind": "voice", "voice": {"codec": "g711"}}
    doc = {**naval_direct, "name": "with-a-call", "flows": [*naval_direct["flows"], call]}
    sid = _create(api, doc)
    voice = {**base, "min_mos": 3.6, "max_delay_ms": 300, "max_loss": 0.01, "allowed_fraction": 0.05}
    r = api.post(f"/api/scenarios/{sid}/capacity-searches", json=voice)
    assert r.status_code == 202, r.text
    _task, (_sid, _version, body) = queue.sent[-1]
    assert {k: body[k] for k in voice} == voice and body["min_mean_mbps"] is None
