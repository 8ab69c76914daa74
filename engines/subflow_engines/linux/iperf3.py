"""A robust parser of ``iperf3 -J`` output, and per-interval timelines from it.

iperf3's JSON (``-J``) has ``start`` (``connected``, ``test_start``, ``connecting_to``
on a client or ``accepted_connection`` on a server), ``intervals`` (per-stream and
``sum`` entries with ``start``/``end`` in seconds since the test started,
``bytes``, ``bits_per_second`` and, on a TCP sender, ``retransmits``, ``snd_cwnd``
in bytes, ``rtt``/``rttvar`` in microseconds) and ``end`` (``sum_sent``,
``sum_received``, per-stream sender/receiver totals, ``sender_tcp_congestion``).
Failures add a top-level ``"error"`` string. Source: iperf3's ``iperf_api.c``
(``iperf_print_intermediate``/``iperf_print_results``) and the real outputs in
``shared/data/iperf3`` (iperf 3.9) and captured from this engine (iperf 3.12).

Quirks handled:

* ``-O N`` (omit): the first N intervals carry ``"omitted": true`` and the interval
  times restart at 0 after them; ``end`` totals exclude them (so interval
  retransmits can exceed ``end.sum_sent.retransmits``).
* Several documents concatenated in one file (``iperf3 -J --logfile`` appends):
  :func:`parse` refuses them with :class:`Iperf3ParseError` naming the count;
  :func:`parse_all` returns each.
* Missing keys (older versions, UDP, a run cut short by a signal) give ``None``,
  never a ``KeyError``.
* iperf3 prints some warnings to standard output even with ``-J``: a server whose
  client was interrupted during the end-of-test results exchange prints
  ``WARNING:  Size of data read does not correspond to offered length`` (``JSON_read``
  in ``iperf_api.c``: the control connection delivered fewer bytes than the length it
  announced) before its JSON report. Whole lines equal to one of
  :data:`STDOUT_WARNINGS` are set aside into :attr:`Iperf3Run.warnings`; any other
  text outside the JSON is still refused.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from subflow.errors import Iperf3ParseError  # noqa: F401  (re-exported)

#: Lines iperf3 3.x prints to standard output outside its JSON document (``iperf_api.c``).
STDOUT_WARNINGS = ("WARNING:  Size of data read does not correspond to offered length",)


@dataclass
class Interval:
    """One reporting interval (seconds since the test start, bytes of this side)."""

    start_s: float
    end_s: float
    bytes: int
    bits_per_second: float
    omitted: bool = False
    retransmits: int | None = None
    snd_cwnd_bytes: int | None = None
    rtt_ms: float | None = None


@dataclass
class Iperf3Run:
    role: str  #: "client" | "server" | "unknown"
    version: str | None
    protocol: str | None
    num_streams: int | None
    omit_s: float
    duration_s: float | None  #: requested ``-t``
    intervals: list[Interval]
    sent_bytes: int | None
    received_bytes: int | None
    sent_bps: float | None
    received_bps: float | None
    retransmits: int | None  #: sender retransmits over the measured (non-omitted) time
    mean_rtt_ms: float | None
    sender_cc: str | None
    error: str | None
    local: list[tuple[str, int]] = field(default_factory=list)  #: (host, port) of each data stream
    remote: list[tuple[str, int]] = field(default_factory=list)
    min_rtt_ms: float | None = None  #: the sender's lowest RTT sample (tcp_info), ms
    warnings: list[str] = field(default_factory=list)  #: lines of :data:`STDOUT_WARNINGS` found in the output

    @property
    def measured(self) -> list[Interval]:
        """Intervals outside the ``-O`` omit period."""
        return [iv for iv in self.intervals if not iv.omitted]

    def summary(self) -> dict[str, Any]:
        """JSON-friendly totals (Mbit/s, bytes, ms)."""
        return {
            "role": self.role,
            "version": self.version,
            "sent_bytes": self.sent_bytes,
            "received_bytes": self.received_bytes,
            "sent_mbps": None if self.sent_bps is None else round(self.sent_bps / 1e6, 6),
            "received_mbps": None if self.received_bps is None else round(self.received_bps / 1e6, 6),
            "retransmits": self.retransmits,
            "mean_rtt_ms": self.mean_rtt_ms,
            "min_rtt_ms": self.min_rtt_ms,
            "sender_cc": self.sender_cc,
            "error": self.error,
            "warnings": list(self.warnings),
        }


def split_warnings(text: str) -> tuple[str, list[str]]:
    """``text`` without the whole lines equal to one of :data:`STDOUT_WARNINGS`, and those lines in order.

    Examples
    --------
    >>> split_warnings('WARNING:  Size of data read does not correspond to offered length\\n{"end": {}}')
    ('{"end": {}}', ['WARNING:  Size of data read does not correspond to offered length'])
    """
    kept: list[str] = []
    found: list[str] = []
    for line in text.splitlines(keepends=True):
        if line.strip() in STDOUT_WARNINGS:
            found.append(line.strip())
        else:
            kept.append(line)
    return "".join(kept), found


def parse_all(text: str) -> list[dict[str, Any]]:
    """Split ``text`` into the JSON documents it holds, back to back (lines of :data:`STDOUT_WARNINGS` skipped).

    Raises
    ------
    Iperf3ParseError
        On text that is not a sequence of JSON objects (with the character offset).
    """
    return _documents(split_warnings(text)[0])


def _documents(text: str) -> list[dict[str, Any]]:
    """The JSON objects of ``text``, back to back (:func:`parse_all` without the warning lines)."""
    dec = json.JSONDecoder()
    docs: list[dict[str, Any]] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            break
        try:
            obj, end = dec.raw_decode(text, i)
        except json.JSONDecodeError as exc:
            raise Iperf3ParseError(f"not iperf3 JSON at character {exc.pos}: {exc.msg}") from None
        if not isinstance(obj, dict):
            raise Iperf3ParseError(f"JSON value at character {i} is a {type(obj).__name__}, not an object")
        docs.append(obj)
        i = end
    if not docs:
        raise Iperf3ParseError("empty iperf3 output")
    return docs


def _num(d: Any, key: str) -> float | None:
    if not isinstance(d, dict):
        return None
    v = d.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and not math.isfinite(v)):
        return None
    return v


def _int(d: Any, key: str) -> int | None:
    v = _num(d, key)
    return None if v is None else int(v)


def from_document(doc: dict[str, Any]) -> Iperf3Run:
    """Interpret one parsed iperf3 JSON document."""
    if not isinstance(doc, dict) or not ({"start", "intervals", "end", "error"} & doc.keys()):
        raise Iperf3ParseError("not an iperf3 document: no start/intervals/end/error key")
    start = doc.get("start") if isinstance(doc.get("start"), dict) else {}
    end = doc.get("end") if isinstance(doc.get("end"), dict) else {}
    ts = start.get("test_start") if isinstance(start.get("test_start"), dict) else {}
    if "connecting_to" in start:
        role = "client"
    elif "accepted_connection" in start:
        role = "server"
    else:
        role = "unknown"
    intervals: list[Interval] = []
    for it in doc.get("intervals") or []:
        if not isinstance(it, dict):
            continue
        s = it.get("sum") if isinstance(it.get("sum"), dict) else None
        streams = [x for x in it.get("streams") or [] if isinstance(x, dict)]
        if s is None and streams:
            s = streams[0]
        if s is None:
            continue
        cwnd = [c for c in (_int(x, "snd_cwnd") for x in streams) if c is not None]
        rtts = [r for r in (_num(x, "rtt") for x in streams) if r is not None]
        intervals.append(
            Interval(
                start_s=float(_num(s, "start") or 0.0),
                end_s=float(_num(s, "end") or 0.0),
                bytes=int(_num(s, "bytes") or 0),
                bits_per_second=float(_num(s, "bits_per_second") or 0.0),
                omitted=bool(s.get("omitted", False)),
                retransmits=_int(s, "retransmits"),
                snd_cwnd_bytes=sum(cwnd) if cwnd else None,
                rtt_ms=(sum(rtts) / len(rtts) / 1000.0) if rtts else None,
            )
        )
    sent = end.get("sum_sent") if isinstance(end.get("sum_sent"), dict) else end.get("sum")
    recv = end.get("sum_received") if isinstance(end.get("sum_received"), dict) else None
    rtts, min_rtts = [], []
    for st in end.get("streams") or []:
        snd = st.get("sender") if isinstance(st, dict) else None
        r = _num(snd, "mean_rtt")
        if r:
            rtts.append(r)
        r = _num(snd, "min_rtt")
        if r:
            min_rtts.append(r)
    local, remote = [], []
    for c in start.get("connected") or []:
        if isinstance(c, dict):
            local.append((str(c.get("local_host", "")), int(c.get("local_port") or 0)))
            remote.append((str(c.get("remote_host", "")), int(c.get("remote_port") or 0)))
    err = doc.get("error")
    return Iperf3Run(
        role=role,
        version=start.get("version") if isinstance(start.get("version"), str) else None,
        protocol=ts.get("protocol") if isinstance(ts.get("protocol"), str) else None,
        num_streams=_int(ts, "num_streams"),
        omit_s=float(_num(ts, "omit") or 0.0),
        duration_s=_num(ts, "duration"),
        intervals=intervals,
        sent_bytes=_int(sent, "bytes"),
        received_bytes=_int(recv, "bytes"),
        sent_bps=_num(sent, "bits_per_second"),
        received_bps=_num(recv, "bits_per_second"),
        retransmits=_int(sent, "retransmits"),
        mean_rtt_ms=(sum(rtts) / len(rtts) / 1000.0) if rtts else None,
        min_rtt_ms=(min(min_rtts) / 1000.0) if min_rtts else None,
        sender_cc=end.get("sender_tcp_congestion") if isinstance(end.get("sender_tcp_congestion"), str) else None,
        error=str(err) if err else None,
        local=local,
        remote=remote,
    )


def parse(text: str) -> Iperf3Run:
    """Parse the output of one ``iperf3 -J`` run.

    Raises
    ------
    Iperf3ParseError
        If the text is not JSON, holds no iperf3 document, or holds several
        (concatenated runs: use :func:`parse_all`).

    Examples
    --------
    >>> r = parse('{"start": {"connecting_to": {"host": "h", "port": 5201}}, "intervals": [],'
    ...           ' "end": {"sum_sent": {"bytes": 10, "bits_per_second": 8.0, "retransmits": 0}}}')
    >>> (r.role, r.sent_bytes, r.retransmits)
    ('client', 10, 0)
    """
    text, warnings = split_warnings(text)
    docs = _documents(text)
    if len(docs) != 1:
        raise Iperf3ParseError(
            f"{len(docs)} JSON documents concatenated (several iperf3 runs in one file); "
            "parse them one by one with parse_all()"
        )
    run = from_document(docs[0])
    run.warnings = warnings
    return run


def timeline(intervals: list[Interval], interval_s: float, n_bins: int, offset_s: float = 0.0) -> list[float]:
    """Resample intervals onto a grid of ``n_bins`` bins of ``interval_s`` seconds.

    Interval ``[start_s, end_s)`` is placed at ``[offset_s + start_s, offset_s + end_s)``
    on the grid and its bytes are spread uniformly over it; each bin gets the
    overlapping share. Omitted intervals are skipped (their times restart).

    Returns
    -------
    list of float
        Mbit/s per bin.

    Examples
    --------
    >>> timeline([Interval(0.0, 1.0, 125000, 1e6), Interval(1.0, 2.0, 250000, 2e6)], 1.0, 3, 0.5)
    [0.5, 1.5, 1.0]
    """
    bits = [0.0] * n_bins
    for iv in intervals:
        if iv.omitted or iv.end_s <= iv.start_s:
            continue
        a, b = offset_s + iv.start_s, offset_s + iv.end_s
        rate = iv.bytes * 8.0 / (b - a)
        k0 = max(0, int(math.floor(a / interval_s)))
        k1 = min(n_bins - 1, int(math.floor((b - 1e-12) / interval_s)))
        for k in range(k0, k1 + 1):
            lo, hi = max(a, k * interval_s), min(b, (k + 1) * interval_s)
            if hi > lo:
                bits[k] += rate * (hi - lo)
    return [round(x / interval_s / 1e6, 6) for x in bits]
