"""Sign-in, sessions, tokens, the sign-in rate limit, scenario history, ETag/If-Match and concurrent
saves, the audit log and the security headers — on the real API processes."""

from __future__ import annotations

import copy
import threading
import uuid

import httpx
import pytest

pytestmark = pytest.mark.integration


def _user(stack, prefix: str = "u") -> tuple[dict, str]:
    password = uuid.uuid4().hex
    r = stack.api.post("/users", json={"username": f"{prefix}-{uuid.uuid4().hex[:8]}", "password": password})
    assert r.status_code == 201, r.text
    return r.json(), password


def test_browser_session_cookie(pg_stack, example):
    user, password = _user(pg_stack)
    with httpx.Client(base_url=pg_stack.base_url) as web:
        assert web.get("/api/users/me").status_code == 401
        r = web.post("/api/auth/login", data={"username": user["username"], "password": password})
        assert r.status_code == 200 and r.json()["token_type"] == "bearer" and r.json()["expires_in"] == 1800
        session_secret = r.cookies["subflow_session"]
        cookie = r.headers["set-cookie"].lower()
        assert "subflow_session=" in cookie and "httponly" in cookie and "samesite=strict" in cookie
        assert "path=/api" in cookie
        assert web.get("/api/users/me").json()["username"] == user["username"]
        # a write carried by the cookie must come from the same origin
        evil = {"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}
        r = web.post("/api/projects", json={"name": f"it-{uuid.uuid4().hex[:8]}"}, headers=evil)
        assert r.status_code == 403
        files = {"file": ("s.json", b"{}", "application/json")}
        assert web.post("/api/imports", files=files, headers=evil).status_code == 403
        same = {"Origin": pg_stack.base_url, "Sec-Fetch-Site": "same-origin"}
        r = web.post("/api/projects", json={"name": f"it-{uuid.uuid4().hex[:8]}"}, headers=same)
        assert r.status_code == 201, r.text
        # sign out: the cookie no longer works
        assert web.post("/api/auth/logout", headers=same).status_code == 204
        web.cookies.clear()
        web.cookies.set("subflow_session", session_secret, path="/api")
        assert web.get("/api/users/me").status_code == 401


def test_access_token_and_personal_tokens(pg_stack):
    user, password = _user(pg_stack)
    access = pg_stack.login(user["username"], password)
    assert access.startswith("sfa_")
    me = pg_stack.client(access).get("/users/me")
    assert me.status_code == 200 and me.json()["id"] == user["id"] and me.json()["can_run_linux"] is False
    created = pg_stack.client(access).post("/users/me/tokens", json={"name": "ci", "scope": "read"})
    assert created.status_code == 201
    token = created.json()["token"]
    assert token.startswith("sft_") and created.json()["prefix"] == token[:12]
    listed = pg_stack.client(access).get("/users/me/tokens").json()
    assert listed["count"] == 1 and "token" not in listed["data"][0]
    reader = pg_stack.client(token)
    assert reader.get("/users/me").json()["id"] == user["id"]
    r = reader.post("/projects", json={"name": f"it-{uuid.uuid4().hex[:8]}"})
    assert r.status_code == 403 and "read" in r.json()["detail"]
    assert pg_stack.client(access).get("/users/me/tokens").json()["data"][0]["last_used_at"] is not None
    # revoked: refused at once
    assert pg_stack.client(access).delete(f"/users/me/tokens/{created.json()['id']}").status_code == 204
    assert reader.get("/users/me").status_code == 401
    # wrong or made-up credentials
    assert pg_stack.client("sft_" + "x" * 43).get("/users/me").status_code == 401
    assert pg_stack.client("sfa_" + "x" * 43).get("/users/me").status_code == 401
    # the audit log has the sign-in and the token's use
    audit = pg_stack.api.get("/audit", params={"username": user["username"], "limit": 50}).json()["data"]
    actions = {e["action"] for e in audit}
    assert {"login", "token_create", "token_used", "token_revoke"} <= actions


def test_sign_in_rate_limit(pg_stack):
    user, password = _user(pg_stack, "rl")
    form = {"username": user["username"], "password": "wrong-password"}
    statuses = [httpx.post(f"{pg_stack.base_url}/api/auth/login", data=form).status_code for _ in range(6)]
    assert statuses == [401] * 5 + [429]
    # now even the right password waits for the window
    r = httpx.post(f"{pg_stack.base_url}/api/auth/login", data={**form, "password": password})
    assert r.status_code == 429 and 0 < int(r.headers["retry-after"]) <= 300
    # another user from the same address is not affected
    other, other_pw = _user(pg_stack, "rl")
    assert pg_stack.login(other["username"], other_pw).startswith("sfa_")
    failed = pg_stack.api.get("/audit", params={"action": "login_failed", "username": user["username"]}).json()
    assert failed["count"] == 5


def test_disabled_account_and_admin_only_user_management(pg_stack):
    user, password = _user(pg_stack)
    access = pg_stack.login(user["username"], password)
    assert pg_stack.client(access).get("/users").status_code == 403
    assert pg_stack.api.patch(f"/users/{user['id']}", json={"is_active": False}).json()["is_active"] is False
    assert pg_stack.client(access).get("/users/me").status_code == 401
    r = httpx.post(f"{pg_stack.base_url}/api/auth/login", data={"username": user["username"], "password": password})
    assert r.status_code == 401
    assert pg_stack.api.post("/users", json={"username": user["username"], "password": "password-123"}).status_code == 409
    me = pg_stack.api.get("/users/me").json()
    assert pg_stack.api.delete(f"/users/{me['id']}").status_code == 409


def test_non_members_see_nothing_and_viewers_cannot_write(pg_stack, example):
    viewer, vpw = _user(pg_stack, "v")
    outsider, opw = _user(pg_stack, "o")
    pid = pg_stack.api.post("/projects", json={"name": f"it-p-{uuid.uuid4().hex[:8]}"}).json()["id"]
    assert pg_stack.api.put(f"/projects/{pid}/members/{viewer['id']}", json={"role": "viewer"}).status_code == 200
    doc = example()
    sid = pg_stack.api.post("/scenarios", json=doc, params={"project_id": pid}).json()["id"]
    v = pg_stack.client(pg_stack.login(viewer["username"], vpw))
    o = pg_stack.client(pg_stack.login(outsider["username"], opw))
    assert [s["id"] for s in v.get("/scenarios", params={"limit": 1000}).json()["data"]] == [sid]
    assert [p["role"] for p in v.get("/projects").json()["data"]] == ["viewer"]
    assert o.get("/scenarios").json() == {"data": [], "count": 0}
    assert o.get("/projects").json() == {"data": [], "count": 0}
    assert o.get(f"/scenarios/{sid}").status_code == 404
    assert o.get(f"/scenarios/{sid}").json()["detail"] == f"scenario {sid!r} not found"
    etag = v.get(f"/scenarios/{sid}").headers["etag"]
    r = v.put(f"/scenarios/{sid}", json=doc, headers={"If-Match": etag})
    assert r.status_code == 403 and "viewer" in r.json()["detail"]
    assert v.delete(f"/scenarios/{sid}").status_code == 403
    # a user who is editor of no project cannot store scenarios without naming one
    r = o.post("/scenarios", json=example())
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["query", "project_id"]
    # nothing changed
    assert pg_stack.api.get(f"/scenarios/{sid}").json()["version"] == 1


def test_owners_add_members_by_username(pg_stack):
    """``POST /api/projects/{id}/members`` names the user: an owner who is no admin (and cannot list
    the users) adds one with a role, changes it, is told (422 on ``username``) when no user has the
    name, may not leave the project without an owner, and every change is in the audit log."""
    owner, opw = _user(pg_stack, "own")
    member, mpw = _user(pg_stack, "mem")
    o = pg_stack.client(pg_stack.login(owner["username"], opw))
    assert o.get("/users").status_code == 403
    pid = o.post("/projects", json={"name": f"it-p-{uuid.uuid4().hex[:8]}"}).json()["id"]
    r = o.post(f"/projects/{pid}/members", json={"username": member["username"], "role": "editor"})
    assert r.status_code == 200, r.text
    assert r.json() == {"user_id": member["id"], "username": member["username"], "role": "editor"}
    r = o.post(f"/projects/{pid}/members", json={"username": member["username"], "role": "viewer"})
    assert r.status_code == 200 and r.json()["role"] == "viewer"
    roles = {m["username"]: m["role"] for m in o.get(f"/projects/{pid}/members").json()["data"]}
    assert roles == {owner["username"]: "owner", member["username"]: "viewer"}
    r = o.post(f"/projects/{pid}/members", json={"username": f"nobody-{uuid.uuid4().hex[:8]}", "role": "viewer"})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "username"]
    r = o.post(f"/projects/{pid}/members", json={"username": owner["username"], "role": "editor"})
    assert r.status_code == 409 and r.json()["detail"] == "the project would have no owner"
    assert o.post(f"/projects/{pid}/members", json={"username": "bad name!", "role": "viewer"}).status_code == 422
    # a member who is not owner may not add anyone; an outsider is told the project does not exist
    m = pg_stack.client(pg_stack.login(member["username"], mpw))
    assert m.post(f"/projects/{pid}/members", json={"username": member["username"], "role": "owner"}).status_code == 403
    outsider, xpw = _user(pg_stack, "out")
    x = pg_stack.client(pg_stack.login(outsider["username"], xpw))
    assert x.post(f"/projects/{pid}/members", json={"username": outsider["username"], "role": "owner"}).status_code == 404
    entries = pg_stack.api.get("/audit", params={"action": "member_set", "username": owner["username"]}).json()
    assert [(e["target"], e["detail"]) for e in entries["data"]] == [
        (pid, {"user": member["username"], "role": "viewer"}), (pid, {"user": member["username"], "role": "editor"})]


