"""subflow.service.observability: JSON log lines with correlation ids, id checks, the ASGI request context;
the API's /metrics token rule."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from types import SimpleNamespace

import pytest
import structlog

from subflow.service.observability import (
    RequestContext,
    bind_from_headers,
    configure_logging,
    outgoing_headers,
    request_id_from,
)


def _ours() -> list[logging.Handler]:
    return [h for h in logging.getLogger().handlers if h.get_name() == "subflow-structured"]


@pytest.fixture
def structured():
    """configure_logging("test"), its handler writing into a buffer: ``structured()`` → the text
    written so far. The handler is removed afterwards."""
    configure_logging("test", level="DEBUG", fmt="json")
    buffer = io.StringIO()
    _ours()[0].setStream(buffer)
    structlog.contextvars.clear_contextvars()
    yield buffer.getvalue
    structlog.contextvars.clear_contextvars()
    for h in _ours():
        logging.getLogger().removeHandler(h)


def _json_lines(err: str) -> list[dict]:
    return [json.loads(line) for line in err.splitlines() if line.startswith("{")]


def test_stdlib_records_become_json_with_the_bound_ids(structured):
    structlog.contextvars.bind_contextvars(request_id="r-1", comparison_id="c-9")
    logging.getLogger("subflow.some.module").info("comparison %s done in %.1f s", "c-9", 1.25, extra={"units": 4})
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("other").exception("it failed")
    first, second = _json_lines(structured())
    assert first["event"] == "comparison c-9 done in 1.2 s"
    assert (first["level"], first["logger"], first["service"]) == ("info", "subflow.some.module", "test")
    assert (first["request_id"], first["comparison_id"], first["units"]) == ("r-1", "c-9", 4)
    assert first["timestamp"].endswith("Z")
    assert second["level"] == "error" and "ValueError: boom" in second["exception"]


def test_configuring_twice_keeps_one_handler(structured):
    configure_logging("test", fmt="json")
    assert len(_ours()) == 1


def test_unknown_format_is_refused():
    with pytest.raises(ValueError, match="LOG_FORMAT"):
        configure_logging("test", fmt="xml")


@pytest.mark.parametrize("given", ["abc-DEF_1.2", "x" * 64])
def test_well_formed_request_ids_are_kept(given):
    assert request_id_from(given) == given


@pytest.mark.parametrize("given", [None, "", "x" * 65, "a b", "a\nb", "é", '"quoted"'])
def test_other_request_ids_are_replaced(given):
    new = request_id_from(given)
    assert new != given and len(new) == 32 and int(new, 16) >= 0


def test_only_well_formed_header_ids_are_bound_and_sent_on():
    structlog.contextvars.clear_contextvars()
    try:
        bound = bind_from_headers({"x-request-id": "req.1", "X-Comparison-ID": "bad id\n"})
        assert bound == {"request_id": "req.1"}
        assert outgoing_headers() == {"X-Request-ID": "req.1"}
        structlog.contextvars.bind_contextvars(comparison_id="c1")
        assert outgoing_headers() == {"X-Request-ID": "req.1", "X-Comparison-ID": "c1"}
    finally:
        structlog.contextvars.clear_contextvars()


def _call(middleware, scope):
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    asyncio.run(middleware(scope, receive, send))
    return sent


def _scope(path, headers=(), route=None):
    scope = {"type": "http", "method": "GET", "path": path, "headers": list(headers)}
    if route is not None:
        scope["route"] = SimpleNamespace(path=route)
    return scope


def test_request_context_answers_the_id_and_reports_the_route_template(structured):
    seen_inside = {}
    observed = []

    async def app(scope, receive, send):
        seen_inside.update(structlog.contextvars.get_contextvars())
        scope["route"] = SimpleNamespace(path="/things/{thing_id}")  # what the router sets when it matches
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    mw = RequestContext(app, "test.requests", observe=lambda *a: observed.append(a), prefix="/api")
    sent = _call(mw, _scope("/api/things/42", [(b"x-request-id", b"mine-1"), (b"x-comparison-id", b"c-7")]))
    assert (b"X-Request-ID", b"mine-1") in sent[0]["headers"]
    assert seen_inside == {"request_id": "mine-1", "comparison_id": "c-7"}
    assert observed[0][:3] == ("GET", "/api/things/{thing_id}", 204) and observed[0][3] >= 0
    line = _json_lines(structured())[-1]
    assert (line["event"], line["route"], line["status"], line["request_id"]) == ("request", "/api/things/{thing_id}", 204, "mine-1")
    assert structlog.contextvars.get_contextvars() == {}  # nothing leaks into the next request


def test_request_context_without_a_route_is_unmatched_and_quiet_paths_log_at_debug(structured):
    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 404, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    observed = []
    mw = RequestContext(app, "test.requests", observe=lambda *a: observed.append(a), quiet=lambda m, p: p == "/health")
    _call(mw, _scope("/nowhere/123"))
    _call(mw, _scope("/health"))
    lines = _json_lines(structured())
    assert [o[1] for o in observed] == ["unmatched", "unmatched"]
    assert [(x["path"], x["level"]) for x in lines if x["event"] == "request"] == [("/nowhere/123", "info"), ("/health", "debug")]


def test_metrics_need_the_configured_token():
    from subflow_backend.observability import metrics_allowed
    from subflow_backend.settings import Settings

    off = Settings(METRICS_TOKEN="")
    on = Settings(METRICS_TOKEN="s3cret-metrics-token")
    assert not metrics_allowed("Bearer ", off) and not metrics_allowed(None, off)
    assert not metrics_allowed(None, on) and not metrics_allowed("Bearer wrong", on)
    assert not metrics_allowed("s3cret-metrics-token", on)
    assert metrics_allowed("Bearer s3cret-metrics-token", on)
