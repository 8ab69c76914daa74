"""Repetitions and sweeps (one parameter, or a grid of two) of a comparison.

A sweep varies one scenario field over a list of values, or two fields over the grid of
their values (``parameter`` × ``parameter_y``: point ``p`` is ``values[p // len(values_y)]``,
``values_y[p % len(values_y)]``); repetitions run
each point with ``run.seed``, ``run.seed + 1``, …; every (point, repetition)
is one *unit* that runs all strategies on the same derived scenario (so the
strategies see the same randomness). Units are independent, which lets the
worker hand them to the queue a few at a time (:func:`unit_at` builds one) and the CLI run
them in a loop; both
aggregate with :func:`aggregate`.

Parameter paths are dotted; list items are addressed by their ``id``:
``nodes.uav.range_m``, ``links.uav-ship.bandwidth_mbps``, ``flows.f1.rate_mbps``,
``run.duration_s``, ``transport.rbuf_bytes``, ``controller.notification_delay_s``.

One parameter is not a field: :data:`FAILED_LINK` (``"failed_link"``) takes a link id (or null:
nothing fails) and adds a ``link_events`` entry that takes that link down at t = 0 — a simulated
run per failure of the failure analysis (:mod:`subflow.analysis.failures`) is a sweep over it.
"""

from __future__ import annotations

import copy
import math
import statistics
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field, model_validator

from subflow.errors import ScenarioInvalid
from subflow.results.document import ResultDocument
from subflow.results.quality import pooled_loss
from subflow.scenario.document import load_scenario

#: The sweep parameter that fails one link for the whole run (value: a link id, or null for none).
FAILED_LINK = "failed_link"

#: Scenario lists whose items are addressed by id in a parameter path.
_ID_LISTS = ("nodes", "links", "flows")


class SweepSpec(BaseModel):
    """``parameter``: a dotted path (see module docstring); ``values``: what it takes. With
    ``parameter_y`` and ``values_y`` (both or neither) the sweep is the grid of both: every
    value of ``parameter`` with every value of ``parameter_y``; limits count the product."""

    parameter: str = Field(min_length=1, max_length=200)
    values: list[float | int | str | bool | None] = Field(min_length=1, max_length=200)
    parameter_y: str | None = Field(default=None, min_length=1, max_length=200,
                                    description="Second swept field (a 2-D grid), or null.")
    values_y: list[float | int | str | bool | None] | None = Field(
        default=None, min_length=1, max_length=200, description="Values of `parameter_y`.")

    @model_validator(mode="after")
    def _second_axis(self) -> "SweepSpec":
        if (self.parameter_y is None) != (self.values_y is None):
            raise ValueError("parameter_y and values_y go together: give both for a 2-D sweep, or neither")
        if self.parameter_y is not None and self.parameter_y == self.parameter:
            raise ValueError("parameter_y must differ from parameter")
        return self


def point_count(sweep: SweepSpec | None) -> int:
    """Points of a sweep: ``len(values)`` (× ``len(values_y)`` for a grid); 1 without a sweep."""
    if sweep is None:
        return 1
    return len(sweep.values) * (len(sweep.values_y) if sweep.values_y is not None else 1)


def point_values(sweep: SweepSpec, point: int) -> tuple[Any, Any]:
    """``(value, value_y)`` of point ``point`` (``value_y`` None for a 1-D sweep)."""
    if sweep.values_y is None:
        return sweep.values[point], None
    x, y = divmod(point, len(sweep.values_y))
    return sweep.values[x], sweep.values_y[y]


def _point_doc(doc: dict[str, Any], sweep: SweepSpec | None, point: int) -> tuple[dict[str, Any], Any, Any]:
    """The scenario of sweep point ``point`` (validated) and its values."""
    if sweep is None:
        return copy.deepcopy(doc), None, None
    value, value_y = point_values(sweep, point)
    out = apply_parameter(doc, sweep.parameter, value)
    if sweep.parameter_y is not None:
        out = apply_parameter(out, sweep.parameter_y, value_y, loc=("sweep", "parameter_y"))
    try:
        load_scenario(out)
    except ScenarioInvalid as exc:
        raise ScenarioInvalid(
            [{"loc": ["sweep", "values", point, *e["loc"]], "msg": e["msg"]} for e in exc.errors]
        ) from None
    return out, value, value_y


