"""``subflow track import|export``: GPX / AIS / NMEA tracks in and GPX out, on scenario files.

``subflow track import TRACK --scenario S.json --node ID --format gpx|ais-csv|nmea [--mmsi N] [-o OUT.json]``
makes node ID follow the track (a ``waypoints`` mobility resampled onto the run's clock,
:mod:`subflow.io.tracks`) and writes the scenario to OUT (default: S.json, replaced only once the
new document is valid). ``subflow track export S.json --node ID [-o FILE.gpx]`` writes the node's
planned trajectory as GPX 1.1 (stdout by default). Exit code 2 on bad input, naming the line or field.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Annotated, NoReturn, Optional

import typer

from subflow.errors import ScenarioInvalid, SubflowError
from subflow.io.tracks import FORMATS, apply_track, check_size, read_track, write_gpx
from subflow.scenario.document import load_scenario
from subflow.service.limits import Limits
from subflow.space.mobility import node_geo_track
from subflow_cli.output import error_lines, fail as _fail, read_json

track_app = typer.Typer(add_completion=False, help="Import GPX/AIS/NMEA tracks as node motion; export GPX.")



def _invalid(path: Path, exc: ScenarioInvalid) -> NoReturn:
    lines = error_lines(exc.errors)
    _fail(f"{path}: invalid scenario\n{lines}")


def _write_atomically(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent or Path("."), prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@track_app.command("import")
def import_track(
    track: Annotated[Path, typer.Argument(help="GPX, AIS CSV (MMSI,time,lat,lon,SOG,COG) or NMEA AIVDM file.")],
    scenario: Annotated[Path, typer.Option(help="Scenario JSON file (geographic).")],
    node: Annotated[str, typer.Option(help="Id of the node that follows the track.")],
    fmt: Annotated[str, typer.Option("--format", help=f"One of {', '.join(FORMATS)}.")],
    mmsi: Annotated[Optional[str], typer.Option(help="Vessel of an AIS file holding several.")] = None,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Where to write (default: SCENARIO).")] = None,
) -> None:
    """Make NODE follow TRACK: waypoints relative to the first fix, sampled every run.interval_s."""
    doc = read_json(scenario)
    try:
        size = track.stat().st_size
        check_size(size, Limits().max_track_bytes)
        data = track.read_bytes()
    except OSError as exc:
        _fail(f"{track}: {exc.strerror or exc}")
    except SubflowError as exc:
        _fail(f"{track}: {exc}")
    try:
        fixes = read_track(data, fmt, mmsi)
        new = apply_track(doc, node, fixes)
    except ScenarioInvalid as exc:
        _invalid(scenario, exc)
    except SubflowError as exc:
        _fail(f"{track}: {exc}")
    out = output or scenario
    _write_atomically(out, json.dumps(new, indent=1) + "\n")
    pts = new["nodes"][[n["id"] for n in new["nodes"]].index(node)]["mobility"]["points"]
    typer.echo(f"{out}: node {node} follows {len(fixes)} fixes as {len(pts)} waypoints "
               f"(0 … {pts[-1]['t_s']:g} s)")


@track_app.command("export")
def export_track(
    scenario: Annotated[Path, typer.Argument(help="Scenario JSON file (geographic).")],
    node: Annotated[str, typer.Option(help="Node id.")],
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="GPX file (default: stdout).")] = None,
) -> None:
    """Write NODE's planned trajectory as GPX 1.1 (times from 1970-01-01T00:00:00Z = run start)."""
    doc = read_json(scenario)
    try:
        sc = load_scenario(doc)
        corners = node_geo_track(sc, node)
    except ScenarioInvalid as exc:
        _invalid(scenario, exc)
    except KeyError:
        _fail(f"{scenario}: no node {node!r}")
    except ValueError as exc:
        _fail(f"{scenario}: {exc}")
    text = write_gpx(node, corners)
    if output is None:
        typer.echo(text, nl=False)
    else:
        output.write_text(text)
        typer.echo(f"{output}: {len(corners)} track points")
