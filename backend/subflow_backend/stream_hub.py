"""Progress streams multiplexed: one poller per followed thing, shared by all its subscribers.

Before, each open progress stream (``GET .../events``) read its comparison row or job state on its own
every half second: 300 streams of one comparison were 600 database reads a second (measured: other
users' read latency rose from 6 ms to 843 ms). Here a :class:`StreamHub` keeps one *topic* per key (a
comparison, a job): a single task reads the state (in the thread pool: the read may touch the database),
at ``first_poll_s`` after the topic opens and after each change, backing off ×1.5 per unchanged read to
``poll_s``; every subscriber waits on the topic's change event and is told the newest state. The topic
and its task end when its last subscriber leaves, so an idle hub holds nothing (no state per closed
stream is kept).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from starlette.concurrency import run_in_threadpool

log = logging.getLogger(__name__)

T = TypeVar("T")
Event = tuple[Literal["state", "gone", "keepalive"], Any]


@dataclass
class _Topic(Generic[T]):
    """The shared state of one key: the newest ``state``, its ``version`` (bumped at each change), the
    ``changed`` event (replaced at each change), and how it ended (``finished``, ``gone``, ``failed``)."""

    state: T | None = None
    version: int = 0
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    subscribers: int = 0
    task: asyncio.Task | None = None
    finished: bool = False
    gone: bool = False
    failed: bool = False

    def publish(self) -> None:
        self.version += 1
        event, self.changed = self.changed, asyncio.Event()
        event.set()


class StreamHub:
    """The topics of one API process (see the module's docstring)."""

    def __init__(self) -> None:
        self._topics: dict[Hashable, _Topic] = {}

    @property
    def topics(self) -> int:
        """Topics open now (each has one poller)."""
        return len(self._topics)

    async def _poll(self, topic: _Topic, read: Callable[[], T | None], finished: Callable[[T], bool],
                    poll_s: float, first_poll_s: float) -> None:
        wait_s = min(first_poll_s, poll_s)
        try:
            while True:
                state = await run_in_threadpool(read)
                if state is None:
                    topic.gone = True
                    topic.publish()
                    return
                if topic.version == 0 or state != topic.state:
                    topic.state = state
                    topic.finished = finished(state)
                    topic.publish()
                    if topic.finished:
                        return
                    wait_s = min(first_poll_s, poll_s)
                await asyncio.sleep(wait_s)
                wait_s = min(poll_s, wait_s * 1.5)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - told to the subscribers, which end their streams
            log.exception("progress poller failed")
            topic.failed = True
            topic.publish()

    def _open(self, key: Hashable, read: Callable[[], T | None], finished: Callable[[T], bool],
              poll_s: float, first_poll_s: float) -> _Topic:
        topic = self._topics.get(key)
        if topic is None or topic.failed:
            topic = _Topic()
            self._topics[key] = topic
            topic.task = asyncio.get_running_loop().create_task(self._poll(topic, read, finished, poll_s, first_poll_s))
        topic.subscribers += 1
        return topic

    def _close(self, key: Hashable, topic: _Topic) -> None:
        topic.subscribers -= 1
        if topic.subscribers > 0:
            return
        if topic.task is not None and not topic.task.done():
            topic.task.cancel()
        if self._topics.get(key) is topic:
            del self._topics[key]

    async def follow(self, key: Hashable, read: Callable[[], T | None], finished: Callable[[T], bool],
                     poll_s: float, first_poll_s: float, keepalive_s: float) -> AsyncIterator[Event]:
        """Follow ``key``: yields ``("state", state)`` for the newest state when the stream starts and at each
        change, ``("gone", last)`` once if ``read`` returned None (``last``: the last state yielded), and
        ``("keepalive", None)`` after ``keepalive_s`` seconds without a change. It ends after a state for
        which ``finished`` is true, after ``gone``, or if the poller failed (logged). ``read`` and ``finished``
        of the first subscriber of a key serve every later one: the same key must mean the same read."""
        topic = self._open(key, read, finished, poll_s, first_poll_s)
        seen, last = 0, None
        quiet_since = time.monotonic()
        try:
            while True:
                if topic.version != seen:
                    seen = topic.version
                    quiet_since = time.monotonic()
                    if topic.failed:
                        return
                    if topic.gone:
                        yield "gone", last
                        return
                    last = topic.state
                    yield "state", last
                    if topic.finished:
                        return
                    continue
                timeout = keepalive_s - (time.monotonic() - quiet_since)
                try:
                    await asyncio.wait_for(topic.changed.wait(), max(timeout, 0.0))
                except TimeoutError:
                    quiet_since = time.monotonic()
                    yield "keepalive", None
        finally:
            self._close(key, topic)


#: The hub of this API process.
hub = StreamHub()