@dataclass(frozen=True)
class Unit:
    """One run of every strategy: sweep point ``point`` (value ``value``), repetition ``repetition``."""

    index: int
    point: int
    repetition: int
    value: Any
    scenario: dict[str, Any]
    value_y: Any = None


def apply_parameter(doc: dict[str, Any], parameter: str, value: Any,
                    loc: tuple[str, ...] = ("sweep", "parameter")) -> dict[str, Any]:
    """A copy of scenario ``doc`` with ``parameter`` set to ``value``.

    Raises
    ------
    ScenarioInvalid
        With ``loc`` (default ``["sweep", "parameter"]``) if the path does not name an
        existing field.
    """
    if parameter == FAILED_LINK:
        return _fail_link(doc, value, loc)
    parts = parameter.split(".")
    out = copy.deepcopy(doc)
    target: Any = out
    i = 0

    def bad(msg: str) -> ScenarioInvalid:
        return ScenarioInvalid([{"loc": list(loc), "msg": f"{parameter!r}: {msg}"}])

    while i < len(parts) - 1:
        key = parts[i]
        if isinstance(target, dict) and key in _ID_LISTS and isinstance(target.get(key), list):
            if i + 1 >= len(parts) - 1:
                raise bad(f"{key} items are addressed as {key}.<id>.<field>")
            item_id = parts[i + 1]
            match = [item for item in target[key] if isinstance(item, dict) and item.get("id") == item_id]
            if not match:
                raise bad(f"no {key[:-1]} with id {item_id!r}")
            target = match[0]
            i += 2
            continue
        if not isinstance(target, dict):
            raise bad(f"{'.'.join(parts[:i])} is not an object")
        target = target.setdefault(key, {}) if key in ("run", "transport", "controller", "radio") else target.get(key)
        if target is None:
            raise bad(f"unknown field {key!r}")
        i += 1
    if not isinstance(target, dict):
        raise bad("does not name a field")
    target[parts[-1]] = value
    return out


def _fail_link(doc: dict[str, Any], link: Any, loc: tuple[str, ...]) -> dict[str, Any]:
    """A copy of ``doc`` whose link ``link`` is down from t = 0 (``link`` None: unchanged).

    Raises
    ------
    ScenarioInvalid
        ``loc`` ``["sweep", "values"]`` if ``link`` is not the id of one of the scenario's links.
    """
    out = copy.deepcopy(doc)
    if link is None:
        return out
    ids = {l.get("id") for l in out.get("links", []) if isinstance(l, dict)}
    if not isinstance(link, str) or link not in ids:
        raise ScenarioInvalid([{"loc": [*loc[:-1], "values"], "msg": f"{FAILED_LINK}: no link with id {link!r}"}])
    out["link_events"] = [{"t_s": 0, "link": link, "state": "down"},
                          *(e for e in out.get("link_events", []) if not (isinstance(e, dict) and e.get("link") == link))]
    return out


def expand(doc: dict[str, Any], sweep: SweepSpec | None, repetitions: int) -> list[Unit]:
    """All units of a comparison, each scenario validated.

    Parameters
    ----------
    doc : dict
        The base scenario document.
    sweep : SweepSpec or None
    repetitions : int
        Runs per point (>= 1); repetition r uses ``run.seed + r``.

    Raises
    ------
    ScenarioInvalid
        If the path is wrong (``loc ["sweep", "parameter"]``) or a value makes
        the scenario invalid (``loc ["sweep", "values", k, ...field path]``).
    ValueError
        If ``repetitions`` < 1.
    """
    if repetitions < 1:
        raise ValueError("repetitions must be at least 1")
    base_seed = int(doc.get("run", {}).get("seed", 1))
    units: list[Unit] = []
    for p in range(point_count(sweep)):
        point_doc, value, value_y = _point_doc(doc, sweep, p)
        for r in range(repetitions):
            unit_doc = copy.deepcopy(point_doc)
            unit_doc.setdefault("run", {})["seed"] = base_seed + r
            units.append(Unit(len(units), p, r, value, unit_doc, value_y))
    return units


def unit_count(sweep: SweepSpec | None, repetitions: int) -> int:
    """How many units :func:`expand` makes: points × repetitions (no scenario is built)."""
    return point_count(sweep) * repetitions


