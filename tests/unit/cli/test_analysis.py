"""``subflow failures`` and ``subflow capacity``: the library's documents, exit code 2 on bad input."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from subflow_cli.main import app

ROOT = Path(__file__).resolve().parents[3]
NAVAL = str(ROOT / "examples" / "naval-direct-move.json")
UAV = str(ROOT / "examples" / "uav-backhaul-planning.json")
runner = CliRunner()


def test_failures_json_names_the_satcom_backhaul_worst():
    out = runner.invoke(app, ["failures", NAVAL, "--json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    # until the users reach the UAV's range (63 s) satcom-ship is their only way to the ship: its loss cuts both
    # 3 Mbit/s flows, the worst case of the run
    worst = report["cases"][0]
    assert (worst["kind"], worst["element"], worst["flows_cut"], worst["t_s"]) == ("link", "satcom-ship", 2, 0.0)
    assert worst["lost_mbps"] == 6.0 and report["intact_delivered_mbps"] == 6.0 and report["t_s"] is None
    # from 63 s the users route over the UAV; losing its backhaul sends both back over SATCOM: nothing lost
    uav = next(c for c in report["cases"] if c["element"] == "uav-ship")
    assert (uav["lost_mbps"], uav["flows_cut"], uav["paths_changed"], uav["t_s"]) == (0.0, 0, 2, 63.0)
    assert uav is report["cases"][-1]
    table = runner.invoke(app, ["failures", NAVAL, "--nodes"])
    assert table.exit_code == 0 and "satcom-sh" in table.stdout and "node" in table.stdout


def test_failures_bad_link_exits_2():
    out = runner.invoke(app, ["failures", NAVAL, "--links", "nope"])
    assert out.exit_code == 2 and "nope" in out.output


def test_capacity_finds_the_uav_backhaul_for_the_demand():
    """Two users need ≥ 2.5 Mbit/s each over SATCOM (2 Mbit/s) + UAV backhaul B: the links carry
    (2 + B)·1448/1514 of goodput, so B ≥ 5·1514/1448 − 2 = 3.228 Mbit/s at the very least."""
    out = runner.invoke(app, ["capacity", UAV, "--parameter", "links.uav-ship.bandwidth_mbps", "--low", "0.5",
                              "--high", "10", "--min-mean", "2.5", "--repetitions", "1", "--tolerance", "0.25",
                              "--json"])
    assert out.exit_code == 0, out.output
    res = json.loads(out.stdout)
    assert res["status"] == "found"
    assert 5 * 1514 / 1448 - 2 <= res["value"] <= 4.0
    lo, hi = res["bracket"]
    assert hi - lo <= 0.25 and hi == res["value"]
    assert all(s["passed"] == all(f["mean_mbps"] >= 2.5 for f in s["flows"]) for s in res["trace"])


def test_capacity_bad_parameter_exits_2():
    out = runner.invoke(app, ["capacity", UAV, "--parameter", "links.nope.bandwidth_mbps", "--low", "1",
                              "--high", "2", "--min-mean", "1"])
    assert out.exit_code == 2 and "nope" in out.output


def test_capacity_window_is_echoed_and_a_window_after_the_run_exits_2():
    out = runner.invoke(app, ["capacity", UAV, "--parameter", "links.uav-ship.bandwidth_mbps", "--low", "0.5",
                              "--high", "10", "--min-mean", "2.5", "--repetitions", "1", "--tolerance", "2",
                              "--max-steps", "3", "--window", "10", "20"])
    assert out.exit_code == 0, out.output
    assert "judged over 10-20 s of the run" in out.output.splitlines()[-1]
    out = runner.invoke(app, ["capacity", UAV, "--parameter", "links.uav-ship.bandwidth_mbps", "--low", "0.5",
                              "--high", "10", "--min-mean", "2.5", "--window", "5000", "6000"])
    assert out.exit_code == 2 and "window_s" in out.output


def test_capacity_voice_target_on_a_call_behind_bulk_tcp(tmp_path):
    """A G.711 call and a bulk TCP flow on one 5 ms link with a 50-packet fifo queue: MOS ≥ 3.6 needs the
    standing queue drained fast enough. Half the full queue already costs 50·1514·8/(2B) of delay, and at 400 ms
    mouth-to-ear (one-way + 20 ms packetisation + 40 ms playout buffer) G.711 is at R 62.2, MOS 3.21
    (docs/traffic.md): B ≤ 0.90 Mbit/s fails; at B ≥ 15.14 the whole queue drains within the buffer (no late
    packet) and under 150 ms (R 89.5): the answer lies between (tests/unit/analysis/test_capacity_voice.py
    works it out in full). The table shows the call's MOS, delay and loss."""
    doc = {"schema_version": 1, "name": "voice-and-bulk",
           "nodes": [{"id": "a", "kind": "host", "position": {"x_m": 0, "y_m": 0}},
                     {"id": "b", "kind": "host", "position": {"x_m": 100, "y_m": 0}}],
           "links": [{"id": "ab", "src": "a", "dst": "b", "delay_ms": 5, "bandwidth_mbps": 1, "queue_packets": 50}],
           "flows": [{"id": "call", "src": "a", "dst": "b", "kind": "voice", "voice": {"codec": "g711"}},
                     {"id": "bulk", "src": "a", "dst": "b"}],
           "run": {"duration_s": 20, "interval_s": 1.0, "seed": 1}}
    path = tmp_path / "voice.json"
    path.write_text(json.dumps(doc))
    args = ["capacity", str(path), "--parameter", "links.ab.bandwidth_mbps", "--low", "0.5", "--high", "20",
            "--min-mos", "3.6", "--strategy", "sptcp", "--repetitions", "1", "--tolerance", "1"]
    out = runner.invoke(app, [*args, "--json"])
    assert out.exit_code == 0, out.output
    res = json.loads(out.stdout)
    assert res["status"] == "found" and res["min_mos"] == 3.6 and res["min_mean_mbps"] == 0.0
    assert 0.90 < res["value"] < 15.14
    for s in res["trace"]:
        call = next(f for f in s["flows"] if f["flow"] == "call")
        assert call["kind"] == "voice" and s["passed"] == (call["mos"] >= 3.6)
    table = runner.invoke(app, [*args, "--max-steps", "2"])
    assert table.exit_code == 0, table.output
    assert "MOS" in table.stdout
    # no target at all, or a voice target where there is no voice flow: refused before any run
    out = runner.invoke(app, ["capacity", str(path), "--parameter", "links.ab.bandwidth_mbps", "--low", "1",
                              "--high", "2"])
    assert out.exit_code == 2 and "at least one target" in out.output
    out = runner.invoke(app, ["capacity", UAV, "--parameter", "links.uav-ship.bandwidth_mbps", "--low", "1",
                              "--high", "2", "--min-mos", "3.6"])
    assert out.exit_code == 2 and "min_mos" in out.output
