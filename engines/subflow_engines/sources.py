"""What the non-responsive sources send and when: on/off periods and video frames, one home for every engine.

The fluid engine (:mod:`subflow_engines.fluid.cbr`) turns these into bits per step; the linux engine
(:mod:`subflow_engines.linux.schedule`) into the send instants and sizes of real packets. Both draw the same
periods for the same run seed and flow id (counter-based draws, :mod:`subflow_engines.draws`), so the two engines
run the same source.

* on/off (``udp`` pattern ``on_off``; ``voice`` with ``silence_suppression``): periods alternate from the flow's
  start, beginning with an on period; period k (0, 1, ...) is on for even k and its length comes by inversion
  from draw k of the flow's stream ``<flow id>`` + :data:`ONOFF_STREAM` (:func:`period_length_s`): exponential
  L = −mean·ln(1 − u), or Pareto L = x_m·(1 − u)^(−1/a) with shape a > 1 and x_m = mean·(a − 1)/a so that the
  mean is the given one (ns-3's OnOffApplication with Exponential or Pareto random variables; ns-2's
  Application/Traffic/Exponential and /Pareto). A voice call with silence suppression talks in exponential
  talkspurts of mean :data:`TALKSPURT_MEAN_S` separated by pauses of mean :data:`PAUSE_MEAN_S` (ITU-T P.59).
* video: frame n at start + n/f (f = ``frame_rate_fps``), an intra-coded (I) frame every ``gop_frames`` frames
  (n ≡ 0 mod G) and predicted (P) frames between, I = :data:`I_FRAME_RATIO` × P so that a group of pictures
  carries ``bitrate_mbps`` of IP bits (:func:`video_frame_bits`); a frame of b bits is ⌈b / (8 ×
  :data:`VIDEO_PACKET_BYTES`)⌉ packets (:meth:`VideoFrames.packets`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from subflow.scenario.document import Flow, UdpSource, VideoSource, VoiceSource

from subflow_engines import draws

#: ITU-T P.59 (03/93) artificial conversational speech: mean talkspurt and mean pause, s, both exponential (the
#: figures as P.59's model is commonly quoted, after Brady's on-off measurements; the Recommendation's text
#: itself was not at hand to check)
TALKSPURT_MEAN_S = 1.004
PAUSE_MEAN_S = 1.587

#: size of an I frame over a P frame of the same group of pictures. An assumption, not a measured figure: frame
#: size traces of H.264 encoders (Seeling & Reisslein's video trace library) show I frames several times the
#: size of P frames, the ratio varying with content and quantiser; 5 is within that spread.
I_FRAME_RATIO = 5.0

#: largest IP packet of a video frame, bytes (an Ethernet MTU); a frame of b bits is ⌈b / (1500·8)⌉ packets
VIDEO_PACKET_BYTES = 1500

#: suffixes of a flow id naming its draw streams (:func:`subflow_engines.draws.subflow_key`): on/off periods, the
#: fate of video frames (fluid engine)
ONOFF_STREAM = "|onoff"
FRAME_STREAM = "|frames"


def period_length_s(u: float, mean_s: float, periods: str, pareto_shape: float) -> float:
    """Length of one on or off period, s, from a uniform draw ``u`` in [0, 1) by inversion.

    ``exponential``: −mean·ln(1 − u). ``pareto``: x_m·(1 − u)^(−1/a), x_m = mean·(a − 1)/a (a = ``pareto_shape``
    > 1; the Pareto mean is a·x_m/(a − 1), ns-2's Application/Traffic/Pareto scale). E.g. u = 0.5, mean 1 s:
    exponential ln 2 = 0.693 s; u = 0.75, mean 1 s, a = 2: x_m = 0.5, 0.5·0.25^(−1/2) = 1 s.

    Raises
    ------
    ValueError
        For another ``periods``.
    """
    if periods == "exponential":
        return -mean_s * math.log1p(-u)
    if periods == "pareto":
        return mean_s * (pareto_shape - 1.0) / pareto_shape * (1.0 - u) ** (-1.0 / pareto_shape)
    raise ValueError(f"periods must be exponential or pareto, not {periods!r}")


class OnOff:
    """Alternating on and off periods from ``start_s``, beginning with an on period; period k (0, 1, ...) is on
    for even k and uses draw ``draw(k)`` (a uniform in [0, 1)), with its state's mean.

    >>> src = OnOff(0.0, 1.0, 1.0, "pareto", 2.0, draw=lambda k: 0.75)   # every period 1 s
    >>> src.on_fraction(0.5, 1.5), src.on_fraction(1.5, 2.0), src.on_fraction(2.0, 2.5)
    (0.5, 0.0, 1.0)
    >>> OnOff(0.5, 1.0, 1.0, "pareto", 2.0, draw=lambda k: 0.75).on_periods(4.0)
    [(0.5, 1.5), (2.5, 3.5)]
    """

    def __init__(self, start_s: float, mean_on_s: float, mean_off_s: float, periods: str, pareto_shape: float,
                 draw: Callable[[int], float]):
        self.start_s = start_s
        self.means = (mean_on_s, mean_off_s)
        self.periods, self.shape, self.draw = periods, pareto_shape, draw
        self.k = 0  # the current period
        self.t0 = start_s  # its start
        self.t1 = start_s + self._length(0)  # its end

    def _length(self, k: int) -> float:
        return period_length_s(self.draw(k), self.means[k % 2], self.periods, self.shape)

    def on_fraction(self, t0: float, t1: float) -> float:
        """The part of [t0, t1) that is on, in [0, 1]; calls go forward in time (t0 no earlier than the last t1)."""
        if t1 <= t0:
            return 0.0
        on = 0.0
        t = max(t0, self.t0) if self.k == 0 else t0  # nothing before the first period (the flow's start)
        if t >= t1:
            return 0.0
        while True:
            while self.t1 <= t:  # periods that ended before t
                self.k += 1
                self.t0, self.t1 = self.t1, self.t1 + self._length(self.k)
            end = min(t1, self.t1)
            if self.k % 2 == 0:
                on += end - t
            if end >= t1:
                return on / (t1 - t0)
            t = end

    def on_periods(self, stop_s: float) -> list[tuple[float, float]]:
        """The on periods (start s, end s) that begin before ``stop_s``, the last one cut at ``stop_s``: the same
        periods :meth:`on_fraction` walks (independent of its state)."""
        out: list[tuple[float, float]] = []
        k, t = 0, self.start_s
        while t < stop_s:
            end = t + self._length(k)
            if k % 2 == 0:
                out.append((t, min(end, stop_s)))
            k, t = k + 1, end
        return out


def onoff_of(flow: Flow | None, kind: str, start_s: float, seed: int, flow_id: str) -> OnOff | None:
    """The on/off periods of a ``udp`` flow with pattern ``on_off`` or a ``voice`` flow with silence
    suppression (draws keyed by ``seed`` and ``flow_id`` + :data:`ONOFF_STREAM`), None for any other source
    (``flow`` None: the kind's defaults)."""
    if kind == "udp":
        udp = (flow.udp if flow is not None else None) or UdpSource()
        if udp.pattern != "on_off":
            return None
        means, periods, shape = (udp.mean_on_s, udp.mean_off_s), udp.periods, udp.pareto_shape
    elif kind == "voice":
        voice = (flow.voice if flow is not None else None) or VoiceSource()
        if not voice.silence_suppression:
            return None
        means, periods, shape = (TALKSPURT_MEAN_S, PAUSE_MEAN_S), "exponential", 2.0
    else:
        return None
    key = draws.subflow_key(seed, flow_id + ONOFF_STREAM)
    return OnOff(start_s, means[0], means[1], periods, shape, lambda k: draws.uniform(key, k))


def video_frame_bits(bitrate_bps: float, frame_rate_fps: float, gop_frames: int,
                     i_ratio: float = I_FRAME_RATIO) -> tuple[float, float]:
    """(I frame, P frame) sizes in bits of an encoder at ``bitrate_bps`` (mean over a group of pictures).

    A group of G frames lasts G/f s and carries R·G/f bits = I + (G − 1)·P with I = k·P, so
    P = R·G/(f·(k + G − 1)). E.g. 3 Mbit/s, 30 frame/s, G = 30, k = 5: P = 9·10⁷/(30·34) = 88 235.3 bits,
    I = 441 176.5 bits; G = 1 (intra only): I = R/f."""
    p = bitrate_bps * gop_frames / (frame_rate_fps * (i_ratio + gop_frames - 1))
    return i_ratio * p, p


class VideoFrames:
    """The frames of a ``video`` flow from ``start_s``: instants, sizes (IP bits) and packets.

    >>> v = VideoFrames(VideoSource(bitrate_mbps=3.0), 0.0)
    >>> round(v.bits(0)), round(v.bits(1)), v.packets(0), v.packets(1), v.instant_s(3)
    (441176, 88235, 37, 8, 0.1)
    >>> len(v.until(2.0))
    60
    """

    def __init__(self, video: VideoSource, start_s: float):
        self.video = video
        self.start_s = start_s
        self.fps = video.frame_rate_fps
        self.i_bits, self.p_bits = video_frame_bits(video.bitrate_mbps * 1e6, self.fps, video.gop_frames)

    def instant_s(self, n: int) -> float:
        """When frame ``n`` (0, 1, ...) leaves, s: start + n/f."""
        return self.start_s + n / self.fps

    def bits(self, n: int) -> float:
        """IP bits of frame ``n``: an I frame for n ≡ 0 (mod gop_frames), a P frame otherwise."""
        return self.i_bits if n % self.video.gop_frames == 0 else self.p_bits

    def packets(self, n: int) -> int:
        """Packets of frame ``n``: ⌈bits / (8 · VIDEO_PACKET_BYTES)⌉, at least 1."""
        return max(1, math.ceil(self.bits(n) / (VIDEO_PACKET_BYTES * 8.0) - 1e-9))

    def until(self, stop_s: float) -> list[int]:
        """The frames whose instant is before ``stop_s`` (frame_rate × (stop − start) of them, rounded up)."""
        out, n = [], 0
        while self.instant_s(n) < stop_s - 1e-12:
            out.append(n)
            n += 1
        return out
