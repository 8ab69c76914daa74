"""The API edge in process (FastAPI TestClient on SQLite): error table and ``loc`` values, and the
robustness (no 500 on odd input, documented errors, 405, bounded echoes)."""

from __future__ import annotations

import copy
import json

import pytest

from tests.unit.backend_sqlite import CAPABILITIES, api, fake_agent, queue, sessions  # noqa: F401

from subflow_backend.queue import RUN_COMPARISON_TASK  # noqa: E402


def _create(api, doc) -> str:
    r = api.post("/api/scenarios", json=doc)
    assert r.status_code == 201, r.text
    return r.json()["id"]


def _loc(r) -> list:
    assert r.status_code == 422, r.text
    return r.json()["detail"][0]["loc"]


# --- comparisons: checked at once, queued by id -------------------------------------------------

def test_a_comparison_is_queued_without_calling_the_agent(api, naval_direct, queue, fake_agent):
    sid = _create(api, naval_direct)
    r = api.post(f"/api/scenarios/{sid}/comparisons", json={"strategies": ["sptcp", "mptcp"], "seed": 0})
    assert r.status_code == 202, r.text
    body = r.json()
    assert (body["status"], body["progress"], body["result"], body["units_total"]) == ("queued", 0.0, None, 1)
    assert queue.sent == [(RUN_COMPARISON_TASK, [body["id"], 0])]  # id and attempt
    assert fake_agent == []
    cancel = api.post(f"/api/scenarios/{sid}/comparisons/{body['id']}/cancel")
    assert cancel.status_code == 202 and cancel.json()["status"] == "cancelled"
    assert cancel.json()["error"] == "cancelled by the user"


def test_a_queue_that_is_down_is_503_and_the_comparison_failed(api, naval_direct, queue):
    sid = _create(api, naval_direct)
    queue.error = ConnectionError("broker gone")
    r = api.post(f"/api/scenarios/{sid}/comparisons", json={})
    assert r.status_code == 503 and "broker gone" in r.text
    [row] = api.get(f"/api/scenarios/{sid}/comparisons").json()["data"]
    assert row["status"] == "failed" and "broker gone" in row["error"]


def test_comparison_errors_name_where_the_problem_is(api, naval_direct):
    sid = _create(api, naval_direct)
    url = f"/api/scenarios/{sid}/comparisons"
    assert _loc(api.post(url, json={"strategies": ["sptcp", "quic"]})) == ["body", "strategies"]
    assert _loc(api.post(url, json={"engine": "ns3"})) == ["body", "engine"]
    r = api.post(url, json={"strategies": ["sptcp", "sptcp-delay"], "engine": "linux"})
    assert _loc(r) == ["body", "strategies", 1] and r.json()["detail"][0]["type"] == "engine_cannot_run"
    assert _loc(api.post(url, json={"sweep": {"parameter": "nodes.ghost.range_m", "values": [1]}})) == [
        "body", "sweep", "parameter"]
    assert _loc(api.post(url, json={"sweep": {"parameter": "nodes.uav.range_m", "values": [100, -1]}}))[:4] == [
        "body", "sweep", "values", 1]
    assert api.get(url).json()["count"] == 0

    doc = copy.deepcopy(naval_direct)
    doc["name"] = "with-island"
    doc["nodes"].append({"id": "island", "kind": "host", "position": {"x_m": 0, "y_m": 5000}})
    doc["flows"].append({"id": "f3", "src": "sta1", "dst": "island", "rate_mbps": 1})
    island = _create(api, doc)
    r = api.post(f"/api/scenarios/{island}/comparisons", json={})
    assert _loc(r) == ["scenario", "flows", 2] and "f3" in r.json()["detail"][0]["msg"]


def test_errors_about_the_stored_scenario_are_not_under_body(api, naval_direct):
    naval_direct["links"][0]["delay_ms"] = 0
    sid = _create(api, naval_direct)
    r = api.post(f"/api/scenarios/{sid}/routes", json={"pairs": [["sta1", "nowhere"]]})
    assert _loc(r) == ["body", "pairs"] and "nowhere" in r.text
    r = api.get(f"/api/scenarios/{sid}/export", params={"format": "mininet-wifi", "strategy": "warp"})
    assert _loc(r) == ["query", "strategy"]


def test_a_name_in_use_is_409(api, naval_direct):
    _create(api, naval_direct)
    r = api.post("/api/scenarios", json=naval_direct)
    assert r.status_code == 409 and "already exists" in r.json()["detail"]


def test_a_name_in_use_in_another_project_is_free(api, naval_direct):
    _create(api, naval_direct)
    pid = api.post("/api/projects", json={"name": "second"}).json()["id"]
    r = api.post("/api/scenarios", json=naval_direct, params={"project_id": pid})
    assert r.status_code == 201, r.text
    assert r.json()["project_id"] == pid and r.json()["name"] == naval_direct["name"]
    assert api.post("/api/scenarios", json=naval_direct, params={"project_id": pid}).status_code == 409


