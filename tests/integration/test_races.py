"""Guards under concurrent requests, on both databases (PostgreSQL stack and the embedded SQLite one).

Each test fires 20 to 40 requests at once (threads, one HTTP client each) at a real API process and
checks the invariant afterwards: the sign-in limit (at most ``LOGIN_MAX_FAILURES`` = 5 password checks,
one audit row for the lockout), the last active admin, the last owner of a project, a username
created once.
"""

from __future__ import annotations

import threading
import uuid
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

pytestmark = pytest.mark.integration

STACKS = ["pg_stack", "embedded_stack"]
#: the default of LOGIN_MAX_FAILURES (the stacks do not change it)
MAX_FAILURES = 5


@pytest.fixture(params=STACKS)
def stack(request):
    return request.getfixturevalue(request.param)


def at_once(n: int, call: Callable[[int, httpx.Client], httpx.Response]) -> list[httpx.Response]:
    """Run ``call(i, client)`` for i in 0..n-1 in n threads released together by a barrier."""
    barrier = threading.Barrier(n)

    def one(i: int) -> httpx.Response:
        with httpx.Client(timeout=60.0) as client:
            barrier.wait()
            return call(i, client)

    with ThreadPoolExecutor(n) as pool:
        return list(pool.map(one, range(n)))


def new_user(stack, prefix: str, **flags) -> dict:
    password = uuid.uuid4().hex
    r = stack.api.post("/users", json={"username": f"{prefix}-{uuid.uuid4().hex[:8]}", "password": password, **flags})
    assert r.status_code == 201, r.text
    return {**r.json(), "password": password}


def test_sign_in_limit_holds_under_40_concurrent_wrong_passwords(stack):
    user = new_user(stack, "race-login")
    form = {"username": user["username"], "password": "wrong-password-0"}
    responses = at_once(40, lambda i, c: c.post(f"{stack.base_url}/api/auth/login", data=form))
    statuses = Counter(r.status_code for r in responses)
    # exactly LOGIN_MAX_FAILURES attempts reach the password check, the rest are throttled
    assert statuses == {401: MAX_FAILURES, 429: 40 - MAX_FAILURES}, statuses
    assert all(0 < int(r.headers["retry-after"]) <= 300 for r in responses if r.status_code == 429)
    failed = stack.api.get("/audit", params={"action": "login_failed", "username": user["username"]}).json()
    throttled = stack.api.get("/audit", params={"action": "login_throttled", "username": user["username"]}).json()
    assert failed["count"] == MAX_FAILURES
    assert throttled["count"] == 1  # one row for the lockout, not one per refused attempt
    # still locked for the right password too
    r = httpx.post(f"{stack.base_url}/api/auth/login", data={**form, "password": user["password"]})
    assert r.status_code == 429


def test_concurrent_account_creations_with_one_username(stack):
    username = f"race-same-{uuid.uuid4().hex[:8]}"
    headers = {"Authorization": f"Bearer {stack.token}"}
    responses = at_once(20, lambda i, c: c.post(f"{stack.base_url}/api/users", headers=headers,
                                                json={"username": username, "password": f"pw-{uuid.uuid4().hex}"}))
    statuses = Counter(r.status_code for r in responses)
    assert statuses == {201: 1, 409: 19}, [r.text for r in responses if r.status_code not in (201, 409)]
    assert all(username in r.json()["detail"] for r in responses if r.status_code == 409)


def _active_admins(stack, api: httpx.Client) -> list[dict]:
    users = api.get("/users", params={"limit": 1000}).json()["data"]
    return [u for u in users if u["is_admin"] and u["is_active"]]


