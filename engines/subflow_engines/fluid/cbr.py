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
* ``delay_p95_ms``: the 95th percentile of the per-packet one-way delay: every packet delivered in a step sees
  that step's delay, so it is the smallest step delay below which at least 95 % of the interval's delivered
  bits lie (:func:`weighted_percentile`; packets of one flow have one size, so bits count packets);
* ``jitter_ms``: RFC 3550 §6.4.1 interarrival jitter at the interval's end, over the source's packets: within a
  step every packet sees that step's delay, so |D| is the change of delay between the last packet of one step
  and the first of the next and 0 between the others;
* ``loss``: the fraction of the bits sent in the interval that were dropped at a full queue, lost at random on
  a link, or sent while the flow had no path;
* ``cwnd_packets`` 0 throughout (no window);
* voice flows also ``r_factor`` and ``mos`` (ITU-T G.107 E-model, :func:`subflow.results.voice.voice_rating`):
  mouth-to-ear delay = ``delay_ms`` + the packetisation interval + the playout buffer
  (``voice.playout_delay_ms``) + the codec's look-ahead (:func:`subflow.results.voice.mouth_to_ear_ms`); packet
  loss Ppl = the interval's loss plus its late packets (those delivered more than the playout buffer above the interval's mean
  delay, which a fixed buffer centred on the mean discards), as random loss (BurstR 1); the codec's Ie and Bpl
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

from subflow.errors import QualityModelInvalid
from subflow.results.voice import codec_impairment, mouth_to_ear_ms, voice_rating
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
        # the steps of the interval being recorded, (delay s, bits delivered), summed up when the next one begins
        self.open_bin = -1
        self.steps: list[tuple[float, float]] = []
        self.p95_s: list[float | None] = [None] * n_bins
        self.late_bits = [0.0] * n_bins  # delivered later than the interval's mean delay + the playout buffer
        self.jitter: list[float | None] = [None] * n_bins
        self.frames_sent = [0] * n_bins
        self.frames_lost = [0] * n_bins
        self.frames_late = [0] * n_bins
        self.j = 0.0
        self.prev_delay: float | None = None
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
               loss_p: float = 0.0) -> None:
        """One step in output interval ``b`` after the queues: ``delay_s`` None when the flow had no path (all it
        sent is lost); ``delivered_bits`` and ``lost_bits`` IP bits; ``loss_p`` the probability that a packet sent
        in the step is lost (dropped at a full queue of its path or lost at random on a link)."""
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
            self.steps.append((delay_s, delivered_bits))
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
        or received nothing), for a voice flow ``r_factor`` and ``mos``, for a video flow ``frames_sent``,
        ``frames_lost``, ``frames_late``."""
        self._close_bin()
        delay = [None if w <= 0 else round(s / w * 1e3, 6) for s, w in zip(self.delay_sum, self.delay_weight)]
        p95 = [None if v is None else round(v * 1e3, 6) for v in self.p95_s]
        jitter = [None if j is None else round(j * 1e3, 6) for j in self.jitter]
        loss = [None if s <= 0 else round(min(1.0, max(0.0, lo / s)), 9) for s, lo in zip(self.sent, self.lost)]
        out: dict = {"delay_ms": delay, "delay_p95_ms": p95, "jitter_ms": jitter, "loss": loss}
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
        self.p95_s[b] = weighted_percentile(self.steps, DELAY_PERCENTILE)
        if self.voice is not None and self.delay_weight[b] > 0.0:
            limit = self.delay_sum[b] / self.delay_weight[b] + self.voice.playout_delay_ms * 1e-3 + 1e-12
            self.late_bits[b] = math.fsum(w for d, w in self.steps if d > limit)
        self.steps = []
        self.open_bin = -1

    def late_fraction(self, b: int) -> float:
        """The share of interval ``b``'s sent bits delivered later than its mean delay + the playout buffer
        (``voice.playout_delay_ms``: a fixed playout buffer centred on the mean discards them); 0 for other
        flows."""
        self._close_bin()
        return self.late_bits[b] / self.sent[b] if self.sent[b] > 0.0 else 0.0

    def _ratings(self) -> tuple[list, list]:
        voice = self.voice
        n = len(self.sent)
        try:
            impairment = codec_impairment(voice.codec, voice.plc, voice.silence_suppression)
        except QualityModelInvalid:
            return [None] * n, [None] * n
        fixed_ms = mouth_to_ear_ms(0.0, voice.codec, voice.packet_interval_ms, voice.playout_delay_ms)
        r, mos = [], []
        for b in range(n):
            w = self.delay_weight[b]
            if w <= 0.0 or self.sent[b] <= 0.0:
                r.append(None)
                mos.append(None)
                continue
            d_ms = self.delay_sum[b] / w * 1e3
            ppl = min(1.0, self.lost[b] / self.sent[b] + self.late_fraction(b))
            rating = voice_rating(d_ms + fixed_ms, ppl, impairment)
            r.append(round(rating.r, 4))
            mos.append(round(rating.mos, 4))
        return r, mos


#: the former name of :class:`Source`
CbrSource = Source
