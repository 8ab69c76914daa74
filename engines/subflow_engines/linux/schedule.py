"""Send schedules of the ``linux`` engine's on/off udp, silence-suppressed voice and video flows: every packet's
send instant and size, computed in the engine's process from the periods and frames of
:mod:`subflow_engines.sources` (the fluid engine's, for the same seed), written to a file the stdlib-only sender
(:mod:`.udpflow`) reads.

* on/off (``udp`` pattern ``on_off``, ``voice`` with ``silence_suppression``): packets of the plan's
  ``packet_bytes`` at the flow's rate while on, none while off. Packet k leaves when the flow's cumulative on
  time reaches k × gap (gap = packet bits / rate; ns-3's OnOffApplication carries the bits of a packet begun in
  one on period into the next, ``m_residualBits``): every packet starts within an on period, the packets of the
  first n seconds of on time are ⌊n / gap⌋ + 1, so the mean rate over the run is the rate × on / (on + off)
  of the drawn periods within one packet, as the fluid engine's bits.
* video: each frame of :class:`subflow_engines.sources.VideoFrames` at its instant, as a burst of
  ⌈bits / 12 000⌉ IP packets: the frame's bytes (its bits / 8, rounded) in packets of
  :data:`subflow_engines.sources.VIDEO_PACKET_BYTES`, the last one the rest (at least
  :data:`MIN_VIDEO_PACKET_BYTES`, the headers it carries); each packet carries its frame's number and packet
  count.

File format (:meth:`Schedule.write`): float64 rows (offset from the flow's start s, IP bytes, frame number or −1,
packets of the frame or 0), one row per packet in sending order.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from pathlib import Path

from subflow_engines.sources import VIDEO_PACKET_BYTES, OnOff, VideoFrames

#: IPv4 (20) + UDP (8) headers, bytes
IP_UDP_BYTES = 28
#: the sender's header of a video packet: sequence number and send time (12 bytes), frame number (4) and the
#: frame's packet count (2) (:data:`.udpflow.HEADER`, :data:`.udpflow.FRAME`)
VIDEO_HEADER_BYTES = 18
#: smallest IP packet of a video frame, bytes: headers and the sender's header
MIN_VIDEO_PACKET_BYTES = IP_UDP_BYTES + VIDEO_HEADER_BYTES


@dataclass
class Schedule:
    """One flow's packets in sending order (sequence number = index)."""

    offsets_s: list[float] = field(default_factory=list)  # from the flow's start, s
    ip_bytes: list[int] = field(default_factory=list)
    frame: list[int] = field(default_factory=list)  # −1 outside video
    frame_packets: list[int] = field(default_factory=list)  # 0 outside video
    #: video: (frame number, first sequence number, packets) per frame
    frames: list[tuple[int, int, int]] = field(default_factory=list)

    def add(self, offset_s: float, ip_bytes: int, frame: int = -1, frame_packets: int = 0) -> None:
        self.offsets_s.append(offset_s)
        self.ip_bytes.append(ip_bytes)
        self.frame.append(frame)
        self.frame_packets.append(frame_packets)

    def __len__(self) -> int:
        return len(self.offsets_s)

    def write(self, path: Path) -> None:
        """The rows (module docstring) as float64, for :mod:`.udpflow` ``send --schedule``."""
        a = array("d")
        for row in zip(self.offsets_s, self.ip_bytes, self.frame, self.frame_packets):
            a.extend(float(v) for v in row)
        with open(path, "wb") as fh:
            a.tofile(fh)


def onoff_schedule(onoff: OnOff, start_s: float, stop_s: float, packet_bytes: int, rate_bps: float) -> Schedule:
    """Packets of ``packet_bytes`` (IP) at ``rate_bps`` during the on periods of ``onoff`` in [start, stop)
    (module docstring: packet k when the cumulative on time reaches k × gap).

    E.g. gap 0.1 s, on periods [0, 0.25) and [1, 1.3): on-time marks 0, 0.1, 0.2 in the first (offsets 0, 0.1,
    0.2), 0.3, 0.4, 0.5 in the second, which begins at on time 0.25 (offsets 1.05, 1.15, 1.25).
    """
    gap = packet_bytes * 8.0 / rate_bps
    out = Schedule()
    on_before = 0.0  # on time before the current period
    k = 0
    for a, b in onoff.on_periods(stop_s):
        length = b - a
        while k * gap < on_before + length - 1e-12:
            out.add(a + (k * gap - on_before) - start_s, packet_bytes)
            k += 1
        on_before += length
    return out


def frame_packet_bytes(bits: float, packets: int) -> list[int]:
    """IP sizes of a frame's ``packets`` packets: round(bits / 8) bytes, :data:`VIDEO_PACKET_BYTES` each but the
    last, which has the rest (at least :data:`MIN_VIDEO_PACKET_BYTES`). E.g. 88 235.3 bits in 8 packets:
    11 029 bytes = 7 × 1500 + 529."""
    total = int(round(bits / 8.0))
    last = max(MIN_VIDEO_PACKET_BYTES, total - (packets - 1) * VIDEO_PACKET_BYTES)
    return [VIDEO_PACKET_BYTES] * (packets - 1) + [min(VIDEO_PACKET_BYTES, last)]


def video_schedule(frames: VideoFrames, stop_s: float) -> Schedule:
    """Every frame of ``frames`` before ``stop_s`` as a burst of packets at its instant."""
    out = Schedule()
    for n in frames.until(stop_s):
        packets = frames.packets(n)
        out.frames.append((n, len(out), packets))
        offset = frames.instant_s(n) - frames.start_s
        for size in frame_packet_bytes(frames.bits(n), packets):
            out.add(offset, size, n, packets)
    return out