def test_scenario_names_are_unique_per_project_so_a_409_reveals_nothing_outside(pg_stack, example):
    """A name used in a project you cannot see is free in yours (a 409 would tell you it exists);
    inside one project it stays unique, for create, rename and fork."""
    outsider, opw = _user(pg_stack, "n")
    o = pg_stack.client(pg_stack.login(outsider["username"], opw))
    hidden = example()
    hidden_id = pg_stack.api.post("/scenarios", json=hidden).json()["id"]  # the admin's default project
    own = o.post("/projects", json={"name": f"it-p-{uuid.uuid4().hex[:8]}"}).json()["id"]
    r = o.post("/scenarios", json=hidden, params={"project_id": own})
    assert r.status_code == 201, r.text
    assert r.json()["name"] == hidden["name"] and r.json()["id"] != hidden_id
    # the same name twice in one project: 409, nothing stored
    r = o.post("/scenarios", json=hidden, params={"project_id": own})
    assert r.status_code == 409 and "already exists in this project" in r.json()["detail"]
    other = example()
    other_id = o.post("/scenarios", json=other, params={"project_id": own}).json()["id"]
    etag = o.get(f"/scenarios/{other_id}").headers["etag"]
    assert o.put(f"/scenarios/{other_id}", json={**other, "name": hidden["name"]},
                 headers={"If-Match": etag}).status_code == 409
    assert o.post(f"/scenarios/{other_id}/fork", json={"name": hidden["name"]}).status_code == 409
    assert [s["name"] for s in o.get("/scenarios").json()["data"]] == sorted([hidden["name"], other["name"]])
    assert pg_stack.api.get(f"/scenarios/{hidden_id}").json()["version"] == 1


