"""Per-caller quotas (subflow_backend.quotas): concurrency, heavy, stream and rate quotas per token,
429 + Retry-After naming the setting, other callers untouched; the in-process and the Redis store."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid

import httpx
import pytest
from starlette.responses import PlainTextResponse
from subflow.errors import QuotaExceeded
from subflow.service.observability import RequestContext

from subflow_backend.quotas import (
    CallerQuotas,
    JobLedger,
    MemoryStore,
    Quotas,
    RedisStore,
    caller_key,
    request_kind,
)


class SlowApp:
    """Holds each request ``hold_s`` seconds; records the most requests inside at once."""

    def __init__(self, hold_s: float):
        self.hold_s, self.inside, self.most_inside = hold_s, 0, 0

    async def __call__(self, scope, receive, send):
        self.inside += 1
        self.most_inside = max(self.most_inside, self.inside)
        try:
            await asyncio.sleep(self.hold_s)
        finally:
            self.inside -= 1
        await PlainTextResponse("ok")(scope, receive, send)


def _quotas(**kw: int) -> Quotas:
    base = {"concurrent": 0, "heavy_concurrent": 0, "streams": 0, "requests_per_minute": 0, "heavy_per_minute": 0}
    return Quotas(**{**base, **kw})


async def _send(app, calls: list[tuple[str, str, str]]) -> list[httpx.Response]:
    """(method, path, token) each, all at once."""
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
        return await asyncio.gather(*(client.request(m, p, headers={"Authorization": f"Bearer {t}"})
                                      for m, p, t in calls))


def test_request_kinds():
    assert request_kind("POST", "/api/scenarios/abc/routes") == "heavy"
    assert request_kind("POST", "/api/scenarios/abc/failures") == "heavy"
    assert request_kind("POST", "/api/coverage") == "heavy"
    assert request_kind("POST", "/api/imports") == "heavy"
    assert request_kind("POST", "/api/timeline") == "heavy"
    assert request_kind("POST", "/api/scenarios/abc/nodes/n1/track") == "heavy"
    assert request_kind("GET", "/api/scenarios/abc/routes") == "light"
    assert request_kind("POST", "/api/scenarios/abc/comparisons") == "light"
    assert request_kind("GET", "/api/scenarios/abc/comparisons/c1/events") == "stream"
    assert request_kind("GET", "/api/jobs/j1/events") == "stream"
    assert request_kind("GET", "/api/health") is None
    assert request_kind("POST", "/api/auth/login") is None
    assert request_kind("GET", "/index.html") is None


def test_caller_key_is_a_hash_of_the_credential_never_the_secret():
    scope = {"headers": [(b"authorization", b"Bearer sft_secret")], "client": ("10.0.0.1", 5)}
    key = caller_key(scope)
    assert key.startswith("t:") and "secret" not in key and len(key) == 34
    cookie = {"headers": [(b"cookie", b"a=b; subflow_session=xyz")], "client": ("10.0.0.1", 5)}
    assert caller_key(cookie).startswith("c:") and caller_key(cookie) != key
    assert caller_key({"headers": [], "client": ("10.0.0.9", 5)}) == "a:10.0.0.9"


def test_heavy_concurrency_quota_refuses_the_excess_of_one_caller_and_not_the_others():
    inner = SlowApp(0.2)
    app = CallerQuotas(inner, _quotas(heavy_concurrent=2), MemoryStore())
    calls = [("POST", "/api/scenarios/s/routes", "greedy")] * 6 + [("POST", "/api/scenarios/s/routes", "other")] * 2
    responses = asyncio.run(_send(app, calls))
    greedy = [r.status_code for r in responses[:6]]
    assert sorted(greedy) == [200, 200, 429, 429, 429, 429]
    assert [r.status_code for r in responses[6:]] == [200, 200]
    refused = next(r for r in responses if r.status_code == 429)
    assert refused.headers["retry-after"] == "1"
    assert "QUOTA_HEAVY_CONCURRENT = 2" in refused.json()["detail"]
    assert inner.most_inside == 4
    assert app.store._slots == {}  # every slot given back  # noqa: SLF001


def test_stream_quota_counts_open_streams_only():
    app = CallerQuotas(SlowApp(0.2), _quotas(streams=1, concurrent=1), MemoryStore())
    calls = [("GET", "/api/jobs/j/events", "a"), ("GET", "/api/jobs/k/events", "a"), ("GET", "/api/scenarios", "a")]
    codes = [r.status_code for r in asyncio.run(_send(app, calls))]
    assert sorted(codes[:2]) == [200, 429] and codes[2] == 200


def test_rate_quota_names_the_setting_and_the_rest_of_the_minute():
    app = CallerQuotas(SlowApp(0), _quotas(requests_per_minute=3), MemoryStore())
    responses = asyncio.run(_send(app, [("GET", "/api/scenarios", "a")] * 5 + [("GET", "/api/scenarios", "b")]))
    assert sorted(r.status_code for r in responses[:5]) == [200, 200, 200, 429, 429]
    assert responses[5].status_code == 200
    refused = next(r for r in responses if r.status_code == 429)
    assert "QUOTA_REQUESTS_PER_MINUTE = 3" in refused.json()["detail"]
    assert 1 <= int(refused.headers["retry-after"]) <= 60


def test_redis_store_shares_slots_and_gives_them_back():
    redis = pytest.importorskip("redis")
    url = "redis://127.0.0.1:6379/9"
    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except redis.exceptions.ConnectionError:
        pytest.skip("no Redis at 127.0.0.1:6379")

    async def run() -> tuple[list[bool], list[bool], bool]:
        a, b = RedisStore(url, 60, prefix=f"test-{uuid.uuid4().hex}:"), None
        b = RedisStore(url, 60, prefix=a.prefix)  # another API process on the same counters
        took = [await a.acquire("k", 2), await b.acquire("k", 2), await a.acquire("k", 2)]
        await a.release("k")
        again = await b.acquire("k", 2)
        hits = [await a.hit("r", 2, 60) for _ in range(3)]
        await a.release("k")
        await b.release("k")
        left = await a._redis().exists(a.prefix + "k")  # noqa: SLF001
        await a._redis().aclose()  # noqa: SLF001
        await b._redis().aclose()  # noqa: SLF001
        return took + [again], hits, bool(left)

    took, hits, left = asyncio.run(run())
    assert took == [True, True, False, True]
    assert hits == [True, True, False]
    assert not left


def test_job_ledger_counts_unfinished_jobs_per_caller():
    ledger = JobLedger("", max_age_s=3600)
    done: set[str] = set()
    for job in ("j1", "j2"):
        ledger.check("a", 2, done.__contains__)
        ledger.add("a", job)
    with pytest.raises(QuotaExceeded, match="QUOTA_JOBS = 2"):
        ledger.check("a", 2, done.__contains__)
    ledger.check("b", 2, done.__contains__)  # another caller
    done.add("j1")
    ledger.check("a", 2, done.__contains__)  # j1 finished: forgotten
    done.add("j2")
    ledger.check("a", 2, done.__contains__)
    assert ledger._memory == {}  # noqa: SLF001


def test_job_ledger_forgets_jobs_older_than_max_age():
    ledger = JobLedger("", max_age_s=0.01)
    ledger.add("a", "j1")
    import time

    time.sleep(0.05)
    ledger.check("a", 1, lambda _job: False)


class CountingStore(MemoryStore):
    """The in-process store, counting how often a request reaches it."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    async def acquire(self, key: str, limit: int) -> bool:
        self.calls += 1
        return await super().acquire(key, limit)

    async def hit(self, key: str, limit: int, window_s: int) -> bool:
        self.calls += 1
        return await super().hit(key, limit, window_s)


