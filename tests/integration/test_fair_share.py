"""Fair share under abuse, on the real PostgreSQL + Redis stack: one viewer firing heavy planning requests
as fast as it can, and holding progress streams open, leaves the other users' reads fast.

The API under test is a second API process on the ``pg_stack``'s database and Redis (its worker serves
the background jobs) with tighter per-caller quotas than the defaults (``QUOTA_HEAVY_CONCURRENT = 1``,
``QUOTA_HEAVY_PER_MINUTE = 60``, ``QUOTA_STREAMS = 4``, ``QUOTA_JOBS = 2``): the load is the issue's reproducer scaled down to a minute — 16 concurrent
routes requests of 4,900 node pairs of a 121-node grid (~1.4 s of CPU each inline, just under
``MAX_INLINE_ROUTE_COST`` = 5,000) sent again as soon as they come back (after ``Retry-After`` when refused), against 20 reader threads of 4 other users
(a scenario, the scenario list, the projects: one read every 0.2 s each).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from subflow_testbeds.processes import free_port
from tests.integration.conftest import PYTHON, Proc, Stack, _example
from tests.integration.test_faults import grid_scenario

pytestmark = pytest.mark.integration

TIGHT = {"QUOTA_HEAVY_CONCURRENT": "1", "QUOTA_STREAMS": "4", "QUOTA_JOBS": "2", "QUOTA_HEAVY_PER_MINUTE": "60"}
ATTACK_S = 30.0


@pytest.fixture(scope="module")
def fair_api(pg_stack: Stack, logs_dir) -> Iterator[str]:
    """Base URL of an API process on the pg_stack's database and Redis with the :data:`TIGHT` quotas."""
    port = free_port()
    proc = Proc.start("fair-api", [PYTHON, "-m", "uvicorn", "subflow_backend.main:app",
                                   "--host", "127.0.0.1", "--port", str(port)],
                      {**pg_stack.env, **TIGHT}, logs_dir / "fair-api.log")
    try:
        proc.wait_http(f"http://127.0.0.1:{port}/api/health")
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.stop()


def _user(pg_stack: Stack, project: str, role: str = "viewer") -> str:
    """A new user with ``role`` in ``project``; returns a read token of theirs."""
    password = uuid.uuid4().hex
    r = pg_stack.api.post("/users", json={"username": f"fair-{uuid.uuid4().hex[:8]}", "password": password})
    assert r.status_code == 201, r.text
    user = r.json()
    assert pg_stack.api.put(f"/projects/{project}/members/{user['id']}", json={"role": role}).status_code == 200
    return pg_stack.new_token(pg_stack.login(user["username"], password), "read")


@pytest.fixture(scope="module")
def world(pg_stack: Stack) -> dict[str, Any]:
    """A project with the grid scenario, one abusing viewer and four other viewers (read tokens)."""
    r = pg_stack.api.post("/projects", json={"name": f"it-fair-{uuid.uuid4().hex[:8]}"})
    assert r.status_code == 201, r.text
    project = r.json()["id"]
    r = pg_stack.api.post("/scenarios", json=grid_scenario(11), params={"project_id": project})
    assert r.status_code == 201, r.text
    grid = r.json()["id"]
    r = pg_stack.api.post("/scenarios", json=_example(), params={"project_id": project})
    assert r.status_code == 201, r.text
    return {"project": project, "grid": grid, "small": r.json()["id"], "abuser": _user(pg_stack, project),
            "others": [_user(pg_stack, project) for _ in range(4)]}


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def _read_loop(base: str, token: str, sid: str, until: float, out: list[tuple[int, float]]) -> None:
    """A user reading a scenario, the scenario list and the projects, one request every 0.2 s."""
    with httpx.Client(base_url=f"{base}/api", headers={"Authorization": f"Bearer {token}"}, timeout=30) as c:
        while time.monotonic() < until:
            for path in (f"/scenarios/{sid}", "/scenarios?limit=20", "/projects"):
                t0 = time.perf_counter()
                status = c.get(path).status_code
                out.append((status, (time.perf_counter() - t0) * 1000))
                time.sleep(0.2)


