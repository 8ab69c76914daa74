"""Authorization matrix: every route of the OpenAPI document × every kind of caller → the status.

Callers (columns): ``anonymous`` (no credentials), ``viewer``, ``editor``, ``owner`` (members of
project P with that role, signed in with the OAuth2 password form, bearer access tokens),
``outsider`` (signed in, member of nothing), ``admin`` (the first admin's personal token of scope
write), ``token_read`` / ``token_write`` (the editor's personal tokens of scope read / write).

Expected statuses are written out per route below; the test also checks that the table covers
every operation the API publishes, so a new route cannot skip it.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine
from sqlalchemy.orm import Session

from subflow_backend.models import PacketCapture

from tests.integration.conftest import EXAMPLES, _example, _wait_comparison

pytestmark = pytest.mark.integration

ROLES = ("anonymous", "viewer", "editor", "owner", "outsider", "admin", "token_read", "token_write")
MEMBER_ROLES = {"viewer": "viewer", "editor": "editor", "owner": "owner"}
#: the user whose credentials each column uses (token columns: the editor's tokens)
USER_OF = {"viewer": "viewer", "editor": "editor", "owner": "owner", "outsider": "outsider", "admin": "admin",
           "token_read": "editor", "token_write": "editor"}


def signed_in(ok: int) -> dict[str, int]:
    """Any credential may: anonymous 401."""
    return {r: (401 if r == "anonymous" else ok) for r in ROLES}


def write_scope(ok: int) -> dict[str, int]:
    """Any signed-in user with a write credential."""
    return {**signed_in(ok), "token_read": 403}


def member_read(ok: int) -> dict[str, int]:
    """Any role in project P; a non-member is told it does not exist."""
    return {**signed_in(ok), "outsider": 404}


def member_write(ok: int) -> dict[str, int]:
    """Editor or owner of P (admins count as owners), with a write credential."""
    return {**member_read(ok), "viewer": 403, "token_read": 403}


def owner_only(ok: int) -> dict[str, int]:
    return {**member_write(ok), "editor": 403, "token_write": 403}


def admin_only(ok: int) -> dict[str, int]:
    return {r: (401 if r == "anonymous" else ok if r == "admin" else 403) for r in ROLES}


@dataclass
class World:
    """Users, credentials and the project P (scenario S, finished comparison C) the matrix runs on."""

    stack: Any
    admin_api: httpx.Client
    users: dict[str, dict] = field(default_factory=dict)  # name -> UserPublic + password
    access: dict[str, str] = field(default_factory=dict)  # user name -> bearer access token
    creds: dict[str, str | None] = field(default_factory=dict)  # role column -> bearer secret
    project: str = ""
    scenario: str = ""
    comparison: str = ""
    doc: dict = field(default_factory=dict)
    geo: str = ""  # a geographic scenario of P (naval-geo), for the track routes
    job: str = ""  # a finished background routes job on S
    capture: str = ""  # a packet capture of C (stored as the worker stores a linux run's)

    def client(self, role: str) -> httpx.Client:
        return self.stack.client(self.creds[role])

    def new_user(self, prefix: str) -> dict:
        password = uuid.uuid4().hex
        r = self.admin_api.post("/users", json={"username": f"{prefix}-{uuid.uuid4().hex[:8]}", "password": password})
        assert r.status_code == 201, r.text
        return {**r.json(), "password": password}

    def new_project(self) -> str:
        """A project where viewer, editor and owner have their roles (and the admin is owner)."""
        r = self.admin_api.post("/projects", json={"name": f"it-p-{uuid.uuid4().hex[:8]}"})
        assert r.status_code == 201, r.text
        pid = r.json()["id"]
        for name, role in MEMBER_ROLES.items():
            r = self.admin_api.put(f"/projects/{pid}/members/{self.users[name]['id']}", json={"role": role})
            assert r.status_code == 200, r.text
        return pid

    def new_scenario(self, project: str | None = None, doc: dict | None = None) -> str:
        doc = {**(doc or self.doc), "name": f"it-{uuid.uuid4().hex[:8]}-authz"}
        r = self.admin_api.post("/scenarios", json=doc, params={"project_id": project or self.project})
        assert r.status_code == 201, r.text
        return r.json()["id"]

    def token_id(self, user: str) -> str:
        """The id of a new read token of ``user`` (made with their access token)."""
        r = self.stack.client(self.access[user]).post("/users/me/tokens", json={"name": "victim", "scope": "read"})
        assert r.status_code == 201, r.text
        return r.json()["id"]

    def add_bystander(self) -> str:
        """Make the bystander a viewer of P again; returns its id."""
        uid = self.users["bystander"]["id"]
        assert self.admin_api.put(f"/projects/{self.project}/members/{uid}", json={"role": "viewer"}).status_code == 200
        return uid

    def etag(self, sid: str) -> str:
        return self.admin_api.get(f"/scenarios/{sid}").headers["etag"]


def _store_capture(database_url: str, comparison_id: str) -> str:
    """A packet capture row of ``comparison_id`` (a 24-byte empty pcap), written like the worker writes a
    linux run's: the matrix is about who may read it; tests/integration/test_captures_rest.py makes real ones."""
    engine = create_engine(database_url)
    try:
        with Session(engine) as s:
            row = PacketCapture(comparison_id=comparison_id, strategy="sptcp", link="l", node="n", format="pcap",
                                snaplen_bytes=256, size_bytes=24, packets=0, truncated=False,
                                data=bytes.fromhex("4d3cb2a1020004000000000000000000ffff000001000000"))
            s.add(row)
            s.commit()
            return row.id
    finally:
        engine.dispose()


