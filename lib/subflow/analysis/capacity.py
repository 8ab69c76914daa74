"""Capacity planning: the smallest value of a scenario parameter that meets a service target.

"How much UAV backhaul (or SATCOM bandwidth, or access point range…) is needed so that every
flow's mean throughput is at least X Mbit/s and its time at zero throughput at most Y s?"
:func:`capacity_search` answers by bisection over a numeric scenario parameter (the dotted
paths sweeps accept, :func:`subflow.comparison.sweeps.apply_parameter`), assuming the target is monotone
in the parameter (more bandwidth never hurts). Each step is one sweep point: ``repetitions``
runs of one strategy through :func:`subflow.comparison.compare.compare` with seeds ``run.seed + r``; the
step *passes* when, averaged over the repetitions, every flow's mean throughput is
≥ ``min_mean_mbps`` and every flow's time at zero is ≤ ``max_zero_s``, both over the flow's active
window within ``window_s`` (the whole run by default; e.g. only the minutes a LEO satellite is in view).

The search first checks ``high`` (if it fails, there is no answer in the range) and ``low``
(if it passes, ``low`` is the answer), then halves the bracket ``[passing, failing]`` until it
is narrower than ``tolerance`` or ``max_steps`` steps have run; the answer is the smallest
passing value found, so it over-provisions by at most the final bracket width.

References
----------
.. [1] R. P. Brent, *Algorithms for Minimization without Derivatives*, ch. 4 (bisection on a
   bracketed sign change; here the "sign" is the pass/fail of a target).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from subflow.comparison.compare import Runner, compare
from subflow.comparison.sweeps import apply_parameter
from subflow.errors import LimitExceeded, ScenarioInvalid
from subflow.results.document import FlowSummary, StrategyResult, summarize_flow
from subflow.runplan.topology import stop_of
from subflow.scenario.document import load_scenario


class CapacityRequest(BaseModel):
    """A capacity search: ``parameter`` (dotted path, numeric) between ``low`` and ``high``
    (its own unit, e.g. Mbit/s for ``links.uav-ship.bandwidth_mbps``), the target
    ``min_mean_mbps`` (every flow's mean, Mbit/s) and ``max_zero_s`` (every flow's time at zero,
    seconds; null: no bound), ``strategy`` and ``engine`` of the runs, ``repetitions`` per step,
    stop when the bracket is narrower than ``tolerance`` (parameter units) or after
    ``max_steps`` steps."""

    model_config = ConfigDict(extra="forbid")

    parameter: str = Field(min_length=1, max_length=200)
    low: float = Field(allow_inf_nan=False)
    high: float = Field(allow_inf_nan=False)
    min_mean_mbps: float = Field(ge=0, allow_inf_nan=False)
    max_zero_s: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    strategy: str = Field(default="mptcp", min_length=1, max_length=64)
    engine: str = Field(default="fluid", min_length=1, max_length=64)
    repetitions: int = Field(default=2, ge=1, le=50)
    tolerance: float = Field(gt=0, allow_inf_nan=False)
    max_steps: int = Field(default=12, ge=2, le=40)
    integer: bool = Field(default=False, strict=True, description="Only whole values (e.g. a count).")
    window_s: tuple[float, float] | None = Field(
        default=None, description="``[t_start_s, t_end_s]``: judge the target over this part of the run only "
        "(each flow over its active window within it), seconds; null: the whole run.")

    @model_validator(mode="after")
    def _bracket(self) -> "CapacityRequest":
        if not self.low < self.high:
            raise ValueError(f"low ({self.low:g}) must be below high ({self.high:g})")
        if self.window_s is not None:
            t0, t1 = self.window_s
            if not (math.isfinite(t0) and math.isfinite(t1) and 0 <= t0 < t1):
                raise ValueError(f"window_s must be [t_start_s, t_end_s] with 0 <= t_start_s < t_end_s "
                                 f"(got [{t0:g}, {t1:g}])")
        return self


class FlowFigures(BaseModel):
    """One flow at one step, averaged over the repetitions: ``mean_mbps`` (Mbit/s), ``zero_s``
    (seconds at zero throughput), ``passed`` (both bounds met)."""

    flow: str
    mean_mbps: float
    zero_s: float
    passed: bool


class CapacityStep(BaseModel):
    """One evaluated value: ``step`` (0-based order), ``value``, ``passed``, per-flow figures,
    ``runs`` (repetitions)."""

    step: int
    value: float
    passed: bool
    runs: int
    flows: list[FlowFigures]


class CapacityResult(BaseModel):
    """The search's outcome: ``status`` ``found`` (``value`` = smallest passing value, within
    ``bracket`` [last failing, value]), ``low_passes`` (``low`` already meets the target:
    ``value`` = low) or ``not_found`` (``high`` fails; ``value`` null); ``trace`` every step in
    the order run; ``runs``: engine runs made (steps × repetitions)."""

    parameter: str
    strategy: str
    min_mean_mbps: float
    max_zero_s: float | None
    window_s: tuple[float, float] = Field(description="The part of the run the target was judged over, seconds.")
    status: Literal["found", "low_passes", "not_found"]
    value: float | None
    bracket: tuple[float, float] | None
    runs: int
    trace: list[CapacityStep]


def max_runs(request: CapacityRequest) -> int:
    """Upper bound on the engine runs of a search: ``max_steps`` × ``repetitions``."""
    return request.max_steps * request.repetitions


def check_request(doc: dict[str, Any], request: CapacityRequest, max_sweep_units: int) -> None:
    """Refuse a search before any run: a parameter path that names no field, a bound that makes
    the scenario invalid, or more runs than ``max_sweep_units`` (``MAX_SWEEP_UNITS``).

    Raises
    ------
    ScenarioInvalid
        ``loc ["parameter"]`` (bad path) or ``["low"|"high", ...field path]``.
    LimitExceeded
        ``loc ["max_steps"]``.
    """
    for name in ("low", "high"):
        point = apply_parameter(doc, request.parameter, getattr(request, name), loc=("parameter",))
        try:
            load_scenario(point)
        except ScenarioInvalid as exc:
            raise ScenarioInvalid([{"loc": [name, *e["loc"]], "msg": e["msg"]} for e in exc.errors]) from None
    if request.window_s is not None and request.window_s[0] >= load_scenario(doc).run.duration_s:
        raise ScenarioInvalid([{"loc": ["window_s"], "msg": f"starts at {request.window_s[0]:g} s, at or after the "
                                f"run's end ({load_scenario(doc).run.duration_s:g} s)"}])
    if max_runs(request) > max_sweep_units:
        raise LimitExceeded("MAX_SWEEP_UNITS", max_sweep_units, max_runs(request), ["max_steps"],
                            "runs (max_steps x repetitions)")


def evaluate(doc: dict[str, Any], request: CapacityRequest, value: float, runner: Runner, step: int,
             on_run: Callable[[], None] | None = None) -> CapacityStep:
    """Run one step: ``repetitions`` runs at ``value``, averaged per flow, judged against the target."""
    point = apply_parameter(doc, request.parameter, value)
    base_seed = int(doc.get("run", {}).get("seed", 1))
    per_flow: dict[str, list[tuple[float, float]]] = {}
    for r in range(request.repetitions):
        point.setdefault("run", {})["seed"] = base_seed + r
        result = compare(point, [request.strategy], runner, engine=request.engine)
        for fs in _judged(point, request, result.strategies[request.strategy]):
            per_flow.setdefault(fs.id, []).append((fs.mean_mbps, fs.zero_s))
        if on_run:
            on_run()
    flows = []
    for fid, runs in per_flow.items():
        mean = statistics.fmean(m for m, _ in runs)
        zero = statistics.fmean(z for _, z in runs)
        ok = mean >= request.min_mean_mbps and (request.max_zero_s is None or zero <= request.max_zero_s)
        flows.append(FlowFigures(flow=fid, mean_mbps=mean, zero_s=zero, passed=ok))
    return CapacityStep(step=step, value=value, passed=bool(flows) and all(f.passed for f in flows),
                        runs=request.repetitions, flows=flows)


def judged_window(doc: dict[str, Any], request: CapacityRequest) -> tuple[float, float]:
    """``request.window_s`` clipped to the run, or the whole run ``(0, run.duration_s)``, seconds."""
    duration = load_scenario(doc).run.duration_s
    if request.window_s is None:
        return 0.0, duration
    return request.window_s[0], min(request.window_s[1], duration)


def _judged(doc: dict[str, Any], request: CapacityRequest, result: StrategyResult) -> list[FlowSummary]:
    """Per flow of ``result``: its summary over its active window within :func:`judged_window`."""
    if request.window_s is None:
        return result.summary.flows
    t0, t1 = judged_window(doc, request)
    scenario = load_scenario(doc)
    active = {f.id: (f.start_s, stop_of(f, scenario.run.duration_s)) for f in scenario.flows}
    out = []
    for flow in result.flows:
        a0, a1 = active.get(flow.id, (0.0, scenario.run.duration_s))
        out.append(summarize_flow(flow, scenario.run.interval_s, max(a0, t0), max(max(a0, t0), min(a1, t1))))
    return out


def _midpoint(lo: float, hi: float, integer: bool) -> float:
    return float(math.floor((lo + hi) / 2)) if integer else (lo + hi) / 2


def capacity_search(
    doc: dict[str, Any],
    request: CapacityRequest,
    runner: Runner,
    on_step: Callable[[CapacityStep, int, int], None] | None = None,
    on_run: Callable[[int, int], None] | None = None,
) -> CapacityResult:
    """Bisect ``request.parameter`` for the smallest value meeting the target.

    Parameters
    ----------
    doc : dict
        The scenario document.
    request : CapacityRequest
    runner : callable
        ``RunPlan -> EngineOutput`` (in-process engine or the emulator agent).
    on_step : callable, optional
        Called after each step with ``(step, runs_done, runs_bound)``; ``runs_bound`` is
        :func:`max_runs` (the search may stop earlier).
    on_run : callable, optional
        Called after each engine run with ``(runs_done, runs_bound)``.

    Returns
    -------
    CapacityResult

    Raises
    ------
    ScenarioInvalid
        A parameter path naming no field or a value making the scenario invalid.
    UnknownStrategy, Unreachable, EngineCannotRun
        From the runs.
    """
    trace: list[CapacityStep] = []
    bound = max_runs(request)
    runs = [0]

    def ran() -> None:
        runs[0] += 1
        if on_run:
            on_run(runs[0], bound)

    def step(value: float) -> CapacityStep:
        s = evaluate(doc, request, value, runner, len(trace), on_run=ran)
        trace.append(s)
        if on_step:
            on_step(s, sum(t.runs for t in trace), bound)
        return s

    def done(status: str, value: float | None, bracket: tuple[float, float] | None) -> CapacityResult:
        return CapacityResult(parameter=request.parameter, strategy=request.strategy,
                              min_mean_mbps=request.min_mean_mbps, max_zero_s=request.max_zero_s,
                              window_s=judged_window(doc, request), status=status, value=value, bracket=bracket, runs=sum(t.runs for t in trace),
                              trace=trace)

    lo, hi = float(request.low), float(request.high)
    if not step(hi).passed:
        return done("not_found", None, None)
    if step(lo).passed:
        return done("low_passes", lo, (lo, lo))
    # invariant: lo fails, hi passes
    while hi - lo > request.tolerance and len(trace) < request.max_steps:
        mid = _midpoint(lo, hi, request.integer)
        if mid <= lo or mid >= hi:
            break
        if step(mid).passed:
            hi = mid
        else:
            lo = mid
    return done("found", hi, (lo, hi))
