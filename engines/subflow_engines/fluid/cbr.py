"""Constant-rate sources of the fluid engine: ``udp`` (cbr) and ``voice`` flows.

A constant-rate source is not responsive: it sends at its rate (a udp flow's ``rate_mbps``, a voice flow's codec
rate on the wire, :func:`subflow.results.voice.flow_rate_mbps`) whatever the network does, on the first path of
its plan segment, and shares the fluid drop-tail queues with the TCP subflows (:mod:`.queues`). Per output
interval it reports:

* ``delay_ms``: mean one-way delay of its delivered bits, the steps weighted by the bits each delivered; one
  step's delay is Σ over the path's hops of propagation + queueing (the hop's queue at the step's end over its
  capacity: FIFO, the packet waits behind all of it) + the transmission of one packet at the hop's rate
  (store-and-forward; :func:`one_way_delay_s`);
* ``jitter_ms``: RFC 3550 §6.4.1 interarrival jitter at the interval's end, over the source's packets (one every
  packet_bytes·8/rate s): within a step every packet sees that step's delay, so |D| is the change of delay
  between the last packet of one step and the first of the next and 0 between the others;
* ``loss``: the fraction of the bits sent in the interval that were dropped at a full queue, lost at random on
  a link, or sent while the flow had no path;
* ``cwnd_packets`` 0 throughout (no window);
* voice flows also ``r_factor`` and ``mos`` (ITU-T G.107 E-model, :func:`subflow.results.voice.voice_rating`)
  from the mouth-to-ear delay = delay_ms + the packetisation interval (no jitter buffer and no codec look-ahead
  are modelled), the interval's loss as random loss (BurstR 1), and the codec's Ie and Bpl from ITU-T G.113
  (:func:`subflow.results.voice.codec_impairment`); null for a codec G.113 does not tabulate (Opus, G.729A
  without silence suppression).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from subflow.errors import QualityModelInvalid
from subflow.results.voice import codec_impairment, voice_rating
from subflow.runplan.document import FlowPlan, RunPlan
from subflow.scenario.document import Flow, VoiceSource

#: the flow kinds the fluid engine runs as constant-rate sources
CBR_KINDS = ("udp", "voice")


def one_way_delay_s(res: Sequence[int], resources, queue_bits: np.ndarray, cap_bps: np.ndarray,
                    packet_bits: float) -> float:
    """One-way delay of a packet along the resources ``res``, s: Σ propagation (``delay_ms``) + queue / capacity
    + ``packet_bits`` / capacity (one packet's transmission, store-and-forward). ``queue_bits``, ``cap_bps`` and
    ``packet_bits`` in the same (goodput-scaled) bits; a hop without capacity adds nothing but its propagation."""
    total = 0.0
    for i in res:
        total += resources[i].delay_ms * 1e-3
        c = float(cap_bps[i])
        if c > 0.0:
            total += (float(queue_bits[i]) + packet_bits) / c
    return total


class CbrSource:
    """One constant-rate flow's ledger per output interval (bits are IP bits, delays s)."""

    def __init__(self, fp: FlowPlan, n_bins: int, dt_s: float):
        self.plan = fp
        self.rate_bps = (fp.rate_mbps or 0.0) * 1e6
        self.packet_bits = float(fp.packet_bytes or 1228) * 8.0
        self.dt_s = dt_s
        self.sub = None  # the subflow carrying it this step (set by the kernel's schedule)
        self.sent = [0.0] * n_bins
        self.lost = [0.0] * n_bins
        self.delay_sum = [0.0] * n_bins
        self.delay_weight = [0.0] * n_bins
        self.jitter: list[float | None] = [None] * n_bins
        self.j = 0.0
        self.prev_delay: float | None = None
        self.credit = 0.0  # fraction of a packet carried to the next step

    def record(self, b: int, delay_s: float | None, delivered_bits: float, lost_bits: float | None) -> None:
        """One step in output interval ``b``: ``delay_s`` None when the flow had no path (all it sent is lost)."""
        sent = self.rate_bps * self.dt_s
        self.sent[b] += sent
        if delay_s is None:
            self.lost[b] += sent
            return
        self.lost[b] += lost_bits or 0.0
        self.delay_sum[b] += delay_s * delivered_bits
        self.delay_weight[b] += delivered_bits
        self.credit += sent / self.packet_bits
        n = int(self.credit)
        self.credit -= n
        if n > 0 and self.prev_delay is None:
            self.prev_delay, n = delay_s, n - 1  # the first packet: J(0) = 0
        if n > 0:
            self.j += (abs(delay_s - self.prev_delay) - self.j) / 16.0
            self.j *= (15.0 / 16.0) ** (n - 1)
            self.prev_delay = delay_s
        self.jitter[b] = self.j

    def series(self, plan: RunPlan, interval_s: float) -> dict:
        """The flow's ``delay_ms``, ``jitter_ms`` and ``loss`` per interval (null where it sent nothing), and for a
        voice flow ``r_factor`` and ``mos``."""
        delay = [None if w <= 0 else round(s / w * 1e3, 6) for s, w in zip(self.delay_sum, self.delay_weight)]
        jitter = [None if j is None else round(j * 1e3, 6) for j in self.jitter]
        loss = [None if s <= 0 else round(min(1.0, max(0.0, lo / s)), 9) for s, lo in zip(self.sent, self.lost)]
        out: dict = {"delay_ms": delay, "jitter_ms": jitter, "loss": loss}
        if self.plan.kind == "voice":
            out["r_factor"], out["mos"] = self._ratings(plan, delay, loss)
        return out

    def _ratings(self, plan: RunPlan, delay: list, loss: list) -> tuple[list, list]:
        flow = next((f for f in (plan.scenario or {}).get("flows", []) if f.get("id") == self.plan.id), None)
        voice = (Flow.model_validate(flow).voice if flow is not None else None) or VoiceSource()
        try:
            impairment = codec_impairment(voice.codec, voice.plc, voice.silence_suppression)
        except QualityModelInvalid:
            return [None] * len(delay), [None] * len(delay)
        r, mos = [], []
        for d, lo in zip(delay, loss):
            if d is None or lo is None or not math.isfinite(d):
                r.append(None)
                mos.append(None)
                continue
            rating = voice_rating(d + voice.packet_interval_ms, lo, impairment)
            r.append(round(rating.r, 4))
            mos.append(round(rating.mos, 4))
        return r, mos