def test_a_rate_refusal_is_answered_from_memory_until_its_window_ends():
    store = CountingStore()
    app = CallerQuotas(SlowApp(0), _quotas(requests_per_minute=2), store)

    async def run():
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            out = []
            for token in ["a"] * 3 + ["a"] * 40 + ["b"]:
                out.append(await client.get("/api/scenarios", headers={"Authorization": f"Bearer {token}"}))
            return out

    minute_left = 60 - time.time() % 60
    if minute_left < 2:  # the window would end inside the test
        time.sleep(minute_left + 0.1)
    responses = asyncio.run(run())
    assert [r.status_code for r in responses[:3]] == [200, 200, 429]
    calls_at_first_refusal = 3
    assert all(r.status_code == 429 for r in responses[3:43])
    assert all("QUOTA_REQUESTS_PER_MINUTE = 2" in r.json()["detail"] for r in responses[2:43])
    assert all(1 <= int(r.headers["retry-after"]) <= 60 for r in responses[2:43])
    assert responses[43].status_code == 200  # another caller: its own count
    assert store.calls == calls_at_first_refusal + 1  # the 40 repeats never reached the store; b's did


def test_a_concurrency_refusal_is_remembered_only_briefly():
    store = CountingStore()
    app = CallerQuotas(SlowApp(0.3), _quotas(heavy_concurrent=1), store, refusal_memory_s=0.1)

    async def run():
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            post = lambda: client.post("/api/coverage", headers={"Authorization": "Bearer a"})  # noqa: E731
            first = asyncio.create_task(post())
            await asyncio.sleep(0.02)  # the first holds the caller's one heavy slot
            refused = await post()
            calls_at_refusal = store.calls
            again = await post()  # at once: from memory, the store not asked
            calls_after_again = store.calls
            first = await first
            await asyncio.sleep(0.15)  # the slot is free and the memory has passed
            later = await post()
            return first, refused, again, later, calls_at_refusal, calls_after_again

    first, refused, again, later, calls_at_refusal, calls_after_again = asyncio.run(run())
    assert first.status_code == 200
    assert refused.status_code == 429 and again.status_code == 429 and again.headers["retry-after"] == "1"
    assert "QUOTA_HEAVY_CONCURRENT = 1" in again.json()["detail"]
    assert calls_after_again == calls_at_refusal
    assert later.status_code == 200


def test_refusals_from_memory_are_logged_at_debug(caplog):
    app = RequestContext(CallerQuotas(SlowApp(0), _quotas(requests_per_minute=1), MemoryStore()), "test.quota")

    async def run():
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            return [(await client.get("/api/scenarios", headers={"Authorization": "Bearer a"})).status_code
                    for _ in range(5)]

    if 60 - time.time() % 60 < 2:
        time.sleep(60 - time.time() % 60 + 0.1)
    with caplog.at_level(logging.DEBUG, logger="test.quota"):
        codes = asyncio.run(run())
    assert codes == [200, 429, 429, 429, 429]
    levels = [(r.levelno, r.status) for r in caplog.records if r.name == "test.quota"]
    assert levels == [(logging.INFO, 200), (logging.INFO, 429)] + [(logging.DEBUG, 429)] * 3
