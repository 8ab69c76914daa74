"""Bound the size of request bodies (413 naming the setting), before any handler reads them.

A pure ASGI middleware: a ``Content-Length`` over the bound is answered 413 at once; a body
sent without one (chunked) is counted as it arrives and refused as soon as it passes the
bound, so no handler, JSON parser or multipart parser ever holds more than the bound.
``POST /api/imports`` (file uploads) is bounded by ``MAX_UPLOAD_BYTES`` plus a small
allowance for the multipart framing and the form's ``name``; a track upload
(``POST /api/scenarios/{id}/nodes/{node}/track``) by ``MAX_TRACK_BYTES`` plus the same
allowance; every other request by ``MAX_BODY_BYTES``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from fastapi import HTTPException, status
from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: bytes of multipart framing and form fields allowed on top of MAX_UPLOAD_BYTES
MULTIPART_ALLOWANCE_BYTES = 64 * 1024


class BodyTooLarge(HTTPException):
    """413 raised while the body is read (FastAPI passes HTTPExceptions through its body parsing)."""

    def __init__(self, setting: str, limit: int):
        self.setting = setting
        self.limit = limit
        super().__init__(status.HTTP_413_CONTENT_TOO_LARGE, f"request body larger than {setting} = {limit} bytes")


_TRACK_PATH = re.compile(r"^/api/scenarios/[^/]+/nodes/[^/]+/track$")


def limit_for_path(max_body_bytes: int, max_upload_bytes: int,
                   max_track_bytes: int | None = None) -> Callable[[str], tuple[str, int]]:
    """``path -> (setting name, bytes)``: the upload bound for ``/api/imports``, the track bound for a
    track upload (when ``max_track_bytes`` is given), else the body bound."""

    def limit(path: str) -> tuple[str, int]:
        if path.rstrip("/") == "/api/imports":
            return "MAX_UPLOAD_BYTES", max_upload_bytes + MULTIPART_ALLOWANCE_BYTES
        if max_track_bytes is not None and _TRACK_PATH.match(path.rstrip("/")):
            return "MAX_TRACK_BYTES", max_track_bytes + MULTIPART_ALLOWANCE_BYTES
        return "MAX_BODY_BYTES", max_body_bytes

    return limit


class BodySizeLimit:
    """ASGI middleware: refuse request bodies over ``limit(path)`` bytes with 413.

    Parameters
    ----------
    app : ASGI app
    limit : callable
        ``path -> (setting name, max bytes)`` (see :func:`limit_for_path`).
    """

    def __init__(self, app: ASGIApp, limit: Callable[[str], tuple[str, int]]):
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        setting, max_bytes = self.limit(scope.get("path", ""))
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > max_bytes:
            await _too_large(send, BodyTooLarge(setting, max_bytes))
            return
        received = 0
        started = False

        async def counted_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > max_bytes:
                    raise BodyTooLarge(setting, max_bytes)
            return message

        async def tracked_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted_receive, tracked_send)
        except BodyTooLarge as exc:
            if started:
                raise
            await _too_large(send, exc)


async def _too_large(send: Send, exc: BodyTooLarge) -> None:
    body = json.dumps({"detail": exc.detail}).encode()
    await send({"type": "http.response.start", "status": exc.status_code,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
