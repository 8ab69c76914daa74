"""``subflow``: headless use of the Subflow library, no servers needed.

``subflow compare SCENARIO --strategies sptcp,mptcp [--engine fluid] [--seed N] [--json]``
runs the same code path as the service (:func:`subflow.comparison.compare.compare`) with
the engine in-process, and prints a summary table or the full version-1
result document. ``subflow satcom SCENARIO [--json]`` lists the satellites each ground
terminal uses and their delay (SATCOM from orbits).

Exit codes: 0 success, 2 bad input (file, scenario, strategy, engine).
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.table import Table

from subflow.comparison.compare import compare as run_compare
from subflow.errors import ScenarioInvalid, SubflowError
from subflow.results.document import ResultDocument
from subflow.runplan.strategies import STRATEGIES
from subflow.scenario.document import load_scenario, scenario_json_schema

from subflow_engines import all_engines, get_engine

from subflow_cli.output import error_lines, fail as _fail

app = typer.Typer(add_completion=False, help="Subflow: plan and compare transport strategies on mobile networks.")



def _read_scenario(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        _fail(f"{path}: no such file")
    except json.JSONDecodeError as exc:
        _fail(f"{path}: not valid JSON ({exc})")
    raise AssertionError  # unreachable


@app.command()
def compare(
    scenario: Annotated[Path, typer.Argument(help="Scenario JSON file.")],
    strategies: Annotated[str, typer.Option(help="Comma-separated strategy names.")] = "sptcp,mptcp",
    engine: Annotated[str, typer.Option(help="Engine to run on.")] = "fluid",
    seed: Annotated[Optional[int], typer.Option(help="Override run.seed of the scenario.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the full result document.")] = False,
    captures: Annotated[Optional[Path], typer.Option(
        help="Folder for the packet captures of the scenario's capture links (linux engine): "
             "<strategy>-<link>.pcap each; the printed document then holds only their descriptions.")] = None,
) -> None:
    """Run each strategy on SCENARIO and print per-flow throughput statistics."""
    doc = _read_scenario(scenario)
    if seed is not None and isinstance(doc, dict):
        doc.setdefault("run", {})["seed"] = seed
    names = [s.strip() for s in strategies.split(",") if s.strip()]
    try:
        info = get_engine(engine)
        result = run_compare(doc, names, runner=lambda plan: info.run(plan), engine=engine)
    except ScenarioInvalid as exc:
        lines = error_lines(exc.errors)
        _fail(f"{scenario}: invalid scenario\n{lines}")
    except (SubflowError, ValueError) as exc:
        _fail(str(exc))
    if captures is not None:
        for path in write_captures(result, captures):
            sys.stderr.write(f"wrote {path}\n")
    if as_json:
        sys.stdout.write(result.model_dump_json())
        sys.stdout.write("\n")
        return
    table = Table(title=f"{result.scenario.name} — throughput (Mbit/s)")
    for col in ("strategy", "flow", "mean", "std", "min", "zero s", "longest zero s", "Jain"):
        table.add_column(col, justify="left" if col in ("strategy", "flow") else "right")
    for name, res in result.strategies.items():
        s = res.summary
        for f in s.flows:
            table.add_row(
                name, f.id, f"{f.mean_mbps:.3f}", f"{f.std_mbps:.3f}", f"{f.min_mbps:.3f}",
                f"{f.zero_s:g}", f"{f.longest_zero_s:g}", "",
            )
        table.add_row(
            name, "all flows", f"{s.mean_mbps:.3f}", f"{s.std_mbps:.3f}", f"{s.min_mbps:.3f}",
            f"{s.zero_s:g}", "", f"{s.jain_index:.3f}", end_section=True,
        )
    Console().print(table)


def write_captures(result: ResultDocument, folder: Path) -> list[Path]:
    """Write each strategy's packet captures to ``folder`` as ``<strategy>-<link>.pcap`` (ids and strategy
    names are letters, digits, ``_`` and ``-``) and drop their files from ``result`` (``data_b64`` null).
    Returns the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, res in result.strategies.items():
        for cap in res.captures:
            if cap.data_b64 is None:
                continue
            path = folder / f"{name}-{cap.link}.pcap"
            path.write_bytes(base64.b64decode(cap.data_b64))
            cap.data_b64 = None
            written.append(path)
    return written


