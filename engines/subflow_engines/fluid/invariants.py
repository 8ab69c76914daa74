"""Physical invariants the ``fluid`` engine checks on every run, at the end of every output sample.

For every output sample ``[t, t + interval)`` (bits, per subflow slot or per resource):

1. every subflow's goodput and congestion window are finite and non-negative;
2. a subflow delivers at most what the narrowest hop of its path served in the sample
   (Σ over the sample's steps of the narrowest capacity·dt) plus the bits it held in its queues
   when the sample began (they crossed the narrowest hop earlier); in a sample where some
   capacity changed, plus the buffers of its path (a queue filled behind the old bottleneck
   drains through the new one);
3. on every resource (link direction, access point air), the bits delivered by the subflows
   crossing it are at most its capacity·duration in the sample, plus what those subflows held
   *after* it on their paths when the sample began (the stated tolerance for interval edges);
4. each subflow has delivered, since the start, at most what it sent;
5. an open subflow's window is within [1 segment, twice the receive window] (``rbuf_bytes``/MSS;
   Linux's slow start grows cwnd up to twice the packets in flight, which the receive window
   bounds: :attr:`~subflow_engines.fluid.common.FluidSimulator.cwnd_clamp_packets`), at most
   :data:`~subflow_engines.fluid.common.MAX_CWND_PACKETS`.

Capacities are goodput capacities (:func:`~subflow_engines.fluid.common.goodput_fraction`), so
(2) and (3) compare like with like. A broken invariant raises
:class:`subflow.errors.EngineInvariantViolated` naming the flow, subflow, resource and time:
the run ends as an engine error (through the service: ``failed`` with that reason) instead of
returning numbers that cannot be. The checks are array operations over subflows and resources,
once per sample.
"""

from __future__ import annotations

import numpy as np

from subflow.errors import EngineInvariantViolated

#: relative slack of the capacity and conservation checks (floating-point sums over many steps)
REL_TOL = 1e-6
#: absolute slack, bits
ABS_TOL_BITS = 1.0


class SampleLedger:
    """Per-sample accumulators of one run and the checks at each sample's end.

    Parameters
    ----------
    n_slots, n_res : int
        Subflow slots and resources of the plan.
    rwnd_packets : float
        Largest congestion window allowed, packets (twice the receive window).

    Attributes (``ndarray`` of float64, bits unless said)
    ----------
    link_bits, link_cap_bits : (n_res,)
        Delivered by subflows crossing each resource in the sample; its capacity·dt summed.
    link_tol : (n_res,)
        Backlog held after each resource when the sample began.
    slot_cap_bits, slot_tol : (n_slots,)
        Narrowest capacity·dt of each subflow's path, summed; its backlog when the sample began.
    sent_bits, delivered_bits : (n_slots,)
        Since the start of the run.
    capacity_changed : bool
        Some capacity changed during the sample.
    """

    def __init__(self, n_slots: int, n_res: int, rwnd_packets: float):
        self.rwnd_packets = rwnd_packets
        self.link_bits = np.zeros(n_res)
        self.attributed_bits = np.zeros(n_slots)  # of each slot's bits in the sample, those in link_bits
        self.link_cap_bits = np.zeros(n_res)
        self.link_tol = np.zeros(n_res)
        self.slot_cap_bits = np.zeros(n_slots)
        self.slot_tol = np.zeros(n_slots)
        self.sent_bits = np.zeros(n_slots)
        self.delivered_bits = np.zeros(n_slots)
        self.capacity_changed = False

    def start_sample(self) -> None:
        """Zero the per-sample accumulators (the kernel then fills ``slot_tol`` and ``link_tol``)."""
        self.link_bits[:] = 0.0
        self.attributed_bits[:] = 0.0
        self.link_cap_bits[:] = 0.0
        self.link_tol[:] = 0.0
        self.slot_cap_bits[:] = 0.0
        self.slot_tol[:] = 0.0
        self.capacity_changed = False

    def check(self, t_s: float, bits: np.ndarray, cwnd: np.ndarray, is_open: np.ndarray,
              path_buf_bits: np.ndarray, name_slot, name_res) -> None:
        """Check the invariants of the module docstring for the sample that began at ``t_s``.

        Parameters
        ----------
        t_s : float
            Start of the sample, s.
        bits : ndarray (n_slots,)
            Bits each slot delivered in the sample (after random loss).
        cwnd : ndarray (n_slots,)
            Congestion windows at the sample's end, packets.
        is_open : ndarray of bool (n_slots,)
            Slots whose connection is open (their window is checked).
        path_buf_bits : ndarray (n_slots,)
            Buffers along each slot's current path, bits (used only after a capacity change).
        name_slot : callable
            ``name_slot(slot) -> (flow id, subflow id)``.
        name_res : callable
            ``name_res(resource index) -> resource id``.

        Raises
        ------
        EngineInvariantViolated
            Naming the first broken invariant's flow, subflow, resource and time.
        """
        self.delivered_bits += bits
        bad = ~np.isfinite(bits) | (bits < 0.0)
        if bad.any():
            s = int(np.argmax(bad))
            self._raise("finite, non-negative goodput", t_s, name_slot(s), None, float(bits[s]), 0.0, "bits")
        bad = ~np.isfinite(cwnd) | (cwnd < 0.0)
        if bad.any():
            s = int(np.argmax(bad))
            self._raise("finite, non-negative cwnd", t_s, name_slot(s), None, float(cwnd[s]), 0.0, "packets")
        tol = self.slot_tol + (path_buf_bits if self.capacity_changed else 0.0)
        bound = self.slot_cap_bits * (1.0 + REL_TOL) + tol + ABS_TOL_BITS
        over = bits > bound
        if over.any():
            s = int(np.argmax(bits - bound))
            self._raise("subflow within its narrowest hop's capacity", t_s, name_slot(s), None,
                        float(bits[s]), float(bound[s]), "bits")
        bound = self.link_cap_bits * (1.0 + REL_TOL) + self.link_tol + ABS_TOL_BITS
        over = self.link_bits > bound
        if over.any():
            u = int(np.argmax(self.link_bits - bound))
            self._raise("subflows within the link's capacity", t_s, None, name_res(u),
                        float(self.link_bits[u]), float(bound[u]), "bits")
        over = self.delivered_bits > self.sent_bits * (1.0 + REL_TOL) + ABS_TOL_BITS
        if over.any():
            s = int(np.argmax(over))
            self._raise("bytes delivered at most bytes sent", t_s, name_slot(s), None,
                        float(self.delivered_bits[s]), float(self.sent_bits[s]), "bits")
        w = np.where(is_open, cwnd, 1.0)
        bad = (w < 1.0 - 1e-9) | (w > self.rwnd_packets * (1.0 + 1e-9))
        if bad.any():
            s = int(np.argmax(bad))
            self._raise(f"cwnd within [1, {self.rwnd_packets:g}] segments", t_s, name_slot(s), None,
                        float(cwnd[s]), self.rwnd_packets, "packets")

    @staticmethod
    def _raise(invariant, t_s, who, link, value, bound, unit) -> None:
        flow, subflow = who if who is not None else (None, None)
        raise EngineInvariantViolated(engine="fluid", invariant=invariant, t_s=t_s, flow=flow, subflow=subflow,
                                      link=link, value=value, bound=bound, unit=unit)
