"""A timestamped UDP sender and receiver for the ``linux`` engine's udp (cbr) and voice flows.

Run as a script in a flow's namespaces (``ip netns exec NS python -P udpflow.py send|recv ...``, like the delay
line: the file, not ``-m``, so the package and its numba imports are not loaded), it needs only the standard
library.

* ``send``: paces ``--count`` packets of ``--payload-bytes`` UDP payload every ``--interval-s`` seconds to
  ``--dst``:``--port`` from ``--bind``, with the IP DS field set (``IP_TOS`` = DSCP code point << 2, RFC 2474
  §3). Each packet starts with its sequence number (4 bytes, network order) and its send time (8 bytes, ns of
  ``CLOCK_MONOTONIC``, taken just before ``sendto``): the 12 bytes an RTP header (RFC 3550 §5.1) would take,
  then zero padding. Sending is paced on the schedule start + k × interval (a late packet leaves at once and the
  schedule is kept, so the mean rate holds). At the end it writes the send time of every sequence number
  (float64 seconds, ``array('d')``) to ``--out``.
* ``recv``: binds ``--bind``:``--port`` and records, for every datagram, (sequence number, send time, arrival
  time) as float64 seconds (``CLOCK_MONOTONIC`` read as ``recvfrom`` returns) until a line ``stop`` or EOF on
  stdin; then writes the records to ``--out`` and exits.

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


def send(dst: str, port: int, bind: str, dscp: int, payload_bytes: int, interval_s: float, count: int,
         out: str) -> int:
    """Pace ``count`` datagrams; returns how many were sent (every one, unless ``sendto`` failed: a failed
    packet keeps its send time, as it left the application and is lost)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, (dscp & 0x3F) << 2)
    sock.bind((bind, 0))
    buf = bytearray(max(HEADER_BYTES, payload_bytes))
    sent = array("d")
    start = time.monotonic()
    for seq in range(count):
        due = start + seq * interval_s
        wait = due - time.monotonic()
        if wait > 0:
            time.sleep(wait)
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


def receive(bind: str, port: int, out: str) -> int:
    """Record datagrams until ``stop``/EOF on stdin; returns how many were recorded."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    sock.bind((bind, port))
    sock.setblocking(False)
    rec = array("d")
    buf = bytearray(65536)
    stdin = sys.stdin.fileno()
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
                if n >= HEADER_BYTES:
                    seq, t_ns = HEADER.unpack_from(buf, 0)
                    rec.extend((float(seq), t_ns / 1e9, t))
        if stdin in ready:
            line = os.read(stdin, 4096)
            if not line or b"stop" in line:
                running = False
    with open(out, "wb") as fh:
        rec.tofile(fh)
    return len(rec) // 3


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


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="role", required=True)
    s = sub.add_parser("send")
    s.add_argument("--dst", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--bind", required=True)
    s.add_argument("--dscp", type=int, default=0)
    s.add_argument("--payload-bytes", type=int, required=True)
    s.add_argument("--interval-s", type=float, required=True)
    s.add_argument("--count", type=int, required=True)
    s.add_argument("--out", required=True)
    r = sub.add_parser("recv")
    r.add_argument("--bind", required=True)
    r.add_argument("--port", type=int, required=True)
    r.add_argument("--out", required=True)
    a = p.parse_args(argv)
    if a.role == "send":
        n = send(a.dst, a.port, a.bind, a.dscp, a.payload_bytes, a.interval_s, a.count, a.out)
    else:
        n = receive(a.bind, a.port, a.out)
    print(f"{a.role} {n}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
