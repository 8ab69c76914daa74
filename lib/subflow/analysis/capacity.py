"""Capacity planning: the smallest value of a scenario parameter that meets a service target.

"How much UAV backhaul (or SATCOM bandwidth, or access point range…) is needed so that every
flow's mean throughput is at least X Mbit/s and its time at zero throughput at most Y s?", or
"…so that every voice flow keeps a MOS of at least 3.6?"
:func:`capacity_search` answers by bisection over a numeric scenario parameter (the dotted
paths sweeps accept, :func:`subflow.comparison.sweeps.apply_parameter`), assuming the target is monotone
in the parameter (more bandwidth never hurts). Each step is one sweep point: ``repetitions``
runs of one strategy through :func:`subflow.comparison.compare.compare` with seeds ``run.seed + r``.
Every bound is judged over each flow's active window within ``window_s`` (the whole run by default; e.g.
only the minutes a LEO satellite is in view), and the step *passes* when every bound holds for every flow
it applies to:

==================  ======================  =====================================================================
bound               flows judged            figure (per flow, over the repetitions)
==================  ======================  =====================================================================
``min_mean_mbps``   kind ``tcp``            mean throughput, averaged over the repetitions, ≥ the bound
``max_zero_s``      every flow              time below 1 kbit/s, averaged over the repetitions, ≤ the bound
``min_mos``         kind ``voice``          the interval MOS (ITU-T G.107 Annex B, docs/traffic.md) at the
                                            ``allowed_fraction`` quantile, ≥ the bound
``max_delay_ms``    ``udp``/``voice``/      the interval mean one-way delay at the ``1 − allowed_fraction``
                    ``video``               quantile, ≤ the bound
``max_loss``        ``udp``/``voice``/      the interval loss fraction at the ``1 − allowed_fraction``
                    ``video``               quantile, ≤ the bound
==================  ======================  =====================================================================

A constant-rate flow (udp, voice, video) sends at its own rate, so it is judged by what reaches the far
end (delay, loss, MOS), not by ``min_mean_mbps``. The interval figures pool every judged interval of every
repetition (n of them): sorted from worst to best, the figure is the one at index ⌊allowed_fraction · n⌋,
so with the default ``allowed_fraction`` 0 it is the worst interval (the minimum MOS, the largest delay)
and the bound means "in every interval of the window"; with 0.05 up to 5 % of the intervals may miss it
(the figure passes exactly when at most ⌊0.05 n⌋ intervals miss). An interval in which the flow sent but
nothing arrived (no path: delay null, loss 1) counts as the worst: MOS 1 (the scale's floor), delay
unbounded (reported as ``silent_intervals``; a delay figure that falls on one is null and fails).

Monotonicity: the bisection needs the pass/fail to change once over the range. Throughput, loss and
queueing delay do not get worse with more capacity in the usual case, and the E-model's R (so MOS) is
non-increasing in delay above 5 ms and in loss (G.107 §7; docs/traffic.md notes the small talker-echo dip
below 5 ms, far below a MOS target's reach), so MOS is non-decreasing in capacity there. Behind a bulk TCP
flow on a drop-tail (fifo) queue the voice delay is the standing queue's drain time, queue/capacity: it
falls as the capacity rises, so the target stays monotone; a parameter that is not a capacity (a range,
a position) may not be, and the answer is then one passing value, not necessarily the smallest.

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
from subflow.results.document import FlowSeries, FlowSummary, StrategyResult, summarize_flow
from subflow.runplan.topology import stop_of
from subflow.scenario.document import load_scenario


#: The bounds of a :class:`CapacityRequest`; a request gives at least one.
TARGETS = ("min_mean_mbps", "max_zero_s", "min_mos", "max_delay_ms", "max_loss")


class CapacityRequest(BaseModel):
    """A capacity search: ``parameter`` (dotted path, numeric) between ``low`` and ``high``
    (its own unit, e.g. Mbit/s for ``links.uav-ship.bandwidth_mbps``), the target (at least one of
    ``min_mean_mbps`` (every tcp flow's mean, Mbit/s), ``max_zero_s`` (every flow's time at zero,
    seconds), ``min_mos`` (every voice flow's MOS), ``max_delay_ms`` (every udp, voice and video flow's
    one-way delay, ms), ``max_loss`` (their loss, a fraction); null: no such bound; the module docstring
    says how each is judged), ``strategy`` and ``engine`` of the runs, ``repetitions`` per step,
    stop when the bracket is narrower than ``tolerance`` (parameter units) or after
    ``max_steps`` steps."""

    model_config = ConfigDict(extra="forbid")

    parameter: str = Field(min_length=1, max_length=200)
    low: float = Field(allow_inf_nan=False)
    high: float = Field(allow_inf_nan=False)
    min_mean_mbps: float | None = Field(default=None, ge=0, allow_inf_nan=False, description=(
        "Every tcp flow's mean throughput at least this, Mbit/s; null: no throughput bound."))
    max_zero_s: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    min_mos: float | None = Field(default=None, ge=1, le=4.5, allow_inf_nan=False, description=(
        "Every voice flow's MOS (ITU-T G.107 Annex B, 1 to 4.5) at least this in every judged interval "
        "(but the allowed_fraction); null: no bound."))
    max_delay_ms: float | None = Field(default=None, gt=0, allow_inf_nan=False, description=(
        "Every udp, voice and video flow's mean one-way delay at most this in every judged interval "
        "(but the allowed_fraction), ms; null: no bound."))
    max_loss: float | None = Field(default=None, ge=0, le=1, allow_inf_nan=False, description=(
        "Every udp, voice and video flow's loss (fraction of the bits sent) at most this in every judged "
        "interval (but the allowed_fraction); null: no bound."))
    allowed_fraction: float = Field(default=0.0, ge=0, lt=1, allow_inf_nan=False, description=(
        "Fraction of a flow's judged intervals (pooled over the repetitions) that may miss min_mos, "
        "max_delay_ms and max_loss; 0: every interval must meet them."))
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
        if all(getattr(self, b) is None for b in TARGETS):
            raise ValueError(f"give at least one target: {', '.join(TARGETS)}")
        if self.window_s is not None:
            t0, t1 = self.window_s
            if not (math.isfinite(t0) and math.isfinite(t1) and 0 <= t0 < t1):
                raise ValueError(f"window_s must be [t_start_s, t_end_s] with 0 <= t_start_s < t_end_s "
                                 f"(got [{t0:g}, {t1:g}])")
        return self


class FlowFigures(BaseModel):
    """One flow at one step: ``mean_mbps`` (Mbit/s) and ``zero_s`` (seconds at zero throughput) averaged
    over the repetitions; for udp, voice and video flows the interval figures the bounds judge (module
    docstring; null for a tcp flow, or when the engine gave no such series): ``mos`` (voice), ``delay_ms``,
    ``loss`` (fraction); ``intervals`` judged and ``silent_intervals`` (sent, nothing arrived) among them;
    ``passed``: every bound that applies to the flow is met."""

    flow: str
    kind: str = Field(default="tcp", description="The flow's kind: tcp, udp, voice or video.")
    mean_mbps: float
    zero_s: float
    mos: float | None = Field(default=None, description="Voice: the judged interval MOS (the minimum when "
                              "allowed_fraction is 0).")
    delay_ms: float | None = Field(default=None, description="The judged interval one-way delay, ms (the "
                                   "largest when allowed_fraction is 0); null also when it falls on a silent "
                                   "interval.")
    loss: float | None = Field(default=None, description="The judged interval loss fraction (the largest "
                               "when allowed_fraction is 0).")
    intervals: int = Field(default=0, description="Intervals judged for mos, delay_ms and loss, all repetitions.")
    silent_intervals: int = Field(default=0, description="Judged intervals in which the flow sent and nothing "
                                  "arrived.")
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
    min_mean_mbps: float = Field(description="The throughput bound, Mbit/s; 0 when none was given (every "
                                 "mean meets it).")
    max_zero_s: float | None
    min_mos: float | None = None
    max_delay_ms: float | None = None
    max_loss: float | None = None
    allowed_fraction: float = 0.0
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

    Also refused: ``min_mos`` on a scenario without a voice flow or with an opus voice flow (no G.113
    values, so no MOS), ``max_delay_ms`` / ``max_loss`` on one without a udp, voice or video flow.

    Raises
    ------
    ScenarioInvalid
        ``loc ["parameter"]`` (bad path), ``["low"|"high", ...field path]``, ``["min_mos"]``,
        ``["max_delay_ms"]``, ``["max_loss"]``.
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
    quality = [f for f in load_scenario(doc).flows if f.kind in _QUALITY_KINDS]
    if request.min_mos is not None:
        voice = [f for f in quality if f.kind == "voice"]
        if not voice:
            raise ScenarioInvalid([{"loc": ["min_mos"], "msg": "the scenario has no voice flow to judge"}])
        unrated = [f.id for f in voice if f.voice is not None and f.voice.codec == "opus"]
        if unrated:
            raise ScenarioInvalid([{"loc": ["min_mos"], "msg": f"voice flow {unrated[0]!r} uses opus, which "
                                    "ITU-T G.113 Appendix I gives no Ie or Bpl for: its MOS is not rated"}])
    for name in ("max_delay_ms", "max_loss"):
        if getattr(request, name) is not None and not quality:
            raise ScenarioInvalid([{"loc": [name], "msg": "the scenario has no udp, voice or video flow to judge"}])
    if max_runs(request) > max_sweep_units:
        raise LimitExceeded("MAX_SWEEP_UNITS", max_sweep_units, max_runs(request), ["max_steps"],
                            "runs (max_steps x repetitions)")


def evaluate(doc: dict[str, Any], request: CapacityRequest, value: float, runner: Runner, step: int,
             on_run: Callable[[], None] | None = None) -> CapacityStep:
    """Run one step: ``repetitions`` runs at ``value``, per flow, judged against the target."""
    point = apply_parameter(doc, request.parameter, value)
    base_seed = int(doc.get("run", {}).get("seed", 1))
    per_flow: dict[str, _Pooled] = {}
    interval_s = load_scenario(point).run.interval_s
    for r in range(request.repetitions):
        point.setdefault("run", {})["seed"] = base_seed + r
        result = compare(point, [request.strategy], runner, engine=request.engine)
        for fs, series, kind, (t0, t1) in _judged(point, request, result.strategies[request.strategy]):
            pooled = per_flow.setdefault(fs.id, _Pooled(kind))
            pooled.add(fs, series, interval_s, t0, t1)
        if on_run:
            on_run()
    flows = [judge(fid, pooled, request) for fid, pooled in per_flow.items()]
    return CapacityStep(step=step, value=value, passed=bool(flows) and all(f.passed for f in flows),
                        runs=request.repetitions, flows=flows)


#: Flow kinds judged by delay and loss (and voice by MOS): the constant-rate sources.
_QUALITY_KINDS = ("udp", "voice", "video")


class _Pooled:
    """One flow's figures over the repetitions of a step: per-run mean and zero time, and the pooled
    interval MOS, delay (None: sent, nothing arrived) and loss of its judged intervals."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.means: list[float] = []
        self.zeros: list[float] = []
        self.mos: list[float] = []
        self.delay: list[float | None] = []
        self.loss: list[float] = []
        self.measured = {"mos": False, "delay": False, "loss": False}

    def add(self, summary: FlowSummary, series: FlowSeries, interval_s: float, t0: float, t1: float) -> None:
        self.means.append(summary.mean_mbps)
        self.zeros.append(summary.zero_s)
        if self.kind not in _QUALITY_KINDS:
            return
        n = len(series.t_s)
        idx = [k for k, t in enumerate(series.t_s) if t >= t0 - 1e-9 and t + interval_s <= t1 + 1e-9]

        def at(values: list[float | None] | None, k: int) -> float | None:
            return values[k] if values is not None and k < len(values) else None

        self.measured["delay"] |= series.delay_ms is not None and len(series.delay_ms) == n
        self.measured["loss"] |= series.loss is not None and len(series.loss) == n
        self.measured["mos"] |= series.mos is not None and len(series.mos) == n
        for k in idx:
            sent_lost = at(series.loss, k)
            if sent_lost is None:
                continue  # nothing sent in the interval: nothing to judge
            delay = at(series.delay_ms, k)
            self.loss.append(sent_lost)
            self.delay.append(delay)
            mos = at(series.mos, k)
            if self.kind == "voice":
                # nothing arrived: no speech heard, the scale's floor (G.107 Annex B: MOS 1)
                self.mos.append(mos if mos is not None else 1.0)


