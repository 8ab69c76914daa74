"""`subflow track import|export` on files, and the naval-geo example."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from subflow.io.tracks import read_ais_csv, read_gpx
from subflow.radio.association import association_timeline
from subflow.scenario.document import load_scenario
from subflow.scenario.geodesy import geodesic_distance_m
from subflow_cli.main import app

from tests.conftest import EXAMPLES

runner = CliRunner()


def _base(tmp_path):
    doc = json.loads((EXAMPLES / "naval-geo.json").read_text())
    for n in doc["nodes"]:
        if n["id"] == "ship1":
            n["mobility"] = {"model": "static"}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    return path


def test_track_import_writes_waypoints_and_export_reads_back(tmp_path):
    path = _base(tmp_path)
    track = EXAMPLES / "tracks" / "ship1-ais.csv"
    out = runner.invoke(app, ["track", "import", str(track), "--scenario", str(path), "--node", "ship1",
                              "--format", "ais-csv"])
    assert out.exit_code == 0, out.output
    sc = load_scenario(json.loads(path.read_text()))
    fixes = read_ais_csv(track.read_text())
    pts = sc.node("ship1").mobility.points
    assert len(pts) == len(fixes) == 61  # 30 s cadence on a 1 s clock
    assert (pts[10].lat_deg, pts[10].lon_deg) == (fixes[10].lat_deg, fixes[10].lon_deg)
    gpx = tmp_path / "ship1.gpx"
    out = runner.invoke(app, ["track", "export", str(path), "--node", "ship1", "-o", str(gpx)])
    assert out.exit_code == 0, out.output
    back = read_gpx(gpx.read_text())
    # the exported corners are the planned path: the fixes, through the local frame and back
    assert len(back) == 61
    assert max(geodesic_distance_m(a.lat_deg, a.lon_deg, b.lat_deg, b.lon_deg) for a, b in zip(back, fixes)) < 0.01


def test_track_import_bad_input_names_the_line_and_keeps_the_file(tmp_path):
    path = _base(tmp_path)
    before = path.read_text()
    bad = tmp_path / "bad.csv"
    bad.write_text((EXAMPLES / "tracks" / "ship1-ais.csv").read_text().replace("51.083823", "95.0"))
    out = runner.invoke(app, ["track", "import", str(bad), "--scenario", str(path), "--node", "ship1",
                              "--format", "ais-csv"])
    assert out.exit_code == 2 and "line 3" in out.output and "lat_deg=95" in out.output
    assert path.read_text() == before


def test_naval_geo_example_loiter_and_tracks():
    doc = json.loads((EXAMPLES / "naval-geo.json").read_text())
    sc = load_scenario(doc)
    assert sc.is_geo and sc.node("uav").mobility.model == "loiter"
    tl = association_timeline(sc)
    # the UAV passes bring both ships in and out of range: several associations each
    per = {s: [a for a in tl.associations if a.station == s] for s in ("ship1", "ship2")}
    assert len(per["ship1"]) >= 2 and len(per["ship2"]) >= 2
    assert set(tl.trajectories) == {n.id for n in sc.nodes}