@pytest.fixture(scope="module")
def world(pg_stack, migrated_pg_url) -> World:
    w = World(pg_stack, pg_stack.api, doc=_example())
    for name in ("viewer", "editor", "owner", "outsider", "bystander"):
        w.users[name] = w.new_user(name)
        w.access[name] = pg_stack.login(w.users[name]["username"], w.users[name]["password"])
    w.users["admin"] = pg_stack.api.get("/users/me").json()
    w.access["admin"] = pg_stack.login(*pg_stack.admin)
    w.creds = {"anonymous": None, "admin": pg_stack.token,
               "token_read": pg_stack.new_token(w.access["editor"], "read"),
               "token_write": pg_stack.new_token(w.access["editor"], "write")}
    for name in ("viewer", "editor", "owner", "outsider"):
        w.creds[name] = w.access[name]
    w.project = w.new_project()
    w.scenario = w.new_scenario()
    w.geo = w.new_scenario(doc=_example("naval-geo"))
    r = pg_stack.api.post(f"/scenarios/{w.scenario}/comparisons", json={"strategies": ["sptcp"]})
    assert r.status_code == 202, r.text
    w.comparison = r.json()["id"]
    done, _ = _wait_comparison(pg_stack, w.scenario, w.comparison)
    assert done["status"] == "succeeded", done["error"]
    w.capture = _store_capture(migrated_pg_url, w.comparison)
    r = pg_stack.api.post(f"/scenarios/{w.scenario}/routes", json={"metric": "hop", "background": True})
    assert r.status_code == 202, r.text
    w.job = r.json()["job_id"]
    deadline = time.monotonic() + 120
    while pg_stack.api.get(f"/jobs/{w.job}").json()["status"] != "succeeded":
        assert time.monotonic() < deadline, pg_stack.api.get(f"/jobs/{w.job}").text
        time.sleep(0.2)
    return w


#: an AIS track for the track route's row
_TRACK = (EXAMPLES / "tracks" / "ship1-ais.csv").read_bytes()

Request = dict[str, Any]  # httpx.request keyword arguments: method, url, json, data, files, params, headers


def _scenario_file(w: World) -> Request:
    doc = {**w.doc, "name": f"it-{uuid.uuid4().hex[:8]}-import"}
    return {"files": {"file": ("s.json", json.dumps(doc).encode(), "application/json")}}