def test_root_engine_needs_its_permission(pg_stack, example):
    editor, pw = _user(pg_stack, "e")
    pid = pg_stack.api.post("/projects", json={"name": f"it-p-{uuid.uuid4().hex[:8]}"}).json()["id"]
    pg_stack.api.put(f"/projects/{pid}/members/{editor['id']}", json={"role": "editor"})
    sid = pg_stack.api.post("/scenarios", json=example(), params={"project_id": pid}).json()["id"]
    e = pg_stack.client(pg_stack.login(editor["username"], pw))
    r = e.post(f"/scenarios/{sid}/comparisons", json={"engine": "linux"})
    assert r.status_code == 403 and "can_run_linux" in r.json()["detail"]
    assert pg_stack.api.get(f"/scenarios/{sid}/comparisons").json()["count"] == 0


def test_etag_if_match_and_history(pg_stack, example):
    api = pg_stack.api
    doc = example()
    created = api.post("/scenarios", json=doc)
    assert created.headers["etag"] == '"v1"'
    sid = created.json()["id"]
    v2 = copy.deepcopy(doc)
    v2["description"] = "second"
    # no If-Match: 428; a wildcard is not a version: 428; nothing stored
    assert api.put(f"/scenarios/{sid}", json=v2).status_code == 428
    assert api.put(f"/scenarios/{sid}", json=v2, headers={"If-Match": "*"}).status_code == 428
    assert api.get(f"/scenarios/{sid}").json()["version"] == 1
    r = api.put(f"/scenarios/{sid}", json=v2, headers={"If-Match": '"v1"'})
    assert r.status_code == 200 and r.headers["etag"] == '"v2"'
    # a second save from version 1 is stale: 412 naming the current version, nothing lost
    v2b = copy.deepcopy(doc)
    v2b["description"] = "lost?"
    r = api.put(f"/scenarios/{sid}", json=v2b, headers={"If-Match": '"v1"'})
    assert r.status_code == 412 and r.headers["etag"] == '"v2"' and "version 2" in r.json()["detail"]
    assert api.get(f"/scenarios/{sid}").json()["description"] == "second"

    versions = api.get(f"/scenarios/{sid}/versions").json()
    assert [(v["version"], v["current"], v["description"]) for v in versions["data"]] == [
        (2, True, "second"), (1, False, doc["description"])]
    assert {v["saved_by"] for v in versions["data"]} == {pg_stack.admin[0]}
    old = api.get(f"/scenarios/{sid}/versions/1").json()
    assert old["scenario"]["description"] == doc["description"] and old["scenario"]["nodes"] == created.json()["scenario"]["nodes"]
    assert api.get(f"/scenarios/{sid}/versions/9").status_code == 404

    # restore version 1: a new version 3 with version 1's document
    r = api.post(f"/scenarios/{sid}/versions/1/restore")
    assert r.status_code == 200 and r.json()["version"] == 3 and r.headers["etag"] == '"v3"'
    assert r.json()["scenario"] == created.json()["scenario"]
    assert api.get(f"/scenarios/{sid}/versions").json()["count"] == 3

    # fork version 2 into a new scenario
    name = f"it-{uuid.uuid4().hex[:8]}-fork"
    r = api.post(f"/scenarios/{sid}/fork", json={"name": name, "version": 2})
    assert r.status_code == 201, r.text
    fork = r.json()
    assert fork["id"] != sid and fork["version"] == 1 and fork["name"] == name
    assert fork["description"] == "second" and fork["project_id"] == created.json()["project_id"]
    assert api.post(f"/scenarios/{sid}/fork", json={"name": name}).status_code == 409

    actions = [e["action"] for e in api.get("/audit", params={"limit": 20}).json()["data"]]
    assert {"scenario_create", "scenario_update", "scenario_restore", "scenario_fork"} <= set(actions)
    assert api.delete(f"/scenarios/{sid}").status_code == 204
    deleted = api.get("/audit", params={"action": "scenario_delete", "limit": 5}).json()["data"]
    assert deleted[0]["target"] == sid


