"""A timestamped UDP sender and receiver for the ``linux`` engine's udp, voice and video flows.

Run as a script in a flow's namespaces (``ip netns exec NS python -P udpflow.py send|recv ...``, like the delay
line: the file, not ``-m``, so the package and its numba imports are not loaded), it needs only the standard
library.

* ``send``: sends datagrams to ``--dst``:``--port`` from ``--bind``, with the IP DS field set (``IP_TOS`` = DSCP
  code point << 2, RFC 2474 §3), either ``--count`` packets of ``--payload-bytes`` UDP payload every
  ``--interval-s`` seconds (cbr), or the packets of a ``--schedule`` file (float64 rows: offset s, IP bytes,
  frame number or −1, the frame's packets; :mod:`.schedule`, computed by the engine). Each packet starts with its
  sequence number (4 bytes, network order) and its send time (8 bytes, ns of ``CLOCK_MONOTONIC``, taken just
  before ``sendto``): the 12 bytes an RTP header (RFC 3550 §5.1) would take; a video packet (frame number ≥ 0)
  then has its frame's number (4 bytes) and packet count (2 bytes); then zero padding. Packet k is due at
  origin + k × interval, or origin + its offset: a late packet leaves at once and the schedule is kept (so the
  mean rate holds); the packets of a frame share their instant and leave back to back. The origin is the
  sender's start, or with ``--wait-start`` the ``CLOCK_MONOTONIC`` time of a line ``start T`` read on stdin after
  it printed ``ready`` (the engine starts it ahead and places the schedule on its run clock). At the end it
  writes the send time of every sequence number (float64 seconds, ``array('d')``) to ``--out``.
* ``recv``: binds ``--bind``:``--port`` and records, for every datagram, (sequence number, send time, arrival
  time) as float64 seconds (``CLOCK_MONOTONIC`` read as ``recvfrom`` returns), with ``--frames`` also the
  frame number and packet count it carries, until a line ``stop`` or EOF on stdin; then writes the records to
  ``--out`` and exits.

Namespaces share the host's clocks (no time namespace), so arrival − send is the packet's one-way delay, sender
and receiver on the same clock; the receive time includes the receiver's wake-up (tens of µs on an idle host).
The engine places both on its run clock, also ``CLOCK_MONOTONIC`` (``time.monotonic``).
"""

from __future__ import annotations

import argparse
import os
import select
import socket
import struct
import sys
import time
from array import array

#: sequence number (u32) and send time (u64 ns), network order: 12 bytes, an RTP header's size
HEADER = struct.Struct("!IQ")
HEADER_BYTES = HEADER.size
#: a video packet's frame number (u32) and its frame's packet count (u16), after :data:`HEADER`
FRAME = struct.Struct("!IH")
#: IPv4 + UDP headers, bytes
IP_UDP_BYTES = 28


def read_schedule(path) -> list[tuple[float, int, int, int]]:
    """(offset s, IP bytes, frame or −1, frame packets) of each packet of a ``--schedule`` file."""
    a = array("d")
    with open(path, "rb") as fh:
        data = fh.read()
    a.frombytes(data[: len(data) - len(data) % 32])
    return [(a[i], int(a[i + 1]), int(a[i + 2]), int(a[i + 3])) for i in range(0, len(a), 4)]


def _wait_start() -> float | None:
    """Print ``ready``, then the origin T of a line ``start T`` on stdin (None on EOF: the engine is gone)."""
    print("ready", flush=True)
    line = sys.stdin.readline()
    if not line.startswith("start"):
        return None
    return float(line.split()[1])