# (method, OpenAPI path, prepare(world, role) -> request, expected statuses by role)
CASES: list[tuple[str, str, Callable[[World, str], Request], dict[str, int]]] = [
    ("GET", "/api/health", lambda w, r: {}, {r: 200 for r in ROLES}),
    ("POST", "/api/auth/login",
     lambda w, r: {"data": {"username": w.users["viewer"]["username"], "password": w.users["viewer"]["password"]}},
     {r: 200 for r in ROLES}),
    # a fresh access token for the signed-in columns, so signing out does not end the matrix's
    ("POST", "/api/auth/logout",
     lambda w, r: {"headers": {"Authorization": "Bearer " + w.stack.login(
         w.users[USER_OF[r]]["username"], w.users[USER_OF[r]]["password"])}}
     if r in ("viewer", "editor", "owner", "outsider") else {}, signed_in(204)),
    ("GET", "/api/users/me", lambda w, r: {}, signed_in(200)),
    ("PUT", "/api/users/me/password",
     lambda w, r: {"json": {"current_password": "not-the-password", "new_password": "whatever-123"}}, write_scope(400)),
    ("GET", "/api/users/me/tokens", lambda w, r: {}, signed_in(200)),
    ("POST", "/api/users/me/tokens", lambda w, r: {"json": {"name": "matrix", "scope": "read"}}, write_scope(201)),
    ("DELETE", "/api/users/me/tokens/{token_id}",
     lambda w, r: {"path": {"token_id": w.token_id(USER_OF.get(r, "viewer"))}},
     write_scope(204)),
    ("GET", "/api/users", lambda w, r: {}, admin_only(200)),
    ("POST", "/api/users", lambda w, r: {"json": {"username": f"m-{uuid.uuid4().hex[:8]}", "password": "password-123"}},
     admin_only(201)),
    ("GET", "/api/users/{user_id}", lambda w, r: {"path": {"user_id": w.users["bystander"]["id"]}}, admin_only(200)),
    ("PATCH", "/api/users/{user_id}",
     lambda w, r: {"path": {"user_id": w.users["bystander"]["id"]}, "json": {"can_run_linux": False}}, admin_only(200)),
    ("DELETE", "/api/users/{user_id}", lambda w, r: {"path": {"user_id": w.new_user("victim")["id"]}}, admin_only(204)),
    ("GET", "/api/projects", lambda w, r: {}, signed_in(200)),
    ("POST", "/api/projects", lambda w, r: {"json": {"name": f"it-p-{uuid.uuid4().hex[:8]}"}}, write_scope(201)),
    ("GET", "/api/projects/{project_id}", lambda w, r: {"path": {"project_id": w.project}}, member_read(200)),
    ("PATCH", "/api/projects/{project_id}",
     lambda w, r: {"path": {"project_id": w.project}, "json": {"description": f"by {r}"}}, owner_only(200)),
    ("DELETE", "/api/projects/{project_id}", lambda w, r: {"path": {"project_id": w.new_project()}}, owner_only(204)),
    ("GET", "/api/projects/{project_id}/members", lambda w, r: {"path": {"project_id": w.project}}, member_read(200)),
    ("PUT", "/api/projects/{project_id}/members/{user_id}",
     lambda w, r: {"path": {"project_id": w.project, "user_id": w.users["bystander"]["id"]}, "json": {"role": "viewer"}},
     owner_only(200)),
    ("POST", "/api/projects/{project_id}/members",
     lambda w, r: {"path": {"project_id": w.project},
                   "json": {"username": w.users["bystander"]["username"], "role": "viewer"}}, owner_only(200)),
    ("DELETE", "/api/projects/{project_id}/members/{user_id}",
     lambda w, r: {"path": {"project_id": w.project, "user_id": w.add_bystander()}}, owner_only(204)),
    ("GET", "/api/audit", lambda w, r: {}, admin_only(200)),
    ("GET", "/api/strategies", lambda w, r: {}, signed_in(200)),
    ("GET", "/api/engines", lambda w, r: {}, signed_in(200)),
    ("GET", "/api/formats", lambda w, r: {}, signed_in(200)),
    ("GET", "/api/scenarios/schema", lambda w, r: {}, signed_in(200)),
    ("GET", "/api/scenarios", lambda w, r: {}, signed_in(200)),
    ("POST", "/api/scenarios",
     lambda w, r: {"params": {"project_id": w.project}, "json": {**w.doc, "name": f"it-{uuid.uuid4().hex[:8]}-m"}},
     member_write(201)),
    ("GET", "/api/scenarios/{scenario_id}", lambda w, r: {"path": {"scenario_id": w.scenario}}, member_read(200)),
    ("PUT", "/api/scenarios/{scenario_id}",
     lambda w, r: {"path": {"scenario_id": w.scenario}, "json": w.doc, "headers": {"If-Match": w.etag(w.scenario)}},
     member_write(200)),
    ("DELETE", "/api/scenarios/{scenario_id}", lambda w, r: {"path": {"scenario_id": w.new_scenario()}},
     member_write(204)),
    ("GET", "/api/scenarios/{scenario_id}/versions", lambda w, r: {"path": {"scenario_id": w.scenario}},
     member_read(200)),
    ("GET", "/api/scenarios/{scenario_id}/versions/{version}",
     lambda w, r: {"path": {"scenario_id": w.scenario, "version": 1}}, member_read(200)),
    ("POST", "/api/scenarios/{scenario_id}/versions/{version}/restore",
     lambda w, r: {"path": {"scenario_id": w.scenario, "version": 1}}, member_write(200)),
    ("POST", "/api/scenarios/{scenario_id}/fork",
     lambda w, r: {"path": {"scenario_id": w.scenario}, "json": {"name": f"it-{uuid.uuid4().hex[:8]}-fork"}},
     member_write(201)),
    ("GET", "/api/scenarios/{scenario_id}/export", lambda w, r: {"path": {"scenario_id": w.scenario}},
     member_read(200)),
    ("POST", "/api/imports", lambda w, r: {"params": {"project_id": w.project}, **_scenario_file(w)},
     member_write(201)),
    ("POST", "/api/scenarios/{scenario_id}/nodes/{node_id}/track",
     lambda w, r: {"path": {"scenario_id": w.geo, "node_id": "ship1"}, "params": {"format": "ais-csv"},
                   "files": {"file": ("ship1.csv", _TRACK, "text/csv")}}, member_write(200)),
    ("GET", "/api/scenarios/{scenario_id}/nodes/{node_id}/track.gpx",
     lambda w, r: {"path": {"scenario_id": w.geo, "node_id": "uav"}}, member_read(200)),
    ("POST", "/api/scenarios/{scenario_id}/routes",
     lambda w, r: {"path": {"scenario_id": w.scenario}, "json": {"metric": "hop"}}, member_read(200)),
    ("POST", "/api/scenarios/{scenario_id}/allocations",
     lambda w, r: {"path": {"scenario_id": w.scenario}, "json": {"method": "fdm"}}, member_read(200)),
    # a job of P (its state and result) is P's members' only; an outsider is told it does not exist
    ("GET", "/api/jobs/{job_id}", lambda w, r: {"path": {"job_id": w.job}}, member_read(200)),
    ("GET", "/api/jobs/{job_id}/events", lambda w, r: {"path": {"job_id": w.job}}, member_read(200)),
    ("GET", "/api/jobs/{job_id}", lambda w, r: {"path": {"job_id": str(uuid.uuid4())}}, signed_in(404)),
    ("GET", "/api/jobs/{job_id}/events", lambda w, r: {"path": {"job_id": str(uuid.uuid4())}}, signed_in(404)),
    ("POST", "/api/scenarios/{scenario_id}/failures",
     lambda w, r: {"path": {"scenario_id": w.scenario}, "json": {"metric": "hop"}}, member_read(200)),
    ("POST", "/api/scenarios/{scenario_id}/capacity-searches",
     lambda w, r: {"path": {"scenario_id": w.scenario}, "json": {"parameter": "links.nope.bandwidth_mbps", "low": 1,
                                                                "high": 2, "min_mean_mbps": 1, "tolerance": 1}},
     member_write(422)),
    ("POST", "/api/scenarios/{scenario_id}/comparisons",
     lambda w, r: {"path": {"scenario_id": w.scenario}, "json": {"strategies": ["sptcp"]}}, member_write(202)),
    ("GET", "/api/scenarios/{scenario_id}/comparisons", lambda w, r: {"path": {"scenario_id": w.scenario}},
     member_read(200)),
    ("GET", "/api/scenarios/{scenario_id}/comparisons/{comparison_id}",
     lambda w, r: {"path": {"scenario_id": w.scenario, "comparison_id": w.comparison}}, member_read(200)),
    ("POST", "/api/scenarios/{scenario_id}/comparisons/{comparison_id}/cancel",
     lambda w, r: {"path": {"scenario_id": w.scenario, "comparison_id": w.comparison}}, member_write(202)),
    ("GET", "/api/scenarios/{scenario_id}/comparisons/{comparison_id}/events",
     lambda w, r: {"path": {"scenario_id": w.scenario, "comparison_id": w.comparison}}, member_read(200)),
    ("GET", "/api/scenarios/{scenario_id}/comparisons/{comparison_id}/planned",
     lambda w, r: {"path": {"scenario_id": w.scenario, "comparison_id": w.comparison}, "params": {"strategy": "sptcp"}},
     member_read(422)),  # C ran sptcp, which plans no rates: members are told so, non-members see nothing
    ("GET", "/api/scenarios/{scenario_id}/comparisons/{comparison_id}/captures",
     lambda w, r: {"path": {"scenario_id": w.scenario, "comparison_id": w.comparison}}, member_read(200)),
    ("GET", "/api/scenarios/{scenario_id}/comparisons/{comparison_id}/captures/{capture_id}",
     lambda w, r: {"path": {"scenario_id": w.scenario, "comparison_id": w.comparison, "capture_id": w.capture}},
     member_read(200)),
    ("GET", "/api/scenarios/{scenario_id}/comparisons/{comparison_id}/sweep-points",
     lambda w, r: {"path": {"scenario_id": w.scenario, "comparison_id": w.comparison}}, member_read(200)),
    ("GET", "/api/scenarios/{scenario_id}/comparisons/{comparison_id}/sweep-points/{point}",
     lambda w, r: {"path": {"scenario_id": w.scenario, "comparison_id": w.comparison, "point": 0}},
     member_read(404)),  # C is no sweep: no stored point
    ("POST", "/api/timeline", lambda w, r: {"json": w.doc}, signed_in(200)),
    ("POST", "/api/coverage", lambda w, r: {"json": w.doc}, signed_in(200)),
    ("POST", "/api/scenario-checks", lambda w, r: {"json": w.doc}, signed_in(200)),
]


def test_the_matrix_covers_every_published_operation(pg_stack):
    spec = httpx.get(f"{pg_stack.base_url}/openapi.json").json()
    published = {(m.upper(), p) for p, ops in spec["paths"].items() for m in ops}
    covered = {(m, p) for m, p, _, _ in CASES}
    assert published - covered == set(), "routes missing from the matrix"
    assert covered - published == set(), "matrix rows for routes that do not exist"


@pytest.mark.parametrize("method,path,prepare,expected", CASES, ids=[f"{m} {p}" for m, p, _, _ in CASES])
def test_authorization_matrix(world, method, path, prepare, expected):
    got: dict[str, int] = {}
    for role in ROLES:
        req = prepare(world, role)
        url = path.removeprefix("/api").format(**req.pop("path", {}))
        headers = req.pop("headers", {})
        with world.client(role) as client:
            r = client.request(method, url, headers=headers, **req)
        got[role] = r.status_code
    assert got == expected