def _parse_value(text: str):
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return None if text == "null" else text


@app.command()
def sweep(
    scenario: Annotated[Path, typer.Argument(help="Scenario JSON file.")],
    parameter: Annotated[Optional[str], typer.Option(help="Dotted path, e.g. nodes.uav.range_m.")] = None,
    values: Annotated[Optional[str], typer.Option(help="Comma-separated values of the parameter.")] = None,
    parameter_y: Annotated[Optional[str], typer.Option(help="Second dotted path: a 2-D grid sweep.")] = None,
    values_y: Annotated[Optional[str], typer.Option(help="Comma-separated values of the second parameter.")] = None,
    repetitions: Annotated[int, typer.Option(min=1, max=100, help="Seeds per point.")] = 1,
    strategies: Annotated[str, typer.Option(help="Comma-separated strategy names.")] = "sptcp,mptcp",
    engine: Annotated[str, typer.Option(help="Engine to run on.")] = "fluid",
    as_json: Annotated[bool, typer.Option("--json", help="Print the aggregate as JSON.")] = False,
) -> None:
    """Sweep one scenario parameter or a grid of two (and/or repeat with seeds); print mean throughput ± 95 % CI."""
    from subflow.comparison.sweeps import SweepSpec, aggregate, expand, unit_summary

    doc = _read_scenario(scenario)
    names = [s.strip() for s in strategies.split(",") if s.strip()]
    if (parameter is None) != (values is None) or (parameter_y is None) != (values_y is None):
        _fail("--parameter and --values (--parameter-y and --values-y) go together")
    if parameter_y is not None and parameter is None:
        _fail("--parameter-y needs --parameter")
    spec = None
    if parameter is not None:
        try:
            spec = SweepSpec(parameter=parameter, values=[_parse_value(v.strip()) for v in values.split(",")],
                             parameter_y=parameter_y,
                             values_y=[_parse_value(v.strip()) for v in values_y.split(",")] if values_y else None)
        except ValueError as exc:
            _fail(str(exc))
    try:
        info = get_engine(engine)
        units = expand(doc, spec, repetitions)
        summaries = [
            unit_summary(run_compare(u.scenario, names, runner=lambda plan: info.run(plan), engine=engine))
            for u in units
        ]
    except ScenarioInvalid as exc:
        lines = error_lines(exc.errors)
        _fail(f"{scenario}: invalid scenario or sweep\n{lines}")
    except (SubflowError, ValueError) as exc:
        _fail(str(exc))
    agg = aggregate(units, summaries, spec)
    if as_json:
        typer.echo(json.dumps(agg))
        return
    points = agg["sweep"]["points"] if spec else [{"value": "-", "strategies": agg["repetitions"]}]
    table = Table(title=f"mean throughput (Mbit/s) ± 95 % CI, {repetitions} run(s) per point")
    table.add_column(parameter or "point")
    if parameter_y:
        table.add_column(parameter_y)
    for name in names:
        table.add_column(name, justify="right")
    for p in points:
        table.add_row(str(p["value"]), *([str(p["value_y"])] if parameter_y else []), *(
            f"{p['strategies'][n]['mean_mbps']:.3f} ± {p['strategies'][n]['ci95_mbps']:.3f}" for n in names
        ))
    Console().print(table)


@app.command()
def validate(scenario: Annotated[Path, typer.Argument(help="Scenario JSON file.")]) -> None:
    """Check SCENARIO against the schema and its cross-references."""
    doc = _read_scenario(scenario)
    try:
        s = load_scenario(doc)
    except ScenarioInvalid as exc:
        lines = error_lines(exc.errors)
        _fail(f"{scenario}: invalid scenario\n{lines}")
    typer.echo(f"{scenario}: valid ({len(s.nodes)} nodes, {len(s.links)} links, {len(s.flows)} flows)")


