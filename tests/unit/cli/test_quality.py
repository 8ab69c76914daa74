"""``subflow compare`` prints the delay, jitter, loss and MOS of udp and voice flows; the summary's definitions
(:mod:`subflow.results.quality`) on series worked out by hand."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from subflow.results.document import FlowSeries
from subflow.results.quality import flow_quality, nearest_rank, pooled_loss
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


def test_the_loss_of_an_on_off_source_is_weighed_by_what_it_sent():
    """1 Mbit/s while on: on throughout interval 0 (1 Mbit sent, none lost), 0.25 s of interval 1 (0.25 Mbit,
    40 % lost), off in interval 2 (nothing sent: loss null), 0.5 s of interval 3 without a path (0.5 Mbit, all
    lost): 0.1 + 0.5 = 0.6 Mbit lost of 1.75 sent, 12/35 = 0.342857 (the mean of the fractions would be 0.467)."""
    flow = _flow(throughput_mbps=[1.0, 0.15, 0.0, 0.0], delay_ms=[5.0, 5.0, None, None],
                 loss=[0.0, 0.4, None, 1.0], sent_mbps=[1.0, 0.25, 0.0, 0.5])
    assert flow_quality(flow).loss == pytest.approx(12 / 35, abs=1e-12)
    assert pooled_loss([(0.0, 1.0), (0.4, 0.25), (None, 0.0), (1.0, 0.5)]) == pytest.approx(12 / 35, abs=1e-12)
    # stored before sent_mbps: each interval alike, (0 + 0.4 + 1) / 3
    assert pooled_loss([(0.0, None), (0.4, None), (None, None), (1.0, None)]) == pytest.approx(1.4 / 3, abs=1e-12)
    assert pooled_loss([(None, 0.0)]) is None


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
    # 5 + 200·8/10⁷ s = 5.16 ms; mouth-to-ear 5.16 + 20 (packetisation) + 40 (playout buffer) = 65.16 ms without
    # loss gives R 91.4, MOS 4.37 (docs/traffic.md);
    # the 2 Mbit/s cbr flow's 1228-byte packets: 5 + 1228·8/10⁷ s = 5.98 ms, no voice rating
    assert rows["call"] == ["5.16", "5.16", "0.000", "0.00", "4.37", "4.37"]
    assert rows["cbr"] == ["5.98", "5.98", "0.000", "0.00", "—", "—"]


def test_the_fluid_engine_reports_what_each_source_sent(tmp_path):
    """G.711 every 20 ms: 50 packets/s of 160 + 40 bytes, 80 kbit/s; the cbr flow its 2 Mbit/s; in every 1 s
    interval of the 10 s run."""
    out = runner.invoke(app, ["compare", str(_voice_scenario(tmp_path)), "--strategies", "sptcp", "--json"])
    assert out.exit_code == 0, out.output
    flows = {f["id"]: f for f in json.loads(out.stdout)["strategies"]["sptcp"]["flows"]}
    assert flows["call"]["sent_mbps"] == pytest.approx([0.08] * 10, abs=1e-6)
    assert flows["cbr"]["sent_mbps"] == pytest.approx([2.0] * 10, abs=1e-6)


def test_compare_of_tcp_flows_prints_no_quality_table():
    out = runner.invoke(app, ["compare", str(EXAMPLES / "naval-direct-move.json"), "--strategies", "sptcp"])
    assert out.exit_code == 0, out.output
    assert "voice quality" not in out.stdout
