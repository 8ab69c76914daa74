"""Non-responsive sources of the fluid engine: ``udp`` (cbr and on/off), ``voice`` and ``video`` flows.

A source is not responsive: it sends what its pattern says whatever the network does, on the first path of its
plan segment, and shares the fluid drop-tail queues with the TCP subflows (:mod:`.queues`). What it sends in a
step from t to t + dt (:meth:`Source.begin_step`; the on/off periods and the video frames are those of
:mod:`subflow_engines.sources`, which the linux engine sends as real packets):

* ``udp`` cbr: ``rate_mbps`` (IP bits) throughout;
* ``udp`` on/off: ``rate_mbps`` while on, nothing while off; the periods alternate from the flow's start,
  beginning with an on period, their lengths drawn from the flow's own stream of counter-based draws
  (:mod:`subflow_engines.draws`, keyed by the run's seed and the flow's id, so a run repeats for its seed):
  exponential, L = −mean·ln(1 − u), or Pareto, L = x_m·(1 − u)^(−1/a) with shape a > 1 and scale
  x_m = mean·(a − 1)/a so that the mean is the given one (ns-3's OnOffApplication with its Exponential or
  Pareto random variables, ns-2's Application/Traffic/Exponential and /Pareto). The step sends the rate times
  the part of the step that is on (:class:`OnOff`), so the long-run mean rate is rate · on / (on + off);
* ``voice``: its codec's IP rate (:func:`subflow.results.voice.flow_rate_mbps`); with silence suppression only
  during talkspurts, an on/off source with exponential talkspurts of mean :data:`TALKSPURT_MEAN_S` and pauses of
  mean :data:`PAUSE_MEAN_S` (ITU-T P.59 artificial conversational speech);
* ``video``: frames at ``frame_rate_fps`` from the flow's start, one intra-coded (I) frame every ``gop_frames``
  frames and predicted (P) frames between them, an I frame :data:`I_FRAME_RATIO` times a P frame, so that a group
  of pictures carries ``bitrate_mbps`` (IP bits) on average: P = R·G / (f·(k + G − 1)), I = k·P
  (:func:`video_frame_bits`). A frame leaves as a burst of packets of at most :data:`VIDEO_PACKET_BYTES` at its
  instant: the fluid step holds all the bits of the frames whose instants fall in it, so the burst arrives at
  the queues within the step (at the rate bits/dt) and queues there as a burst would; its last packet's delay is
  the step's one-way delay, behind the queue the burst left.

Per output interval the source reports:

* ``delay_ms``: mean one-way delay of its delivered bits, the steps weighted by the bits each delivered; one
  step's delay is Σ over the path's hops of propagation + queueing (the hop's queue at the step's end over its
  capacity: FIFO, the packet waits behind all of it) + the transmission of one packet at the hop's rate
  (store-and-forward; :func:`one_way_delay_s`);
* packet granularity: the fluid queue is the mean of a queue that, packet by packet, moves in whole packets. A
  queue fed by ACK-clocked TCP gains :data:`ACK_BURST_SEGMENTS` full-sized segments at once and drains one at a
  time, so a packet arriving at a random instant waits the fluid queue's delay plus a term uniform over the
  drain time of one such burst, centred on zero (the residual-life argument of queueing theory: Kleinrock,
  *Queueing Systems* vol. 1, §5.2). Each step's packets therefore see a delay uniform over
  ``delay ± spread/2``, with ``spread`` Σ over the hops of min(queue, burst)/capacity
  (:func:`delay_spread_s`; 0 on a hop with no queue or no TCP-family sender: a queue fed only by
  non-responsive sources moves as the fluid does), drawn independently packet to packet (their gaps exceed
  the burst's drain time: 20 ms voice packets against 6 ms at 4 Mbit/s). The mean delay is unchanged;
* ``delay_p95_ms``: the 95th percentile of the per-packet one-way delay over the interval's delivered bits, each
  step's bits spread uniformly over its delay ± spread/2 (:func:`spread_percentile`; packets of one flow have
  one size, so bits count packets);
* ``jitter_ms``: RFC 3550 §6.4.1 interarrival jitter J at the interval's end, over the source's packets, as its
  expected value: J is a running average of |D|, so its expectation is the same running average of E|D|; D
  between two packets is the change of the step delay (0 within a step) plus the difference of their two
  granularity terms, whose expectation is :func:`expected_abs_change`;
* ``loss``: the fraction of the bits sent in the interval that were dropped at a full queue, lost at random on
  a link, or sent while the flow had no path;
* ``sent_mbps``: the IP bits the source sent in the interval / the interval (the weights of the run's loss);
* ``cwnd_packets`` 0 throughout (no window);
* voice flows also ``r_factor`` and ``mos`` (ITU-T G.107 E-model, :func:`subflow.results.voice.interval_ratings`):
  mouth-to-ear delay = ``delay_ms`` + the packetisation interval + the playout buffer
  (``voice.playout_delay_ms``) + the codec's look-ahead (:func:`subflow.results.voice.mouth_to_ear_ms`); packet
  loss Ppl = the interval's loss plus its late packets (those delivered more than the playout buffer above the interval's mean
  delay, which a fixed buffer centred on the mean discards; each step's share of them from its spread), as random loss (BurstR 1); the codec's Ie and Bpl
  from ITU-T G.113 (:func:`subflow.results.voice.codec_impairment`): null for a codec or a silence suppression
  setting G.113 does not tabulate (Opus; G.711 with silence suppression; G.729A without);
* video flows also ``frames_sent``, ``frames_lost`` and ``frames_late``: a frame of n packets sent in a step
  in which a packet is lost with probability p = 1 − (1 − d)·Π(1 − loss) (d the step's drop fraction along the
  path, the product over its links' random loss) is lost with probability 1 − (1 − p)^n (its packets meet the
  loss independently; the bits of a burst leave the queues over later steps, so the step's lost share of bits
  would miss most of its random loss), decided by the flow's frame draw (:mod:`subflow_engines.draws`); a frame
  not lost is late when the step's one-way delay exceeds ``video.playout_delay_ms`` (its deadline is its send
  time plus that). A frame counts in the interval in which it was sent.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from subflow.results.voice import interval_ratings
from subflow.runplan.document import FlowPlan, RunPlan
from subflow.scenario.document import Flow, VideoSource, VoiceSource

from subflow_engines import draws
from subflow_engines.sources import (  # noqa: F401  (the source definitions' one home; re-exported here)
    FRAME_STREAM, I_FRAME_RATIO, ONOFF_STREAM, PAUSE_MEAN_S, TALKSPURT_MEAN_S, VIDEO_PACKET_BYTES, OnOff, VideoFrames,
    onoff_of, period_length_s, video_frame_bits,
)

#: the flow kinds the fluid engine runs as non-responsive sources
CBR_KINDS = ("udp", "voice", "video")

#: which percentile ``delay_p95_ms`` is
DELAY_PERCENTILE = 0.95

#: full-sized segments an ACK-clocked TCP sender puts into a queue at once: a receiver acknowledges at least every
#: second full-sized segment (RFC 5681 §4.2, RFC 1122 §4.2.3.2), and each ACK of two segments releases two more
ACK_BURST_SEGMENTS = 2


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


def delay_spread_s(res: Sequence[int], queue_bits: np.ndarray, cap_bps: np.ndarray, burst_bits: np.ndarray) -> float:
    """Width of the packet-granularity term of a packet's one-way delay along the resources ``res``, s:
    Σ min(queue, burst) / capacity over the hops (module docstring), ``burst_bits`` per resource (0 where no
    ACK-clocked sender feeds the queue). ``queue_bits``, ``cap_bps`` and ``burst_bits`` in the same
    (goodput-scaled) bits; a hop without capacity adds nothing. E.g. one hop of 4 Mbit/s with a standing queue and
    a burst of two 1514-byte frames: 2 · 12112 / 4e6 = 6.056 ms."""
    total = 0.0
    for i in res:
        c = float(cap_bps[i])
        if c > 0.0:
            total += min(float(queue_bits[i]), float(burst_bits[i])) / c
    return total


def expected_abs_change(delta_s: float, spread_s: float) -> float:
    """E|Δ + w·(U₁ − U₂)|, s, for U₁, U₂ independent uniforms on [0, 1), Δ = ``delta_s`` and w = ``spread_s`` ≥ 0:
    the expected |D| of RFC 3550 §6.4.1 between two packets whose step delays differ by Δ, each with its own
    granularity term of width w. U₁ − U₂ has the triangular density 1 − |t| on [−1, 1]; with a = |Δ|/w ≤ 1,
    E|a + T| = a + (1 − a)³/3, and |Δ| for a ≥ 1. E.g. Δ = 0: w/3; Δ = w/2: w·(1/2 + 1/24).
    """
    d = abs(delta_s)
    if spread_s <= 0.0 or d >= spread_s:
        return d
    a = d / spread_s
    return spread_s * (a + (1.0 - a) ** 3 / 3.0)


def spread_percentile(steps: Sequence[tuple[float, float, float]], q: float) -> float | None:
    """The q-quantile of the delays of (delay, weight, spread) ``steps``, each step's weight spread uniformly over
    [delay − spread/2, delay + spread/2] (a point mass at its delay where spread is 0): the smallest x whose
    mixture distribution function reaches q, by bisection to 1 ns; :func:`weighted_percentile` when no step has a
    spread; None when the total weight is 0. E.g. one step (10 ms, 1, 4 ms) at 0.95: 8 + 0.95 · 4 = 11.8 ms."""
    if not any(s > 0.0 for _, _, s in steps):
        return weighted_percentile([(d, w) for d, w, _ in steps], q)
    d = np.array([x[0] for x in steps])
    w = np.array([x[1] for x in steps])
    s = np.array([x[2] for x in steps])
    keep = w > 0.0
    d, w, s = d[keep], w[keep], s[keep]
    total = float(w.sum())
    if total <= 0.0:
        return None
    lo_edge, hi_edge = d - s / 2.0, d + s / 2.0
    width = np.where(s > 0.0, s, 1.0)

    def cdf(x: float) -> float:
        part = np.where(s > 0.0, np.clip((x - lo_edge) / width, 0.0, 1.0), (d <= x).astype(float))
        return float((w * part).sum()) / total

    lo, hi = float(lo_edge.min()), float(hi_edge.max())
    target = q * (1.0 - 1e-12)
    while hi - lo > 1e-9:
        mid = 0.5 * (lo + hi)
        if cdf(mid) >= target:
            hi = mid
        else:
            lo = mid
    return hi


def share_above(steps: Sequence[tuple[float, float, float]], limit: float) -> float:
    """Σ of the weight of (delay, weight, spread) ``steps`` above ``limit`` (s), each step's weight spread uniformly
    over its delay ± spread/2. E.g. (10 ms, 1, 4 ms) above 11 ms: 0.25."""
    total = 0.0
    for d, w, s in steps:
        if s > 0.0:
            total += w * min(1.0, max(0.0, (d + s / 2.0 - limit) / s))
        elif d > limit:
            total += w
    return total


def weighted_percentile(pairs: Sequence[tuple[float, float]], q: float) -> float | None:
    """The smallest value v of (value, weight) ``pairs`` such that the weights of the values ≤ v reach q of the
    total (a lower percentile of the weighted sample); None when the total weight is 0.
    E.g. [(1, 90), (5, 10)] at 0.95 → 5; [(1, 96), (5, 4)] → 1."""
    total = math.fsum(w for _, w in pairs)
    if total <= 0.0:
        return None
    acc = 0.0
    ordered = sorted((v, w) for v, w in pairs if w > 0.0)
    for v, w in ordered:
        acc += w
        if acc >= q * total * (1.0 - 1e-12):
            return v
    return ordered[-1][0]


class Source:
    """One non-responsive flow's sending pattern and its ledger per output interval (bits are IP bits, delays
    s). :meth:`begin_step` before the queues, :meth:`record` after them."""

    def __init__(self, fp: FlowPlan, plan: RunPlan, n_bins: int, dt_s: float):
        self.plan = fp
        raw = next((f for f in (plan.scenario or {}).get("flows", []) if f.get("id") == fp.id), None)
        self.flow = Flow.model_validate(raw) if raw is not None else None
        self.rate_bps = (fp.rate_mbps or 0.0) * 1e6
        self.packet_bits = float(fp.packet_bytes or 1228) * 8.0
        self.dt_s = dt_s
        self.sub = None  # the subflow carrying it this step (set by the kernel's schedule)
        self.onoff: OnOff | None = onoff_of(self.flow, fp.kind, fp.start_s, plan.seed, fp.id)
        self.video: VideoSource | None = None
        self.voice: VoiceSource | None = None
        if fp.kind == "voice":
            self.voice = (self.flow.voice if self.flow is not None else None) or VoiceSource()
        elif fp.kind == "video":
            self.video = self.flow.video if self.flow is not None else None
            if self.video is None:
                self.video = VideoSource(bitrate_mbps=fp.rate_mbps or 1.0)
            self.frames = VideoFrames(self.video, fp.start_s)
            self.rate_bps = self.video.bitrate_mbps * 1e6
            self.packet_bits = VIDEO_PACKET_BYTES * 8.0
            self.next_frame = 0  # the next frame's number
            self.frame_key = draws.subflow_key(plan.seed, fp.id + FRAME_STREAM)
            self.step_frames: list[tuple[int, float]] = []  # (number, bits) of the frames sent in this step
        self.step_bits = 0.0  # IP bits sent in the current step
        self.sent = [0.0] * n_bins
        self.lost = [0.0] * n_bins
        self.delay_sum = [0.0] * n_bins
        self.delay_weight = [0.0] * n_bins
        # the steps of the interval being recorded, summed up when the next one begins
        self.open_bin = -1
        self.steps: list[tuple[float, float, float]] = []  # (delay s, bits delivered, spread s)
        self.p95_s: list[float | None] = [None] * n_bins
        self.late_bits = [0.0] * n_bins  # delivered later than the interval's mean delay + the playout buffer
        self.jitter: list[float | None] = [None] * n_bins
        self.frames_sent = [0] * n_bins
        self.frames_lost = [0] * n_bins
        self.frames_late = [0] * n_bins
        self.j = 0.0
        self.prev_delay: float | None = None
        self.prev_spread = 0.0
        self.credit = 0.0  # fraction of a packet carried to the next step

    def begin_step(self, t: float) -> float:
        """The IP bits the source sends in the step from ``t`` (also kept as ``step_bits``)."""
        dt = self.dt_s
        if self.video is not None:
            self.step_frames = []
            bits = 0.0
            while self.frames.instant_s(self.next_frame) < t + dt - 1e-12:
                n = self.next_frame
                b = self.frames.bits(n)
                self.step_frames.append((n, b))
                bits += b
                self.next_frame += 1
        elif self.onoff is not None:
            bits = self.rate_bps * dt * self.onoff.on_fraction(t, t + dt)
        else:
            bits = self.rate_bps * dt
        self.step_bits = bits
        return bits

    def record(self, b: int, delay_s: float | None, delivered_bits: float, lost_bits: float | None,
               loss_p: float = 0.0, spread_s: float = 0.0) -> None:
        """One step in output interval ``b`` after the queues: ``delay_s`` None when the flow had no path (all it
        sent is lost); ``delivered_bits`` and ``lost_bits`` IP bits; ``loss_p`` the probability that a packet sent
        in the step is lost (dropped at a full queue of its path or lost at random on a link); ``spread_s`` the
        width of the step's packet-granularity delay term (:func:`delay_spread_s`), s."""
        sent = self.step_bits
        if b != self.open_bin:
            self._close_bin()
            self.open_bin = b
        self.sent[b] += sent
        if self.video is not None:
            self._frames(b, delay_s, loss_p)
        if delay_s is None:
            self.lost[b] += sent
            return
        self.lost[b] += lost_bits or 0.0
        if delivered_bits > 0.0:
            self.delay_sum[b] += delay_s * delivered_bits
            self.delay_weight[b] += delivered_bits
            self.steps.append((delay_s, delivered_bits, spread_s))
        self.credit += sent / self.packet_bits
        n = int(self.credit)
        self.credit -= n
        if n > 0 and self.prev_delay is None:
            self.prev_delay, self.prev_spread, n = delay_s, spread_s, n - 1  # the first packet: J(0) = 0
        if n > 0:
            # the step's first packet against the previous one, then n − 1 packets within the step
            first = expected_abs_change(delay_s - self.prev_delay, 0.5 * (spread_s + self.prev_spread))
            self.j += (first - self.j) / 16.0
            within = spread_s / 3.0
            self.j = within + (self.j - within) * (15.0 / 16.0) ** (n - 1)
            self.prev_delay, self.prev_spread = delay_s, spread_s
        self.jitter[b] = self.j

    def _frames(self, b: int, delay_s: float | None, loss_p: float) -> None:
        """The fate of the frames sent in the step: lost (1 − (1 − p)^packets with p = ``loss_p``, by the frame
        draw; all of them without a path) or late (delay above the playout deadline)."""
        p = 1.0 if delay_s is None else min(1.0, max(0.0, loss_p))
        deadline = self.video.playout_delay_ms * 1e-3
        for n, _bits in self.step_frames:
            self.frames_sent[b] += 1
            packets = self.frames.packets(n)
            if draws.uniform(self.frame_key, n) < 1.0 - (1.0 - p) ** packets:
                self.frames_lost[b] += 1
            elif delay_s is not None and delay_s > deadline:
                self.frames_late[b] += 1

    def series(self, plan: RunPlan, interval_s: float) -> dict:
        """The flow's ``delay_ms``, ``delay_p95_ms``, ``jitter_ms`` and ``loss`` per interval (null where it sent
        or received nothing) and ``sent_mbps`` (the IP bits sent in the interval / ``interval_s``, Mbit/s), for a voice flow ``r_factor`` and ``mos``, for a video flow ``frames_sent``,
        ``frames_lost``, ``frames_late``."""
        self._close_bin()
        delay = [None if w <= 0 else round(s / w * 1e3, 6) for s, w in zip(self.delay_sum, self.delay_weight)]
        p95 = [None if v is None else round(v * 1e3, 6) for v in self.p95_s]
        jitter = [None if j is None else round(j * 1e3, 6) for j in self.jitter]
        loss = [None if s <= 0 else round(min(1.0, max(0.0, lo / s)), 9) for s, lo in zip(self.sent, self.lost)]
        sent_mbps = [round(s / interval_s / 1e6, 6) for s in self.sent]
        out: dict = {"delay_ms": delay, "delay_p95_ms": p95, "jitter_ms": jitter, "loss": loss, "sent_mbps": sent_mbps}
        if self.voice is not None:
            out["r_factor"], out["mos"] = self._ratings()
        if self.video is not None:
            out["frames_sent"] = list(self.frames_sent)
            out["frames_lost"] = list(self.frames_lost)
            out["frames_late"] = list(self.frames_late)
        return out

    def _close_bin(self) -> None:
        """Sum up the interval being recorded: its delay percentile and, for voice, its bits later than the mean
        delay + the playout buffer; its steps are then dropped (a long run keeps one interval's steps)."""
        b = self.open_bin
        if b < 0:
            return
        self.p95_s[b] = spread_percentile(self.steps, DELAY_PERCENTILE)
        if self.voice is not None and self.delay_weight[b] > 0.0:
            limit = self.delay_sum[b] / self.delay_weight[b] + self.voice.playout_delay_ms * 1e-3 + 1e-12
            self.late_bits[b] = share_above(self.steps, limit)
        self.steps = []
        self.open_bin = -1

    def late_fraction(self, b: int) -> float:
        """The share of interval ``b``'s sent bits delivered later than its mean delay + the playout buffer
        (``voice.playout_delay_ms``: a fixed playout buffer centred on the mean discards them); 0 for other
        flows."""
        self._close_bin()
        return self.late_bits[b] / self.sent[b] if self.sent[b] > 0.0 else 0.0

    def _ratings(self) -> tuple[list, list]:
        """``r_factor`` and ``mos`` per interval (:func:`subflow.results.voice.interval_ratings`) from the
        interval's mean delay, loss and late share, unrounded."""
        delay = [None if w <= 0.0 else s / w * 1e3 for s, w in zip(self.delay_sum, self.delay_weight)]
        loss = [None if s <= 0.0 else lo / s for s, lo in zip(self.sent, self.lost)]
        late = [self.late_fraction(b) for b in range(len(self.sent))]
        return interval_ratings(delay, loss, late, self.voice)


#: the former name of :class:`Source`
CbrSource = Source
