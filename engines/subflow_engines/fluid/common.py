"""What the fluid engine's two kernels share: constants, the time grid, set-up of the
plan's resources, events, progress and cancellation, and the output document.

:class:`FluidSimulator` is the base of :class:`~subflow_engines.fluid.scalar.ScalarSimulator`
and :class:`~subflow_engines.fluid.vectorised.VectorSimulator`; each kernel keeps its own
state (Python objects or arrays) and implements :meth:`FluidSimulator.step`,
:meth:`FluidSimulator.sample_cwnd` and :meth:`FluidSimulator.flow_records`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from subflow.errors import RunCancelled
from subflow.plan import FlowPlan, RunPlan, SubflowPath
from subflow.results import EngineOutput, FlowResult, SubflowResult

NAME = "fluid"
CLOCK_GRANULARITY_S = 0.001  # G of RFC 6298
MAX_CWND_PACKETS = 1e5
#: how many times in a run the simulator reports progress and polls ``should_stop`` (about)
PROGRESS_REPORTS = 50


@dataclass(frozen=True)
class Clock:
    """The time grid of a run.

    ``n_bins`` output samples of ``interval_s`` each, ``per_bin`` steps of ``dt_s`` per sample,
    ``n_steps`` steps in all. The step is half the smallest round-trip time, within [1 ms,
    10 ms]: slow start is integrated exactly (doubling per RTT) and congestion avoidance is
    linear in time, so the step only bounds how fast queues and loss reactions are resolved.
    """

    interval_s: float
    n_bins: int
    per_bin: int
    dt_s: float
    n_steps: int

    @classmethod
    def for_plan(cls, plan: RunPlan, path_rtt_s: Callable[[SubflowPath], float]) -> "Clock":
        """The grid of ``plan``; ``path_rtt_s`` gives a subflow path's base RTT in seconds
        (0.04 s when the plan has no path)."""
        interval = plan.interval_s
        n_bins = max(1, int(math.ceil(plan.duration_s / interval - 1e-9)))
        min_rtt = min((path_rtt_s(sp) for sp in subflow_paths(plan)), default=0.04)
        per_bin = max(1, int(math.ceil(interval / min(0.01, max(0.001, min_rtt / 2)))))
        dt = interval / per_bin
        return cls(interval_s=interval, n_bins=n_bins, per_bin=per_bin, dt_s=dt,
                   n_steps=int(round(plan.duration_s / dt)))

    def bin_times_s(self) -> list[float]:
        """Start of every output sample, s."""
        return [round(k * self.interval_s, 9) for k in range(self.n_bins)]


def subflow_paths(plan: RunPlan) -> Iterator[SubflowPath]:
    """Every subflow path of every segment of every flow of ``plan``, in plan order."""
    for fp in plan.flows:
        for seg in fp.segments:
            yield from seg.subflows


@dataclass
class SubflowRecord:
    """One subflow's timelines as a kernel hands them to the output: goodput in Mbit/s per
    sample (unrounded), cwnd in packets per sample, retransmissions counted."""

    id: str
    path: list[str]
    throughput_mbps: list[float]
    cwnd_packets: list[float]
    retransmissions: int


class FluidSimulator:
    """Base of both kernels: the plan's set-up, the step loop, events and the output.

    Parameters
    ----------
    plan : RunPlan
        From :func:`subflow.resolve.resolve_plan`.

    A subclass sets :attr:`clock` (:meth:`Clock.for_plan` with its own base-RTT formula)
    and implements :meth:`step`, :meth:`sample_cwnd`, :meth:`flow_records` and, when it
    keeps copies of capacities, :meth:`set_capacity`.
    """

    clock: Clock

    def __init__(self, plan: RunPlan):
        self.plan = plan
        self.transport = tr = plan.transport
        self.pkt_bits = tr.mss_bytes * 8.0
        self.rbuf_bits = math.inf if tr.rbuf_bytes is None else tr.rbuf_bytes * 8.0
        self.resources = plan.resources
        self.index = {r.id: i for i, r in enumerate(plan.resources)}
        self.n_res = len(plan.resources)
        #: capacity changes (t_s, resource index, capacity in bit/s), in time order
        self.changes = [(c.t_s, self.index[c.resource], c.capacity_mbps * 1e6) for c in plan.capacity_changes]
        self.next_change = 0
        self.events: list[dict] = []

    # ------------------------------------------------------------------ events
    def emit(self, t: float, kind: str, fp: FlowPlan, subflow_id: str | None = None, **extra) -> None:
        """Record a transport event of flow ``fp`` at ``t`` seconds (rounded to the µs)."""
        ev = {"t_s": round(t, 6), "kind": kind, "node": fp.src, "flow": fp.id}
        if subflow_id is not None:
            ev["subflow"] = subflow_id
        ev.update(extra)
        self.events.append(ev)

    # ------------------------------------------------------------------ the run
    def run(
        self,
        on_progress: Callable[[float], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> EngineOutput:
        """Run every step, then assemble the output (see :func:`subflow_engines.fluid.run`).

        Raises
        ------
        RunCancelled
            When ``should_stop`` returns True (polled about every 2 % of the run).
        """
        clock = self.clock
        dt, n_steps, n_bins, per_bin = clock.dt_s, clock.n_steps, clock.n_bins, clock.per_bin
        progress_every = max(1, n_steps // PROGRESS_REPORTS)
        step_fn, sample = self.step, self.sample_cwnd
        for step in range(n_steps):
            t = step * dt
            b = min(n_bins - 1, step // per_bin)
            if step % progress_every == 0:
                if should_stop is not None and should_stop():
                    raise RunCancelled()
                if on_progress is not None:
                    on_progress(step / n_steps)
            if self.next_change < len(self.changes):
                self.apply_capacity_changes(t)
            step_fn(step, t, b)
            if (step + 1) % per_bin == 0:
                sample(b)
        output = self.output()
        if on_progress is not None:
            on_progress(1.0)
        return output

    def apply_capacity_changes(self, t: float) -> None:
        """Apply the plan's capacity changes due at ``t``."""
        changes = self.changes
        while self.next_change < len(changes) and changes[self.next_change][0] <= t + 1e-12:
            _, i, c_bps = changes[self.next_change]
            self.set_capacity(i, c_bps)
            self.next_change += 1

    def set_capacity(self, i: int, capacity_bps: float) -> None:
        """Resource ``i`` now serves ``capacity_bps``."""
        raise NotImplementedError

    def step(self, step: int, t: float, b: int) -> None:
        """Advance every flow by one step from ``t`` (step number ``step``, output sample ``b``)."""
        raise NotImplementedError

    def sample_cwnd(self, b: int) -> None:
        """At the end of output sample ``b``: record every subflow's cwnd."""
        raise NotImplementedError

    # ------------------------------------------------------------------ output
    def flow_records(self, c: int) -> tuple[list[SubflowRecord], float | None]:
        """Flow ``c``'s subflows in order of first appearance, and when it completed (s, or None)."""
        raise NotImplementedError

    def output(self) -> EngineOutput:
        """The engine output: per flow, goodput (sum of its subflows) and per-subflow timelines at
        ``plan.interval_s``, rounded to 1e-6 Mbit/s; ``completion_s`` for finite transfers; the
        events in time order."""
        n_bins = self.clock.n_bins
        t_s = self.clock.bin_times_s()
        flows: list[FlowResult] = []
        for c, fp in enumerate(self.plan.flows):
            records, done_t = self.flow_records(c)
            subs: list[SubflowResult] = []
            total = [0.0] * n_bins
            for rec in records:
                thr = rec.throughput_mbps
                for k in range(n_bins):
                    total[k] += thr[k]
                subs.append(SubflowResult(id=rec.id, path=rec.path, t_s=t_s,
                                          throughput_mbps=[round(v, 6) for v in thr],
                                          cwnd_packets=rec.cwnd_packets, retransmissions=rec.retransmissions))
            extra = {}
            if fp.size_bytes is not None:
                extra["completion_s"] = None if done_t is None else round(done_t - fp.start_s, 6)
            flows.append(FlowResult(id=fp.id, src=fp.src, dst=fp.dst, t_s=t_s,
                                    throughput_mbps=[round(v, 6) for v in total], subflows=subs, **extra))
        self.events.sort(key=lambda e: e["t_s"])
        return EngineOutput(engine=NAME, strategy=self.plan.strategy, flows=flows, events=self.events)


def throughput_mbps(bits: Sequence[float], interval_s: float) -> list[float]:
    """Bits delivered per sample -> Mbit/s per sample."""
    return [v / interval_s / 1e6 for v in bits]