# --- odd input is refused, never a 500 ---------------------------------------------------------

@pytest.mark.parametrize("path", ["/api/scenarios", "/api/scenarios/{sid}/comparisons"])
def test_skip_and_limit_are_bounded(api, naval_direct, path):
    path = path.format(sid=_create(api, naval_direct))
    assert api.get(path, params={"skip": 2**31 - 1}).json()["data"] == []
    for params in ({"skip": 2**63}, {"skip": 2**64 + 5}, {"skip": -1}, {"limit": 0}, {"limit": 10**6}):
        r = api.get(path, params=params)
        assert r.status_code == 422, (params, r.text)
        assert r.json()["detail"][0]["loc"] == ["query", next(iter(params))]


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_numbers_are_422_naming_the_field(api, naval_direct, number):
    sid = _create(api, naval_direct)
    naval_direct["links"][0]["delay_ms"] = float(number)
    body = json.dumps(naval_direct)  # Python writes NaN, Infinity, -Infinity (not JSON)
    assert f'"delay_ms": {number}' in body
    for method, url in (("POST", "/api/timeline"), ("PUT", f"/api/scenarios/{sid}")):
        r = api.request(method, url, content=body, headers={"content-type": "application/json"})
        assert r.status_code == 422, r.text
        assert r.json()["detail"] == [{"loc": ["body", "links", 0, "delay_ms"], "type": "finite_number",
                                       "msg": "NaN and Infinity are not JSON numbers; give a finite number"}]
    r = api.post(f"/api/scenarios/{sid}/comparisons", content=f'{{"sweep": {{"parameter": "run.duration_s", '
                 f'"values": [10, {number}]}}}}', headers={"content-type": "application/json"})
    assert _loc(r) == ["body", "sweep", "values", 1]
    assert api.get(f"/api/scenarios/{sid}").json()["version"] == 1
    assert api.get(f"/api/scenarios/{sid}/comparisons").json()["count"] == 0


def test_a_nul_character_is_422_naming_the_field(api, naval_direct):
    doc = copy.deepcopy(naval_direct)
    doc["name"] = "bad\x00name"
    r = api.post("/api/scenarios", json=doc)
    assert r.status_code == 422, r.text
    assert [d["loc"] for d in r.json()["detail"]] == [["body", "name"]]
    doc["name"], doc["description"] = "fine", "x\x00"
    doc["nodes"][0]["label"] = "\x00"
    r = api.post("/api/scenarios", json=doc)
    assert sorted(d["loc"] for d in r.json()["detail"]) == [["body", "description"],
                                                           ["body", "nodes", 0, "label"]]
    assert api.get("/api/scenarios").json()["count"] == 0


def test_a_422_does_not_echo_a_large_input(api, naval_direct):
    naval_direct["name"] = "x" * 1_000_000
    r = api.post("/api/scenarios", json=naval_direct)
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "name"]
    assert len(r.content) < 5_000
    assert r.json()["detail"][0]["input"] == "x" * 200 + "…"
    sid = _create(api, {**naval_direct, "name": "short"})
    r = api.post(f"/api/scenarios/{sid}/comparisons", json={"strategies": ["q" * 1_000_000]})
    assert _loc(r) == ["body", "strategies"] and len(r.content) < 5_000
    r = api.get("/api/scenarios", params={"limit": "abc"})
    assert r.json()["detail"][0]["input"] == "abc"  # short inputs are echoed as they came


def test_background_must_be_a_boolean(api, naval_direct, queue):
    sid = _create(api, naval_direct)
    for value in (0, 1, "true", None):
        r = api.post(f"/api/scenarios/{sid}/routes", json={"metric": "hop", "background": value})
        assert _loc(r) == ["body", "background"], value
    assert queue.sent == []
    r = api.post(f"/api/scenarios/{sid}/routes", json={"metric": "hop", "background": True})
    assert r.status_code == 202 and len(queue.sent) == 1


@pytest.mark.parametrize("seed", [-1, -(2**63), 2**63])
def test_a_seed_out_of_range_is_refused(api, naval_direct, seed):
    sid = _create(api, naval_direct)
    assert _loc(api.post(f"/api/scenarios/{sid}/comparisons", json={"seed": seed})) == ["body", "seed"]
    doc = copy.deepcopy(naval_direct)
    doc["run"]["seed"] = seed
    assert _loc(api.put(f"/api/scenarios/{sid}", json=doc)) == ["body", "run", "seed"]


