"""``subflow``: headless use of the Subflow library, no servers needed (or, with ``--server``, a client of a
running service).

``subflow compare SCENARIO --strategies sptcp,mptcp [--engine fluid] [--seed N] [--json]``
runs the same code path as the service (:func:`subflow.comparison.compare.compare`) with
the engine in-process, and prints a summary table or the full version-1
result document. ``subflow satcom SCENARIO [--json]`` lists the satellites each ground
terminal uses and their delay (SATCOM from orbits).

Remote mode: ``subflow --server URL COMMAND`` (or ``SUBFLOW_SERVER``, ``SUBFLOW_TOKEN``, the config file of
:mod:`subflow_cli.remote`) runs ``list``, ``get``, ``put``, ``versions``, ``compare``, ``sweep``, ``routes``,
``allocate``, ``failures``, ``capacity``, ``export`` and ``import`` against a running service, on its stored
scenarios (SCENARIO is then a stored scenario's id or name), with the same output; ``--local`` ignores the
server settings. The other commands always run in-process.

Exit codes: 0 success, 2 bad input (file, scenario, strategy, engine); remote mode adds 1, 3 and 4
(:mod:`subflow_cli.output`).
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
from subflow.comparison.sweeps import SweepSpec, aggregate, expand, unit_summary
from subflow.errors import ScenarioInvalid, SubflowError
from subflow.results.document import ResultDocument
from subflow.results.quality import flow_quality
from subflow.runplan.strategies import STRATEGIES
from subflow.scenario.document import load_scenario, scenario_json_schema

from subflow_engines import all_engines, get_engine

from subflow_cli import remote
from subflow_cli.output import error_lines, fail as _fail, read_json, remote_errors

app = typer.Typer(add_completion=False, help="Subflow: plan and compare transport strategies on mobile networks.")


@app.callback()
def main(
    ctx: typer.Context,
    server: Annotated[Optional[str], typer.Option(
        help="Run the command against this Subflow service (http(s)://HOST[:PORT]); default: SUBFLOW_SERVER, "
             "else server in ~/.config/subflow/config.toml (mode 600); the token: SUBFLOW_TOKEN, else token "
             "in that file.")] = None,
    local: Annotated[bool, typer.Option("--local", help="Run in-process even if a server is set.")] = False,
) -> None:
    """Subflow: plan and compare transport strategies on mobile networks, in-process or on a service."""
    ctx.obj = {"server": server, "local": local}



@app.command()
def compare(
    ctx: typer.Context,
    scenario: Annotated[Path, typer.Argument(help="Scenario JSON file (remote: a stored scenario's id or name).")],
    strategies: Annotated[str, typer.Option(help="Comma-separated strategy names.")] = "sptcp,mptcp",
    engine: Annotated[str, typer.Option(help="Engine to run on.")] = "fluid",
    seed: Annotated[Optional[int], typer.Option(help="Override run.seed of the scenario.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the full result document.")] = False,
    captures: Annotated[Optional[Path], typer.Option(
        help="Folder for the packet captures of the scenario's capture links (linux engine): "
             "<strategy>-<link>.pcap each; the printed document then holds only their descriptions.")] = None,
) -> None:
    """Run each strategy on SCENARIO and print per-flow throughput statistics (udp, voice and video flows: also
    their delay, jitter, loss and MOS)."""
    names = [s.strip() for s in strategies.split(",") if s.strip()]
    client = remote.client_for(ctx)
    if client is not None and captures is not None:
        _fail("--captures: the service stores a remote comparison's captures; download them from the comparison "
              "page or GET /api/scenarios/{id}/comparisons/{cid}/captures")
    if client is not None:
        with remote_errors():
            sid = client.scenario_id(str(scenario))
            done = remote.comparison(client, sid, {"strategies": names, "engine": engine, "seed": seed},
                                     show=not as_json)
        _print_result(ResultDocument.model_validate(done["result"]), as_json)
        return
    doc = read_json(scenario)
    if seed is not None and isinstance(doc, dict):
        doc.setdefault("run", {})["seed"] = seed
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
    _print_result(result, as_json)


def _print_result(result: ResultDocument, as_json: bool) -> None:
    """A comparison's result document: as JSON, or each strategy's per-flow summary as a table, and for the
    udp, voice and video flows their delay, jitter, loss and voice quality (:func:`_print_quality`)."""
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
    _print_quality(result)


def _num(v: float | None, fmt: str) -> str:
    return "—" if v is None else fmt.format(v)


def _print_quality(result: ResultDocument) -> None:
    """The flows that have quality series (udp, voice, video): mean and p95 delay (ms), mean jitter (ms), loss (%),
    mean and lowest MOS and, with a video flow, frames late and lost of those sent
    (:func:`subflow.results.quality.flow_quality`); nothing when every flow is tcp."""
    rows = [(name, f.id, q) for name, res in result.strategies.items() for f in res.flows
            if (q := flow_quality(f)) is not None]
    if not rows:
        return
    video = any(q.frames_sent is not None for _, _, q in rows)
    table = Table(title=f"{result.scenario.name} — delay, jitter, loss, voice quality")
    cols = ["strategy", "flow", "delay ms", "p95 delay ms", "jitter ms", "loss %", "MOS", "min MOS"]
    for col in cols + (["frames late", "frames lost"] if video else []):
        table.add_column(col, justify="left" if col in ("strategy", "flow") else "right")
    for name, flow, q in rows:
        cells = [name, flow, _num(q.mean_delay_ms, "{:.2f}"), _num(q.p95_delay_ms, "{:.2f}"),
                 _num(q.mean_jitter_ms, "{:.3f}"), _num(None if q.loss is None else 100 * q.loss, "{:.2f}"),
                 _num(q.mean_mos, "{:.2f}"), _num(q.min_mos, "{:.2f}")]
        if video:
            of = f" of {q.frames_sent}" if q.frames_sent is not None else ""
            cells += [_num(q.frames_late, "{}") + (of if q.frames_late is not None else ""),
                      _num(q.frames_lost, "{}") + (of if q.frames_lost is not None else "")]
        table.add_row(*cells)
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
    ctx: typer.Context,
    scenario: Annotated[Path, typer.Argument(help="Scenario JSON file (remote: a stored scenario's id or name).")],
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
    names = [s.strip() for s in strategies.split(",") if s.strip()]
    spec = _sweep_spec(parameter, values, parameter_y, values_y)
    client = remote.client_for(ctx)
    if client is not None:
        with remote_errors():
            sid = client.scenario_id(str(scenario))
            done = remote.comparison(client, sid, {
                "strategies": names, "engine": engine, "repetitions": repetitions,
                "sweep": spec.model_dump(mode="json", exclude_none=True) if spec else None}, show=not as_json)
        agg = _remote_aggregate(done["result"], spec)
    else:
        agg = _local_sweep(scenario, spec, repetitions, names, engine)
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


def _sweep_spec(parameter: str | None, values: str | None, parameter_y: str | None,
                values_y: str | None) -> SweepSpec | None:
    """The sweep of the options (None: repetitions only); exits (2) on options that do not go together."""
    if (parameter is None) != (values is None) or (parameter_y is None) != (values_y is None):
        _fail("--parameter and --values (--parameter-y and --values-y) go together")
    if parameter_y is not None and parameter is None:
        _fail("--parameter-y needs --parameter")
    if parameter is None or values is None:
        return None
    try:
        return SweepSpec(parameter=parameter, values=[_parse_value(v.strip()) for v in values.split(",")],
                         parameter_y=parameter_y,
                         values_y=[_parse_value(v.strip()) for v in values_y.split(",")] if values_y else None)
    except ValueError as exc:
        _fail(str(exc))


def _local_sweep(scenario: Path, spec: SweepSpec | None, repetitions: int, names: list[str],
                 engine: str) -> dict:
    """Every unit of the sweep run in-process, aggregated (:func:`subflow.comparison.sweeps.aggregate`)."""
    doc = read_json(scenario)
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
    return aggregate(units, summaries, spec)


def _remote_aggregate(result: dict, spec: SweepSpec | None) -> dict:
    """The ``sweep`` / ``repetitions`` part of a service's result document, shaped as the local aggregate (a
    1-D sweep without the ``*_y`` fields; one run without a sweep aggregated here, as the service stores
    none)."""
    if spec is not None:
        sweep = result["sweep"]
        if spec.parameter_y is None:
            sweep = {k: v for k, v in sweep.items() if k not in ("parameter_y", "values_y")}
            sweep["points"] = [{k: v for k, v in p.items() if k != "value_y"} for p in sweep["points"]]
        return {"sweep": sweep}
    if result.get("repetitions"):
        return {"repetitions": result["repetitions"]}
    units = expand(result["scenario"], None, 1)
    return aggregate(units, [unit_summary(ResultDocument.model_validate(result))], None)


@app.command()
def validate(scenario: Annotated[Path, typer.Argument(help="Scenario JSON file.")]) -> None:
    """Check SCENARIO against the schema and its cross-references."""
    doc = read_json(scenario)
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
    access: Annotated[bool, typer.Option("--access", help="Only the access report: each pass of a satellite over "
                                                          "a terminal, with MODCOD and capacity (with --json: as "
                                                          "POST /api/timeline?access=true access).")] = False,
) -> None:
    """Which satellite each ground terminal of SCENARIO uses when, and the link's one-way delay; when each
    inter-satellite link is visible, its range and delay; with --access, each satellite pass over each terminal
    (rise, set, highest elevation, MODCOD and capacity: docs/satcom.md)."""
    from subflow.space.access import access_report
    from subflow.space.satcom import isl_states, satcom_timeline, satcom_uses

    doc = read_json(scenario)
    try:
        sc = load_scenario(doc)
    except ScenarioInvalid as exc:
        lines = error_lines(exc.errors)
        _fail(f"{scenario}: invalid scenario\n{lines}")
    timeline = satcom_timeline(sc)
    if access:
        passes = access_report(sc, timeline)
        if as_json:
            typer.echo(json.dumps([p.model_dump(mode="json") for p in passes], indent=1))
        else:
            Console().print(_access_table(scenario.name, passes))
        return
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


def _access_table(name: str, passes) -> Table:
    """The access report (:func:`subflow.space.access.access_report`) as a table: one row per pass, the
    forward (down) MODCOD and capacity at the rise and at their lowest."""
    table = Table(title=f"Access report of {name}")
    for col in ("terminal", "satellite", "rise s", "set s", "max elev deg (at s)", "in use s",
                "down MODCOD (rise → lowest)", "down Mbit/s (rise, min–max)"):
        table.add_column(col)
    for p in passes:
        used = ", ".join(f"{a:.0f}–{b:.0f}" for a, b in p.in_use) or "—"
        modcod = capacity = "—"
        if p.steps:
            low = min(p.steps, key=lambda s: s.down_capacity_mbps)
            rates = [s.down_capacity_mbps for s in p.steps]
            modcod = f"{p.steps[0].down_modcod or 'none'} → {low.down_modcod or 'none'}"
            capacity = f"{rates[0]:.2f} ({min(rates):.2f}–{max(rates):.2f})"
        table.add_row(p.terminal, p.satellite, f"{p.rise_s:.1f}", f"{p.set_s:.1f}",
                      f"{p.max_elevation_deg:.1f} ({p.t_max_elevation_s:.0f})", used, modcod, capacity)
    return table


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

# `subflow list`, `get`, `put`, `versions`: a service's stored scenarios (remote mode)
from subflow_cli.stored import stored_app  # noqa: E402

app.registered_commands += stored_app.registered_commands

# `subflow track import|export`: GPX, AIS, NMEA tracks
from subflow_cli.tracks import track_app  # noqa: E402

app.add_typer(track_app, name="track")

if __name__ == "__main__":  # pragma: no cover
    app()