def _readers(base: str, world: dict[str, Any], seconds: float) -> list[tuple[int, float]]:
    out: list[tuple[int, float]] = []
    until = time.monotonic() + seconds
    threads = [threading.Thread(target=_read_loop, args=(base, world["others"][i % 4], world["small"], until, out))
               for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


#: Every ordered pair of the 11 × 11 grid's nodes.
PAIRS = [[f"s{i % 11}_{i // 11}", f"s{j % 11}_{j // 11}"] for i in range(121) for j in range(121) if i != j]


#: The abusing viewer, in a process of its own (so its 16 threads do not share the measuring readers'
#: interpreter lock): ``argv`` base URL, token, scenario id, seconds; prints a JSON summary.
ABUSER = r"""
import json, sys, threading, time
import httpx
base, token, sid, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
pairs = [[f"s{i % 11}_{i // 11}", f"s{j % 11}_{j // 11}"] for i in range(121) for j in range(121) if i != j]
body = {"metric": "hop", "t_s": 0, "pairs": pairs[:4900]}
until = time.monotonic() + seconds
out = {"codes": {}, "routes": None, "refusal": None, "retry_after": None}
lock = threading.Lock()
def abuse():
    with httpx.Client(base_url=base + "/api", headers={"Authorization": "Bearer " + token}, timeout=120) as c:
        while time.monotonic() < until:
            r = c.post(f"/scenarios/{sid}/routes", json=body)
            with lock:
                out["codes"][str(r.status_code)] = out["codes"].get(str(r.status_code), 0) + 1
                if r.status_code == 200 and out["routes"] is None:
                    out["routes"] = len(r.json()["routes"])
                if r.status_code == 429 and out["refusal"] is None:
                    out["refusal"], out["retry_after"] = r.json()["detail"], r.headers.get("retry-after")
            if r.status_code == 429:
                time.sleep(float(r.headers["retry-after"]))  # it waits as told, then tries again
threads = [threading.Thread(target=abuse) for _ in range(16)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(json.dumps(out))
"""


def test_one_viewers_heavy_requests_leave_the_others_reads_fast(fair_api, world):
    # a request like the reproducer's (87,120 node pairs, ~8 s of CPU inline) is refused inline, naming what to do
    client = httpx.Client(base_url=f"{fair_api}/api", headers={"Authorization": f"Bearer {world['abuser']}"}, timeout=60)
    r = client.post(f"/scenarios/{world['grid']}/routes", json={"metric": "hop", "pairs": PAIRS * 6})
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["loc"] == ["body", "background"]
    assert "MAX_INLINE_ROUTE_COST = 5000" in r.json()["detail"][0]["msg"]

    _readers(fair_api, world, 3.0)  # warm-up: connections, caches
    baseline = _readers(fair_api, world, 6.0)
    abuser = subprocess.Popen([PYTHON, "-c", ABUSER, fair_api, world["abuser"], world["grid"], str(ATTACK_S)],
                              stdout=subprocess.PIPE, text=True)
    time.sleep(2.0)  # the first heavy requests are in
    reads = _readers(fair_api, world, ATTACK_S - 4.0)
    heavy = json.loads(abuser.communicate(timeout=ATTACK_S + 120)[0])

    quiet, loaded = [ms for _, ms in baseline], [ms for _, ms in reads]
    print(f"\nreads alone: {len(quiet)}, p50 {statistics.median(quiet):.1f} ms, p99 {_p99(quiet):.1f} ms; "
          f"with the abuser: {len(loaded)}, p50 {statistics.median(loaded):.1f} ms, p99 {_p99(loaded):.1f} ms, "
          f"max {max(loaded):.1f} ms; abuser's answers {heavy['codes']}; load average {os.getloadavg()}")
    assert {s for s, _ in baseline + reads} == {200}
    assert heavy["routes"] == 4900  # the abuser got its share, computed
    assert heavy["retry_after"] == "1" and "QUOTA_HEAVY_CONCURRENT = 1" in heavy["refusal"]
    assert set(heavy["codes"]) == {"200", "429"}
    # < 200 ms; on a machine so loaded that the reads alone miss that (other jobs on its cores), no worse than
    # 1.5 × their p99 alone — unfair sharing showed as 100× (6 ms → 843 ms and more, the figures)
    assert _p99(loaded) < max(200.0, 1.5 * _p99(quiet)), f"p99 {_p99(loaded):.1f} ms with the abuser, {_p99(quiet):.1f} alone"


def test_progress_streams_are_capped_per_caller(fair_api, world, pg_stack):
    # a background job on the grid (k = 3, all pairs) keeps the worker busy for seconds: its stream stays open
    r = pg_stack.api.post(f"/scenarios/{world['grid']}/routes", json={"metric": "delay", "k": 3, "background": True})
    assert r.status_code == 202, r.text
    path = f"/api/jobs/{r.json()['job_id']}/events"
    headers = {"Authorization": f"Bearer {world['abuser']}"}
    with httpx.Client(base_url=fair_api, headers=headers, timeout=60) as c, httpx.Client(
            base_url=fair_api, headers={"Authorization": f"Bearer {world['others'][0]}"}, timeout=60) as other:
        streams = [c.stream("GET", path) for _ in range(5)]
        opened = [s.__enter__() for s in streams[:4]]
        try:
            assert [s.status_code for s in opened] == [200] * 4
            fifth = c.get(path)
            assert fifth.status_code == 429, fifth.text
            assert "QUOTA_STREAMS = 4" in fifth.json()["detail"] and fifth.headers["retry-after"] == "1"
            with other.stream("GET", path) as theirs:  # another caller is not refused
                assert theirs.status_code == 200
                assert next(theirs.iter_lines()).startswith("retry:")
        finally:
            for s in streams[:4]:
                s.__exit__(None, None, None)
        deadline = time.monotonic() + 10
        while (again := c.get(path)).status_code == 429 and time.monotonic() < deadline:
            time.sleep(0.2)  # the slots come back once the streams are closed
        assert again.status_code == 200, again.text


def test_background_jobs_are_capped_per_caller(fair_api, world):
    body = {"metric": "delay", "k": 3, "background": True}  # ~5 s of the worker's CPU each
    # a caller of its own (the abuser of the first test may have used up its heavy requests of this minute)
    abuser = httpx.Client(base_url=f"{fair_api}/api", headers={"Authorization": f"Bearer {world['others'][2]}"}, timeout=60)
    other = httpx.Client(base_url=f"{fair_api}/api", headers={"Authorization": f"Bearer {world['others'][1]}"}, timeout=60)
    first = [abuser.post(f"/scenarios/{world['grid']}/routes", json=body) for _ in range(2)]
    assert [r.status_code for r in first] == [202, 202], [r.text for r in first]
    third = abuser.post(f"/scenarios/{world['grid']}/routes", json=body)
    assert third.status_code == 429, third.text
    assert "QUOTA_JOBS = 2" in third.json()["detail"] and third.headers["retry-after"] == "5"
    theirs = other.post(f"/scenarios/{world['grid']}/routes", json={"metric": "hop", "t_s": 0, "background": True})
    assert theirs.status_code == 202, theirs.text  # another caller's job is taken
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:  # once the abuser's jobs have finished it may submit again
        states = [abuser.get(f"/jobs/{r.json()['job_id']}").json()["status"] for r in first]
        if all(s in ("succeeded", "failed") for s in states):
            break
        time.sleep(0.5)
    assert abuser.post(f"/scenarios/{world['grid']}/routes", json={**body, "k": 1, "t_s": 0}).status_code == 202
