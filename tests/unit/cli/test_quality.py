"""``subflow compare`` prints the delay, jitter, loss and MOS of udp and voice flows; the summary's definitions
(:mod:`subflow.results.quality`) on series worked out by hand."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from subflow.results.document import FlowSeries
from subflow.results.quality import flow_quality, nearest_rank
from subflow_cli.main import app

from tests.conftest import EXAMPLES

runner = CliRunner()


def _flow(**series) -> FlowSeries:
    t = [0.0, 1.0, 2.0, 3.0]
    return FlowSeries(id="call", src="a", dst="b", t_s=t, throughput_mbps=series.pop("throughput_mbps", [1.0] * 4),
                      subflows=[], **series)


def test_a_call_is_summarised_over_its_intervals():
    q = flow_quality(_flow(throughput_mbps=[0.08, 0.08, 0.0, 0.04], delay_ms=[5.0, 7.0, None, 11.0],
                           jitter_ms=[0.5, 1.0, None, 1.5], loss=[0.0, 0.0, 1.0, 0.5], mos=[4.4, 4.3, None, 3.1]))
    # delay weighted by the bits delivered: (0.08·5 + 0.08·7 + 0.04·11) / 0.2 = 1.4 / 0.2 = 7 ms
    assert q.mean_delay_ms == pytest.approx(7.0, abs=1e-12)
    assert q.p95_delay_ms == 11.0  # nearest rank of [5, 7, 11] at 95 %: ceil(2.85) = 3rd
    assert q.mean_jitter_ms == pytest.approx(1.0, abs=1e-12)
    assert q.loss == pytest.approx(0.375, abs=1e-12)  # (0 + 0 + 1 + 0.5) / 4
    assert q.mean_mos == pytest.approx(11.8 / 3, abs=1e-12) and q.min_mos == 3.1
    assert q.frames_sent is None


def test_a_video_flow_counts_its_frames_and_a_tcp_flow_has_no_quality():
    q = flow_quality(_flow(delay_p95_ms=[40.0, 60.0, 50.0, None], frames_sent=[30, 30, 30, 30],
                           frames_late=[1, 2, 0, 0], frames_lost=[0, 0, 4, 0]))
    assert (q.frames_sent, q.frames_late, q.frames_lost) == (120, 3, 4)
    assert q.p95_delay_ms == 60.0 and q.mean_delay_ms is None
    assert flow_quality(_flow()) is None
    assert nearest_rank(list(range(1, 21)), 95) == 19 and nearest_rank([], 95) is None


def _voice_scenario(tmp_path):
    doc = {"name": "call", "nodes": [{"id": "a", "kind": "host"}, {"id": "b", "kind": "host"}],
           "links": [{"id": "a-b", "src": "a", "dst": "b", "bandwidth_mbps": 10, "delay_ms": 5, "queue_packets": 100}],
           "run": {"duration_s": 10, "interval_s": 1},
           "flows": [{"id": "call", "src": "a", "dst": "b", "kind": "voice"},
                     {"id": "cbr", "src": "a", "dst": "b", "kind": "udp", "rate_mbps": 2}]}
    path = tmp_path / "call.json"
    path.write_text(json.dumps(doc))
    return path


def test_compare_prints_the_quality_of_a_call_and_a_cbr_flow(tmp_path):
    out = runner.invoke(app, ["compare", str(_voice_scenario(tmp_path)), "--strategies", "sptcp"],
                        env={"COLUMNS": "160"})
    assert out.exit_code == 0, out.output
    assert "call — delay, jitter, loss, voice quality" in out.stdout
    rows = {line.split("│")[2].strip(): [c.strip() for c in line.split("│")[3:-1]]
            for line in out.stdout.splitlines() if line.count("│") >= 9 and "sptcp" in line}
    # one 10 Mbit/s link of 5 ms, nothing queued: G.711 every 20 ms sends 200-byte packets,
    # 5 + 200·8/10⁷ s = 5.16 ms; mouth-to-ear 5.16 + 20 (packetisation) + 40 (playout buffer) + 0 (G.711
    # look-ahead) = 65.16 ms, no loss and no late packet (the delay is constant): G.107 with its defaults,
    # Ro 94.77 − Is 1.41 − Idte 1.32 (T 65.16 ms, TELR 65 dB) − Idle 0.63 (Tr 130.3 ms, WEPL 110 dB), Idd 0
    # (Ta < 100 ms) = R 91.41, MOS 1 + 0.035·R + R(R − 60)(100 − R)·7·10⁻⁶ = 4.37 (docs/traffic.md);
    # the 2 Mbit/s cbr flow's 1228-byte packets: 5 + 1228·8/10⁷ s = 5.98 ms, no voice rating
    assert rows["call"] == ["5.16", "5.16", "0.000", "0.00", "4.37", "4.37"]
    assert rows["cbr"] == ["5.98", "5.98", "0.000", "0.00", "—", "—"]


def test_compare_of_tcp_flows_prints_no_quality_table():
    out = runner.invoke(app, ["compare", str(EXAMPLES / "naval-direct-move.json"), "--strategies", "sptcp"])
    assert out.exit_code == 0, out.output
    assert "voice quality" not in out.stdout
