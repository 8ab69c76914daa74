"""Result shape (version 1) and the summary statistics computed from timelines.

The result document is what REST, the CLI's ``--json`` and the UI share::

    {"version": 1,
     "scenario": {...scenario document...},
     "strategies": {
       "<name>": {
         "strategy": "<name>", "engine": "fluid",
         "flows": [{"id", "src", "dst", "t_s": [...], "throughput_mbps": [...],
                    "subflows": [{"id", "path": [...], "t_s": [...],
                                  "throughput_mbps": [...], "cwnd_packets": [...]}]}],
         "events": [{"t_s", "kind", "node", ...}],
         "summary": {"flows": [{"id", "mean_mbps", "std_mbps", "min_mbps", "max_mbps",
                                "zero_s", "longest_zero_s", "retransmissions", "completion_s"}],
                     "mean_mbps", "std_mbps", "min_mbps", "zero_s", "jain_index",
                     "retransmissions"}}}}

``t_s[k]`` is the start of the k-th interval of length ``interval_s``;
``throughput_mbps[k]`` is the mean goodput over [t_s[k], t_s[k] + interval_s).
Version 1 may gain fields; it never loses or renames one.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

RESULT_VERSION = 1

#: Throughput below this (Mbit/s) counts as zero in ``zero_s`` (1 kbit/s).
ZERO_THRESHOLD_MBPS = 1e-3


class SubflowResult(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    path: list[str]
    t_s: list[float]
    throughput_mbps: list[float]
    cwnd_packets: list[float] = Field(default_factory=list)


class FlowResult(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    src: str
    dst: str
    t_s: list[float]
    throughput_mbps: list[float]
    subflows: list[SubflowResult]


class EngineOutput(BaseModel):
    """What an engine returns for one run: timelines and events, no summary."""

    model_config = ConfigDict(extra="allow")

    engine: str
    strategy: str
    flows: list[FlowResult]
    events: list[dict[str, Any]]


class FlowSummary(BaseModel):
    id: str
    mean_mbps: float
    std_mbps: float
    min_mbps: float
    max_mbps: float
    zero_s: float
    longest_zero_s: float
    #: segments the engine counted as retransmitted (losses and timer expiries), all subflows
    retransmissions: int = 0
    #: finite transfers: seconds from start to the last byte (null: not finished in the run)
    completion_s: float | None = None


class Summary(BaseModel):
    """Across-flow summary; ``mean_mbps``/``std_mbps``/``min_mbps`` are over the
    per-flow means, ``zero_s`` is the total over flows."""

    flows: list[FlowSummary]
    mean_mbps: float
    std_mbps: float
    min_mbps: float
    zero_s: float
    jain_index: float
    retransmissions: int = 0


class StrategyResult(EngineOutput):
    summary: Summary


def jain_index(values: list[float]) -> float:
    """Jain's fairness index J = (Σx)² / (n·Σx²).

    Parameters
    ----------
    values : list of float
        Non-negative allocations (e.g. per-flow mean throughput, Mbit/s).

    Returns
    -------
    float
        In [1/n, 1]. Convention: an empty list or all zeros gives 1.0 (every
        flow got the same, nothing); this is stated, not derived.

    References
    ----------
    .. [1] R. Jain, D. Chiu, W. Hawe, "A Quantitative Measure of Fairness and
       Discrimination for Resource Allocation in Shared Computer Systems",
       DEC-TR-301, 1984 (tcpbp-thesis Eq. 2.1).

    Examples
    --------
    >>> jain_index([1.0, 1.0])
    1.0
    >>> jain_index([1.0, 0.0])
    0.5
    """
    if any(v < 0 for v in values):
        raise ValueError("jain_index: values must be non-negative")
    s2 = sum(v * v for v in values)
    if not values or s2 == 0:
        return 1.0
    s = sum(values)
    return (s * s) / (len(values) * s2)


def _retransmissions(flow: FlowResult) -> int:
    return int(sum(getattr(sf, "retransmissions", 0) or 0 for sf in flow.subflows))


def summarize_flow(
    flow: FlowResult, interval_s: float, start_s: float = 0.0, stop_s: float | None = None
) -> FlowSummary:
    """Statistics of one flow's throughput over its active window.

    Only intervals that lie inside [``start_s``, ``stop_s``) count. ``std_mbps``
    is the population standard deviation. ``zero_s`` is the time spent below
    :data:`ZERO_THRESHOLD_MBPS`; ``longest_zero_s`` the longest run of it.
    """
    vals = [
        v
        for t, v in zip(flow.t_s, flow.throughput_mbps)
        if t >= start_s - 1e-9 and (stop_s is None or t + interval_s <= stop_s + 1e-9)
    ]
    if not vals:
        return FlowSummary(
            id=flow.id, mean_mbps=0, std_mbps=0, min_mbps=0, max_mbps=0, zero_s=0, longest_zero_s=0,
            retransmissions=_retransmissions(flow), completion_s=getattr(flow, "completion_s", None),
        )
    mean = sum(vals) / len(vals)
    std = math.sqrt(sum((v - mean) ** 2 for v in vals) / len(vals))
    zero = run = longest = 0
    for v in vals:
        if v < ZERO_THRESHOLD_MBPS:
            zero += 1
            run += 1
            longest = max(longest, run)
        else:
            run = 0
    return FlowSummary(
        id=flow.id,
        retransmissions=_retransmissions(flow),
        completion_s=getattr(flow, "completion_s", None),
        mean_mbps=mean,
        std_mbps=std,
        min_mbps=min(vals),
        max_mbps=max(vals),
        zero_s=zero * interval_s,
        longest_zero_s=longest * interval_s,
    )


def summarize(
    output: EngineOutput, interval_s: float, windows: dict[str, tuple[float, float]] | None = None
) -> StrategyResult:
    """Attach a :class:`Summary` to an engine's output.

    Parameters
    ----------
    output : EngineOutput
        Timelines and events of one strategy.
    interval_s : float
        Length of a timeline interval in seconds.
    windows : dict, optional
        ``flow id -> (start_s, stop_s)`` active windows; flows not listed count
        over their whole timeline.
    """
    windows = windows or {}
    per_flow = [
        summarize_flow(f, interval_s, *windows.get(f.id, (0.0, None))) for f in output.flows
    ]
    means = [s.mean_mbps for s in per_flow]
    n = len(means)
    mean = sum(means) / n if n else 0.0
    std = math.sqrt(sum((m - mean) ** 2 for m in means) / n) if n else 0.0
    summary = Summary(
        flows=per_flow,
        mean_mbps=mean,
        std_mbps=std,
        min_mbps=min(means) if means else 0.0,
        zero_s=sum(s.zero_s for s in per_flow),
        jain_index=jain_index(means),
        retransmissions=sum(s.retransmissions for s in per_flow),
    )
    return StrategyResult(**output.model_dump(), summary=summary)


def comparison_document(scenario: dict[str, Any], results: dict[str, StrategyResult]) -> dict[str, Any]:
    """The versioned comparison result document (see module docstring)."""
    return {
        "version": RESULT_VERSION,
        "scenario": scenario,
        "strategies": {name: r.model_dump() for name, r in results.items()},
    }
