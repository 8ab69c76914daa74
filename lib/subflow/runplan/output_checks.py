"""Physical checks of a measured engine output against its plan: what every engine's result must satisfy.

The ``fluid`` engine checks its own invariants at every sample, from inside
(:mod:`subflow_engines.fluid.invariants`). The kernel engines (``linux``, ``mininet-wifi``) measure real
sockets, so their outputs are checked from outside, after the run, with bounds that hold for any real
network whatever the measurement's bin edges:

1. **finite and non-negative**: every flow's and subflow's goodput and every congestion window;
2. **within the paths' capacity**: over any run of consecutive samples, a flow delivers at most what
   its paths' narrowest hops carried in those samples (Σ over the active segment's subflows of the
   smallest capacity on each path, capacity changes applied) plus what the network and the receiver can
   hold and release at once — the queues of every resource the flow ever crosses and one receive
   buffer (:data:`RECEIVE_BUFFER_BITS`, Linux's ``tcp_rmem`` maximum, or the plan's ``rbuf_bytes``);
3. **within its rate**: a flow with ``rate_mbps`` delivers, over any run of consecutive samples, at most
   rate × duration plus the same allowance and :data:`RATE_SLACK_S` seconds of its rate (a sample
   holds what was sent in the one before it). ``iperf3 -b`` alone broke this: it averages since its
   start, so after an outage it sent at the path's full capacity for minutes
   (:mod:`subflow.runplan.ratecap`).

A run of samples is checked in one pass (the running excess of delivered over allowed bits, reset at
zero: Kadane's maximum-sum window). A broken bound raises :class:`subflow.errors.EngineInvariantViolated`
naming the engine, flow, resource (for 2: the flow's path bottleneck at the worst sample) and time.

References
----------
.. [1] J. Bentley, "Programming pearls: algorithm design techniques", CACM 27(9), 1984 (maximum-sum
   subarray in one pass).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Iterable

from subflow.errors import EngineInvariantViolated
from subflow.results.document import EngineOutput
from subflow.runplan.document import FRAME_OVERHEAD_BYTES, RunPlan

#: bits a receiver may hold and then release at once when no ``rbuf_bytes`` is set: Linux's default
#: ``net.ipv4.tcp_rmem`` maximum, 6 MiB (Documentation/networking/ip-sysctl.rst)
RECEIVE_BUFFER_BITS = 6 * 1024 * 1024 * 8
#: seconds of a rated flow's rate a window may hold besides its own duration (the previous sample's sending)
RATE_SLACK_S = 1.0


def _capacity_timeline(plan: RunPlan) -> dict[str, tuple[list[float], list[float]]]:
    """Per resource, the times (s) its capacity changes and the capacity (Mbit/s) from each on."""
    out = {r.id: ([0.0], [r.capacity_mbps]) for r in plan.resources}
    for c in sorted(plan.capacity_changes, key=lambda c: c.t_s):
        if c.resource in out:
            ts, caps = out[c.resource]
            ts.append(c.t_s)
            caps.append(c.capacity_mbps)
    return out


def _capacity_at(timeline: tuple[list[float], list[float]], t_s: float) -> float:
    ts, caps = timeline
    return caps[max(0, bisect_right(ts, t_s) - 1)]


def _path_capacity(fp, t_s: float, caps: dict, bounding: set[str]) -> tuple[float, str | None]:
    """Σ over the subflows active at ``t_s`` of their narrowest hop (Mbit/s; a path with no resource in
    ``bounding`` is unbounded), and the narrowest resource of the widest path (for the message)."""
    total, where, widest = 0.0, None, -1.0
    for seg in fp.segments:
        if not (seg.t_start_s - 1e-9 <= t_s < seg.t_end_s - 1e-9):
            continue
        for sp in seg.subflows:
            hop = min((r for r in sp.resources if r in bounding), key=lambda r: _capacity_at(caps[r], t_s),
                      default=None)
            c = math.inf if hop is None else _capacity_at(caps[hop], t_s)
            total += c
            if c > widest:
                widest, where = c, hop
    return total, where


def _held_bits(plan: RunPlan, fp) -> float:
    """What the network and the receiver can release at once for flow ``fp``: the queues of every
    resource it crosses (full-sized frames) and one receive buffer."""
    mss = plan.transport.mss_bytes
    crossed = {r for seg in fp.segments for sp in seg.subflows for r in sp.resources}
    queues = sum(r.queue_packets * (mss + FRAME_OVERHEAD_BYTES) * 8 for r in plan.resources if r.id in crossed)
    rbuf = getattr(plan.transport, "rbuf_bytes", None)
    return queues + (2 * rbuf * 8 if rbuf else RECEIVE_BUFFER_BITS)


def _largest_excess(values_mbps: Iterable[float], allowed_mbps: Iterable[float], dt_s: float) -> tuple[float, int]:
    """Largest Σ (delivered − allowed)·dt over a run of consecutive samples (bits), and the sample where it peaks."""
    run = best = 0.0
    at = 0
    for k, (v, a) in enumerate(zip(values_mbps, allowed_mbps)):
        run = max(0.0, run + (v - a) * 1e6 * dt_s)
        if run > best:
            best, at = run, k
    return best, at


def check_output(plan: RunPlan, out: EngineOutput, unbounded_kinds: Iterable[str] = ()) -> None:
    """Check a kernel engine's output against the physical bounds of the module docstring.

    Parameters
    ----------
    plan : RunPlan
        The plan the engine ran (resources, capacity changes, segments, rates).
    out : EngineOutput
        What it measured: per flow and subflow, goodput per sample (Mbit/s) and windows (packets).
    unbounded_kinds : iterable of str
        Resource kinds (``"air"``) whose plan capacity the engine does not apply (Mininet-WiFi's
        emulated PHY sets the air rate): they bound no path.

    Raises
    ------
    EngineInvariantViolated
        ``finite_non_negative``, ``path_capacity`` or ``flow_rate``, naming the flow (and subflow or
        resource), the time of the sample and the value against its bound, in bits.
    """
    unbounded = set(unbounded_kinds)
    bounding = {r.id for r in plan.resources if r.kind not in unbounded}
    caps = _capacity_timeline(plan)
    plans = {fp.id: fp for fp in plan.flows}
    dt = plan.interval_s
    for f in out.flows:
        series = [(None, f.t_s, f.throughput_mbps)] + [(s.id, s.t_s, s.throughput_mbps) for s in f.subflows]
        series += [(s.id, s.t_s, s.cwnd_packets) for s in f.subflows]
        for sub, ts, values in series:
            for t, v in zip(ts, values):
                if not (math.isfinite(v) and v >= 0.0):
                    raise EngineInvariantViolated(out.engine, "finite_non_negative", t, f.id, sub, None,
                                                  v, 0.0, "Mbit/s or packets")
        fp = plans.get(f.id)
        if fp is None:
            continue
        held = _held_bits(plan, fp)
        path = [_path_capacity(fp, t, caps, bounding) for t in f.t_s]
        excess, k = _largest_excess(f.throughput_mbps, [c for c, _ in path], dt)
        if excess > held:
            raise EngineInvariantViolated(out.engine, "path_capacity", f.t_s[k], f.id, None, path[k][1],
                                          excess, held, "bits")
        if fp.rate_mbps is not None:
            allowed = [fp.rate_mbps if t + dt > fp.start_s and t < fp.stop_s else 0.0 for t in f.t_s]
            bound = held + RATE_SLACK_S * fp.rate_mbps * 1e6
            excess, k = _largest_excess(f.throughput_mbps, allowed, dt)
            if excess > bound:
                raise EngineInvariantViolated(out.engine, "flow_rate", f.t_s[k], f.id, None, None,
                                              excess, bound, "bits")


__all__ = ["check_output", "RECEIVE_BUFFER_BITS", "RATE_SLACK_S"]
