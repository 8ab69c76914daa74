"""The `subflow` command: same numbers as the library, clear errors."""

from __future__ import annotations

import base64
import json

import pytest
from typer.testing import CliRunner

from subflow.comparison.compare import compare
from subflow.results.document import PacketCapture
from subflow_cli.main import app, write_captures
from subflow_engines import run_plan

from tests.conftest import EXAMPLES

runner = CliRunner()
SCENARIO = str(EXAMPLES / "naval-direct-move.json")


def test_compare_json_is_the_library_result(naval_direct):
    out = runner.invoke(app, ["compare", SCENARIO, "--strategies", "sptcp,mptcp", "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    assert doc["version"] == 1 and list(doc["strategies"]) == ["sptcp", "mptcp"]
    assert doc == json.loads(compare(naval_direct, ["sptcp", "mptcp"], run_plan).model_dump_json())


def test_compare_table_prints_the_summary(naval_direct):
    out = runner.invoke(app, ["compare", SCENARIO, "--strategies", "sptcp,mptcp"])
    assert out.exit_code == 0, out.output
    doc = compare(naval_direct, ["sptcp", "mptcp"], run_plan).model_dump()
    jain = doc["strategies"]["sptcp"]["summary"]["jain_index"]
    mean_f1 = doc["strategies"]["mptcp"]["summary"]["flows"][0]["mean_mbps"]
    assert "naval-direct-move" in out.stdout
    assert f"{jain:.3f}" in out.stdout and f"{mean_f1:.3f}" in out.stdout


def test_seed_override_is_applied(tmp_path):
    doc = json.loads((EXAMPLES / "naval-direct-move.json").read_text())
    doc["links"][2]["loss"] = 0.01
    path = tmp_path / "lossy.json"
    path.write_text(json.dumps(doc))
    a = json.loads(runner.invoke(app, ["compare", str(path), "--strategies", "sptcp", "--seed", "1", "--json"]).stdout)
    b = json.loads(runner.invoke(app, ["compare", str(path), "--strategies", "sptcp", "--seed", "2", "--json"]).stdout)
    assert a["scenario"]["run"]["seed"] == 1 and b["scenario"]["run"]["seed"] == 2
    assert a["strategies"]["sptcp"]["flows"] != b["strategies"]["sptcp"]["flows"]


def test_bad_inputs_exit_2_with_the_reason(tmp_path):
    bad = json.loads((EXAMPLES / "naval-direct-move.json").read_text())
    bad["links"][0]["dst"] = "nowhere"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    out = runner.invoke(app, ["compare", str(path)])
    assert out.exit_code == 2 and "links.0.dst" in out.output and "unknown node" in out.output
    out = runner.invoke(app, ["compare", SCENARIO, "--strategies", "sptcp,carrier-pigeon"])
    assert out.exit_code == 2 and "carrier-pigeon" in out.output
    out = runner.invoke(app, ["compare", SCENARIO, "--engine", "warp"])
    assert out.exit_code == 2 and "warp" in out.output
    out = runner.invoke(app, ["compare", str(tmp_path / "missing.json")])
    assert out.exit_code == 2 and "no such file" in out.output


def test_satcom_lists_the_satellites_in_use_as_the_timeline_does(tmp_path):
    leo = str(EXAMPLES / "naval-leo.json")
    out = runner.invoke(app, ["satcom", leo, "--json"])
    assert out.exit_code == 0, out.output
    uses = json.loads(out.output)
    ship1 = sorted((u for u in uses if u["terminal"] == "ship1" and u["satellite"] != "geosat"),
                   key=lambda u: u["t_start_s"])
    assert len(ship1) >= 3 and all(b["t_start_s"] == a["t_end_s"] for a, b in zip(ship1, ship1[1:]))
    table = runner.invoke(app, ["satcom", leo])
    assert table.exit_code == 0 and ship1[1]["satellite"] in table.output
    doc = json.loads((EXAMPLES / "naval-leo.json").read_text())
    doc["satcom"]["elevation_mask_deg"] = 95
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    out = runner.invoke(app, ["satcom", str(bad)])
    assert out.exit_code == 2 and "satcom.elevation_mask_deg" in out.output


def test_satcom_lists_the_inter_satellite_links_with_range_delay_and_visibility():
    isl = str(EXAMPLES / "naval-leo-isl.json")
    out = runner.invoke(app, ["satcom", isl, "--json", "--isl"])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.output)
    assert [(r["link"], r["visible"], r["t_start_s"], r["t_end_s"]) for r in rows] == [("isl-ab", True, 0.0, 900.0)]
    assert 4160 < rows[0]["range_km"][0][1] < 4175
    assert rows[0]["delay_ms"][0][1] == pytest.approx(rows[0]["range_km"][0][1] / 299_792.458 * 1000, abs=2e-3)
    table = runner.invoke(app, ["satcom", isl])
    assert table.exit_code == 0 and "Inter-satellite links" in table.output and "isl-ab" in table.output
    assert "ship" in table.output  # the SATCOM uses too


def test_captures_are_written_as_files_and_dropped_from_the_document(naval_direct, tmp_path):
    """``subflow compare --captures DIR``: each strategy's capture file lands in DIR, the document keeps its
    description (a fluid result given a capture, as the linux engine hands one over)."""
    result = compare(naval_direct, ["sptcp"], runner=run_plan)
    data = bytes.fromhex("4d3cb2a1020004000000000000000000ffff000001000000")
    result.strategies["sptcp"].captures = [PacketCapture(link="l1", node="a", snaplen_bytes=256, size_bytes=24,
                                                         packets=0, truncated=False,
                                                         data_b64=base64.b64encode(data).decode())]
    assert write_captures(result, tmp_path / "caps") == [tmp_path / "caps" / "sptcp-l1.pcap"]
    assert (tmp_path / "caps" / "sptcp-l1.pcap").read_bytes() == data
    assert result.strategies["sptcp"].captures[0].data_b64 is None
    assert write_captures(result, tmp_path / "caps") == []


def test_satcom_access_reports_each_pass_with_its_rise_set_and_modcod():
    """naval-leo: every LEO pass over ship1 rises and sets within the run or at its ends, the satellite in use
    lies within a pass, and the table prints each pass; the JSON is the timeline's ``access``."""
    leo = str(EXAMPLES / "naval-leo.json")
    out = runner.invoke(app, ["satcom", leo, "--access", "--json"])
    assert out.exit_code == 0, out.output
    passes = [p for p in json.loads(out.output) if p["terminal"] == "ship1"]
    leo_passes = [p for p in passes if p["satellite"] != "geosat"]
    assert len(leo_passes) >= 3
    for p in leo_passes:
        assert 0.0 <= p["rise_s"] < p["t_max_elevation_s"] + 1e-9 and p["t_max_elevation_s"] <= p["set_s"] <= 900.0
        assert p["max_elevation_deg"] >= 10.0  # the mask
        assert all(p["rise_s"] <= a < b <= p["set_s"] for a, b in p["in_use"])
    table = runner.invoke(app, ["satcom", leo, "--access"])
    assert table.exit_code == 0 and "Access report" in table.output
    assert all(f"{p['set_s']:.1f}" in table.output for p in leo_passes)
