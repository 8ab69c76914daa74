"""Admission control of the API (subflow_backend.admission): a bounded number of requests inside
the app, the rest waiting their turn, 503 + Retry-After after the wait bound; streams not counted."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from starlette.responses import PlainTextResponse

from subflow_backend.admission import AdmissionLimit, admitted_path


class SlowApp:
    """An ASGI app that holds each request ``hold_s`` seconds and records how many it holds at once."""

    def __init__(self, hold_s: float):
        self.hold_s = hold_s
        self.inside = 0
        self.most_inside = 0

    async def __call__(self, scope, receive, send):
        self.inside += 1
        self.most_inside = max(self.most_inside, self.inside)
        try:
            await asyncio.sleep(self.hold_s)
        finally:
            self.inside -= 1
        await PlainTextResponse("ok")(scope, receive, send)


async def _get_all(app, paths: list[str]) -> list[httpx.Response]:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
        return await asyncio.gather(*(client.get(p) for p in paths))


def test_at_most_max_concurrent_requests_are_inside_and_the_rest_wait_their_turn():
    inner = SlowApp(0.05)
    app = AdmissionLimit(inner, max_concurrent=3, wait_s=10)
    responses = asyncio.run(_get_all(app, ["/api/scenarios"] * 12))
    assert [r.status_code for r in responses] == [200] * 12
    assert inner.most_inside == 3
    assert app.in_flight == 0 and app.waiting == 0


def test_a_request_that_waits_too_long_gets_503_with_retry_after_and_never_enters():
    inner = SlowApp(0.5)
    app = AdmissionLimit(inner, max_concurrent=1, wait_s=0.1, retry_after_s=3)
    responses = asyncio.run(_get_all(app, ["/api/scenarios", "/api/scenarios"]))
    codes = sorted(r.status_code for r in responses)
    assert codes == [200, 503]
    busy = next(r for r in responses if r.status_code == 503)
    assert busy.headers["retry-after"] == "3"
    assert "MAX_CONCURRENT_REQUESTS = 1" in busy.json()["detail"]
    assert inner.most_inside == 1


def test_progress_streams_and_the_web_ui_are_not_counted():
    inner = SlowApp(0.05)
    app = AdmissionLimit(inner, max_concurrent=1, wait_s=0.01)
    paths = ["/api/scenarios/s1/comparisons/c1/events", "/api/jobs/j1/events", "/index.html", "/metrics"] * 2
    responses = asyncio.run(_get_all(app, paths))
    assert [r.status_code for r in responses] == [200] * len(paths)
    assert inner.most_inside == len(paths)


@pytest.mark.parametrize(("path", "counted"), [
    ("/api/scenarios", True), ("/api/scenarios/x/comparisons/y/events", False), ("/api/jobs/j/events/", False),
    ("/api/health", True), ("/assets/app.js", False), ("/metrics", False),
])
def test_admitted_paths(path, counted):
    assert admitted_path(path) is counted


def test_a_bound_below_one_is_refused():
    with pytest.raises(ValueError, match="max_concurrent"):
        AdmissionLimit(SlowApp(0), max_concurrent=0, wait_s=1)
