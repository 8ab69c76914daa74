"""The sampler of one ``linux`` run: a thread that reads ``ss -tinH`` in the flows'
namespaces at every interval boundary (receiver ``bytes_received`` per subflow socket:
goodput; sender ``cwnd``/``retrans``/``backoff``: cwnd, retransmissions, observed RTOs).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

from subflow.runplan.document import RunPlan

from . import sockets
from .routing import active_segment
from .topology import Model
from .traffic import FlowRun


class Sampler:
    """Samples the kernel's sockets into the :class:`~.traffic.FlowRun` records of a run.

    Parameters
    ----------
    plan : RunPlan
        The run's plan (interval, duration).
    model : Model
        Namespaces of the flows' endpoints.
    flows : dict of str to FlowRun
        Filled in place: bytes, cwnd, retransmissions, when subflows were seen.
    now : callable
        Seconds on the run clock.
    emit : callable
        ``emit(t, kind, flow, subflow, **extra)``: records an observed ``rto`` event.

    A failure inside the thread is kept in :attr:`error` for the driver to raise.
    """

    def __init__(self, plan: RunPlan, model: Model, flows: dict[str, FlowRun], now: Callable[[], float],
                 emit: Callable[..., None]):
        self.plan = plan
        self.model = model
        self.flows = flows
        self.now = now
        self.emit = emit
        self.interval = plan.interval_s
        self.n_bins = max(1, int(math.ceil(plan.duration_s / plan.interval_s - 1e-9)))
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None
        self.error: BaseException | None = None

    def start(self, name: str) -> None:
        """Start the sampling thread (the run clock must be running)."""
        self.thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self.thread.start()

    def join(self, timeout: float) -> None:
        if self.thread is not None:
            self.thread.join(timeout=timeout)

    def stop(self, timeout: float = 5) -> None:
        """Ask the thread to stop and wait for it up to ``timeout`` s."""
        self.stopping.set()
        self.join(timeout)

    def subflow_of(self, fl: FlowRun, addr_rx: str, addr_tx: str, t: float, side: str) -> str | None:
        """The plan's subflow a socket of ``fl`` carries at ``t``: the active segment's for a
        single-path flow, else the one whose key address is the socket's (``side`` ``rx``:
        ``addr_rx``, ``tx``: ``addr_tx``)."""
        fa = fl.fa
        if fa.mode == "single":
            seg = active_segment(fl.fp, max(0.0, t - 1e-6))
            if seg is not None and seg.subflows:
                return seg.subflows[0].id
            return fl.order[0] if fl.order else None
        want = addr_rx if side == "rx" else addr_tx
        for sid, a in fa.key_addr.items():
            if a == want:
                return sid
        return None

    def _loop(self) -> None:
        try:
            prev_rx: dict[tuple, float] = {}
            backoff: dict[tuple, float] = {}
            ns_rx = {fl.fp.id: self.model.ns(fl.fp.dst) for fl in self.flows.values()}
            ns_tx = {fl.fp.id: self.model.ns(fl.fp.src) for fl in self.flows.values()}
            for k in range(1, self.n_bins + 1):
                target = min(k * self.interval, self.plan.duration_s)
                while self.now() < target:
                    if self.stopping.is_set():
                        return
                    time.sleep(max(0.0, min(0.05, target - self.now())))  # now() moves on between the calls
                t = self.now()
                b = k - 1
                cache: dict[str, list] = {}

                def get(ns: str) -> list:
                    if ns not in cache:
                        cache[ns] = sockets.sample(ns)
                    return cache[ns]

                for fid, fl in self.flows.items():
                    port = fl.fa.port
                    seen: set[str] = set()
                    for s in get(ns_rx[fid]):
                        if s.lport != port:
                            continue
                        # rx side: local = the server's address, peer = the client's
                        sid = self.subflow_of(fl, s.peer if fl.fa.mode == "src" else s.local, "", t, "rx")
                        key = (ns_rx[fid],) + s.key
                        cur = s.num("bytes_received")
                        delta = max(0.0, cur - prev_rx.get(key, 0.0))
                        prev_rx[key] = cur
                        fl.total[b] += delta
                        if sid is not None and sid in fl.sub_bytes:
                            fl.sub_bytes[sid][b] += delta
                            if s.state == "ESTAB" and cur > 0:
                                seen.add(sid)
                    best: dict[str, tuple[float, float]] = {}
                    for s in get(ns_tx[fid]):
                        if s.pport != port:
                            continue
                        sid = self.subflow_of(fl, "", s.local if fl.fa.mode == "src" else s.peer, t, "tx")
                        if sid is None or sid not in fl.sub_bytes:
                            continue
                        acked = s.num("bytes_acked")
                        if acked >= best.get(sid, (-1.0, 0.0))[0]:
                            best[sid] = (acked, s.num("cwnd"))
                        fl.sub_retrans[sid][s.key] = max(fl.sub_retrans[sid].get(s.key, 0.0), s.num("retrans"))
                        bo = s.num("backoff")
                        key = (ns_tx[fid],) + s.key
                        if bo > backoff.get(key, 0.0) and acked > 1000:
                            self.emit(t, "rto", fl, sid, backoff=int(bo), observed="ss")
                        backoff[key] = bo
                    for sid, (_, cw) in best.items():
                        fl.sub_cwnd[sid][b] = cw
                    for sid in seen:
                        w = fl.sub_seen.setdefault(sid, [t, t])
                        w[1] = t
                    fl.observed_max = max(fl.observed_max, len(seen))
        except BaseException as exc:  # surfaced by the driver
            self.error = exc