def send(dst: str, port: int, bind: str, dscp: int, out: str, payload_bytes: int = 0, interval_s: float = 0.0,
         count: int = 0, schedule: str | None = None, wait_start: bool = False) -> int:
    """Send the cbr packets or the schedule's; returns how many were sent (every one, unless ``sendto`` failed:
    a failed packet keeps its send time, as it left the application and is lost)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, (dscp & 0x3F) << 2)
    sock.bind((bind, 0))
    if schedule is not None:
        rows = read_schedule(schedule)
    else:  # generated as they go: a long fast flow has millions
        rows = ((seq * interval_s, payload_bytes + IP_UDP_BYTES, -1, 0) for seq in range(count))
    bufs: dict[int, bytearray] = {}
    sent = array("d")
    start = _wait_start() if wait_start else time.monotonic()
    if start is None:
        rows = iter(())
    for seq, (offset, ip_bytes, frame, packets) in enumerate(rows):
        size = max(HEADER_BYTES + (FRAME.size if frame >= 0 else 0), ip_bytes - IP_UDP_BYTES)
        buf = bufs.get(size)
        if buf is None:
            buf = bufs[size] = bytearray(size)
        wait = start + offset - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        if frame >= 0:
            FRAME.pack_into(buf, HEADER_BYTES, frame, packets)
        t_ns = time.monotonic_ns()
        HEADER.pack_into(buf, 0, seq, t_ns)
        try:
            sock.sendto(buf, (dst, port))
        except OSError:  # no route at this instant (a cut path): the packet is lost, as on the wire
            pass
        sent.append(t_ns / 1e9)
    with open(out, "wb") as fh:
        sent.tofile(fh)
    return len(sent)


def receive(bind: str, port: int, out: str, frames: bool = False) -> int:
    """Record datagrams until ``stop``/EOF on stdin; returns how many were recorded."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    sock.bind((bind, port))
    sock.setblocking(False)
    rec = array("d")
    buf = bytearray(65536)
    stdin = sys.stdin.fileno()
    least = HEADER_BYTES + (FRAME.size if frames else 0)
    print("ready", flush=True)
    running = True
    while running:
        ready, _, _ = select.select([sock, stdin], [], [])
        if sock in ready:
            while True:
                try:
                    n = sock.recv_into(buf)
                except BlockingIOError:
                    break
                t = time.monotonic()
                if n >= least:
                    seq, t_ns = HEADER.unpack_from(buf, 0)
                    rec.extend((float(seq), t_ns / 1e9, t))
                    if frames:
                        rec.extend(float(v) for v in FRAME.unpack_from(buf, HEADER_BYTES))
        if stdin in ready:
            line = os.read(stdin, 4096)
            if not line or b"stop" in line:
                running = False
    with open(out, "wb") as fh:
        rec.tofile(fh)
    return len(rec) // (5 if frames else 3)


def read_sent(path) -> list[float]:
    """Send times (s, ``CLOCK_MONOTONIC``) by sequence number from a sender's ``--out``."""
    a = array("d")
    with open(path, "rb") as fh:
        a.frombytes(fh.read())
    return list(a)


def read_received(path) -> list[tuple[int, float, float]]:
    """(sequence number, send time s, arrival time s) of each datagram, in arrival order, from a receiver's
    ``--out``."""
    a = array("d")
    with open(path, "rb") as fh:
        data = fh.read()
    a.frombytes(data[: len(data) - len(data) % 24])
    return [(int(a[i]), a[i + 1], a[i + 2]) for i in range(0, len(a), 3)]


def read_received_frames(path) -> list[tuple[int, float, float, int, int]]:
    """(sequence number, send time s, arrival time s, frame number, frame packets) of each datagram, in arrival
    order, from a ``recv --frames`` receiver's ``--out``."""
    a = array("d")
    with open(path, "rb") as fh:
        data = fh.read()
    a.frombytes(data[: len(data) - len(data) % 40])
    return [(int(a[i]), a[i + 1], a[i + 2], int(a[i + 3]), int(a[i + 4])) for i in range(0, len(a), 5)]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="role", required=True)
    s = sub.add_parser("send")
    s.add_argument("--dst", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--bind", required=True)
    s.add_argument("--dscp", type=int, default=0)
    s.add_argument("--payload-bytes", type=int, default=0)
    s.add_argument("--interval-s", type=float, default=0.0)
    s.add_argument("--count", type=int, default=0)
    s.add_argument("--schedule", help="the packets' offsets and sizes (float64 rows), instead of the cbr arguments")
    s.add_argument("--wait-start", action="store_true", help="print ready, then take the origin from 'start T'")
    s.add_argument("--out", required=True)
    r = sub.add_parser("recv")
    r.add_argument("--bind", required=True)
    r.add_argument("--port", type=int, required=True)
    r.add_argument("--frames", action="store_true", help="record each packet's frame number and packet count")
    r.add_argument("--out", required=True)
    a = p.parse_args(argv)
    if a.role == "send":
        if a.schedule is None and (a.interval_s <= 0 or a.count <= 0):
            p.error("send needs --schedule, or --interval-s and --count")
        n = send(a.dst, a.port, a.bind, a.dscp, a.out, a.payload_bytes, a.interval_s, a.count, a.schedule,
                 a.wait_start)
    else:
        n = receive(a.bind, a.port, a.out, a.frames)
    print(f"{a.role} {n}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
