"""Per-caller quotas: one caller (a credential) gets at most a configured share of the API.

:mod:`subflow_backend.admission` bounds the requests inside one API process (the global queue, first
come first served). Alone it lets one caller fill every slot: measured, 16 concurrent all-pairs routes
requests from one read token held every slot for 212 s and 16 of 20 other users' reads got 503. The
quotas here sit in front of it and are counted per *caller*:

* ``QUOTA_CONCURRENT``: API requests of the caller in progress at once (progress streams excepted);
* ``QUOTA_HEAVY_CONCURRENT``: heavy requests in progress at once — planning, analysis, coverage,
  timeline and import requests (:func:`request_kind`), the ones that cost seconds of CPU;
* ``QUOTA_STREAMS``: progress streams (``.../events``) open at once;
* ``QUOTA_REQUESTS_PER_MINUTE`` / ``QUOTA_HEAVY_PER_MINUTE``: requests (all / heavy) started per
  minute (a fixed window aligned on the minute);
* ``QUOTA_JOBS``: background jobs (planning, analysis) queued or running at once, so that one caller
  cannot fill the workers' queue (:class:`JobLedger`, checked by the routes that submit jobs).

A request beyond a quota gets 429 at once with ``Retry-After`` (seconds: 1 for a concurrency quota,
the rest of the minute for a rate quota) and a ``detail`` naming the setting (RFC 6585 §4; OWASP API
Security Top 10 2023, API4 "Unrestricted Resource Consumption"). Nothing was done. A quota of 0 is off.

A refusal is remembered in the process, so that a client that does not wait as told costs next to
nothing: a rate refusal until its window ends (the window's count only grows, so the store would say
the same), a concurrency refusal for :data:`REFUSAL_MEMORY_S`. A request refused from memory touches no
store and its ``request`` log line is written at DEBUG (the first refusal's line stays at INFO; the
latency metric counts every one).

The caller is the credential the request carries: the bearer token (personal API token or access
token) or the session cookie, hashed (SHA-256; the secret itself is never stored); a request without
one is counted under its client address. Each token of a user has its own quotas.

Where the counters live: with Redis (``QUOTA_REDIS_URL``, by default the Celery broker when it is
Redis) in Redis, so every API process counts against the same quota; in the embedded deployment (one
API process, no Redis) in the process. A Redis counter of a request in progress carries a time to
live (``QUOTA_LEASE_S``), so the slots of a process killed mid-request come back. If Redis cannot be
reached the request is let through (logged): quotas are protection, not a reason to fail.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send
from subflow.errors import QuotaExceeded
from subflow.service.observability import QUIET_LOG

log = logging.getLogger(__name__)

Kind = Literal["stream", "heavy", "light"]

#: seconds a concurrency refusal is remembered in the process (a slot freed meanwhile is seen after it)
REFUSAL_MEMORY_S = 0.25
#: remembered refusals kept before the expired ones are swept out
_REFUSALS_SWEEP_AT = 4096

#: POST paths under ``/api`` whose requests are heavy: they compute inline (routes, allocations, failure
#: analysis, coverage, timelines, imports) or start worker jobs (background planning, capacity searches).
_HEAVY = re.compile(
    r"^/api/(?:scenarios/[^/]+/(?:routes|allocations|failures|capacity-searches|nodes/[^/]+/track)"
    r"|coverage|timeline|imports)(?:/[^/]*)?/?$")


def request_kind(method: str, path: str) -> Kind | None:
    """What a request counts as: ``stream`` (a progress stream, ``GET .../events``), ``heavy`` (see
    :data:`_HEAVY`), ``light`` (any other ``/api`` request), or None (outside ``/api``, or the health
    check and ``/api/auth/login``, which its own sign-in limit guards: not counted)."""
    if not path.startswith("/api/") or path in ("/api/health", "/api/auth/login"):
        return None
    if path.rstrip("/").endswith("/events"):
        return "stream"
    if method == "POST" and _HEAVY.match(path):
        return "heavy"
    return "light"


def caller_key(scope: Scope) -> str:
    """The caller of a request: ``t:`` + SHA-256 (first 32 hex digits) of the bearer token, ``c:`` + that of
    the session cookie, else ``a:`` + the client address."""
    headers = dict(scope.get("headers") or [])
    auth = headers.get(b"authorization", b"")
    if auth[:7].lower() == b"bearer " and auth[7:].strip():
        return "t:" + hashlib.sha256(auth[7:].strip()).hexdigest()[:32]
    for part in headers.get(b"cookie", b"").split(b";"):
        name, _, value = part.strip().partition(b"=")
        if name == b"subflow_session" and value:
            return "c:" + hashlib.sha256(value).hexdigest()[:32]
    client = scope.get("client")
    return "a:" + (client[0] if client else "unknown")


class QuotaStore(Protocol):
    """Counters of the quotas (in the process, or in Redis)."""

    async def acquire(self, key: str, limit: int) -> bool:
        """Take one of ``limit`` slots of ``key``; False (nothing taken) when all are taken."""

    async def release(self, key: str) -> None:
        """Give back a slot taken by :meth:`acquire`."""

    async def hit(self, key: str, limit: int, window_s: int) -> bool:
        """Count one request in the current ``window_s`` window of ``key``; False when that makes more than ``limit``."""


class MemoryStore:
    """Counters in this process (the embedded deployment: one API process). Empty counters and past
    windows are dropped, so the store holds only the callers active in the current minute."""

    def __init__(self) -> None:
        self._slots: dict[str, int] = {}
        self._window = -1
        self._hits: dict[str, int] = {}

    async def acquire(self, key: str, limit: int) -> bool:
        """See :meth:`QuotaStore.acquire`."""
        taken = self._slots.get(key, 0)
        if taken >= limit:
            return False
        self._slots[key] = taken + 1
        return True

    async def release(self, key: str) -> None:
        """See :meth:`QuotaStore.release`."""
        taken = self._slots.get(key, 0) - 1
        if taken > 0:
            self._slots[key] = taken
        else:
            self._slots.pop(key, None)

    async def hit(self, key: str, limit: int, window_s: int) -> bool:
        """See :meth:`QuotaStore.hit`."""
        window = int(time.time() // window_s)
        if window != self._window:
            self._window, self._hits = window, {}
        n = self._hits.get(key, 0) + 1
        self._hits[key] = n
        return n <= limit


class RedisStore:
    """Counters in Redis, shared by every API process: a slot counter per key (``INCR``, refused above the
    limit and taken back at once; its time to live ``lease_s`` is renewed at each acquire) and one counter
    per key and window (expiring after two windows)."""

    _ACQUIRE = """
