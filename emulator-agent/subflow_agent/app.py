"""Emulator agent HTTP API.

Executes :class:`subflow.runplan.document.RunPlan` documents on an engine of
:mod:`subflow_engines` (the engines are a library; this module is HTTP only) in
background threads. Every endpoint but ``/health`` requires ``Authorization: Bearer
<AGENT_TOKEN>``.

Run with ``uvicorn subflow_agent.app:app --port 8001``.
"""

from __future__ import annotations

import asyncio
import contextvars
import hmac
import logging
import threading
from contextlib import asynccontextmanager
import time
import uuid
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated

from fastapi import Depends, FastAPI, Header, HTTPException, Query, status
from fastapi.responses import JSONResponse

from subflow.errors import EngineCannotRun, RunCancelled, SubflowError, UnknownEngine
from subflow.results.document import EngineOutput
from subflow.runplan.document import RunPlan
from subflow.service.agent_api import AgentHealth, Capabilities, RunPublic
from subflow.service.observability import configure_logging

from subflow_agent import observability
from subflow_agent.settings import AgentSettings
from subflow_engines import all_engines, get_engine, startup

settings = AgentSettings()
configure_logging("agent")
log = logging.getLogger("subflow_agent.runs")


#: seconds the agent's shutdown waits for its runs to stop and tear down
SHUTDOWN_WAIT_S = 60.0


@asynccontextmanager
async def lifespan(_app: FastAPI):
    """Probe the host's engines and clean up what dead runs left behind, before serving; at
    shutdown (uvicorn's, on SIGTERM or SIGINT), cancel every queued or running run and wait for
    their teardown (:func:`stop_runs`)."""
    startup()
    yield
    await asyncio.to_thread(stop_runs, SHUTDOWN_WAIT_S)


def stop_runs(timeout_s: float) -> list[str]:
    """Ask every queued or running run to stop and wait up to ``timeout_s`` seconds for each to
    end (a ``linux`` run tears its namespaces and processes down before it ends). Returns the ids
    of the runs still under way after the wait."""
    with _lock:
        runs = [r for r in _runs.values() if r.status in ("queued", "running")]
    for run in runs:
        run.cancel.set()
    deadline = time.monotonic() + timeout_s
    for run in runs:
        with run.changed:
            run.changed.wait_for(lambda run=run: run.status not in ("queued", "running"),
                                 timeout=max(0.0, deadline - time.monotonic()))
    return [r.id for r in runs if r.status in ("queued", "running")]


app = FastAPI(title="Subflow emulator agent", version="0.1.0", lifespan=lifespan)
app.add_middleware(observability.request_context)  # request / comparison ids, access lines, latency


class _Run:
    def __init__(self, plan: RunPlan):
        self.id = uuid.uuid4().hex
        self.plan = plan
        self.status = "queued"
        self.progress = 0.0
        self.error: str | None = None
        self.output: EngineOutput | None = None
        self.cancel = threading.Event()
        #: notified on every change of status or progress (long polls wait on it)
        self.changed = threading.Condition()

    def set(self, **fields: object) -> None:
        """Change status / progress / error / output and wake the long polls."""
        with self.changed:
            for name, value in fields.items():
                setattr(self, name, value)
            self.changed.notify_all()

    def wait(self, timeout_s: float, min_step: float = 0.02, min_interval_s: float = 0.0) -> None:
        """Block until the run finishes, or its progress has advanced by ``min_step`` and ``min_interval_s`` have
        passed, or ``timeout_s`` (seconds) have passed."""
        start = self.progress
        now = time.monotonic()
        end, earliest = now + timeout_s, now + min(min_interval_s, timeout_s)
        with self.changed:
            while self.status in ("queued", "running") and now < end:
                if self.progress - start >= min_step:
                    if now >= earliest:
                        return
                    self.changed.wait(timeout=earliest - now)  # woken early only to tell the end
                else:
                    self.changed.wait(timeout=end - now)
                now = time.monotonic()

    def public(self, with_output: bool = True) -> RunPublic:
        return RunPublic(
            id=self.id,
            status=self.status,
            engine=self.plan.engine,
            strategy=self.plan.strategy,
            progress=round(self.progress, 4),
            error=self.error,
            output=self.output if with_output else None,
        )


_runs: "OrderedDict[str, _Run]" = OrderedDict()
_lock = threading.Lock()
_pool = ThreadPoolExecutor(max_workers=settings.agent_max_parallel_runs, thread_name_prefix="run")


def require_token(authorization: Annotated[str | None, Header()] = None) -> None:
    """Check the shared bearer token (constant-time); 401 otherwise."""
    expected = f"Bearer {settings.agent_token}"
    if authorization is None or not hmac.compare_digest(authorization.encode(), expected.encode()):
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "missing or wrong bearer token")


Auth = Annotated[None, Depends(require_token)]


@app.exception_handler(UnknownEngine)
async def _unknown_engine(_request, exc: UnknownEngine) -> JSONResponse:
    return JSONResponse(
        status_code=422,
        content={"detail": [{"loc": ["body", "engine"], "msg": str(exc), "type": "unknown_engine"}]},
    )


