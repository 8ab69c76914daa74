"""Heavy computations of a request (routes, allocations, failure analyses, coverage, timelines, imports) in a
pool of processes, so that the API process's own threads keep the interpreter lock.

Why: the planning code holds the GIL for the whole of a long computation (much of it in C extensions
that do not release it). Run in the API's thread pool, one 1.5 s all-pairs routes request made every
other request of the process wait up to 1.5 s: measured with one caller sending heavy requests back to
back, other users' read p99 was 1.65 s. In a separate process only the operating system shares the
cores, and the API's reads stay fast.

``INLINE_COMPUTE_PROCESSES`` processes (``spawn``: a fresh interpreter each, started on the first heavy
request and kept; 0: compute in the request's thread), at the scheduling priority
``INLINE_COMPUTE_NICE`` (``nice(2)``; 10 by default: when the cores are short, the API's own process —
every other user's reads — goes first; measured with one caller's heavy requests back to back). The request's thread waits for the
answer without holding the GIL; a domain error raised in the pool is raised again here with its
attributes (:func:`run`), so the API edge translates it the same way. A pool process that dies (killed,
out of memory) fails the requests it had (RuntimeError, 500) and the pool is made anew for the next.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from pydantic import BaseModel
from starlette.responses import Response

from subflow_backend.settings import settings

T = TypeVar("T")

_pool: ProcessPoolExecutor | None = None
_lock = threading.Lock()


def _call(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[bool, Any]:
    """In the pool: ``(True, fn(*args))``, or ``(False, (class, message, attributes))`` of the exception
    (an exception whose ``__init__`` takes other arguments than its message cannot be unpickled as is)."""
    try:
        return True, fn(*args)
    except Exception as exc:  # noqa: BLE001 - sent back and raised in the API process
        error = (type(exc), str(exc), dict(getattr(exc, "__dict__", {})))
        try:
            pickle.dumps(error)
        except Exception:  # noqa: BLE001 - an attribute that cannot travel: the message does
            error = (RuntimeError, f"{type(exc).__name__}: {exc}", {})
        return False, error


def _rebuild(cls: type[Exception], message: str, state: dict[str, Any]) -> Exception:
    try:
        exc = cls.__new__(cls)
        Exception.__init__(exc, message)
        vars(exc).update(state)
    except (TypeError, AttributeError):  # a class that cannot be made this way (C types)
        return RuntimeError(f"{cls.__name__}: {message}")
    return exc


def _exit_with(parent: int) -> None:
    """In a pool process: end it once the API process that made it is gone (killed without shutting its pool
    down, e.g. ``kill -9``), instead of waiting for work forever."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


def _start(nice: int) -> None:
    """Initializer of a pool process: lower its priority, end with its parent, load the planning code before the
    first request."""
    os.nice(nice)
    threading.Thread(target=_exit_with, args=(os.getppid(),), name="exit-with-parent", daemon=True).start()
    import subflow.analysis.failures  # noqa: F401
    import subflow.analysis.planning  # noqa: F401


def warm() -> None:
    """Start the pool's processes now (the API's start-up), so the first heavy request does not wait for them."""
    if settings.INLINE_COMPUTE_PROCESSES > 0:
        pool = _executor()
        for future in [pool.submit(int) for _ in range(settings.INLINE_COMPUTE_PROCESSES)]:
            future.result()


def _executor() -> ProcessPoolExecutor:
    global _pool  # noqa: PLW0603 - one pool per API process, made on first use
    with _lock:
        if _pool is None:
            _pool = ProcessPoolExecutor(max_workers=settings.INLINE_COMPUTE_PROCESSES,
                                        mp_context=multiprocessing.get_context("spawn"),
                                        initializer=_start, initargs=(settings.INLINE_COMPUTE_NICE,))
        return _pool


def _discard(pool: ProcessPoolExecutor) -> None:
    global _pool  # noqa: PLW0603
    with _lock:
        if _pool is pool:
            _pool = None
    pool.shutdown(wait=False, cancel_futures=True)


def run(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` computed in the pool (``fn`` and ``args`` picklable: a module-level function and plain
    data); in this thread when ``INLINE_COMPUTE_PROCESSES`` is 0. Raises what ``fn`` raised (same class,
    message and attributes), or RuntimeError if the pool process died."""
    if settings.INLINE_COMPUTE_PROCESSES <= 0:
        return fn(*args)
    pool = _executor()
    try:
        ok, value = pool.submit(_call, fn, args).result()
    except BrokenProcessPool as exc:
        _discard(pool)
        raise RuntimeError(f"the computing process died: {exc}") from None
    if ok:
        return value
    raise _rebuild(*value)



def _json_of(model: type[BaseModel], fn: Callable[..., Any], args: tuple[Any, ...]) -> str:
    """In the pool: ``fn(*args)`` validated as ``model`` and serialized to JSON (as FastAPI would answer it)."""
    return model.model_validate(fn(*args)).model_dump_json(by_alias=True)


def run_json(model: type[BaseModel], fn: Callable[..., Any], *args: Any) -> Response:
    """:func:`run` of ``fn(*args)``, answered as the JSON of ``model`` made in the pool too: a large answer
    (thousands of routes) is validated and serialized there, not in the API process. Raises as :func:`run`."""
    return Response(content=run(_json_of, model, fn, args), media_type="application/json")
