"""Packet capture of the ``linux`` engine: ``tcpdump`` on the links a scenario's ``capture`` lists.

One ``tcpdump`` per listed link, inside the namespace of the link's ``src`` end, on that end's veth
(:class:`~.topology.WiredLink` ``ifa``): both directions of the link, after the sender's shaping.
Started once the network is up and before any iperf3 server, stopped with SIGINT (tcpdump then
flushes and closes its file) after the traffic has finished, read into the run's output
(:class:`subflow.results.document.PacketCapture`, the file as base64).

Bounds (environment of the process running the engine: the agent, the CLI):

* ``CAPTURE_SNAPLEN_BYTES`` (default 256): bytes kept of each packet (``tcpdump -s``), enough for the
  Ethernet, IP and TCP headers with every MPTCP option and the start of the payload.
* ``MAX_CAPTURE_BYTES`` (default 8388608, 8 MiB): the size cap of one link's file. tcpdump stops by
  itself after ``cap // (snaplen + 16)`` packets (``-c``; a pcap record is a 16-byte header plus at
  most ``snaplen`` bytes), so the file never exceeds the cap; the capture is then ``truncated``.

The files live in the run's work directory, so the teardown removes them on every ending (and the
sweep removes a killed owner's, :mod:`.cleanup`); tcpdump processes are recorded and stopped like
every other process of the run.
"""

from __future__ import annotations

import base64
import os
import signal
import struct
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from subflow.results.document import PacketCapture
from subflow.runplan.document import RunPlan

from .commands import CommandFailed, EngineCannotRun
from .topology import Model, WiredLink

#: pcap global header and per-record header, bytes (libpcap file format)
PCAP_HEADER_BYTES = 24
PCAP_RECORD_HEADER_BYTES = 16
#: seconds tcpdump has to report that it listens / to finish after SIGINT
START_TIMEOUT_S = 5.0
STOP_TIMEOUT_S = 5.0


def snaplen_bytes() -> int:
    """``CAPTURE_SNAPLEN_BYTES`` (bytes kept of each packet), default 256, at least 64."""
    return max(64, int(os.environ.get("CAPTURE_SNAPLEN_BYTES", "256")))


def max_capture_bytes() -> int:
    """``MAX_CAPTURE_BYTES`` (size cap of one link's file), default 8 MiB."""
    return int(os.environ.get("MAX_CAPTURE_BYTES", str(8 << 20)))


def packet_limit(cap_bytes: int, snaplen: int) -> int:
    """Packets that fit a file of ``cap_bytes`` bytes when each keeps at most ``snaplen`` bytes (tcpdump ``-c``).

    Raises
    ------
    EngineCannotRun
        When not even one packet fits (``MAX_CAPTURE_BYTES`` too small).
    """
    n = (cap_bytes - PCAP_HEADER_BYTES) // (snaplen + PCAP_RECORD_HEADER_BYTES)
    if n < 1:
        raise EngineCannotRun(f"capture: MAX_CAPTURE_BYTES={cap_bytes} holds no packet of CAPTURE_SNAPLEN_BYTES={snaplen}")
    return n


def captured_links(plan: RunPlan) -> list[str]:
    """The link ids of the scenario's ``capture`` (empty without one)."""
    return list((plan.scenario or {}).get("capture") or [])


def count_packets(data: bytes) -> int:
    """Records of a libpcap file (``data``: the whole file; a record cut short by a kill is not counted)."""
    if len(data) < PCAP_HEADER_BYTES:
        return 0
    endian = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    n, pos = 0, PCAP_HEADER_BYTES
    while pos + PCAP_RECORD_HEADER_BYTES <= len(data):
        incl = struct.unpack_from(endian + "I", data, pos + 8)[0]
        pos += PCAP_RECORD_HEADER_BYTES + incl
        if pos > len(data):
            break
        n += 1
    return n


@dataclass
class _Target:
    link: WiredLink
    file: Path
    log: Path
    proc: subprocess.Popen | None = None


class Captures:
    """The run's tcpdump processes and their files (see the module docstring).

    Parameters
    ----------
    plan, model
        The run's plan and its namespace model; ``capture`` ids must be wired links of the model.
    spawn
        The run's ``spawn(args, out)`` (records the PID; the teardown stops it).
    tmp
        The run's work directory.

    Raises
    ------
    EngineCannotRun
        For a ``capture`` id that is not a wired link of the model (``capture[i]``).
    """

    def __init__(self, plan: RunPlan, model: Model, spawn: Callable[..., subprocess.Popen], tmp: Path):
        self.spawn = spawn
        self.snaplen = snaplen_bytes()
        self.cap = max_capture_bytes()
        by_id = {link.id: link for link in model.links}
        self.targets: list[_Target] = []
        for i, lid in enumerate(captured_links(plan)):
            if lid not in by_id:
                raise EngineCannotRun(f"capture[{i}]={lid!r}: not a wired link of the linux engine's model")
            link = by_id[lid]
            self.targets.append(_Target(link, tmp / f"capture-w{link.index}.pcap", tmp / f"capture-w{link.index}.log"))
        self.limit = packet_limit(self.cap, self.snaplen) if self.targets else 0

    def start(self, check: Callable[[], None]) -> None:
        """Start one tcpdump per link and wait until each listens (``check`` polled meanwhile).

        Raises
        ------
        CommandFailed
            When a tcpdump exits or does not listen within :data:`START_TIMEOUT_S`, with its message.
        """
        for t in self.targets:
            itf = t.link.ifa
            args = ["ip", "netns", "exec", itf.ns, "tcpdump", "-i", itf.name, "-s", str(self.snaplen),
                    "-c", str(self.limit), "-n", "-U", "-Z", "root", "--time-stamp-precision=nano", "-w", str(t.file)]
            t.proc = self.spawn(args, t.log)
        deadline = time.monotonic() + START_TIMEOUT_S
        for t in self.targets:
            while b"listening on" not in _read(t.log):
                check()
                if t.proc.poll() is not None or time.monotonic() > deadline:
                    raise CommandFailed(list(t.proc.args), t.proc.returncode or -1, _read(t.log).decode(errors="replace"))
                time.sleep(0.02)

    def stop(self) -> None:
        """SIGINT to every tcpdump still running, then wait for each to close its file."""
        for t in self.targets:
            if t.proc is not None and t.proc.poll() is None:
                t.proc.send_signal(signal.SIGINT)
        for t in self.targets:
            if t.proc is not None:
                try:
                    t.proc.wait(timeout=STOP_TIMEOUT_S)
                except subprocess.TimeoutExpired:
                    t.proc.kill()

    def records(self) -> list[PacketCapture]:
        """One :class:`PacketCapture` per link, the file as base64 (an empty file if tcpdump wrote none)."""
        out = []
        for t in self.targets:
            data = t.file.read_bytes() if t.file.exists() else b""
            packets = count_packets(data)
            out.append(PacketCapture(link=t.link.id, node=t.link.a, snaplen_bytes=self.snaplen, size_bytes=len(data),
                                     packets=packets, truncated=packets >= self.limit,
                                     data_b64=base64.b64encode(data).decode("ascii")))
        return out


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""
