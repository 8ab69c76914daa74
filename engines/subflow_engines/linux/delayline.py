"""NFQUEUE delay line: the ``linux`` engine's delay/jitter where the kernel has no netem.

Run inside a namespace by the engine::

    ip netns exec NS python -m subflow_engines.linux.delayline \\
        --queue 0:250:0 --queue 1:10:2 --seed 1

Each ``--queue NUM:DELAY_MS:JITTER_MS`` binds netfilter queue ``NUM`` (iptables
``-j NFQUEUE --queue-num NUM`` in the mangle PREROUTING chain of the receiving
namespace) and holds every packet for ``DELAY_MS`` ± a uniform jitter in
[-JITTER_MS, +JITTER_MS] (netem's default jitter distribution, seeded). A line
``NUM DELAY_MS`` on stdin sets queue ``NUM``'s delay from then on (the engine's delay
changes: a SATCOM link's slant range, :mod:`subflow.space.satcom`). Release
times never decrease, so the line keeps packet order (unlike netem with jitter,
which reorders); that is the one behavioural difference, stated in
``GET /capabilities``. Packets are released with ``NF_ACCEPT`` verdicts from a
per-queue thread; the queue binding is the ``fnfqueue`` library (cffi over the
nfnetlink_queue netlink interface, pinned in requirements.txt). It prints
``ready`` on stdout once every queue is bound. User space, because a delay in the kernel without
netem needs a qdisc that holds each packet until its ``skb->tstamp`` (``fq``, with a tc BPF program
setting that departure time), and the project's machine (kernel 6.18 without loadable modules) has
none built in: no ``sch_netem``, ``sch_fq``, ``sch_etf`` or ``sch_bpf``.

Timing: a packet's hold is counted from when it entered the namespace, the kernel's receive
timestamp (``skb->tstamp``, handed to the line as ``NFQA_TIMESTAMP``, real-time clock, µs; the line
takes the packet's age on the real-time clock and counts it back from its read on the monotonic
clock), not from when the line reads it, so the time it waits in the kernel's queue and for the line's wake-up is part of the hold
instead of added to it. The kernel stamps packets only while some socket asks for receive
timestamps; the line keeps one such socket open (``SO_TIMESTAMP``). A packet without a timestamp
(or one not within the last second) is held from its read and counted (``stats``). Each queue's
release thread wakes :attr:`_Line.lead_s` before a packet's due time and sends the verdict then;
the lead follows the median of how late the verdicts of the packets it slept for completed
(wake-up, interpreter hand-over and the verdict's own system call, after which a forwarded packet
is on the next link), in steps of :data:`LEAD_STEP_S`, at most :data:`LEAD_MAX_S`. The threads
hand Python's interpreter lock over every :data:`SWITCH_INTERVAL_S` (the default 5 ms would hold
a due release behind the receiving thread). The line asks for real-time scheduling
(``SCHED_FIFO``, priority :data:`RT_PRIORITY`; its threads inherit it) so that other work on a
loaded machine does not delay its reads and verdicts (it sleeps between packets, so it cannot
starve the machine; the kernel's RT throttling bounds it anyway); without the privilege it runs at
normal priority and says so on stderr.

Accuracy, measured on the project's machine (two cores, shared with other CPU-heavy work) by
tests/linux/test_delay_accuracy.py (ICMP echo, median of 100, idle paths; docs/validation has the
table): every path of the validation grid and the 10-node chain of 9 links are within 0.3 ms of
their configured RTT (20 ms over 3 links: 20.04 ms; 40 ms: 40.02–40.28 ms; 300 ms: 300.23 ms; 36 ms
over 9 links: 36.02 ms; under a load average of 4–7: 20.07 and 36.21 ms). Before the timestamps
the hold was counted from the read and each traversal added 0.25–0.35 ms on a quiet machine and
about 1 ms under load (the 9-link chain: 42.5 ms idle and quiet, 48–53 ms for a bulk TCP flow
under load). A bulk TCP flow's smoothed RTT (``tcp_info``, as iperf3 reports it) also holds its own
delayed-ACK and burst effects: 20 ms over 3 links with 1 % loss read a mean of 20.6–21.1 ms and a
minimum of 19.9–20.0 ms; the 9-link chain with 1 % loss 37.2–37.9 and 35.5–35.6 ms. The 250 ms SATCOM
hops of naval-direct-move give ≥ 500 ms (tests/linux).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import signal
import socket
import sys
import threading
import time

SO_RCVBUFFORCE = 33
#: Linux socket option numbers (asm-generic/socket.h) the socket module does not name
SO_TIMESTAMP = 29
#: SCHED_FIFO priority of the line's threads (1–99; low, above every normal process)
RT_PRIORITY = 10
RCVBUF_BYTES = 16 * 1024 * 1024
#: the wake-up lead's step per packet and bound (s)
LEAD_STEP_S = 5e-6
LEAD_MAX_S = 0.001
#: Python's GIL hand-over interval (s) in the line: a thread whose wake-up is due waits at most
#: this long for another that holds the interpreter (Python's default is 5 ms)
SWITCH_INTERVAL_S = 0.0002
#: how many of the last packets the ``stats`` percentiles cover
STATS_WINDOW = 10000
#: verdict lateness (µs) over which, for a tenth of a queue's packets, the host stalled the line
STALLED_P90_US = 1000.0


class _Line:
    def __init__(self, conn, num: int, delay_s: float, jitter_s: float, rng: random.Random):
        self.conn = conn
        self.num = num
        self.delay_s = delay_s
        self.jitter_s = jitter_s
        self.rng = rng
        self.queue: collections.deque = collections.deque()
        self.cv = threading.Condition()
        self.last_release = 0.0
        self.count = 0
        self.max_backlog = 0
        #: packets read without the kernel's timestamp (held from the read instead)
        self.untimed = 0
        #: how much earlier than a packet's due time the line wakes up to release it (s): the median
        #: latency of its wake-up and verdict, learnt from the packets it slept for (:meth:`release`)
        self.lead_s = 0.0
        #: the last packets' ages when read (s) and how late their verdicts completed (s, < 0: early)
        self.read_lag: collections.deque = collections.deque(maxlen=STATS_WINDOW)
        self.verdict_late: collections.deque = collections.deque(maxlen=STATS_WINDOW)

    def arrival(self, pkt, now: float) -> float:
        """When ``pkt`` entered the namespace (s, ``time.monotonic``): ``now`` less the packet's age,
        the real-time clock now less the kernel's receive timestamp (``NFQA_TIMESTAMP``, real-time
        clock, µs), both read at this packet, so a step of the real-time clock (a VM's clock being
        set) moves no hold unless it falls between the packet's arrival and its read; ``now`` where
        the packet has no timestamp or its age is not in [0, 1] s."""
        from fnfqueue import ffi, lib

        attr = pkt.packet.attr[lib.NFQA_TIMESTAMP]
        if attr.buffer == ffi.NULL:
            self.untimed += 1
            return now
        t = ffi.cast("struct nfqnl_msg_packet_timestamp *", attr.buffer)
        age = time.time() - (lib.be64toh(t.sec) + lib.be64toh(t.usec) * 1e-6)
        if not -1e-3 <= age <= 1.0:
            self.untimed += 1
            return now
        self.read_lag.append(max(age, 0.0))
        return now - max(age, 0.0)

    def stats(self) -> dict:
        """The queue's counters: packets, those without the kernel's timestamp, the wake-up lead
        (µs), the largest backlog, the real-time scheduling policy, and percentiles (µs) of how old
        the last packets were when read and how late their verdicts completed (negative: early)."""
        return {"queue": self.num, "packets": self.count, "untimed": self.untimed,
                "lead_us": round(self.lead_s * 1e6, 1), "max_backlog": self.max_backlog,
                "realtime": os.sched_getscheduler(0) == os.SCHED_FIFO,
                "read_lag_us": _percentiles_us(list(self.read_lag)),
                "verdict_late_us": _percentiles_us(list(self.verdict_late))}

    def receive(self) -> None:
        import fnfqueue

        while True:
            try:
                for pkt in self.conn:
                    now = time.monotonic()
                    d = self.delay_s
                    if self.jitter_s > 0:
                        d = max(0.0, d + self.rng.uniform(-self.jitter_s, self.jitter_s))
                    release = max(self.last_release, self.arrival(pkt, now) + d)
                    self.last_release = release
                    with self.cv:
                        self.queue.append((release, pkt))
                        self.count += 1
                        if len(self.queue) > self.max_backlog:
                            self.max_backlog = len(self.queue)
                        self.cv.notify()
                return
            except fnfqueue.BufferOverflowException:
                print(f"delayline: queue {self.num}: netlink buffer overflow", file=sys.stderr, flush=True)
                self.conn.reset()

    def release(self) -> None:
        q = self.queue
        while True:
            with self.cv:
                while not q:
                    self.cv.wait()
                due = q[0][0]
            now = time.monotonic()
            if due - self.lead_s > now:
                time.sleep(min(due - self.lead_s - now, 0.05))
                slept = True
            else:
                slept = False
            now = time.monotonic()
            if due - self.lead_s > now:
                continue
            first = True
            while True:
                with self.cv:
                    if not q or q[0][0] - self.lead_s > now:
                        break
                    pkt_due, pkt = q.popleft()
                pkt.accept()
                self.verdict_late.append(time.monotonic() - pkt_due)
                if first and slept and pkt_due == due:
                    # the packet the line slept for: how late its verdict completed (the wake-up's and
                    # the verdict's latency; a forwarded packet is then on the next link). The lead
                    # follows the median lateness, one step per packet (a loaded machine's outliers
                    # move it one step each)
                    late = time.monotonic() - due
                    step = LEAD_STEP_S if late > 0 else -LEAD_STEP_S
                    self.lead_s = min(LEAD_MAX_S, max(0.0, self.lead_s + step))
                first = False


def late_p90_us(stats: list[dict]) -> float | None:
    """The largest 90th percentile of verdict lateness (µs) over the queues of ``stats``
    (:meth:`_Line.stats`); None without queues."""
    return max((q.get("verdict_late_us", {}).get("p90", 0.0) for q in stats), default=None)


def host_stalled(stats: list[dict]) -> bool:
    """Whether the host held some delay line's real-time threads off the CPU: on some queue of
    ``stats`` (:meth:`_Line.stats`) more than a tenth of the verdicts came over
    :data:`STALLED_P90_US` late. Measured on the project's machine (tests/linux/test_delay_accuracy.py):
    80–240 µs idle or with every core busy in user space; 1.4–2.8 ms while another process writes
    to disk at full speed (the kernel is not preemptible, so the line waits for the writer's kernel
    work), when each traversal adds that much to the configured delay."""
    worst = late_p90_us(stats)
    return worst is not None and worst > STALLED_P90_US


def _percentiles_us(values) -> dict[str, float]:
    xs = sorted(values)
    if not xs:
        return {}
    return {f"p{q}": round(xs[min(len(xs) - 1, int(q / 100 * len(xs)))] * 1e6, 1) for q in (1, 50, 90, 99)} | {
        "max": round(xs[-1] * 1e6, 1)}


def _commands(lines: dict[int, _Line]) -> None:
    """Read ``NUM DELAY_MS`` lines from stdin: queue ``NUM`` holds packets ``DELAY_MS`` from then on
    (release times never decrease, so packets already held keep their order); ``stats``: print one
    JSON line per queue on stdout (:meth:`_Line.stats`)."""
    for text in sys.stdin:
        parts = text.split()
        if parts == ["stats"]:
            for line in lines.values():
                print(json.dumps(line.stats()), flush=True)
            continue
        try:
            num, delay_ms = int(parts[0]), float(parts[1])
            line = lines[num]
            if not delay_ms >= 0:
                raise ValueError(delay_ms)
        except (IndexError, KeyError, ValueError):
            print(f"delayline: ignored command {text.strip()!r}", file=sys.stderr, flush=True)
            continue
        line.delay_s = delay_ms / 1000.0


def _parse_queue(spec: str) -> tuple[int, float, float]:
    num, delay, jitter = spec.split(":")
    n, d, j = int(num), float(delay), float(jitter)
    if not (0 <= n < 65536 and d >= 0 and j >= 0):
        raise ValueError(spec)
    return n, d / 1000.0, j / 1000.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queue", action="append", required=True, type=_parse_queue,
                    help="NUM:DELAY_MS:JITTER_MS (repeatable)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--maxlen", type=int, default=65536, help="kernel queue length per queue (packets)")
    args = ap.parse_args(argv)
    import fnfqueue

    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    # the kernel stamps received packets (skb->tstamp, handed to NFQUEUE as NFQA_TIMESTAMP) only
    # while some socket asks for receive timestamps; this one does, for the line's lifetime
    stamp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    stamp.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMP, 1)
    try:  # before any thread starts: they inherit the policy
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(RT_PRIORITY))
    except (OSError, AttributeError) as exc:
        print(f"delayline: no real-time scheduling ({exc}); normal priority", file=sys.stderr, flush=True)
    lines = []
    for k, (num, delay_s, jitter_s) in enumerate(args.queue):
        conn = fnfqueue.Connection()
        try:
            dup = socket.fromfd(conn._conn.fd, socket.AF_NETLINK, socket.SOCK_RAW)
            dup.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, RCVBUF_BYTES)
            dup.close()
        except OSError as exc:  # best effort: the default buffer works at low rates
            print(f"delayline: cannot enlarge the netlink buffer: {exc}", file=sys.stderr, flush=True)
        q = conn.bind(num)
        q.set_mode(0, fnfqueue.COPY_META)
        q.set_maxlen(args.maxlen)
        line = _Line(conn, num, delay_s, jitter_s, random.Random(args.seed * 1000 + k))
        lines.append(line)
    for line in lines:
        threading.Thread(target=line.receive, daemon=True, name=f"rx{line.num}").start()
        threading.Thread(target=line.release, daemon=True, name=f"tx{line.num}").start()
    threading.Thread(target=_commands, args=({line.num: line for line in lines},), daemon=True,
                     name="commands").start()
    print("ready", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