def test_undeclared_methods_on_api_paths_are_405_with_every_allowed_method(api):
    r = api.patch("/api/scenarios/some-id")
    assert r.status_code == 405 and r.headers["allow"] == "DELETE, GET, PUT"
    r = api.delete("/api/scenarios")
    assert r.status_code == 405 and r.headers["allow"] == "GET, POST"
    r = api.put("/api/timeline", json={})
    assert r.status_code == 405 and r.headers["allow"] == "POST"
    assert api.post("/api/no-such-thing").status_code == 404
    assert api.get("/api/no-such-thing").status_code == 404


def test_get_on_an_api_path_without_get_is_405_not_the_frontend_404(api):
    for path, allow in (("/api/timeline", "POST"), ("/api/auth/logout", "POST"), ("/api/imports", "POST"),
                        ("/api/users/me/password", "PUT")):
        r = api.get(path)
        assert (r.status_code, r.headers.get("allow")) == (405, allow), path


def test_allow_names_the_methods_of_a_literal_path_not_of_a_template_that_also_matches(api):
    # /api/users/me is its own path (GET), although /api/users/{user_id} (GET, PATCH, DELETE) matches it too
    r = api.options("/api/users/me")
    assert (r.status_code, r.headers["allow"]) == (405, "GET")
    r = api.options("/api/scenarios/schema")
    assert (r.status_code, r.headers["allow"]) == (405, "GET")


def test_unknown_ids_are_404(api, naval_direct):
    assert api.get("/api/scenarios/nope").status_code == 404
    sid = _create(api, naval_direct)
    for method, url in (("GET", f"/api/scenarios/{sid}/comparisons/nope"),
                        ("POST", f"/api/scenarios/{sid}/comparisons/nope/cancel"),
                        ("GET", f"/api/scenarios/{sid}/comparisons/nope/events"),
                        ("POST", "/api/scenarios/nope/routes")):
        assert api.request(method, url, json={}).status_code == 404, url


def test_openapi_documents_400_401_403_and_404(api):
    paths = api.get("/openapi.json").json()["paths"]
    for path, operations in paths.items():
        for method, op in operations.items():
            if "requestBody" in op:
                assert "400" in op["responses"], (method, path)
            if any(p in path for p in ("{scenario_id}", "{comparison_id}", "{project_id}", "{user_id}", "{token_id}")):
                assert "404" in op["responses"], (method, path)
            if path not in ("/api/health", "/api/auth/login"):
                assert "401" in op["responses"], (method, path)
                if method != "get":
                    assert "403" in op["responses"], (method, path)
    assert "400" not in paths["/api/scenarios"]["get"]["responses"]
    assert "401" not in paths["/api/health"]["get"]["responses"]
    assert "404" in paths["/api/imports"]["post"]["responses"]  # ?project_id= of no project of yours


def test_the_event_stream_ends_at_a_final_state(api, naval_direct):
    sid = _create(api, naval_direct)
    cid = api.post(f"/api/scenarios/{sid}/comparisons", json={}).json()["id"]
    assert api.post(f"/api/scenarios/{sid}/comparisons/{cid}/cancel").status_code == 202
    r = api.get(f"/api/scenarios/{sid}/comparisons/{cid}/events")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    messages = [json.loads(line[len("data: "):]) for line in r.text.splitlines() if line.startswith("data: ")]
    assert messages == [{"status": "cancelled", "progress": 0.0, "error": "cancelled by the user",
                         "units_done": 0, "units_total": 1}]


def test_a_field_the_engine_does_not_honour_is_422_at_the_field(api, naval_direct, monkeypatch):
    """The engine's declaration (``fields`` of its capabilities entry) refuses a scenario
    field before the comparison is stored; ``loc`` is the field in the stored scenario."""
    from subflow.runplan.capabilities import describe
    from subflow_backend import agent
    from subflow_backend.schemas import EnginesPublic
    from subflow_engines import linux

    doc = copy.deepcopy(CAPABILITIES)
    next(e for e in doc["engines"] if e["name"] == "linux")["fields"] = describe(linux.FIELDS)
    caps = EnginesPublic.model_validate(doc)
    monkeypatch.setattr(agent, "snapshot", lambda: caps)
    monkeypatch.setattr(agent, "capabilities", lambda refresh=False: caps)
    naval_direct["nodes"][2]["rate_table"] = [{"distance_m": 100, "bandwidth_mbps": 10}]
    sid = _create(api, naval_direct)
    r = api.post(f"/api/scenarios/{sid}/comparisons", json={"engine": "linux"})
    assert _loc(r) == ["scenario", "nodes", 2, "rate_table"]
    assert r.json()["detail"][0]["type"] == "engine_cannot_run"
    assert r.json()["detail"][0]["msg"].startswith("nodes[2].rate_table=")
    assert api.get(f"/api/scenarios/{sid}/comparisons").json()["count"] == 0


