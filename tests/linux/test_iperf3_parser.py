"""The iperf3 JSON parser on real outputs.

Fixtures: ``../shared/data/iperf3/`` (CloudPilot_Project measurements, iperf 3.9; no
licence, so internal only: read in place, never copied into the repository — the tests
skip when the directory is absent) and outputs captured from the linux engine (in
``test_linux_engine.py``). Expected numbers below were read from the files by hand
(see that directory's README).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from subflow_engines.linux import iperf3
from subflow_engines.linux.iperf3 import Interval, Iperf3ParseError

pytestmark = pytest.mark.linux

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "iperf3"


def _read(name: str) -> str:
    path = DATA / name
    if not path.exists():
        pytest.skip(f"internal iperf3 fixtures absent: {path}")
    return path.read_text()


def test_client_with_omitted_intervals_and_retransmits():
    r = iperf3.parse(_read("cloudpilot_rtt36ms_retransmits.json"))
    assert r.role == "client" and r.version == "iperf 3.9" and r.protocol == "TCP"
    assert r.omit_s == 3 and r.duration_s == 10
    assert len(r.intervals) == 13
    assert [iv.omitted for iv in r.intervals[:4]] == [True, True, True, False]
    # interval times restart at 0 after the omit period
    assert r.intervals[3].start_s == pytest.approx(0.0, abs=1e-3)
    assert len(r.measured) == 10
    assert r.sent_bps / 1e6 == pytest.approx(275.78, abs=0.01)
    assert r.sent_bytes == 344_719_360 and r.received_bytes == 345_313_408
    # end totals exclude the omitted intervals: 264, while all intervals sum to 1191
    assert r.retransmits == 264
    assert sum(iv.retransmits for iv in r.intervals) == 1191
    assert all(35.0 <= iv.rtt_ms <= 38.0 for iv in r.intervals)  # µs in the file
    assert r.mean_rtt_ms == pytest.approx(36.03, abs=0.01)
    assert r.sender_cc == "cubic" and r.error is None
    assert r.remote == [("169.63.67.198", 5500)]


def test_long_rtt_slow_start():
    r = iperf3.parse(_read("cloudpilot_rtt295ms_slowstart.json"))
    assert r.sent_bps / 1e6 == pytest.approx(46.14, abs=0.01)
    assert all(294.0 <= iv.rtt_ms <= 301.0 for iv in r.intervals if iv.rtt_ms)
    # slow ramp-up during the omitted seconds (1.2, 12.6, 56.5 Mbit/s), excluded from the mean
    ramp = [iv.bits_per_second / 1e6 for iv in r.intervals if iv.omitted]
    assert ramp == pytest.approx([1.2, 12.6, 56.5], abs=0.1)
    assert ramp[0] < ramp[1] < ramp[2]
    assert r.retransmits is not None
    assert sum(iv.retransmits for iv in r.intervals) == 1033


def test_concatenated_runs_are_refused_by_parse_and_split_by_parse_all():
    text = _read("cloudpilot_two_runs_concatenated.res")
    with pytest.raises(Iperf3ParseError, match="2 JSON documents"):
        iperf3.parse(text)
    docs = iperf3.parse_all(text)
    assert len(docs) == 2
    runs = [iperf3.from_document(d) for d in docs]
    assert all(r.role == "client" and r.sent_bytes for r in runs)


@pytest.mark.parametrize("text, match", [
    ("", "empty"),
    ("   \n", "empty"),
    ("iperf3: error - unable to connect", "not iperf3 JSON"),
    ('{"start": {}} trailing', "not iperf3 JSON"),
    ("[1, 2]", "not an object"),
    ('{"foo": 1}', "not an iperf3 document"),
])
def test_garbage_is_refused_with_a_reason(text, match):
    with pytest.raises(Iperf3ParseError, match=match):
        iperf3.parse(text)


def test_error_document_and_missing_fields():
    r = iperf3.parse('{"start": {"connected": []}, "intervals": [], "end": {}, '
                     '"error": "unable to connect to server: Connection refused"}')
    assert r.error.startswith("unable to connect")
    assert r.sent_bytes is None and r.received_bytes is None and r.intervals == []
    # a truncated interval list (run stopped by a signal) still parses
    r = iperf3.parse('{"start": {"accepted_connection": {"host": "h", "port": 1}}, '
                     '"intervals": [{"streams": [], "sum": {"start": 0, "end": 0.5, "bytes": 1000, '
                     '"bits_per_second": 16000, "omitted": false}}], "end": {"sum_received": {"bytes": 1000}}}')
    assert r.role == "server" and r.intervals[0].bytes == 1000 and r.received_bytes == 1000


def test_timeline_resampling_conserves_bytes():
    ivs = [Interval(0.0, 1.0, 125_000, 1e6), Interval(1.0, 2.0, 250_000, 2e6), Interval(2.0, 2.5, 62_500, 1e6)]
    tl = iperf3.timeline(ivs, 1.0, 4, offset_s=0.3)
    assert sum(tl) * 1e6 / 8 == pytest.approx(437_500)
    assert tl == pytest.approx([0.7, 1.7, 1.1, 0.0])
    omitted = [Interval(0.0, 1.0, 10**6, 8e6, omitted=True)] + ivs
    assert iperf3.timeline(omitted, 1.0, 4) == iperf3.timeline(ivs, 1.0, 4)


def test_a_known_stdout_warning_is_set_aside_and_other_text_still_refused():
    # iperf 3.12's server prints this line (iperf_api.c JSON_read) before its JSON when its client was
    # interrupted during the results exchange; the report itself is whole.
    warning = "WARNING:  Size of data read does not correspond to offered length"
    doc = ('{"start": {"accepted_connection": {"host": "h", "port": 1}}, "intervals": [{"streams": [], '
           '"sum": {"start": 0, "end": 1.0, "bytes": 500000, "bits_per_second": 4000000, "omitted": false}}], '
           '"end": {"sum_received": {"bytes": 500000}}}')
    r = iperf3.parse(warning + "\n" + doc + "\n")
    assert r.role == "server" and r.received_bytes == 500_000 and len(r.intervals) == 1
    assert r.warnings == [warning] and r.summary()["warnings"] == [warning]
    assert iperf3.parse(doc).warnings == []
    with pytest.raises(Iperf3ParseError, match="not iperf3 JSON"):
        iperf3.parse("WARNING: something else\n" + doc)
    with pytest.raises(Iperf3ParseError, match="not iperf3 JSON"):
        iperf3.parse(warning + " and more\n" + doc)
