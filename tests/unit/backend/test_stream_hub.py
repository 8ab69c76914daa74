"""Progress streams multiplexed (subflow_backend.stream_hub): one read per tick for all the
subscribers of a key, each told every change, nothing left once they have gone."""

from __future__ import annotations

import asyncio

from subflow_backend.stream_hub import StreamHub


def test_many_subscribers_share_one_poller_and_the_hub_empties():
    hub = StreamHub()
    reads = {"n": 0}
    states = iter([1, 1, 2, 2, 3] + [3] * 1000)

    def read() -> int:
        reads["n"] += 1
        return next(states)

    async def subscriber() -> list:
        return [e async for e in hub.follow("k", read, lambda s: s == 3, 0.01, 0.01, 60)]

    async def run() -> list[list]:
        return await asyncio.gather(*(subscriber() for _ in range(50)))

    seen = asyncio.run(run())
    assert all(s == [("state", 1), ("state", 2), ("state", 3)] for s in seen)
    assert reads["n"] == 5  # the states 1 1 2 2 3, once each for 50 subscribers
    assert hub.topics == 0


def test_gone_and_keepalive_and_early_leave():
    hub = StreamHub()

    async def run() -> tuple[list, list, int]:
        gone = [e async for e in hub.follow("g", iter([5, None]).__next__, lambda s: False, 0.01, 0.01, 60)]
        ticks = []
        async for e in hub.follow("q", lambda: 7, lambda s: False, 0.01, 0.01, 0.05):
            ticks.append(e)
            if len(ticks) == 3:
                break
        await asyncio.sleep(0.02)
        return gone, ticks, hub.topics

    gone, ticks, topics = asyncio.run(run())
    assert gone == [("state", 5), ("gone", 5)]
    assert ticks == [("state", 7), ("keepalive", None), ("keepalive", None)]
    assert topics == 0