def test_submissions_beyond_the_queue_depth_get_429_with_retry_after(api, naval_direct, queue, fake_agent,
                                                                      monkeypatch):
    from subflow_backend.settings import settings

    monkeypatch.setattr(settings, "QUEUE_MAX_UNFINISHED", 2)
    sid = _create(api, naval_direct)
    ids = [api.post(f"/api/scenarios/{sid}/comparisons", json={"strategies": ["sptcp"]}).json()["id"]
           for _ in range(2)]
    r = api.post(f"/api/scenarios/{sid}/comparisons", json={"strategies": ["sptcp"]})
    assert r.status_code == 429, r.text
    assert r.headers["Retry-After"] == str(settings.QUEUE_RETRY_AFTER_S)
    assert "QUEUE_MAX_UNFINISHED = 2" in r.json()["detail"]
    assert len(queue.sent) == 2 and api.get(f"/api/scenarios/{sid}/comparisons").json()["count"] == 2
    # a finished comparison frees its place
    assert api.post(f"/api/scenarios/{sid}/comparisons/{ids[0]}/cancel").status_code == 202
    assert api.post(f"/api/scenarios/{sid}/comparisons", json={"strategies": ["sptcp"]}).status_code == 202


def test_routes_beyond_max_route_paths_are_refused_before_any_work(api, naval_direct, monkeypatch):
    from subflow_backend.settings import settings

    sid = _create(api, naval_direct)
    n = len(naval_direct["nodes"])
    monkeypatch.setattr(settings, "MAX_ROUTE_PATHS", n * (n - 1) * 2 - 1)
    r = api.post(f"/api/scenarios/{sid}/routes", json={"metric": "delay", "k": 2})
    assert r.status_code == 422, r.text
    detail = r.json()["detail"][0]
    assert detail["loc"] == ["body", "k"] and "MAX_ROUTE_PATHS" in detail["msg"]
    assert api.post(f"/api/scenarios/{sid}/routes", json={"metric": "delay", "k": 1}).status_code == 200


def test_routes_costlier_than_max_inline_route_cost_go_to_the_worker(api, naval_direct, monkeypatch):
    from subflow_backend.settings import settings

    sid = _create(api, naval_direct)
    n = len(naval_direct["nodes"])
    monkeypatch.setattr(settings, "MAX_INLINE_ROUTE_COST", n * (n - 1) - 1)  # all pairs at one time: n(n-1)
    r = api.post(f"/api/scenarios/{sid}/routes", json={"metric": "hop", "t_s": 0})
    assert r.status_code == 422, r.text
    detail = r.json()["detail"][0]
    assert detail["loc"] == ["body", "background"]
    assert f"costs {n * (n - 1)} " in detail["msg"] and f"MAX_INLINE_ROUTE_COST = {n * (n - 1) - 1}" in detail["msg"]
    assert api.post(f"/api/scenarios/{sid}/routes", json={"metric": "hop", "t_s": 0, "background": True}).status_code == 202
    monkeypatch.setattr(settings, "MAX_INLINE_ROUTE_COST", n * (n - 1))
    assert api.post(f"/api/scenarios/{sid}/routes", json={"metric": "hop", "t_s": 0}).status_code == 200


def test_failure_analyses_beyond_max_inline_failure_cases_go_to_the_worker(api, naval_direct, monkeypatch):
    from subflow_backend.settings import settings

    sid = _create(api, naval_direct)
    links = len(naval_direct["links"])
    monkeypatch.setattr(settings, "MAX_INLINE_FAILURE_CASES", links - 1)
    r = api.post(f"/api/scenarios/{sid}/failures", json={"metric": "delay"})
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["loc"] == ["body", "background"]
    assert f"{links} failure cases, more than MAX_INLINE_FAILURE_CASES = {links - 1}" in r.json()["detail"][0]["msg"]
    assert api.post(f"/api/scenarios/{sid}/failures", json={"metric": "delay", "background": True}).status_code == 202


# --- save-time warnings (POST /api/scenario-checks) ---------------------------------------------

def test_scenario_checks_answer_warnings_and_422_for_an_invalid_document(api, naval_direct):
    assert api.post("/api/scenario-checks", json=naval_direct).json() == {"warnings": []}
    doc = copy.deepcopy(naval_direct)
    doc["nodes"].append({"id": "buoy", "kind": "host", "position": {"x_m": 0, "y_m": 0}})
    doc["flows"].append({"id": "f9", "src": "buoy", "dst": "ship"})
    r = api.post("/api/scenario-checks", json=doc)
    assert r.status_code == 200, r.text
    assert r.json()["warnings"] == [{
        "code": "flow_unreachable", "loc": ["flows", 2], "t_start_s": 0.0, "t_end_s": 100.0,
        "message": "Flow f9 (buoy → ship) has no path at any time of the run."}]
    doc["links"][0]["loss"] = 1.5
    assert _loc(api.post("/api/scenario-checks", json=doc)) == ["body", "links", 0, "loss"]