local n = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
if n > tonumber(ARGV[1]) then redis.call('DECR', KEYS[1]) return 0 end
return 1
"""
    _RELEASE = """
local n = redis.call('DECR', KEYS[1])
if n <= 0 then redis.call('DEL', KEYS[1]) end
return n
"""

    def __init__(self, url: str, lease_s: int, prefix: str = "subflow:quota:") -> None:
        self.url, self.lease_s, self.prefix = url, lease_s, prefix
        self._client = None

    def _redis(self):
        if self._client is None:  # made in the server's event loop
            import redis.asyncio as aioredis

            self._client = aioredis.Redis.from_url(self.url, socket_timeout=2, socket_connect_timeout=2)
        return self._client

    async def acquire(self, key: str, limit: int) -> bool:
        """See :meth:`QuotaStore.acquire`."""
        return bool(await self._redis().eval(self._ACQUIRE, 1, self.prefix + key, limit, self.lease_s))

    async def release(self, key: str) -> None:
        """See :meth:`QuotaStore.release`."""
        await self._redis().eval(self._RELEASE, 1, self.prefix + key)

    async def hit(self, key: str, limit: int, window_s: int) -> bool:
        """See :meth:`QuotaStore.hit`."""
        name = f"{self.prefix}{key}:{int(time.time() // window_s)}"
        pipe = self._redis().pipeline(transaction=False)
        pipe.incr(name)
        pipe.expire(name, 2 * window_s)
        n, _ = await pipe.execute()
        return int(n) <= limit


@dataclass(frozen=True)
class Quotas:
    """The per-caller bounds (0: off); names as the settings."""

    concurrent: int
    heavy_concurrent: int
    streams: int
    requests_per_minute: int
    heavy_per_minute: int


class CallerQuotas:
    """ASGI middleware applying :class:`Quotas` per caller (see the module's docstring)."""

    def __init__(self, app: ASGIApp, quotas: Quotas, store: QuotaStore,
                 refusal_memory_s: float = REFUSAL_MEMORY_S) -> None:
        self.app, self.quotas, self.store = app, quotas, store
        self.refusal_memory_s = refusal_memory_s
        #: quota key → (monotonic time until which it is refused, setting, limit, what, rate window or not)
        self._refused: dict[str, tuple[float, str, int, str, bool]] = {}

    def _remember(self, key: str, exc: QuotaExceeded, what: str, rate: bool) -> None:
        if len(self._refused) >= _REFUSALS_SWEEP_AT:
            now = time.monotonic()
            self._refused = {k: v for k, v in self._refused.items() if v[0] > now}
        hold_s = exc.retry_after_s if rate else self.refusal_memory_s
        self._refused[key] = (time.monotonic() + hold_s, exc.setting, exc.limit, what, rate)

    def _remembered(self, keys: list[str]) -> QuotaExceeded | None:
        """The refusal remembered for any of ``keys`` (its ``Retry-After`` as of now), or None."""
        now = time.monotonic()
        for key in keys:
            hit = self._refused.get(key)
            if hit is None:
                continue
            until, setting, limit, what, rate = hit
            if until <= now:
                del self._refused[key]
                continue
            retry_after_s = max(1, int(until - now + 0.999)) if rate else 1
            return QuotaExceeded(setting, limit, what, retry_after_s)
        return None

    async def _rate(self, caller: str, kind: Kind) -> None:
        q = self.quotas
        rest = 60 - int(time.time() % 60)
        rates = [(f"r:{caller}", q.requests_per_minute, "QUOTA_REQUESTS_PER_MINUTE", "requests started per minute")]
        if kind == "heavy":
            rates.append((f"h:{caller}", q.heavy_per_minute, "QUOTA_HEAVY_PER_MINUTE",
                          "heavy requests (planning, analysis, coverage, timeline, imports) started per minute"))
        for key, limit, setting, what in rates:
            if limit and not await self.store.hit(key, limit, 60):
                exc = QuotaExceeded(setting, limit, what, rest)
                self._remember(key, exc, what, rate=True)
                raise exc

    def _slots(self, caller: str, kind: Kind) -> list[tuple[str, int, str, str]]:
        """(key, limit, setting, what) of every concurrency quota the request takes a slot of."""
        q = self.quotas
        if kind == "stream":
            return [(f"s:{caller}", q.streams, "QUOTA_STREAMS", "progress streams open at once")]
        out = [(f"c:{caller}", q.concurrent, "QUOTA_CONCURRENT", "requests in progress at once")]
        if kind == "heavy":
            out.append((f"hc:{caller}", q.heavy_concurrent, "QUOTA_HEAVY_CONCURRENT",
                        "heavy requests (planning, analysis, coverage, timeline, imports) in progress at once"))
        return [s for s in out if s[1] > 0]

    def _keys(self, caller: str, kind: Kind) -> list[str]:
        """Every quota key a request of ``kind`` from ``caller`` is counted under."""
        keys = [f"r:{caller}"] + ([f"h:{caller}"] if kind == "heavy" else [])
        return keys + [key for key, *_ in self._slots(caller, kind)]

    async def _take(self, caller: str, kind: Kind) -> list[str]:
        """Count the request against the rate quotas and take its slots; the keys taken (release them)."""
        await self._rate(caller, kind)
        taken: list[str] = []
        try:
            for key, limit, setting, what in self._slots(caller, kind):
                if not await self.store.acquire(key, limit):
                    exc = QuotaExceeded(setting, limit, what, 1)
                    self._remember(key, exc, what, rate=False)
                    raise exc
                taken.append(key)
        except BaseException:
            await self._release(taken)
            raise
        return taken

    async def _release(self, keys: list[str]) -> None:
        for key in keys:
            try:
                await asyncio.shield(self.store.release(key))
            except Exception:  # noqa: BLE001 - a lost release only holds the slot until the lease ends
                log.warning("quota slot %s not released", key, exc_info=True)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = request_kind(scope.get("method", ""), scope.get("path", "")) if scope["type"] == "http" else None
        if kind is None:
            await self.app(scope, receive, send)
            return
        caller = caller_key(scope)
        remembered = self._remembered(self._keys(caller, kind))
        if remembered is not None:
            scope.setdefault("state", {})[QUIET_LOG] = True
            await _refuse(remembered, scope, receive, send)
            return
        try:
            taken = await self._take(caller, kind)
        except QuotaExceeded as exc:
            await _refuse(exc, scope, receive, send)
            return
        except Exception:  # noqa: BLE001 - the store (Redis) failed: let the request through
            log.warning("quota store unavailable; request let through", exc_info=True)
            taken = []
        held = list(taken)

        async def send_releasing(message) -> None:
            # the slots are given back before the answer's last byte leaves, so a client's next request,
            # sent once it has the answer, finds them free
            if held and message["type"] == "http.response.body" and not message.get("more_body", False):
                await self._release(held)
                held.clear()
            await send(message)

        try:
            await self.app(scope, receive, send_releasing)
        finally:
            if held:
                await self._release(held)


async def _refuse(exc: QuotaExceeded, scope: Scope, receive: Receive, send: Send) -> None:
    """Answer 429 with ``Retry-After`` and the refusal as ``detail``."""
    response = JSONResponse({"detail": str(exc)}, status_code=429, headers={"Retry-After": str(exc.retry_after_s)})
    await response(scope, receive, send)


class JobLedger:
    """The background jobs (planning and analysis) each caller has queued or running, for ``QUOTA_JOBS``:
    a hash ``job id → submitted at`` per caller in Redis (every API process sees it), or in the process.
    Finished jobs are forgotten when the caller next submits one, and any entry older than ``max_age_s``
    (longer than a job may run) too. Two submissions checked at the same instant may both pass: the
    excess is bounded by ``QUOTA_HEAVY_CONCURRENT``."""

    def __init__(self, redis_url: str, max_age_s: float, prefix: str = "subflow:quota:jobs:") -> None:
        self.max_age_s, self.prefix = max_age_s, prefix
        self._redis = None
        if redis_url.startswith(("redis://", "rediss://", "unix://")):
            import redis

            self._redis = redis.Redis.from_url(redis_url, socket_timeout=2, socket_connect_timeout=2)
        self._memory: dict[str, dict[str, float]] = {}
        self._lock = threading.Lock()

    def _entries(self, caller: str) -> dict[str, float]:
        if self._redis is None:
            with self._lock:
                return dict(self._memory.get(caller, {}))
        return {k.decode(): float(v) for k, v in self._redis.hgetall(self.prefix + caller).items()}

    def _forget(self, caller: str, job_ids: list[str]) -> None:
        if not job_ids:
            return
        if self._redis is not None:
            self._redis.hdel(self.prefix + caller, *job_ids)
            return
        with self._lock:
            jobs = self._memory.get(caller, {})
            for job_id in job_ids:
                jobs.pop(job_id, None)
            if not jobs:
                self._memory.pop(caller, None)

    def check(self, caller: str, limit: int, finished: Callable[[str], bool]) -> None:
        """Raise :class:`~subflow.errors.QuotaExceeded` (``QUOTA_JOBS``) if ``caller`` has ``limit`` jobs not ``finished`` (0: off)."""
        if limit <= 0:
            return
        now = time.time()
        entries = self._entries(caller)
        done = [j for j, at in entries.items() if now - at > self.max_age_s or finished(j)]
        self._forget(caller, done)
        if len(entries) - len(done) >= limit:
            raise QuotaExceeded("QUOTA_JOBS", limit, "background jobs queued or running", 5)

    def add(self, caller: str, job_id: str) -> None:
        """Record a job ``caller`` submitted."""
        if self._redis is None:
            with self._lock:
                self._memory.setdefault(caller, {})[job_id] = time.time()
            return
        pipe = self._redis.pipeline(transaction=False)
        pipe.hset(self.prefix + caller, job_id, time.time())
        pipe.expire(self.prefix + caller, int(self.max_age_s))
        pipe.execute()


def make_store(redis_url: str, lease_s: int) -> QuotaStore:
    """:class:`RedisStore` on ``redis_url`` when it is a Redis URL, else a :class:`MemoryStore`."""
    if redis_url.startswith(("redis://", "rediss://", "unix://")):
        return RedisStore(redis_url, lease_s)
    return MemoryStore()
