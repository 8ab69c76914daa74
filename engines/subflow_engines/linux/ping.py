"""ICMP echo round-trip times as ``ping`` measures them, for the ``linux`` engine's checks.

Run inside a namespace (root: a raw socket)::

    ip netns exec NS python -m subflow_engines.linux.ping --src 10.200.0.1 --dst 10.200.0.4 \\
        --count 100 --interval-ms 20

Sends ``--count`` echo requests of 56 bytes of payload (84-byte IP packets, as ``ping``'s
default), one every ``--interval-ms`` without waiting for the replies, and prints one JSON
object: ``{"sent", "received", "rtt_ms": [...]}`` (the replies' round-trip times in ms, in
sequence order). The echo replies come from the destination's kernel (no program there).

A round trip is the time ``recvmsg`` returns the reply minus the time just before the request's
``sendto`` (which hands the request to the stack synchronously), both on ``time.monotonic``. Not
the kernel's receive timestamp (``SO_TIMESTAMPNS``, which ``ping`` reads): that is taken when the
reply enters the namespace, before the netfilter hook where the NFQUEUE delay line holds packets
(:mod:`.delayline`), so it leaves out the last traversal's delay (``ping`` reads a 4-link chain of
100 ms as ~85 ms). To keep this process's own wake-up latency out of the figure on a loaded machine
it asks for ``SCHED_FIFO`` (priority :data:`RT_PRIORITY`, one above the delay line's, so it reads
a reply before the line's next release); without the privilege it says so on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import socket
import struct
import sys
import time

ICMP_ECHO_REQUEST = 8
ICMP_ECHO_REPLY = 0
PAYLOAD_BYTES = 56
#: SCHED_FIFO priority (the delay line's plus one)
RT_PRIORITY = 11


def _checksum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    s = (s >> 16) + (s & 0xFFFF)
    s += s >> 16
    return ~s & 0xFFFF


def _request(ident: int, seq: int) -> bytes:
    payload = bytes(PAYLOAD_BYTES)
    hdr = struct.pack("!BBHHH", ICMP_ECHO_REQUEST, 0, 0, ident, seq)
    return struct.pack("!BBHHH", ICMP_ECHO_REQUEST, 0, _checksum(hdr + payload), ident, seq) + payload


def ping(src: str, dst: str, count: int, interval_s: float, timeout_s: float) -> dict:
    """Send ``count`` echo requests from ``src`` to ``dst`` every ``interval_s`` (s); wait up to
    ``timeout_s`` (s) after the last for the replies. Returns ``{"sent", "received", "rtt_ms"}``
    (round-trip times, ms, in sequence order; lost requests are left out)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    if src:
        sock.bind((src, 0))
    ident = os.getpid() & 0xFFFF
    sent_at: dict[int, float] = {}
    rtts: dict[int, float] = {}
    next_send = time.monotonic()
    seq = 0
    deadline = None
    while True:
        now = time.monotonic()
        if seq < count and now >= next_send:
            pkt = _request(ident, seq)
            sent_at[seq] = time.monotonic()
            sock.sendto(pkt, (dst, 0))
            seq += 1
            next_send += interval_s
            if seq == count:
                deadline = time.monotonic() + timeout_s
            continue
        if deadline is not None and (now >= deadline or len(rtts) == count):
            break
        wait = (next_send - now) if seq < count else (deadline - now)
        ready, _, _ = select.select([sock], [], [], max(0.0, wait))
        if not ready:
            continue
        data = sock.recv(2048)
        t_rx = time.monotonic()
        ihl = (data[0] & 0x0F) * 4
        typ, _code, _ck, rid, rseq = struct.unpack("!BBHHH", data[ihl:ihl + 8])
        if typ != ICMP_ECHO_REPLY or rid != ident or rseq not in sent_at or rseq in rtts:
            continue
        rtts[rseq] = (t_rx - sent_at[rseq]) * 1000.0
    sock.close()
    return {"sent": count, "received": len(rtts), "rtt_ms": [round(rtts[k], 4) for k in sorted(rtts)]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", default="", help="source address (the request leaves from it)")
    ap.add_argument("--dst", required=True)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--interval-ms", type=float, default=20.0)
    ap.add_argument("--timeout-s", type=float, default=2.0, help="wait after the last request, s")
    args = ap.parse_args(argv)
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(RT_PRIORITY))
    except (OSError, AttributeError) as exc:
        print(f"ping: no real-time scheduling ({exc}); normal priority", file=sys.stderr, flush=True)
    print(json.dumps(ping(args.src, args.dst, args.count, args.interval_ms / 1000.0, args.timeout_s)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