@app.exception_handler(EngineCannotRun)
async def _cannot_run(_request, exc: EngineCannotRun) -> JSONResponse:
    return JSONResponse(
        status_code=422,
        content={"detail": [{"loc": ["body"], "msg": str(exc), "type": "engine_cannot_run"}]},
    )


@app.get("/health", response_model=AgentHealth)
def health() -> AgentHealth:
    """Liveness: ``{"status": "ok"}``."""
    return AgentHealth(status="ok")


@app.get("/capabilities", response_model=Capabilities)
def capabilities(_: Auth) -> Capabilities:
    """Engines on this host and what each supports:
    ``{"engines": [{"name", "description", "available", "strategies", "supports"}]}``
    (:class:`subflow.capabilities.Capabilities`)."""
    return Capabilities.model_validate({"engines": [e.capabilities() for e in all_engines().values()]})


@app.get("/metrics", include_in_schema=False)
def metrics(_: Auth):
    """Prometheus metrics (text format; see :mod:`subflow_agent.observability`)."""
    return observability.metrics_response()


def _execute(run: _Run) -> None:
    if run.cancel.is_set():
        run.set(status="cancelled")
        return
    run.set(status="running")
    budget = settings.agent_run_time_budget_s
    deadline = time.monotonic() + budget
    over_budget = threading.Event()

    def should_stop() -> bool:
        if time.monotonic() > deadline:
            over_budget.set()
            return True
        return run.cancel.is_set()

    try:
        engine = get_engine(run.plan.engine)

        def progress(p: float) -> None:
            run.set(progress=p)

        output = engine.run_unchecked(run.plan, on_progress=progress, should_stop=should_stop)
        if engine.check_output is not None:  # a measured result that cannot be fails the run, naming where
            engine.check_output(run.plan, output)
        run.set(output=output, progress=1.0, status="succeeded")
    except RunCancelled:
        if over_budget.is_set():
            run.set(status="failed", error=f"time budget of {budget:g} s exceeded; the run was stopped")
        else:
            run.set(status="cancelled")
    except SubflowError as exc:
        run.set(status="failed", error=str(exc))
    except Exception as exc:  # an engine bug must not kill the agent; report it on the run
        run.set(status="failed", error=f"engine error: {type(exc).__name__}: {exc}")


def _execute_observed(run: _Run) -> None:
    """:func:`_execute` (in a pool thread, in the context of the request that created the run), then
    record the run's engine time and write its ``run finished`` line."""
    started = time.monotonic()
    observability.RUNS_ACTIVE.inc()
    try:
        _execute(run)
    finally:
        observability.RUNS_ACTIVE.dec()
        engine_s = time.monotonic() - started
        observability.ENGINE_SECONDS.labels(run.plan.engine, run.status).observe(engine_s)
        log.info("run finished", extra={"run_id": run.id, "engine": run.plan.engine, "strategy": run.plan.strategy,
                                        "status": run.status, "engine_s": round(engine_s, 4), "error": run.error})


@app.post("/runs", status_code=status.HTTP_202_ACCEPTED, response_model=RunPublic)
def create_run(plan: RunPlan, _: Auth) -> RunPublic:
    """Queue ``plan`` (a :class:`subflow.runplan.document.RunPlan`) for execution.

    Returns 202 with the run (status ``queued``). 422 if the plan is malformed,
    names an engine this host does not have, or asks the engine for something
    this host cannot do (the message names the parameter).
    """
    info = get_engine(plan.engine)
    info.check(plan)  # EngineCannotRun (a field not honoured, a host limit) -> 422 before anything starts
    run = _Run(plan)
    with _lock:
        _runs[run.id] = run
        while len(_runs) > settings.agent_keep_runs:
            oldest_id, oldest = next(iter(_runs.items()))
            if oldest.status in ("queued", "running"):
                break
            _runs.pop(oldest_id)
    _pool.submit(contextvars.copy_context().run, _execute_observed, run)  # the run's lines keep this request's ids
    return run.public(with_output=False)


def _get(run_id: str) -> _Run:
    run = _runs.get(run_id)
    if run is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"run {run_id!r} not found")
    return run


@app.get("/runs/{run_id}", response_model=RunPublic)
def get_run(
    run_id: str, _: Auth,
    wait_s: Annotated[float, Query(ge=0, le=30, description="Long poll: answer when the run finishes or its "
                                                            "progress advances by 0.02, at most after this.")] = 0.0,
    min_interval_s: Annotated[float, Query(ge=0, le=30, description="With wait_s: a progress step is answered no "
                                                                    "sooner than this after the request (the end at "
                                                                    "once).")] = 0.0,
) -> RunPublic:
    """Status, progress (0–1) and, once ``succeeded``, the engine output. With ``wait_s`` the answer
    comes as soon as something worth telling happens (no polling interval on the client); with ``min_interval_s``
    a fast run's progress steps are told at most that often (each answer costs this process time beside its
    engine threads), its end still at once."""
    run = _get(run_id)
    if wait_s > 0:
        run.wait(wait_s, min_interval_s=min_interval_s)
    return run.public()


@app.delete("/runs/{run_id}", response_model=RunPublic)
def cancel_run(run_id: str, _: Auth) -> RunPublic:
    """Ask a queued or running run to stop; it ends as ``cancelled``."""
    run = _get(run_id)
    run.cancel.set()
    return run.public(with_output=False)