def _worst_allowed(values: list[float], fraction: float) -> float:
    """The value at index ⌊fraction · n⌋ of ``values`` sorted from worst to best (``values`` already in
    that order's key: callers pass MOS as is and delay or loss negated)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.floor(fraction * len(ordered) + 1e-9))]


def judge(flow: str, pooled: "_Pooled", request: CapacityRequest) -> FlowFigures:
    """A flow's figures at one step and whether they meet every bound that applies to it (module
    docstring)."""
    mean = statistics.fmean(pooled.means)
    zero = statistics.fmean(pooled.zeros)
    ok = request.max_zero_s is None or zero <= request.max_zero_s
    if pooled.kind == "tcp":
        ok = ok and (request.min_mean_mbps is None or mean >= request.min_mean_mbps)
        return FlowFigures(flow=flow, kind=pooled.kind, mean_mbps=mean, zero_s=zero, passed=ok)
    f = request.allowed_fraction
    mos = _worst_allowed(pooled.mos, f) if pooled.mos and pooled.measured["mos"] else None
    delays = [-(d if d is not None else math.inf) for d in pooled.delay]
    delay = -_worst_allowed(delays, f) if delays and pooled.measured["delay"] else None
    silent_delay = delay is not None and math.isinf(delay)
    loss = -_worst_allowed([-x for x in pooled.loss], f) if pooled.loss and pooled.measured["loss"] else None
    if request.min_mos is not None and pooled.kind == "voice":
        ok = ok and mos is not None and mos >= request.min_mos
    if request.max_delay_ms is not None:
        ok = ok and delay is not None and not silent_delay and delay <= request.max_delay_ms
    if request.max_loss is not None:
        ok = ok and loss is not None and loss <= request.max_loss
    return FlowFigures(flow=flow, kind=pooled.kind, mean_mbps=mean, zero_s=zero, mos=mos,
                       delay_ms=None if silent_delay else delay, loss=loss, intervals=len(pooled.loss),
                       silent_intervals=sum(1 for d in pooled.delay if d is None), passed=ok)


def judged_window(doc: dict[str, Any], request: CapacityRequest) -> tuple[float, float]:
    """``request.window_s`` clipped to the run, or the whole run ``(0, run.duration_s)``, seconds."""
    duration = load_scenario(doc).run.duration_s
    if request.window_s is None:
        return 0.0, duration
    return request.window_s[0], min(request.window_s[1], duration)


def _judged(doc: dict[str, Any], request: CapacityRequest,
            result: StrategyResult) -> list[tuple[FlowSummary, FlowSeries, str, tuple[float, float]]]:
    """Per flow of ``result``: its summary over its active window within :func:`judged_window`, its
    series, its kind and that window ``(t0, t1)`` (seconds)."""
    t0, t1 = judged_window(doc, request)
    scenario = load_scenario(doc)
    flows = {f.id: f for f in scenario.flows}
    summaries = {s.id: s for s in result.summary.flows}
    out = []
    for flow in result.flows:
        f = flows.get(flow.id)
        a0, a1 = (f.start_s, stop_of(f, scenario.run.duration_s)) if f else (0.0, scenario.run.duration_s)
        w0, w1 = max(a0, t0), max(max(a0, t0), min(a1, t1))
        summary = (summaries[flow.id] if request.window_s is None and flow.id in summaries
                   else summarize_flow(flow, scenario.run.interval_s, w0, w1))
        out.append((summary, flow, f.kind if f else "tcp", (w0, w1)))
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
                              min_mean_mbps=request.min_mean_mbps or 0.0, max_zero_s=request.max_zero_s,
                              min_mos=request.min_mos, max_delay_ms=request.max_delay_ms, max_loss=request.max_loss,
                              allowed_fraction=request.allowed_fraction,
                              window_s=judged_window(doc, request), status=status, value=value, bracket=bracket,
                              runs=sum(t.runs for t in trace), trace=trace)

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
