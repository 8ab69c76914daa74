"""Guards of the API on SQLite, in process: password policy, sign-in limits per address, login CSRF,
the session cookie's ``Secure`` flag, inputs that once answered 500, and the write lock of
:func:`subflow_backend.accounts.lock_guard`. (The concurrent versions against real API processes on
both databases are in ``tests/integration/test_races.py``.)"""

from __future__ import annotations

import json
import threading
import time
import uuid
from pathlib import Path

import pytest

from subflow_backend import accounts, passwords
from subflow_backend.settings import settings

from tests.unit.backend_sqlite import api, fake_agent, queue, sessions  # noqa: F401 - fixtures

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def _user(api, password: str | None = None) -> tuple[str, str]:
    username, password = f"u-{uuid.uuid4().hex[:8]}", password or f"pw-{uuid.uuid4().hex}"
    r = api.post("/api/users", json={"username": username, "password": password})
    assert r.status_code == 201, r.text
    return username, password


@pytest.mark.parametrize("password,reason", [
    ("password", "most common"), ("12345678", "most common"), ("qwertyuiop", "most common"),
    ("Password", "most common"), ("short", "at least 8"),
])
def test_weak_passwords_are_refused_naming_the_field(api, password, reason):
    r = api.post("/api/users", json={"username": f"u-{uuid.uuid4().hex[:8]}", "password": password})
    assert r.status_code == 422
    [error] = r.json()["detail"]
    assert error["loc"] == ["body", "password"] and reason in error["msg"]
    username, _ = _user(api)
    uid = next(u["id"] for u in api.get("/api/users").json()["data"] if u["username"] == username)
    r = api.patch(f"/api/users/{uid}", json={"password": password})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "password"]
    r = api.put("/api/users/me/password", json={"current_password": "unit-password", "new_password": password})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "new_password"]


def test_password_equal_to_the_username_is_refused(api):
    r = api.post("/api/users", json={"username": "alice-example", "password": "Alice-Example"})
    assert r.status_code == 422 and "may not be the username" in json.dumps(r.json())


def test_the_bundled_list_holds_ten_thousand_passwords():
    common = passwords.common_passwords()
    assert len(common) == 10_000
    assert {"password", "12345678", "qwerty", "letmein", "trustno1"} <= common


def test_per_address_limit_across_usernames(api, monkeypatch):
    monkeypatch.setattr(settings, "LOGIN_MAX_FAILURES_PER_ADDRESS", 3)
    users = [_user(api) for _ in range(4)]
    for username, _ in users[:3]:
        r = api.post("/api/auth/login", data={"username": username, "password": "not-it-at-all"})
        assert r.status_code == 401
    # a fourth username from the same address: refused before the password is looked at
    r = api.post("/api/auth/login", data={"username": users[3][0], "password": users[3][1]})
    assert r.status_code == 429 and int(r.headers["retry-after"]) > 0
    r = api.post("/api/auth/login", data={"username": users[3][0], "password": "wrong-again-1"})
    assert r.status_code == 429
    throttled = api.get("/api/audit", params={"action": "login_throttled"}).json()
    assert throttled["count"] == 1  # one row for the address's lockout, not one per refusal


def test_a_success_forgets_the_users_failures(api):
    username, password = _user(api)
    for _ in range(settings.LOGIN_MAX_FAILURES - 1):
        assert api.post("/api/auth/login", data={"username": username, "password": "nope-nope"}).status_code == 401
    assert api.post("/api/auth/login", data={"username": username, "password": password}).status_code == 200
    for _ in range(settings.LOGIN_MAX_FAILURES):
        assert api.post("/api/auth/login", data={"username": username, "password": "nope-nope"}).status_code == 401
    assert api.post("/api/auth/login", data={"username": username, "password": password}).status_code == 429


@pytest.mark.parametrize("headers", [
    {"Origin": "https://evil.example"}, {"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"},
    {"Origin": "null"},
])
def test_cross_site_sign_in_is_refused(api, headers):
    r = api.post("/api/auth/login", data={"username": "unit-admin", "password": "unit-password"}, headers=headers)
    assert r.status_code == 403 and "cross-site sign-in refused" in r.json()["detail"]
    assert "set-cookie" not in r.headers


@pytest.mark.parametrize("headers", [{}, {"Origin": "http://testserver"}, {"Sec-Fetch-Site": "same-origin"}])
def test_same_origin_and_scripted_sign_in_pass(api, headers):
    r = api.post("/api/auth/login", data={"username": "unit-admin", "password": "unit-password"}, headers=headers)
    assert r.status_code == 200, r.text


def _cookie_flags(api, url: str) -> str:
    r = api.post(url, data={"username": "unit-admin", "password": "unit-password"})
    assert r.status_code == 200, r.text
    return r.headers["set-cookie"]


def test_session_cookie_is_secure_over_https_or_when_set(api, monkeypatch):
    assert "secure" not in _cookie_flags(api, "http://testserver/api/auth/login").lower()
    assert "secure" in _cookie_flags(api, "https://testserver/api/auth/login").lower()
    monkeypatch.setattr(settings, "SESSION_COOKIE_SECURE", True)
    assert "secure" in _cookie_flags(api, "http://testserver/api/auth/login").lower()


