"""Planning commands of ``subflow``: routes, allocation and topology import.

``subflow routes FILE --metric hop|delay|loss|tcpbp|tcpbp-greedy [--k K] [--pairs all|A:B,...] [--at T] [--json]``
    Best route(s) per node pair; on a scenario, on its network at ``--at T`` s into the run or, by default,
    over the whole run window by window (:mod:`subflow.analysis.planning`; the JSON adds ``t_s``,
    ``duration_s`` and ``windows``). ``--json`` prints
    ``{"metric", "cost_unit", "routes": [{"src", "dst", "reachable",
    "paths": [{"nodes", "hops", "delay_ms", "loss", "cost"}]}], "greedy_differs": [...]}``
    with paths best first; ``delay_ms`` is the one-way delay (ms), ``loss`` the
    composed one-way loss, ``cost`` the metric's cost (hops, ms, probability,
    or f = d·√p in ms). ``greedy_differs`` (``tcpbp``/``tcpbp-greedy``) lists
    ``{"src", "dst", "exact_cost", "greedy_cost", "exact_nodes", "greedy_nodes"}``
    for the pairs where the thesis's Algorithm 1 misses the optimum.

``subflow allocate FILE --method fdm [--demand-scale F] [--at T] [--no-propagation] [--json]``
    Flow Deviation allocation of the file's demands (scenario flows with a
    ``rate_mbps`` live at the time, or SNDlib demands); a scenario's on its network at ``--at T`` or over
    the whole run (the JSON adds ``t_s``, ``duration_s``, ``include_propagation``, ``windows``). ``--json`` prints ``{"method", "gamma"
    (total offered traffic, Mbit/s), "sum_flow_over_residual" (Σ f/(C−f)),
    "mean_delay_s", "tempered" (demand factor applied, 1 if none), "lambda_max",
    "relative_gap", "iterations", "moved_mbps", "moved_fraction",
    "links": [{"link", "src", "dst", "flow", "capacity", "utilization"}]
    (Mbit/s, per direction), "demands": [{"id", "src", "dst", "demand",
    "requested", "paths": [{"nodes", "rate"}]}]}`` (rates in Mbit/s).

``subflow import FILE -o scenario.json [--format F] [--onto SCENARIO.json]``
    Convert Topology Zoo / user GraphML, SNDlib native, a CORE session XML or an ns-2 mobility trace to a
    scenario (any import format of :mod:`subflow.io.formats`; detected from the content without ``--format``);
    with ``--onto``, an ns-2 trace moves the nodes of that scenario instead (:func:`subflow.io.ns2.apply_ns2_mobility`).

FILE is a scenario JSON, a GraphML or an SNDlib native file (detected from the
content). Exit codes: 0 success, 2 bad input (file, link values, pairs).

Register in ``main.py`` with ``app.registered_commands += planning_app.registered_commands``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, NoReturn, Optional

import typer
from rich.console import Console
from rich.table import Table

from pydantic import ValidationError

from subflow.analysis.planning import AllocationRequest, RoutesRequest, allocation_document, routes_document
from subflow.errors import ImportFailed, ScenarioInvalid, SubflowError
from subflow.io.formats import detect, import_file, names as format_names
from subflow.io.imports import ImportResult, read_topology
from subflow.io.ns2 import apply_ns2_mobility
from subflow.planning.fdm import Allocation, allocate_fdm
from subflow.planning.network import Network
from subflow.planning.shortest_paths import ROUTING_METRICS, Routes, parse_pairs, route_report
from subflow.scenario.document import Scenario
from subflow_cli import remote
from subflow_cli.output import error_lines, fail as _fail, remote_errors

planning_app = typer.Typer(add_completion=False, help="Routes, bandwidth allocation and topology import.")

METHODS = ("fdm",)



def _explain(file: Path, exc: Exception) -> NoReturn:
    if isinstance(exc, ScenarioInvalid):
        lines = error_lines(exc.errors)
        _fail(f"{file}: invalid scenario\n{lines}")
    _fail(f"{file}: {exc}")


def _read(file: Path) -> tuple[Scenario | None, Network]:
    """The scenario in FILE (None for GraphML/SNDlib) and its network (a scenario's wired links, for node ids)."""
    try:
        try:
            data = file.read_bytes()
        except OSError as exc:
            raise ImportFailed(str(file), exc.strerror or str(exc)) from None
        topo = read_topology(data, str(file))
        if isinstance(topo, Scenario):
            return topo, Network.from_scenario(topo)
        return None, topo.network()
    except (SubflowError, ValueError) as exc:
        _explain(file, exc)


def _when(doc: dict) -> str:
    """Which time a routes or allocation document answers for."""
    if doc["t_s"] is not None:
        w = doc["windows"][0]
        return f"at t = {doc['t_s']:g} s (network fixed over {w['t_start_s']:g}–{w['t_end_s']:g} s of the run)"
    return f"at the run's start (t = 0 s of {doc['duration_s']:g} s; {len(doc['windows'])} window(s) over the run)"


def _path_text(nodes: list[str], limit: int = 12) -> str:
    if len(nodes) <= limit:
        return " → ".join(nodes)
    return " → ".join(nodes[: limit // 2]) + " → … → " + " → ".join(nodes[-limit // 2 :])


@planning_app.command()
def routes(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="Scenario JSON, GraphML or SNDlib native file (remote: a stored "
                                              "scenario's id or name).")],
    metric: Annotated[str, typer.Option(help=" | ".join(ROUTING_METRICS) + ".")] = "tcpbp",
    k: Annotated[int, typer.Option("--k", help="Paths per pair (Yen's k shortest), best first.")] = 1,
    pairs: Annotated[str, typer.Option(help="'all' (every ordered pair) or SRC:DST,SRC:DST.")] = "all",
    summary: Annotated[int | None, typer.Option(help="Summary: count the best routes crossing each link and keep "
                                                     "only the N costliest routes (k = 1).")] = None,
    at: Annotated[float | None, typer.Option("--at", help="Scenario files: the time, s into the run, whose network "
                                                          "to route on (default: the whole run, window by window).")
                  ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the JSON document.")] = False,
) -> None:
    """Best routes of FILE's node pairs under a metric (a scenario's: on its network over the run)."""
    if metric not in ROUTING_METRICS:
        _fail(f"unknown metric {metric!r}; choose one of {', '.join(ROUTING_METRICS)}")
    if k < 1:
        _fail("--k must be at least 1")
    client = remote.client_for(ctx)
    if client is not None:
        with remote_errors():
            chosen = None if pairs.strip() == "all" else [p.split(":", 1) for p in pairs.split(",") if p.strip()]
            doc = remote.analysis(client, "/api/scenarios/{scenario_id}/routes", client.scenario_id(str(file)),
                                  {"metric": metric, "k": k, "pairs": chosen, "summary_limit": summary, "t_s": at},
                                  "routes", show=not as_json)
        name, is_scenario = str(file), True
    else:
        doc, name, is_scenario = _local_routes(file, metric, k, pairs, summary, at)
    if as_json:
        json.dump(doc, sys.stdout)
        sys.stdout.write("\n")
        return
    _print_routes(doc, name, metric, is_scenario)


def _local_routes(file: Path, metric: str, k: int, pairs: str, summary: int | None,
                  at: float | None) -> tuple[dict, str, bool]:
    """The routes document of FILE computed in-process, its network's name, whether FILE is a scenario."""
    scenario, net = _read(file)
    if scenario is None and at is not None:
        _fail("--at needs a scenario file (GraphML and SNDlib networks do not change over time)")
    try:
        if summary is not None and summary < 1:
            raise ValueError("--summary must be at least 1")
        chosen = parse_pairs(pairs, net)
        if scenario is not None:
            doc = routes_document(scenario, RoutesRequest(metric=metric, k=k, pairs=chosen, summary_limit=summary,
                                                          t_s=at))
        else:
            doc = route_report(net, metric, k, chosen, summary_limit=summary)
    except ValidationError as exc:
        _fail("invalid request\n" + error_lines(exc.errors()))
    except ScenarioInvalid as exc:
        _fail("invalid request\n" + error_lines(exc.errors))
    except (SubflowError, ValueError) as exc:
        _fail(str(exc))
    return doc, net.name or file.name, scenario is not None


def _print_routes(doc: dict, name: str, metric: str, scenario: bool) -> None:
    """A routes document as a table, with the busiest links, the windows of the run and TCPBP's greedy misses."""
    result = Routes.model_validate(doc)
    when = f" {_when(doc)}" if scenario else ""
    table = Table(title=f"{name} — {metric} routes{when} (cost in {result.cost_unit})")
    for col in ("src", "dst", "#", "hops", "delay ms", "loss", "cost", "path"):
        table.add_column(col, justify="left" if col in ("src", "dst", "path") else "right")
    for r in result.routes:
        if not r.reachable:
            table.add_row(r.src, r.dst, "", "", "", "", "", "unreachable")
            continue
        for i, p in enumerate(r.paths, start=1):
            table.add_row(
                r.src if i == 1 else "", r.dst if i == 1 else "", str(i), str(p.hops), f"{p.delay_ms:.3f}",
                f"{p.loss:.5f}", f"{p.cost:.6g}", _path_text(p.nodes),
            )
    console = Console()
    console.print(table)
    if result.link_use is not None:
        console.print(f"{result.pairs_reachable} of {result.pairs_total} pairs reachable; the {len(result.routes)} "
                      "routes above are the costliest and the unreachable ones. Busiest links (best routes crossing):")
        for u in sorted(result.link_use, key=lambda u: -u.routes)[:10]:
            console.print(f"  {u.link}: {u.routes}")
    if scenario and len(doc["windows"]) > 1:
        _print_windows(console, doc["windows"])
    if metric in ("tcpbp", "tcpbp-greedy"):
        console.print(f"tcpbp-greedy (thesis Algorithm 1) misses the exact optimum on {len(result.greedy_differs)} pair(s)")
        for g in result.greedy_differs[:20]:
            console.print(
                f"  {g.src} → {g.dst}: exact {g.exact_cost:.6g} via {_path_text(g.exact_nodes)}; "
                f"greedy {g.greedy_cost:.6g} via {_path_text(g.greedy_nodes)}"
            )


def _print_windows(console: Console, windows: list[dict], limit: int = 40) -> None:
    """The best route of each pair over each window of the run, one line per (window, pair)."""
    console.print("Over the run (best route of each pair, window by window):")
    lines = [f"  {w['t_start_s']:9.3f}–{w['t_end_s']:9.3f} s  {r['src']} → {r['dst']}: "
             + (_path_text(r["paths"][0]["nodes"]) if r["reachable"] else "unreachable")
             for w in windows for r in w["routes"]]
    for line in lines[:limit]:
        console.print(line)
    if len(lines) > limit:
        console.print(f"  … {len(lines) - limit} more (use --json)")


@planning_app.command()
def allocate(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="Scenario JSON or SNDlib native file with demands (remote: a stored "
                                              "scenario's id or name).")],
    method: Annotated[str, typer.Option(help="Allocation method: fdm.")] = "fdm",
    demand_scale: Annotated[float, typer.Option(help="Multiply every demand by F before allocating.")] = 1.0,
    at: Annotated[float | None, typer.Option("--at", help="Scenario files: the time, s into the run (default: the "
                                                          "whole run, window by window).")] = None,
    propagation: Annotated[bool, typer.Option(help="Scenario files: add the paths' propagation delay to the delay "
                                                   "minimised (SATCOM included).")] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print the JSON document.")] = False,
) -> None:
    """Minimum-delay bandwidth allocation of FILE's demands (a scenario's: on its network over the run)."""
    if method not in METHODS:
        _fail(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    if not demand_scale > 0:
        _fail("--demand-scale must be > 0")
    client = remote.client_for(ctx)
    if client is not None:
        with remote_errors():
            doc = remote.analysis(client, "/api/scenarios/{scenario_id}/allocations", client.scenario_id(str(file)),
                                  {"method": method, "demand_scale": demand_scale, "t_s": at,
                                   "include_propagation": propagation}, "allocation", show=not as_json)
        name, is_scenario = str(file), True
    else:
        doc, name, is_scenario = _local_allocation(file, demand_scale, at, propagation)
    if as_json:
        json.dump(doc, sys.stdout)
        sys.stdout.write("\n")
        return
    _print_allocation(doc, name, is_scenario)


def _local_allocation(file: Path, demand_scale: float, at: float | None,
                      propagation: bool) -> tuple[dict, str, bool]:
    """The allocation document of FILE computed in-process, its network's name, whether FILE is a scenario."""
    scenario, net = _read(file)
    if scenario is None and at is not None:
        _fail("--at needs a scenario file (SNDlib networks do not change over time)")
    if not net.demands:
        _fail(f"{file}: no demands to allocate (scenario flows need a rate_mbps; SNDlib needs DEMANDS)")
    try:
        if scenario is not None:
            doc = allocation_document(scenario, AllocationRequest(demand_scale=demand_scale, t_s=at,
                                                                  include_propagation=propagation))
        else:
            doc = allocate_fdm(net, demand_scale=demand_scale).model_dump(mode="json")
    except ValidationError as exc:
        _fail("invalid request\n" + error_lines(exc.errors()))
    except ScenarioInvalid as exc:
        _fail("invalid request\n" + error_lines(exc.errors))
    except (SubflowError, ValueError) as exc:
        _fail(str(exc))
    return doc, net.name or file.name, scenario is not None


def _print_allocation(doc: dict, name: str, scenario: bool) -> None:
    """An allocation document: its figures, the busiest links and the demands' paths."""
    result = Allocation.model_validate(doc)
    console = Console()
    if scenario:
        console.print(f"{_when(doc)}; propagation delay {'included' if doc['include_propagation'] else 'left out'}")
    console.print(
        f"[bold]{name}[/bold] — FDM: γ = {result.gamma:.6g} Mbit/s, "
        f"Σ f/(C−f) = {result.sum_flow_over_residual:.6g}, T = {result.mean_delay_s * 1000:.6g} ms, "
        f"tempered × {result.tempered:.6g}, gap ≤ {result.relative_gap:.1e}, {result.iterations} iterations"
    )
    links = Table(title="busiest links (per direction)")
    for col in ("link", "src", "dst", "flow Mbit/s", "capacity Mbit/s", "utilization"):
        links.add_column(col, justify="left" if col in ("link", "src", "dst") else "right")
    for ll in sorted(result.links, key=lambda x: -x.utilization)[:15]:
        links.add_row(ll.link, ll.src, ll.dst, f"{ll.flow:.4g}", f"{ll.capacity:.4g}", f"{ll.utilization:.3f}")
    console.print(links)
    dem = Table(title="demands")
    for col in ("demand", "src", "dst", "Mbit/s", "paths (rate Mbit/s)"):
        dem.add_column(col, justify="right" if col == "Mbit/s" else "left")
    for d in result.demands[:30]:
        dem.add_row(
            d.id or "", d.src, d.dst, f"{d.demand:.4g}",
            "; ".join(f"{_path_text(p.nodes, 6)} ({p.rate:.3g})" for p in d.paths[:4]),
        )
    console.print(dem)
    if len(result.demands) > 30:
        console.print(f"… {len(result.demands) - 30} more demands (use --json)")


@planning_app.command("import")
def import_(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="GraphML (Topology Zoo or own), SNDlib native, CORE session XML, "
                                              "ns-2 mobility or scenario JSON file.")],
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Scenario JSON to write (remote: "
                                                                          "optional, the stored document).")] = None,
    name: Annotated[Optional[str], typer.Option(help="Scenario name (default: the network's).")] = None,
    format: Annotated[Optional[str], typer.Option("--format", "-f", help=" | ".join(format_names("import"))
                                                  + " (default: detected from the content).")] = None,
    onto: Annotated[Optional[Path], typer.Option(help="ns-2 trace only: a scenario JSON whose nodes the trace moves "
                                                      "(by the trace's node ids, else in the export's order).")] = None,
    project: Annotated[Optional[str], typer.Option(help="Remote: the project (id) to store the scenario in "
                                                        "(default: the first you may edit).")] = None,
) -> None:
    """Convert FILE into a scenario document (or, with --onto, move a scenario's nodes by an ns-2 trace);
    remote: store it on the service as a new scenario."""
    client = remote.client_for(ctx)
    if client is not None:
        if onto is not None:
            _fail("--onto runs in-process only (subflow --local import …)")
        _remote_import(client, file, output, name, format, project)
        return
    if output is None:
        _fail("--output (-o) is required: the scenario JSON to write")
    try:
        data = file.read_bytes()
    except OSError as exc:
        _fail(f"{file}: {exc.strerror or exc}")
    try:
        if onto is not None:
            if (format or detect(data, str(file))) != "ns2":
                _fail(f"{file}: --onto takes an ns-2 mobility trace")
            try:
                base = json.loads(onto.read_text())
            except (OSError, json.JSONDecodeError) as exc:
                _fail(f"{onto}: {getattr(exc, 'strerror', None) or exc}")
            moved = apply_ns2_mobility(base, data, str(file))
            result = ImportResult(scenario=moved if name is None else moved.model_copy(update={"name": name}),
                                  notes=[], format="ns2")
        else:
            result = import_file(data, str(file), name, format)
    except (SubflowError, ValueError) as exc:
        _explain(file, exc)
    output.write_text(json.dumps(result.scenario.model_dump(mode="json"), indent=1) + "\n")
    sc = result.scenario
    typer.echo(f"{output}: {len(sc.nodes)} nodes, {len(sc.links)} links, {len(sc.flows)} flows ({result.format})")
    for note in result.notes:
        typer.echo(f"  note: {note}")


def _remote_import(client: remote.Client, file: Path, output: Path | None, name: str | None, format: str | None,
                   project: str | None) -> None:
    """``POST /api/imports``: FILE stored as a new scenario; its id and size printed, its document written to
    ``output`` if given."""
    try:
        data = file.read_bytes()
    except OSError as exc:
        _fail(f"{file}: {exc.strerror or exc}")
    with remote_errors():
        stored = client.call("POST", "/api/imports", query={"project_id": project, "format": format},
                             files={"file": (file.name, data)}, data={"name": name} if name else None).json()
    sc = stored["scenario"]
    if output is not None:
        output.write_text(json.dumps(sc, indent=1) + "\n")
    typer.echo(f"{stored['id']} ({stored['name']}, project {stored['project_id']}, version {stored['version']}): "
               f"{len(sc['nodes'])} nodes, {len(sc.get('links', []))} links, {len(sc.get('flows', []))} flows")