@app.command()
def satcom(
    scenario: Annotated[Path, typer.Argument(help="Scenario JSON file (geographic, satellites with an ephemeris).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the uses as JSON (POST /api/timeline satcom).")] = False,
    isl: Annotated[bool, typer.Option("--isl", help="Only the inter-satellite links (with --json: as POST "
                                                    "/api/timeline isl).")] = False,
) -> None:
    """Which satellite each ground terminal of SCENARIO uses when, and the link's one-way delay; when each
    inter-satellite link is visible, its range and delay (docs/satcom.md)."""
    from subflow.space.satcom import isl_states, satcom_timeline, satcom_uses

    doc = _read_scenario(scenario)
    try:
        sc = load_scenario(doc)
    except ScenarioInvalid as exc:
        lines = error_lines(exc.errors)
        _fail(f"{scenario}: invalid scenario\n{lines}")
    timeline = satcom_timeline(sc)
    uses = [] if isl else satcom_uses(sc, timeline)
    states = isl_states(sc, timeline)
    if as_json:
        rows = states if isl else uses
        typer.echo(json.dumps([r.model_dump(mode="json") for r in rows], indent=1))
        return
    if not isl:
        table = Table(title=f"SATCOM uses of {scenario.name}")
        for col in ("terminal", "satellite", "from s", "to s", "delay ms (start → end, min–max)"):
            table.add_column(col)
        for u in uses:
            ds = [d for _, d in u.delay_ms]
            table.add_row(u.terminal, u.satellite, f"{u.t_start_s:.1f}", f"{u.t_end_s:.1f}",
                          f"{ds[0]:.2f} → {ds[-1]:.2f} ({min(ds):.2f}–{max(ds):.2f})")
        Console().print(table)
    if states or isl:
        Console().print(_isl_table(scenario.name, states))


def _isl_table(name: str, states) -> Table:
    """The inter-satellite links' intervals (:func:`subflow.space.satcom.isl_states`) as a table."""
    table = Table(title=f"Inter-satellite links of {name}")
    for col in ("link", "satellites", "from s", "to s", "visible", "range_km (start → end)",
                "delay_ms (start → end)"):
        table.add_column(col)
    for st in states:
        rs, ds = [r for _, r in st.range_km], [d for _, d in st.delay_ms]
        table.add_row(st.link, f"{st.satellite_a} – {st.satellite_b}", f"{st.t_start_s:.1f}", f"{st.t_end_s:.1f}",
                      "yes" if st.visible else "no", f"{rs[0]:.1f} → {rs[-1]:.1f}", f"{ds[0]:.3f} → {ds[-1]:.3f}")
    return table


@app.command()
def schema() -> None:
    """Print the JSON Schema of a scenario document."""
    typer.echo(json.dumps(scenario_json_schema(), indent=2))


@app.command()
def strategies() -> None:
    """List the transport strategies and engines."""
    for s in STRATEGIES.values():
        typer.echo(f"{s.name:8} {s.description}")
    for e in all_engines().values():
        state = "available" if e.available else "not available on this host"
        typer.echo(f"engine {e.name} ({state}): {e.description}")


# `subflow routes`, `subflow allocate`, `subflow import` (the planning core)
from subflow_cli.planning import planning_app  # noqa: E402

app.registered_commands += planning_app.registered_commands

# `subflow failures`, `subflow capacity`: what-if failures, capacity planning
from subflow_cli.analysis import analysis_app  # noqa: E402

app.registered_commands += analysis_app.registered_commands

# `subflow formats`, `subflow export`: CORE, ns-2, containerlab, GraphML, Mininet-WiFi
from subflow_cli.formats import formats_app  # noqa: E402

app.registered_commands += formats_app.registered_commands

# `subflow track import|export`: GPX, AIS, NMEA tracks
from subflow_cli.tracks import track_app  # noqa: E402

app.add_typer(track_app, name="track")

if __name__ == "__main__":  # pragma: no cover
    app()