def _concurrent_pairs(stack, doc: dict, pairs: int) -> tuple[list[tuple[int, int]], int]:
    """``pairs`` times, two PUTs of the same scenario from the same version at once; returns the
    statuses of each pair and the final version."""
    sid = stack.api.post("/scenarios", json=doc).json()["id"]
    statuses: list[tuple[int, int]] = []
    clients = [stack.client(stack.token), stack.client(stack.token)]
    for i in range(pairs):
        etag = stack.api.get(f"/scenarios/{sid}").headers["etag"]
        barrier = threading.Barrier(2)
        out = [0, 0]

        def put(k: int) -> None:
            body = copy.deepcopy(doc)
            body["description"] = f"pair {i} writer {k}"
            barrier.wait()
            out[k] = clients[k].put(f"/scenarios/{sid}", json=body, headers={"If-Match": etag}).status_code

        threads = [threading.Thread(target=put, args=(k,)) for k in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        statuses.append((out[0], out[1]))
    final = stack.api.get(f"/scenarios/{sid}").json()
    history = stack.api.get(f"/scenarios/{sid}/versions").json()
    assert history["count"] == final["version"]
    # the stored description is the winner's of the last pair
    last = statuses[-1]
    assert final["description"] == f"pair {pairs - 1} writer {last.index(200)}"
    return statuses, final["version"]


@pytest.mark.parametrize("stack_name", ["pg_stack", "embedded_stack"])
def test_concurrent_saves_one_wins_one_is_told(request, stack_name, example):
    stack = request.getfixturevalue(stack_name)
    statuses, version = _concurrent_pairs(stack, example(), 20)
    assert all(sorted(pair) == [200, 412] for pair in statuses), statuses
    assert version == 21


def test_security_headers_on_every_kind_of_response(embedded_stack):
    with httpx.Client(base_url=embedded_stack.base_url) as web:
        for path in ("/", "/scenarios/1", "/api/health", "/api/scenarios", "/api/nope", "/assets/app.js"):
            r = web.get(path)
            csp = r.headers.get("content-security-policy", "")
            assert "script-src 'self'" in csp and "'unsafe-inline'" not in csp.split("script-src")[1].split(";")[0]
            assert "frame-ancestors 'none'" in csp, path
            assert r.headers["x-content-type-options"] == "nosniff" and r.headers["x-frame-options"] == "DENY"
        assert "cdn.jsdelivr.net" in web.get("/docs").headers["content-security-policy"]
