"""Admission control: at most ``MAX_CONCURRENT_REQUESTS`` API requests inside the app at once.

Why: every route is synchronous (SQLAlchemy sessions), so FastAPI runs each dependency and the
endpoint in a bounded thread pool, one hop after another, and a request keeps its pooled
database connection between hops. With more requests in flight than connections, requests
holding a connection wait for a thread while the threads wait for a connection until
``DB_POOL_TIMEOUT_S``: measured with 200 clients on PostgreSQL, throughput fell from ~250 to
12 requests/s with 10–11 s p99 and 17–21 % errors (benchmarks/RESULTS.md). Admitting only as
many requests as the thread pool and the connection pool can serve together turns that
collapse into an ordinary queue: the others wait on an :class:`asyncio.Semaphore` (no thread,
no connection) in arrival order.

A request that waited ``ADMISSION_WAIT_S`` without a slot gets 503 with ``Retry-After`` (nothing
was done). Progress streams (``.../events``, Server-Sent Events) are not counted: they run for
minutes and hold no connection while idle. Paths outside ``/api`` (the web UI's files) and
``/metrics`` pass untouched.
"""

from __future__ import annotations

import asyncio

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send


def admitted_path(path: str) -> bool:
    """Whether a request to ``path`` takes an admission slot: API routes except progress streams."""
    return path.startswith("/api/") and not path.rstrip("/").endswith("/events")


class AdmissionLimit:
    """ASGI middleware bounding the API requests in progress.

    Parameters
    ----------
    app : ASGI app
    max_concurrent : int
        Requests inside the app at once (``MAX_CONCURRENT_REQUESTS``); at most the thread pool's
        size and the database pool's connections (``DB_POOL_SIZE + DB_MAX_OVERFLOW``).
    wait_s : float
        Longest wait for a slot (``ADMISSION_WAIT_S``, seconds) before 503 + ``Retry-After``.
    retry_after_s : int
        The ``Retry-After`` of that 503 (seconds).
    """

    def __init__(self, app: ASGIApp, max_concurrent: int, wait_s: float, retry_after_s: int = 2):
        if max_concurrent < 1:
            raise ValueError(f"max_concurrent must be >= 1, got {max_concurrent}")
        self.app = app
        self.max_concurrent = max_concurrent
        self.wait_s = wait_s
        self.retry_after_s = retry_after_s
        self._slots: asyncio.Semaphore | None = None  # made in the server's event loop
        self.waiting = 0

    @property
    def in_flight(self) -> int:
        """Requests holding a slot now."""
        return 0 if self._slots is None else self.max_concurrent - self._slots._value  # noqa: SLF001

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not admitted_path(scope["path"]):
            await self.app(scope, receive, send)
            return
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.max_concurrent)
        self.waiting += 1
        try:
            await asyncio.wait_for(self._slots.acquire(), self.wait_s)
        except TimeoutError:
            response = JSONResponse(
                {"detail": f"the service is busy: no request slot free within ADMISSION_WAIT_S = {self.wait_s:g} s "
                           f"(MAX_CONCURRENT_REQUESTS = {self.max_concurrent}); try again shortly"},
                status_code=503, headers={"Retry-After": str(self.retry_after_s)})
            await response(scope, receive, send)
            return
        finally:
            self.waiting -= 1
        try:
            await self.app(scope, receive, send)
        finally:
            self._slots.release()
