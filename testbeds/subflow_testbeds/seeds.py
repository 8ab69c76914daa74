"""The paper's seed scenarios on the real kernel against the fluid engine.

sd-mptcp-tactical's Scenarios I and II (``examples/naval-direct-move.json``, ``examples/naval-random-walk.json``)
run on the ``linux`` engine (kernel TCP and MPTCP in network namespaces, real time) :data:`KERNEL_RUNS` times
per strategy, stored in ``docs/validation/seeds_kernel.json`` by ``scripts/validation.py --kernel-seeds``; the
fluid engine runs the same plans. What is compared, per flow and strategy (:func:`figures`):

- each subflow's mean goodput over the *UAV phase*: the output samples that lie entirely inside an
  association of the flow's station with the UAV (the plan's association timeline), Mbit/s;
- the flow's longest run at zero goodput (the handover's outage, s) and its seconds at zero over the run
  (samples of 0, times the interval).

The kernel's figure is the median of its runs. Targets: a subflow's UAV-phase mean within
:data:`SUBFLOW_TOLERANCE` of the kernel's (or within 0.02 Mbit/s), a flow's longest run at zero within
:data:`ZERO_TOLERANCE_S`; the seconds at zero over the run are shown beside it.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
#: the stored kernel runs
KERNEL_JSON = ROOT / "docs" / "validation" / "seeds_kernel.json"
SEEDS = ("naval-direct-move", "naval-random-walk")
STRATEGIES = ("sptcp", "mptcp")
KERNEL_RUNS = 3
#: fluid / kernel of a subflow's UAV-phase mean the comparison aims for (±20 %)
SUBFLOW_TOLERANCE = 0.20
#: |fluid − kernel| of a flow's seconds at zero the comparison aims for, s
ZERO_TOLERANCE_S = 1.0
#: a sample at or below this is "at zero", Mbit/s (the summaries' rule: no byte in the sample)
ZERO_MBPS = 0.0


def scenario(name: str) -> dict[str, Any]:
    """The scenario document of seed ``name`` (one of :data:`SEEDS`), from ``examples/``.

    Raises
    ------
    ValueError
        For a name that is not one of :data:`SEEDS`.
    """
    if name not in SEEDS:
        raise ValueError(f"unknown seed {name!r}; one of {SEEDS}")
    return json.loads((ROOT / "examples" / f"{name}.json").read_text())


def uav_windows(doc: Mapping[str, Any]) -> dict[str, list[tuple[float, float]]]:
    """Per flow, the spans (s) when its station is associated with the access point ``uav`` and carries traffic."""
    from subflow.radio.association import association_timeline
    from subflow.scenario.document import load_scenario

    sc = load_scenario(dict(doc))
    spans = [(a.station, a.t_associated_s, a.t_end_s) for a in association_timeline(sc).associations
             if a.access_point == "uav"]
    return {f.id: [(t0, t1) for st, t0, t1 in spans if st in (f.src, f.dst)] for f in sc.flows}


def figures(result: Any, windows: Mapping[str, list[tuple[float, float]]]) -> dict[str, Any]:
    """The compared figures of one run (a :class:`subflow.results.document.StrategyResult` or ``EngineOutput``).

    Returns
    -------
    dict
        ``{flow id: {"zero_s", "longest_zero_s", "mean_mbps", "uav_mbps": {subflow id: mean over the UAV
        phase or None}, "throughput_mbps": [...]}}`` (Mbit/s, s).
    """
    out: dict[str, Any] = {}
    for f in result.flows:
        interval = (f.t_s[1] - f.t_s[0]) if len(f.t_s) > 1 else 1.0
        inside = [k for k, t in enumerate(f.t_s)
                  if any(t >= t0 - 1e-9 and t + interval <= t1 + 1e-9 for t0, t1 in windows.get(f.id, []))]
        uav = {}
        for s in f.subflows:
            vals = [s.throughput_mbps[k] for k in inside if k < len(s.throughput_mbps)]
            uav[s.id] = round(sum(vals) / len(vals), 4) if vals else None
        longest = run = 0
        for v in f.throughput_mbps:
            run = run + 1 if v <= ZERO_MBPS else 0
            longest = max(longest, run)
        out[f.id] = {"zero_s": round(float(sum(interval for v in f.throughput_mbps if v <= ZERO_MBPS)), 6),
                     "longest_zero_s": round(longest * interval, 6),
                     "mean_mbps": round(sum(f.throughput_mbps) / len(f.throughput_mbps), 4),
                     "uav_mbps": uav, "throughput_mbps": [round(v, 4) for v in f.throughput_mbps]}
    return out


def fluid_figures(name: str, strategy: str) -> dict[str, Any]:
    """:func:`figures` of the fluid engine on seed ``name`` with ``strategy`` (the scenario's seed)."""
    from subflow.comparison.compare import run_strategy
    from subflow.scenario.document import load_scenario
    from subflow_engines import run_plan

    doc = scenario(name)
    return figures(run_strategy(load_scenario(doc), strategy, run_plan), uav_windows(doc))


def kernel_run(name: str, strategy: str) -> dict[str, Any]:
    """One run of seed ``name`` with ``strategy`` on the linux engine (root; real time, the run's
    ``duration_s`` plus set-up): :func:`figures` plus ``at`` (UTC), ``loadavg_before``/``after`` and the
    engine's ``linux`` record (kernel, delay mechanism, delay-line lateness)."""
    from subflow.comparison.compare import run_strategy
    from subflow.scenario.document import load_scenario
    from subflow_engines import linux

    doc = scenario(name)
    with open("/proc/loadavg") as fh:
        before = [float(x) for x in fh.read().split()[:3]]
    res = run_strategy(load_scenario(doc), strategy, linux.run, engine="linux")
    with open("/proc/loadavg") as fh:
        after = [float(x) for x in fh.read().split()[:3]]
    rec = {"seed": name, "strategy": strategy, "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "loadavg_before": before, "loadavg_after": after, "flows": figures(res, uav_windows(doc))}
    linux_info = res.linux or {}
    rec["linux"] = {k: linux_info.get(k) for k in ("kernel", "delay_mechanism", "congestion_control")}
    lines = linux_info.get("delay_lines") or []
    lateness = [q.get("late_p90_us") for q in lines if isinstance(q, dict) and q.get("late_p90_us") is not None]
    rec["linux"]["delay_line_late_p90_us"] = max(lateness) if lateness else None
    return rec


def load_kernel(path: Path = KERNEL_JSON) -> dict[str, Any]:
    """The stored kernel runs: ``{"<seed>/<strategy>": {"scenario": digest, "runs": [kernel_run records]}}``."""
    return json.loads(path.read_text()) if path.exists() else {}


def scenario_digest(doc: Mapping[str, Any]) -> str:
    """A digest of the scenario document (stored with the runs: a changed scenario makes them stale)."""
    import hashlib

    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:16]


def compare(kernel_runs: list[Mapping[str, Any]], fluid: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Rows of the comparison: per flow its longest run and seconds at zero, per subflow its UAV-phase mean,
    kernel (median of ``kernel_runs`` and their range) against ``fluid`` (:func:`figures`), with whether each
    meets its target (``ok``; None for the seconds at zero, which have none)."""
    rows: list[dict[str, Any]] = []
    for fid, ff in fluid.items():
        for what in ("longest_zero_s", "zero_s"):
            zeros = [r["flows"][fid][what] for r in kernel_runs]
            kz = statistics.median(zeros)
            ok = abs(ff[what] - kz) <= ZERO_TOLERANCE_S + 1e-9 if what == "longest_zero_s" else None
            rows.append({"flow": fid, "subflow": None, "what": what, "kernel": kz, "range": (min(zeros), max(zeros)),
                         "fluid": ff[what], "ok": ok})
        for sid, fv in ff["uav_mbps"].items():
            kv = [r["flows"][fid]["uav_mbps"].get(sid) for r in kernel_runs]
            kv = [v for v in kv if v is not None]
            if not kv or fv is None:
                continue
            km = statistics.median(kv)
            ratio = fv / km if km > 0 else (1.0 if fv == 0 else float("inf"))
            rows.append({"flow": fid, "subflow": sid, "what": "uav_mbps", "kernel": km, "range": (min(kv), max(kv)),
                         "fluid": fv, "ratio": ratio,
                         "ok": abs(ratio - 1.0) <= SUBFLOW_TOLERANCE + 1e-9 or abs(fv - km) < 0.02})
    return rows