def test_admins_disabling_each_other_at_once_leave_one(stack):
    """20 admins, each disabling the next (a ring) while they are the only active admins: at least one
    stays active, and every refusal names the last active admin."""
    ring = [new_user(stack, "race-admin", is_admin=True) for _ in range(20)]
    tokens = [stack.login(u["username"], u["password"]) for u in ring]
    first = httpx.Client(base_url=f"{stack.base_url}/api", headers={"Authorization": f"Bearer {tokens[0]}"},
                         timeout=30.0)
    ours = {u["id"] for u in ring}
    others = [u for u in _active_admins(stack, first) if u["id"] not in ours]
    try:
        for u in others:  # the first admin too: the ring must hold every active admin
            assert first.patch(f"/users/{u['id']}", json={"is_active": False}).status_code == 200
        responses = at_once(20, lambda i, c: c.patch(
            f"{stack.base_url}/api/users/{ring[(i + 1) % 20]['id']}", json={"is_active": False},
            headers={"Authorization": f"Bearer {tokens[i]}"}))
        statuses = Counter(r.status_code for r in responses)
        assert set(statuses) <= {200, 401, 409}, statuses
        assert all("last active admin" in r.json()["detail"] for r in responses if r.status_code == 409)
        with httpx.Client(base_url=f"{stack.base_url}/api", timeout=30.0) as probe:
            alive = [t for t in tokens if probe.get("/users/me", headers={"Authorization": f"Bearer {t}"})
                     .status_code == 200]
        assert alive, "no active admin left"
        survivor = httpx.Client(base_url=f"{stack.base_url}/api", headers={"Authorization": f"Bearer {alive[0]}"},
                                timeout=30.0)
        assert len(_active_admins(stack, survivor)) >= 1
    finally:
        with httpx.Client(base_url=f"{stack.base_url}/api", timeout=30.0) as probe:
            alive = [t for t in tokens if probe.get("/users/me", headers={"Authorization": f"Bearer {t}"})
                     .status_code == 200]
            restorer = {"Authorization": f"Bearer {alive[0]}"}
            for u in others:
                probe.patch(f"/users/{u['id']}", json={"is_active": True}, headers=restorer)
        first.close()
    assert stack.api.get("/users/me").status_code == 200  # the first admin's token works again


def test_owners_demoting_each_other_at_once_leave_one(stack):
    """A project with 20 owners, each demoting the next at once: at least one owner remains."""
    owners = [new_user(stack, "race-owner") for _ in range(20)]
    tokens = [stack.login(u["username"], u["password"]) for u in owners]
    pid = stack.client(tokens[0]).post("/projects", json={"name": f"race-{uuid.uuid4().hex[:8]}"}).json()["id"]
    for u in owners[1:]:
        r = stack.client(tokens[0]).put(f"/projects/{pid}/members/{u['id']}", json={"role": "owner"})
        assert r.status_code == 200, r.text
    responses = at_once(20, lambda i, c: c.put(
        f"{stack.base_url}/api/projects/{pid}/members/{owners[(i + 1) % 20]['id']}", json={"role": "viewer"},
        headers={"Authorization": f"Bearer {tokens[i]}"}))
    statuses = Counter(r.status_code for r in responses)
    assert set(statuses) <= {200, 403, 409}, statuses
    members = stack.api.get(f"/projects/{pid}/members").json()["data"]
    assert [m for m in members if m["role"] == "owner"], members


def test_the_only_owner_of_a_project_cannot_be_deleted(stack):
    owner = new_user(stack, "sole-owner")
    token = stack.login(owner["username"], owner["password"])
    name = f"sole-{uuid.uuid4().hex[:8]}"
    pid = stack.client(token).post("/projects", json={"name": name}).json()["id"]
    r = stack.api.delete(f"/users/{owner['id']}")
    assert r.status_code == 409 and name in r.json()["detail"] and "only owner" in r.json()["detail"]
    assert [m["role"] for m in stack.api.get(f"/projects/{pid}/members").json()["data"]] == ["owner"]
    # with a second owner the account may go, and the project keeps its owner
    other = new_user(stack, "co-owner")
    assert stack.api.put(f"/projects/{pid}/members/{other['id']}", json={"role": "owner"}).status_code == 200
    assert stack.api.delete(f"/users/{owner['id']}").status_code == 204
    members = stack.api.get(f"/projects/{pid}/members").json()["data"]
    assert [(m["user_id"], m["role"]) for m in members] == [(other["id"], "owner")]