def unit_at(doc: dict[str, Any], sweep: SweepSpec | None, repetitions: int, index: int) -> Unit:
    """Unit ``index`` of :func:`expand` (the same scenario, point and repetition), building only
    that unit's scenario: memory stays one scenario however many units a sweep has.

    Raises
    ------
    IndexError
        If ``index`` is not in ``[0, unit_count(sweep, repetitions))``.
    ScenarioInvalid
        As :func:`expand`, for this unit's point.
    """
    if not 0 <= index < unit_count(sweep, repetitions):
        raise IndexError(f"unit {index} of {unit_count(sweep, repetitions)}")
    point, repetition = divmod(index, repetitions)
    point_doc, value, value_y = _point_doc(doc, sweep, point)
    point_doc.setdefault("run", {})["seed"] = int(doc.get("run", {}).get("seed", 1)) + repetition
    return Unit(index, point, repetition, value, point_doc, value_y)


def representative_points(n_points: int, max_documents: int) -> list[int]:
    """The sweep points whose first repetition keeps its full result document (per-flow timelines).

    Every point when ``n_points <= max_documents``; else ``max_documents`` points spread evenly
    over the sweep, the first and the last included (index ``round(k (n-1) / (m-1))``). With each
    document bounded by ``MAX_SAMPLES`` samples per series, a sweep stores at most
    ``max_documents`` documents however many points it has.

    Parameters
    ----------
    n_points : int
        Number of sweep points (≥ 0).
    max_documents : int
        Most documents kept (≥ 1).

    Returns
    -------
    list of int
        Sorted, distinct point indices in ``[0, n_points)``.
    """
    if n_points <= max_documents:
        return list(range(n_points))
    if max_documents == 1:
        return [0]
    return sorted({round(k * (n_points - 1) / (max_documents - 1)) for k in range(max_documents)})


def ci95_half_width(values: list[float]) -> float:
    """Half-width of the 95 % confidence interval of the mean (Student's t).

    0 for fewer than two values. Uses :func:`scipy.stats.t.ppf` for the
    quantile t_{0.975, n−1}.
    """
    n = len(values)
    if n < 2:
        return 0.0
    from scipy.stats import t as student_t

    return float(student_t.ppf(0.975, n - 1) * statistics.stdev(values) / math.sqrt(n))


def unit_summary(document: ResultDocument) -> dict[str, dict[str, float | None]]:
    """The per-strategy figures of one unit's result document that sweeps aggregate:
    ``{strategy: {"mean_mbps", "jain_index", "zero_s", "mos_mean", "mos_min", "delay_ms", "delay_max_ms",
    "jitter_ms", "loss", "loss_sent_mbit"}}`` (Mbit/s, -, seconds, MOS, MOS, ms, ms, ms, fraction, Mbit).

    The quality figures pool the intervals of every udp, voice and video flow (MOS: voice flows) inside
    each flow's active window (``start_s`` to ``stop_s``), where the flow sent something (its ``loss`` is not
    null): ``mos_mean``/``mos_min`` the mean and lowest interval MOS, an interval that delivered nothing
    counting as MOS 1; ``delay_ms``/``delay_max_ms`` the mean and largest interval delay of the intervals
    that delivered; ``jitter_ms`` the mean; ``loss`` the fraction lost of all the bits those intervals sent
    (:func:`subflow.results.quality.pooled_loss`: each interval weighted by its ``sent_mbps``), and
    ``loss_sent_mbit`` those bits, Mbit (its weight among repetitions; null for a document without
    ``sent_mbps``). Null where no flow has the series (tcp only)."""
    scenario = document.scenario
    duration, interval = scenario.run.duration_s, scenario.run.interval_s
    kinds = {f.id: f for f in scenario.flows}
    out: dict[str, dict[str, float | None]] = {}
    for name, r in document.strategies.items():
        mos: list[float] = []
        delay: list[float] = []
        jitter: list[float] = []
        loss: list[tuple[float, float | None]] = []
        for flow in r.flows:
            f = kinds.get(flow.id)
            if f is None or f.kind == "tcp" or flow.loss is None:
                continue
            t0, t1 = f.start_s, f.stop_s if f.stop_s is not None else duration
            for k, t in enumerate(flow.t_s):
                if not (t >= t0 - 1e-9 and t + interval <= t1 + 1e-9) or k >= len(flow.loss) or flow.loss[k] is None:
                    continue
                sent = flow.sent_mbps[k] if flow.sent_mbps is not None and k < len(flow.sent_mbps) else None
                loss.append((flow.loss[k], sent))
                d = flow.delay_ms[k] if flow.delay_ms is not None and k < len(flow.delay_ms) else None
                if d is not None:
                    delay.append(d)
                j = flow.jitter_ms[k] if flow.jitter_ms is not None and k < len(flow.jitter_ms) else None
                if j is not None:
                    jitter.append(j)
                if f.kind == "voice" and flow.mos is not None and k < len(flow.mos):
                    m = flow.mos[k]
                    if m is not None or d is None:
                        mos.append(m if m is not None else 1.0)
        out[name] = {
            "mean_mbps": r.summary.mean_mbps,
            "jain_index": r.summary.jain_index,
            "zero_s": r.summary.zero_s,
            "mos_mean": statistics.fmean(mos) if mos else None,
            "mos_min": min(mos) if mos else None,
            "delay_ms": statistics.fmean(delay) if delay else None,
            "delay_max_ms": max(delay) if delay else None,
            "jitter_ms": statistics.fmean(jitter) if jitter else None,
            "loss": pooled_loss(loss),
            "loss_sent_mbit": (math.fsum(w for _, w in loss) * interval
                               if loss and all(w is not None for _, w in loss) else None),
        }
    return out


