"""A udp, voice or video flow's quality over a run, from its per-interval series (:class:`FlowSeries`
``delay_ms``, ``delay_p95_ms``, ``jitter_ms``, ``loss``, ``mos``, ``frames_*``; docs/traffic.md).

The definitions are the results page's (``frontend/src/lib/flowQuality.ts``), so that the CLI and the page print
the same figures:

* mean delay (ms): of the delivered bits, each interval's mean delay weighted by its throughput (unweighted if no
  interval with a delay delivered anything);
* p95 delay (ms): the 95th percentile, nearest rank, over the intervals of their mean delay (of their
  ``delay_p95_ms`` when the flow has no mean);
* mean jitter (ms): the mean over the intervals of the RFC 3550 jitter;
* loss (fraction): the fraction of all the bits sent over the run that were lost, each interval's loss weighted
  by what it sent (``sent_mbps``; :func:`pooled_loss`): an on/off source or a call with silence suppression
  sends little or nothing in some intervals, and those must not weigh like full ones. A document stored before
  ``sent_mbps`` weighs every interval alike (exact for a constant-rate source);
* mean and lowest MOS (G.107 Annex B) over the intervals that have one;
* video: the frames sent, late and lost over the run.

Intervals without a value (null: nothing arrived, no rating) are left out of every figure.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import zip_longest

from subflow.results.document import FlowSeries

__all__ = ["FlowQuality", "flow_quality", "nearest_rank", "pooled_loss"]


@dataclass(frozen=True)
class FlowQuality:
    """A flow's quality over the run; None where the flow has no such series or no value in it."""

    mean_delay_ms: float | None
    p95_delay_ms: float | None
    mean_jitter_ms: float | None
    loss: float | None
    mean_mos: float | None
    min_mos: float | None
    frames_sent: int | None
    frames_late: int | None
    frames_lost: int | None


def nearest_rank(values: list[float], percent: float) -> float | None:
    """The smallest value with at least ``percent`` % of ``values`` at or below it (nearest-rank percentile);
    None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(percent / 100 * len(ordered)) - 1)]


def _values(series: list | None) -> list[float]:
    return [v for v in (series or []) if v is not None and math.isfinite(v)]


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def pooled_loss(intervals: Iterable[tuple[float | None, float | None]]) -> float | None:
    """The fraction lost of all the bits sent over some intervals (of one flow, or pooled over flows).

    Parameters
    ----------
    intervals : iterable of (loss, sent)
        Each interval's lost fraction of the bits it sent (None: nothing sent, left out) and what it sent
        (None: not known): its ``sent_mbps`` (the intervals of a run are equally long, so Mbit/s weigh as bits),
        or Mbit when whole runs are pooled (a sweep's repetitions).

    Returns
    -------
    float or None
        Σ loss·sent / Σ sent over the intervals with a loss when every one of them has what it sent; else
        (a document stored before ``sent_mbps``) the mean of their losses; None without any loss.
    """
    pairs = [(lo, s) for lo, s in intervals if lo is not None and math.isfinite(lo)]
    if not pairs:
        return None
    if all(s is not None and math.isfinite(s) for _, s in pairs):
        sent = math.fsum(s for _, s in pairs)
        if sent > 0:
            return math.fsum(lo * s for lo, s in pairs) / sent
    return math.fsum(lo for lo, _ in pairs) / len(pairs)


def flow_quality(flow: FlowSeries) -> FlowQuality | None:
    """``flow``'s quality over the run (module docstring), None for a flow without quality series (tcp)."""
    fields = (flow.delay_ms, flow.delay_p95_ms, flow.jitter_ms, flow.loss, flow.mos, flow.frames_sent)
    if all(f is None for f in fields):
        return None
    weight = weighted = 0.0
    for mbps, d in zip(flow.throughput_mbps, flow.delay_ms or []):
        if d is not None and math.isfinite(d) and mbps > 0:
            weight += mbps
            weighted += mbps * d
    delays = _values(flow.delay_ms)
    mos = _values(flow.mos)

    def total(series: list[int] | None) -> int | None:
        return sum(series) if series else None

    return FlowQuality(
        mean_delay_ms=weighted / weight if weight > 0 else _mean(delays),
        p95_delay_ms=nearest_rank(delays or _values(flow.delay_p95_ms), 95),
        mean_jitter_ms=_mean(_values(flow.jitter_ms)),
        loss=pooled_loss(zip_longest(flow.loss or [], flow.sent_mbps or [])),
        mean_mos=_mean(mos),
        min_mos=min(mos) if mos else None,
        frames_sent=total(flow.frames_sent),
        frames_late=total(flow.frames_late),
        frames_lost=total(flow.frames_lost),
    )