def test_lone_surrogate_in_a_text_field_is_422_naming_it(api):
    doc = json.loads((EXAMPLES / "naval-direct-move.json").read_text())
    body = json.dumps({**doc, "name": "ship\ud800"})  # ensure_ascii: the surrogate travels as \ud800
    r = api.post("/api/scenarios", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 422
    [error] = r.json()["detail"]
    assert error["loc"] == ["body", "name"] and error["input"] == "ship\ufffd"
    r = api.post("/api/users", content='{"username": "a\\udfff", "password": "pw-long-enough"}',
                 headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "username"]


def test_sweep_point_index_beyond_the_databases_integers_is_422(api):
    doc = json.loads((EXAMPLES / "naval-direct-move.json").read_text())
    sid = api.post("/api/scenarios", json=doc).json()["id"]
    for point in (2**63 + 1, 2**31):
        r = api.get(f"/api/scenarios/{sid}/comparisons/{uuid.uuid4()}/sweep-points/{point}")
        assert r.status_code == 422, r.text
        assert r.json()["detail"][0]["loc"] == ["path", "point"]


def test_lock_guard_serialises_sqlite_transactions(sessions):  # noqa: F811 - fixture
    """The second transaction's lock_guard waits until the first one commits."""
    first, second = sessions(), sessions()
    accounts.lock_guard(first, "g")
    returned: list[float] = []

    def take() -> None:
        accounts.lock_guard(second, "g")
        returned.append(time.monotonic())
        second.commit()

    thread = threading.Thread(target=take)
    thread.start()
    time.sleep(0.5)
    assert returned == []  # still waiting for the first transaction
    released = time.monotonic()
    first.commit()
    thread.join(10)
    assert returned and returned[0] >= released
    first.close()
    second.close()


def test_import_with_a_bad_link_speed_is_422_naming_edge_and_value(api):
    graphml = (b'<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
               b'<key id="s" for="edge" attr.name="LinkSpeedRaw" attr.type="double"/>'
               b'<graph id="G" edgedefault="undirected"><node id="a"/><node id="b"/>'
               b'<edge id="e1" source="a" target="b"><data key="s">-1</data></edge></graph></graphml>')
    r = api.post("/api/imports", files={"file": ("zoo.graphml", graphml, "application/xml")})
    assert r.status_code == 422, r.text
    [error] = r.json()["detail"]
    assert error["loc"] == ["body", "file"]
    assert "edge 'e1' (a>b): LinkSpeedRaw = -1.0 is not a bit rate > 0" in error["msg"]


def test_deleting_the_only_owner_of_a_project_is_409_naming_it(api):
    username, password = _user(api)
    uid = next(u["id"] for u in api.get("/api/users").json()["data"] if u["username"] == username)
    access = api.post("/api/auth/login", data={"username": username, "password": password}).json()["access_token"]
    name = f"sole-{uuid.uuid4().hex[:8]}"
    r = api.post("/api/projects", json={"name": name}, headers={"Authorization": f"Bearer {access}"})
    assert r.status_code == 201, r.text
    r = api.delete(f"/api/users/{uid}")
    assert r.status_code == 409 and f"only owner of project(s) {name!r}" in r.json()["detail"]
    pid = next(p["id"] for p in api.get("/api/projects").json()["data"] if p["name"] == name)
    r = api.put(f"/api/projects/{pid}/members/{uid}", json={"role": "viewer"})
    assert r.status_code == 409 and r.json()["detail"] == "the project would have no owner"
    assert api.delete(f"/api/projects/{pid}").status_code == 204  # the project removed whole: the account may go
    assert api.delete(f"/api/users/{uid}").status_code == 204


def test_a_job_is_recorded_with_its_project_and_hidden_from_outsiders(api, queue, sessions):  # noqa: F811
    from subflow_backend import models

    doc = json.loads((EXAMPLES / "naval-direct-move.json").read_text())
    scenario = api.post("/api/scenarios", json=doc).json()
    r = api.post(f"/api/scenarios/{scenario['id']}/routes", json={"metric": "hop", "background": True})
    assert r.status_code == 202, r.text
    job_id = r.json()["job_id"]
    with sessions() as s:
        row = s.get(models.BackgroundJob, job_id)
        assert (row.project_id, row.scenario_id, row.task) == (scenario["project_id"], scenario["id"],
                                                               "subflow.compute_routes")
    username, password = _user(api)
    access = api.post("/api/auth/login", data={"username": username, "password": password}).json()["access_token"]
    outsider = {"Authorization": f"Bearer {access}"}
    for path in (f"/api/jobs/{job_id}", f"/api/jobs/{job_id}/events"):
        r = api.get(path, headers=outsider)
        assert r.status_code == 404 and r.json()["detail"] == f"job {job_id!r} not found"
    assert api.get(f"/api/scenarios/{scenario['id']}", headers=outsider).status_code == 404  # as the scenario


def test_a_nul_in_a_project_id_query_is_422_naming_it(api):
    """PostgreSQL text holds no NUL: the fuzzer's ``?project_id=…%00…`` was a database error (500)."""
    for method, path in (("get", "/api/scenarios"), ("post", "/api/scenarios")):
        r = api.request(method.upper(), path, params={"project_id": "p\x00q"},
                        **({"json": json.loads((EXAMPLES / "naval-direct-move.json").read_text())} if method == "post"
                           else {}))
        assert r.status_code == 422, (path, r.text)
        assert r.json()["detail"][0]["loc"] == ["query", "project_id"]