def aggregate(
    units: list[Unit], summaries: list[dict[str, dict[str, float | None]]], sweep: SweepSpec | None
) -> dict[str, Any]:
    """Aggregate unit summaries into the result document's ``sweep`` / ``repetitions`` parts.

    Returns
    -------
    dict
        The result document's ``sweep`` / ``repetitions`` parts as JSON (shapes
        :class:`subflow.results.document.SweepResult` and :class:`~subflow.results.document.AggregateStats`):
        ``{"repetitions": {name: {"mean_mbps", "ci95_mbps", "jain_index", "zero_s", "runs"}}}`` without a
        sweep, else ``{"sweep": {"parameter", "values", "points": [{"value", "strategies":
        {name: {...same fields...}}}]}}``; a 2-D sweep adds ``parameter_y``, ``values_y`` and each
        point's ``value_y`` (points in row-major order: ``values`` outer). ``mean_mbps`` is the mean over repetitions of the
        across-flow mean throughput; ``ci95_mbps`` its 95 % CI half-width. Where the units have the quality
        figures of :func:`unit_summary`: ``mos_mean``, ``delay_ms``, ``jitter_ms`` the means over the
        repetitions, ``mos_min`` the lowest and ``delay_max_ms`` the largest; ``loss`` the fraction lost of all
        the bits the repetitions sent (:func:`subflow.results.quality.pooled_loss`, each run weighted by its
        ``loss_sent_mbit``; the plain mean for summaries without it).
    """
    by_point: dict[int, list[dict[str, dict[str, float]]]] = {}
    for unit, summary in zip(units, summaries):
        by_point.setdefault(unit.point, []).append(summary)

    def stats(runs: list[dict[str, dict[str, float]]]) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        for name in runs[0]:
            means = [r[name]["mean_mbps"] for r in runs]
            out[name] = {
                "mean_mbps": statistics.fmean(means),
                "ci95_mbps": ci95_half_width(means),
                "jain_index": statistics.fmean(r[name]["jain_index"] for r in runs),
                "zero_s": statistics.fmean(r[name]["zero_s"] for r in runs),
                "runs": len(runs),
            }
            # quality figures: null for tcp-only strategies and for summaries stored before them (the stored
            # document's AggregateStats has every key, so a local aggregate has them too)
            for key, pool in (("mos_mean", statistics.fmean), ("mos_min", min), ("delay_ms", statistics.fmean),
                              ("delay_max_ms", max), ("jitter_ms", statistics.fmean)):
                got = [r[name][key] for r in runs if r[name].get(key) is not None]
                out[name][key] = pool(got) if got else None
            out[name]["loss"] = pooled_loss((r[name].get("loss"), r[name].get("loss_sent_mbit")) for r in runs)
        return out

    if sweep is None:
        return {"repetitions": stats(by_point[0])}
    points = []
    for p in sorted(by_point):
        value, value_y = point_values(sweep, p)
        point = {"value": value, "strategies": stats(by_point[p])}
        if sweep.parameter_y is not None:
            point["value_y"] = value_y
        points.append(point)
    out: dict[str, Any] = {"parameter": sweep.parameter, "values": list(sweep.values), "points": points}
    if sweep.parameter_y is not None:
        out.update(parameter_y=sweep.parameter_y, values_y=list(sweep.values_y or []))
    return {"sweep": out}
