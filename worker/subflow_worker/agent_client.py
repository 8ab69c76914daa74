"""HTTP client of the emulator agent (contract in DEVELOPERS.md).

:meth:`AgentClient.run` submits a :class:`subflow.runplan.document.RunPlan`, polls it until
it finishes and returns its :class:`subflow.results.document.EngineOutput`, so it can be
the *runner* of :func:`subflow.comparison.compare.compare`.

Errors
------
:class:`subflow.errors.AgentUnavailable` (transient, worth a retry)
    Connection refused, DNS failure, timeout, HTTP 5xx, or the agent no longer
    knows a run it accepted (restarted).
:class:`subflow.errors.AgentRejected` (permanent)
    HTTP 4xx (bad token, malformed plan, unknown engine) with the agent's
    message, a run that ends ``failed`` or ``cancelled``, a malformed output, or
    a run that does not finish before the deadline.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from subflow.errors import AgentRejected, AgentUnavailable
from subflow.results.document import EngineOutput
from subflow.runplan.document import RunPlan
from subflow.service.agent_api import Capabilities, RunPublic
from subflow.service.observability import outgoing_headers

log = logging.getLogger(__name__)

ProgressCallback = Callable[[float], None]
#: Longest wait of one long poll of a run (``GET /runs/{id}?wait_s=``), seconds.
LONG_POLL_S = 5.0
#: Polls of one run that may time out in a row before :meth:`AgentClient.run` gives the run up.
POLL_TIMEOUTS_TOLERATED = 3
_M = TypeVar("_M", bound=BaseModel)


def _reason(exc: httpx.TransportError) -> str:
    text = str(exc) or type(exc).__name__
    if isinstance(exc, httpx.ConnectError) and "refused" in text.lower():
        return "connection refused"
    if isinstance(exc, httpx.TimeoutException):
        return f"timed out ({type(exc).__name__})"
    return text


def _agent_message(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text.strip()[:500] or response.reason_phrase
    detail = body.get("detail", body) if isinstance(body, dict) else body
    if isinstance(detail, list):
        parts = []
        for d in detail:
            if isinstance(d, dict):
                loc = ".".join(str(p) for p in d.get("loc", []))
                parts.append(f"{loc}: {d.get('msg', '')}" if loc else str(d.get("msg", d)))
            else:
                parts.append(str(d))
        return "; ".join(parts)
    return str(detail)


class AgentClient:
    """Synchronous client of one emulator agent.

    Parameters
    ----------
    base_url : str
        e.g. ``http://127.0.0.1:8001``.
    token : str
        Bearer token (``AGENT_TOKEN``).
    timeout_s : float
        Per HTTP request (connect, read, write), seconds.
    poll_interval_s : float
        Longest wait between two status polls, seconds (polling starts faster).
    deadline_s : float
        Longest wall-clock time of one run, from submission, seconds.
    progress_interval_s : float
        Shortest time between two progress answers of one run's long poll, seconds (its end is told at once):
        a caller that writes progress no more often than this asks for no more.
    transport : httpx.BaseTransport, optional
        For an in-process agent (``httpx.WSGITransport``/tests); default network.
    """

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        timeout_s: float = 10.0,
        poll_interval_s: float = 0.25,
        deadline_s: float = 900.0,
        progress_interval_s: float = 0.0,
        transport: httpx.BaseTransport | None = None,
    ):
        self.base_url = base_url.rstrip("/")
        self.poll_interval_s = poll_interval_s
        self.progress_interval_s = progress_interval_s
        self.timeout_s = timeout_s
        self.deadline_s = deadline_s
        self._http = httpx.Client(
            base_url=self.base_url,
            # the request and comparison ids of the task creating the client (X-Request-ID, X-Comparison-ID)
            headers={"Authorization": f"Bearer {token}", **outgoing_headers()},
            timeout=timeout_s,
            transport=transport,
        )

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def __enter__(self) -> "AgentClient":
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()

    def _request(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.TransportError as exc:
            raise AgentUnavailable(_reason(exc)) from exc
        if response.status_code >= 500:
            raise AgentUnavailable(
                f"HTTP {response.status_code} on {method} {path}: {_agent_message(response)}"
            )
        if response.status_code >= 400:
            if response.status_code == 404 and method == "GET" and path.startswith("/runs/"):
                raise AgentUnavailable(f"the agent no longer knows {path} (restarted?)")
            raise AgentRejected(
                f"agent refused {method} {path} (HTTP {response.status_code}): {_agent_message(response)}"
            )
        try:
            body = response.json()
        except ValueError:
            raise AgentRejected(f"agent answered {method} {path} with non-JSON content") from None
        if not isinstance(body, dict):
            raise AgentRejected(f"agent answered {method} {path} with {type(body).__name__}, not an object")
        return body

    def capabilities(self) -> Capabilities:
        """``GET /capabilities``: ``{"engines": [{name, description, available, strategies, supports}]}``."""
        return self._validated(Capabilities, "GET", "/capabilities", self._request("GET", "/capabilities"))

    @staticmethod
    def _validated(model: type[_M], method: str, path: str, body: dict[str, Any]) -> _M:
        try:
            return model.model_validate(body)
        except ValidationError as exc:
            raise AgentRejected(f"agent answered {method} {path} with a malformed {model.__name__}: {exc}") from None

    def submit(self, plan: RunPlan) -> str:
        """``POST /runs``; returns the run id."""
        body = self._request("POST", "/runs", json=plan.model_dump(mode="json"))
        run = self._validated(RunPublic, "POST", "/runs", body)
        if not run.id:
            raise AgentRejected("agent accepted the run but returned no id")
        return run.id

    def status(self, run_id: str, wait_s: float = 0.0, min_interval_s: float = 0.0) -> RunPublic:
        """``GET /runs/{id}``: ``{id, status, progress, error, output}`` (output validated as
        :class:`~subflow.results.document.EngineOutput`; a malformed one raises :class:`AgentRejected`).
        ``wait_s`` > 0 long-polls: the agent answers when the run finishes or progresses (a progress step no
        sooner than ``min_interval_s`` after asking), at most after ``wait_s`` seconds."""
        params = {"wait_s": f"{wait_s:g}"} if wait_s > 0 else None
        if params is not None and min_interval_s > 0:
            params["min_interval_s"] = f"{min_interval_s:g}"
        return self._validated(RunPublic, "GET", f"/runs/{run_id}",
                               self._request("GET", f"/runs/{run_id}", params=params))

    def cancel(self, run_id: str) -> None:
        """``DELETE /runs/{id}``, best effort (errors are logged, not raised)."""
        try:
            self._request("DELETE", f"/runs/{run_id}")
        except (AgentUnavailable, AgentRejected) as exc:
            log.warning("could not cancel agent run %s: %s", run_id, exc)

    def run(self, plan: RunPlan, on_progress: ProgressCallback | None = None) -> EngineOutput:
        """Execute ``plan`` on the agent and wait for its output.

        ``on_progress`` receives the run's progress in [0, 1] at every poll.
        If anything interrupts the wait (deadline, a callback's exception,
        a task time limit), the agent run is cancelled.

        A poll that times out is asked again, up to :data:`POLL_TIMEOUTS_TOLERATED` times in a
        row (a busy agent answers late; the run goes on there); any other unavailability ends the wait.

        Raises
        ------
        AgentUnavailable, AgentRejected
            See the module docstring.
        """
        started = time.monotonic()
        run_id = self.submit(plan)
        finished = False
        long_poll_s = max(0.0, min(LONG_POLL_S, self.timeout_s - 1.0))
        try:
            wait = min(0.05, self.poll_interval_s)
            last_progress = -1.0
            timeouts = 0
            while True:
                asked = time.monotonic()
                try:
                    run = self.status(run_id, wait_s=long_poll_s, min_interval_s=self.progress_interval_s)
                except AgentUnavailable as exc:
                    # a poll that timed out reached an agent that is busy, not gone: ask again, a few
                    # times, rather than give the run up (the task's retry would submit it anew)
                    if not isinstance(exc.__cause__, httpx.TimeoutException) or timeouts >= POLL_TIMEOUTS_TOLERATED:
                        raise
                    timeouts += 1
                    log.warning("agent run %s: poll %d timed out (%s); asking again", run_id, timeouts, exc)
                    continue
                timeouts = 0
                state = run.status
                if on_progress is not None:
                    on_progress(run.progress)
                if state == "succeeded":
                    finished = True
                    if run.output is None:
                        raise AgentRejected(f"agent run {run_id} succeeded without an output")
                    return run.output
                if state in ("failed", "cancelled"):
                    finished = True
                    reason = run.error or "no reason given"
                    raise AgentRejected(f"agent run {run_id} ({plan.strategy} on {plan.engine}) {state}: {reason}")
                if time.monotonic() - started > self.deadline_s:
                    raise AgentRejected(
                        f"agent run {run_id} ({plan.strategy}) did not finish within {self.deadline_s:g} s"
                    )
                if time.monotonic() - asked < 0.01 and run.progress == last_progress:
                    # an agent that does not long-poll (older version) answered at once: back off
                    time.sleep(wait)
                    wait = min(self.poll_interval_s, wait * 2)
                last_progress = run.progress
        except AgentUnavailable:
            raise
        except BaseException:
            if not finished:
                self.cancel(run_id)
            raise
