"""``subflow formats``, ``subflow export`` and ``subflow import --format``: the registry's formats from the CLI."""

from __future__ import annotations

import json

import defusedxml.ElementTree as safe_et
import yaml
from typer.testing import CliRunner

from subflow_cli.main import app
from tests.conftest import EXAMPLES
from tests.unit.io.test_ns2_import import BONNMOTION_STYLE

runner = CliRunner()


def test_formats_lists_the_registry():
    out = runner.invoke(app, ["formats", "--json"])
    assert out.exit_code == 0, out.output
    by_name = {f["name"]: f for f in json.loads(out.stdout)}
    assert by_name["containerlab"]["directions"] == ["export"] and "core-xml" in by_name
    table = runner.invoke(app, ["formats"])
    assert table.exit_code == 0 and "containerlab" in table.stdout


def test_export_then_import_a_core_session(tmp_path):
    xml = tmp_path / "s.xml"
    out = runner.invoke(app, ["export", str(EXAMPLES / "hsln-10node.json"), "--format", "core-xml", "-o", str(xml)])
    assert out.exit_code == 0, out.output
    assert safe_et.fromstring(xml.read_bytes()).tag == "scenario"
    back = tmp_path / "back.json"
    out = runner.invoke(app, ["import", str(xml), "-o", str(back)])
    assert out.exit_code == 0, out.output
    assert "(core-xml)" in out.stdout
    doc = json.loads(back.read_text())
    assert len(doc["nodes"]) == 10 and len(doc["links"]) == 21


def test_export_to_stdout_and_refusals(tmp_path):
    out = runner.invoke(app, ["export", str(EXAMPLES / "hsln-10node.json"), "-f", "containerlab"])
    assert out.exit_code == 0 and yaml.safe_load(out.stdout)["topology"]["nodes"]
    out = runner.invoke(app, ["export", str(EXAMPLES / "naval-leo.json"), "-f", "core-xml"])
    assert out.exit_code == 2 and "ephemeris" in out.output
    out = runner.invoke(app, ["export", str(EXAMPLES / "naval-leo.json"), "-f", "pdf"])
    assert out.exit_code == 2 and "unknown export format" in out.output


def test_import_names_the_format(tmp_path):
    trace = tmp_path / "walk.txt"
    trace.write_text(BONNMOTION_STYLE)
    out = runner.invoke(app, ["import", str(trace), "-o", str(tmp_path / "w.json"), "--format", "ns2"])
    assert out.exit_code == 0, out.output
    out = runner.invoke(app, ["import", str(trace), "-o", str(tmp_path / "w.json"), "--format", "core-xml"])
    assert out.exit_code == 2 and "not readable XML" in out.output


def test_an_ns2_trace_moves_the_nodes_of_a_scenario(tmp_path):
    trace = tmp_path / "sta1.ns"
    trace.write_text('# node_(0) = sta1 (station)\n$node_(0) set X_ 5.0\n$node_(0) set Y_ 6.0\n'
                     '$ns_ at 2.0 "$node_(0) setdest 5.0 106.0 10.0"\n')
    out_file = tmp_path / "moved.json"
    out = runner.invoke(app, ["import", str(trace), "-o", str(out_file), "--onto",
                              str(EXAMPLES / "naval-direct-move.json")])
    assert out.exit_code == 0, out.output
    doc = json.loads(out_file.read_text())
    sta1 = next(n for n in doc["nodes"] if n["id"] == "sta1")
    assert [p["t_s"] for p in sta1["mobility"]["points"]] == [0.0, 2.0, 12.0]
    assert len(doc["links"]) == 4  # the rest of the scenario is kept
    out = runner.invoke(app, ["import", str(EXAMPLES / "hsln-10node.json"), "-o", str(out_file), "--onto",
                              str(EXAMPLES / "naval-direct-move.json")])
    assert out.exit_code == 2 and "--onto takes an ns-2" in out.output
