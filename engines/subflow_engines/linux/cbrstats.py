"""Per-interval figures of a ``linux`` udp, voice or video flow from its packets' send and arrival times
(:mod:`.udpflow`), the same series the fluid engine's sources report (docs/traffic.md).

Pure (no system calls): the engine passes the sender's and receiver's records already on its run clock.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from subflow.results.voice import interarrival_jitter_s


def cbr_series(sent_s: list[float], received: list[tuple[int, float, float]], packet_bytes: int | Sequence[int],
               interval_s: float, n_bins: int, playout_delay_ms: float | None = None) -> dict:
    """Throughput, delay, its 95th percentile, RTP jitter and loss per output interval.

    Parameters
    ----------
    sent_s : list of float, shape (n_sent,)
        Send time of sequence number k (run clock, s).
    received : list of (int, float, float)
        (sequence number, send time s, arrival time s) of each datagram received, in arrival order (run clock);
        a repeated sequence number counts once (its first arrival).
    packet_bytes : int, or sequence of int of shape (n_sent,)
        IP packet size, bytes, or each sequence number's (a video flow's: its frames' last packets are smaller);
        the throughput is the flow's IP rate, as the fluid engine's, and with sizes that differ the delay mean and
        the loss weigh each packet by its bytes (the fluid engine's mean of the delivered bits, its fraction of
        the bits sent).
    interval_s : float
        Output interval, s; interval b is [b·interval_s, (b + 1)·interval_s).
    n_bins : int
        Number of intervals.
    playout_delay_ms : float, optional
        A voice call's fixed playout buffer, ms: with it the answer also has ``late`` (below).

    Returns
    -------
    dict
        ``throughput_mbps`` (IP bits arrived in the interval / interval, Mbit/s), ``delay_ms`` (mean one-way delay
        arrival − send of the packets (bytes) that arrived in the interval, ms; null where none did), ``delay_p95_ms``
        (their 95th percentile, linear interpolation between order statistics), ``jitter_ms`` (RFC 3550 §6.4.1
        J after the last packet arrived by the interval's end, over the packets in arrival order,
        :func:`subflow.results.voice.interarrival_jitter_s`; null before the first arrival and where the flow
        neither sent nor received), ``loss`` (fraction of the packets (bytes) sent in the interval that never arrived;
        null where none was sent), ``sent_mbps`` (IP bits sent in the interval / interval, Mbit/s); with
        ``playout_delay_ms``, ``late``: the packets that arrived in the interval
        more than the buffer above its mean delay (a fixed buffer centred on the mean discards them), as a
        fraction of the packets sent in it (0 where none was sent), the fluid engine's rule
        (:mod:`subflow_engines.fluid.cbr`).
    """
    seen: set[int] = set()
    rx: list[tuple[int, float, float]] = []
    for seq, s, r in received:
        if seq in seen or seq >= len(sent_s):
            continue
        seen.add(seq)
        rx.append((seq, s, r))

    def bin_of(t: float) -> int | None:
        b = int(math.floor(t / interval_s + 1e-9))
        return b if 0 <= b < n_bins else None

    size = (lambda q: packet_bytes) if isinstance(packet_bytes, int) else (lambda q: packet_bytes[q])
    sent = [0] * n_bins  # packets
    sent_bytes = [0] * n_bins
    lost_bytes = [0] * n_bins
    for seq, t in enumerate(sent_s):
        b = bin_of(t)
        if b is None:
            continue
        sent[b] += 1
        sent_bytes[b] += size(seq)
        if seq not in seen:
            lost_bytes[b] += size(seq)
    delays: list[list[float]] = [[] for _ in range(n_bins)]
    weights: list[list[int]] = [[] for _ in range(n_bins)]
    arrived = [0] * n_bins  # bytes
    j_end: list[float | None] = [None] * n_bins
    js = interarrival_jitter_s([s for _, s, _ in rx], [r for _, _, r in rx]) if rx else []
    for (seq, s, r), j in zip(rx, js):
        b = bin_of(r)
        if b is None:
            continue
        arrived[b] += size(seq)
        delays[b].append(r - s)
        weights[b].append(size(seq))
        j_end[b] = float(j)
    jitter: list[float | None] = [None] * n_bins
    last: float | None = None
    for b in range(n_bins):
        if j_end[b] is not None:
            last = j_end[b]
        if last is not None and (sent[b] or arrived[b]):
            jitter[b] = round(last * 1e3, 6)
    scale = 8.0 / interval_s / 1e6
    out = {
        "throughput_mbps": [round(n * scale, 6) for n in arrived],
        "delay_ms": [round(float(np.average(d, weights=w)) * 1e3, 6) if d else None for d, w in zip(delays, weights)],
        "delay_p95_ms": [round(float(np.percentile(d, 95)) * 1e3, 6) if d else None for d in delays],
        "jitter_ms": jitter,
        "loss": [round(lo / n, 9) if n else None for lo, n in zip(lost_bytes, sent_bytes)],
        "sent_mbps": [round(n * scale, 6) for n in sent_bytes],
    }
    if playout_delay_ms is not None:
        out["late"] = [sum(1 for x in d if x > float(np.mean(d)) + playout_delay_ms * 1e-3 + 1e-12) / n if n and d
                       else 0.0 for d, n in zip(delays, sent)]
    return out


def video_frames(frames: Sequence[tuple[int, int, int]], sent_s: Sequence[float],
                 received: Sequence[tuple[int, float, float]], playout_delay_ms: float, interval_s: float,
                 n_bins: int) -> dict:
    """``frames_sent``, ``frames_lost`` and ``frames_late`` per output interval, by the fluid engine's definitions
    (:mod:`subflow_engines.fluid.cbr`) applied to the packets.

    Parameters
    ----------
    frames : sequence of (int, int, int)
        (frame number, first sequence number, packets) of each frame sent (:class:`.schedule.Schedule` ``frames``:
        a frame's packets have consecutive sequence numbers).
    sent_s : sequence of float, shape (n_sent,)
        Send time of sequence number k (run clock, s).
    received : sequence of (int, float, float)
        (sequence number, send time s, arrival time s) of each datagram received (run clock).
    playout_delay_ms : float
        ``video.playout_delay_ms``: a frame's deadline after it was sent, ms.
    interval_s, n_bins : float, int
        The output intervals [b·interval_s, (b + 1)·interval_s).

    Returns
    -------
    dict
        Per interval (lists of int, length ``n_bins``): ``frames_sent``, the frames whose first packet was sent in
        it; ``frames_lost``, those of them with a packet that never arrived; ``frames_late``, those complete whose
        last packet arrived later than the frame's send time (its first packet's) + the playout delay. A frame
        counts in the interval in which it was sent.
    """
    arrival: dict[int, float] = {}
    for seq, _, r in received:
        if seq not in arrival:
            arrival[seq] = r
    out = {"frames_sent": [0] * n_bins, "frames_lost": [0] * n_bins, "frames_late": [0] * n_bins}
    deadline = playout_delay_ms * 1e-3
    for _, first, packets in frames:
        if first >= len(sent_s):
            continue  # never sent (the sender stopped early)
        t = sent_s[first]
        b = int(math.floor(t / interval_s + 1e-9))
        if not 0 <= b < n_bins:
            continue
        out["frames_sent"][b] += 1
        got = [arrival.get(q) for q in range(first, first + packets)]
        if any(r is None for r in got):
            out["frames_lost"][b] += 1
        elif max(got) - t > deadline + 1e-12:
            out["frames_late"][b] += 1
    return out
