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
