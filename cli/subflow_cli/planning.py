"""Planning commands of ``subflow``: routes, allocation and topology import.

``subflow routes FILE --metric hop|delay|loss|tcpbp|tcpbp-greedy [--k K] [--pairs all|A:B,...] [--json]``
    Best route(s) per node pair. ``--json`` prints
    ``{"metric", "cost_unit", "routes": [{"src", "dst", "reachable",
    "paths": [{"nodes", "hops", "delay_ms", "loss", "cost"}]}], "greedy_differs": [...]}``
    with paths best first; ``delay_ms`` is the one-way delay (ms), ``loss`` the
    composed one-way loss, ``cost`` the metric's cost (hops, ms, probability,
    or f = d·√p in ms). ``greedy_differs`` (``tcpbp``/``tcpbp-greedy``) lists
    ``{"src", "dst", "exact_cost", "greedy_cost", "exact_nodes", "greedy_nodes"}``
    for the pairs where the thesis's Algorithm 1 misses the optimum.

``subflow allocate FILE --method fdm [--demand-scale F] [--json]``
    Flow Deviation allocation of the file's demands (scenario flows with a
    ``rate_mbps``, or SNDlib demands). ``--json`` prints ``{"method", "gamma"
    (total offered traffic, Mbit/s), "sum_flow_over_residual" (Σ f/(C−f)),
    "mean_delay_s", "tempered" (demand factor applied, 1 if none), "lambda_max",
    "relative_gap", "iterations", "moved_mbps", "moved_fraction",
    "links": [{"link", "src", "dst", "flow", "capacity", "utilization"}]
    (Mbit/s, per direction), "demands": [{"id", "src", "dst", "demand",
    "requested", "paths": [{"nodes", "rate"}]}]}`` (rates in Mbit/s).

``subflow import FILE -o scenario.json``
    Convert Topology Zoo / user GraphML or SNDlib native to a scenario.

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

from subflow.errors import ScenarioInvalid, SubflowError
from subflow.io.imports import import_scenario, load_network
from subflow.planning.fdm import allocate_fdm
from subflow.planning.shortest_paths import ROUTING_METRICS, Routes, parse_pairs, route_report
from subflow_cli.output import error_lines, fail as _fail

planning_app = typer.Typer(add_completion=False, help="Routes, bandwidth allocation and topology import.")

METHODS = ("fdm",)



def _explain(file: Path, exc: Exception) -> NoReturn:
    if isinstance(exc, ScenarioInvalid):
        lines = error_lines(exc.errors)
        _fail(f"{file}: invalid scenario\n{lines}")
    _fail(f"{file}: {exc}")


def _read_network(file: Path):
    try:
        return load_network(file)
    except (SubflowError, ValueError) as exc:
        _explain(file, exc)


def _path_text(nodes: list[str], limit: int = 12) -> str:
    if len(nodes) <= limit:
        return " → ".join(nodes)
    return " → ".join(nodes[: limit // 2]) + " → … → " + " → ".join(nodes[-limit // 2 :])


@planning_app.command()
def routes(
    file: Annotated[Path, typer.Argument(help="Scenario JSON, GraphML or SNDlib native file.")],
    metric: Annotated[str, typer.Option(help=" | ".join(ROUTING_METRICS) + ".")] = "tcpbp",
    k: Annotated[int, typer.Option("--k", help="Paths per pair (Yen's k shortest), best first.")] = 1,
    pairs: Annotated[str, typer.Option(help="'all' (every ordered pair) or SRC:DST,SRC:DST.")] = "all",
    summary: Annotated[int | None, typer.Option(help="Summary: count the best routes crossing each link and keep "
                                                     "only the N costliest routes (k = 1).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the JSON document.")] = False,
) -> None:
    """Best routes of FILE's node pairs under a metric."""
    if metric not in ROUTING_METRICS:
        _fail(f"unknown metric {metric!r}; choose one of {', '.join(ROUTING_METRICS)}")
    if k < 1:
        _fail("--k must be at least 1")
    net = _read_network(file)
    try:
        if summary is not None and summary < 1:
            raise ValueError("--summary must be at least 1")
        doc = route_report(net, metric, k, parse_pairs(pairs, net), summary_limit=summary)
    except (SubflowError, ValueError) as exc:
        _fail(str(exc))
    if as_json:
        json.dump(doc, sys.stdout)
        sys.stdout.write("\n")
        return
    result = Routes.model_validate(doc)
    table = Table(title=f"{net.name or file.name} — {metric} routes (cost in {result.cost_unit})")
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
    if metric in ("tcpbp", "tcpbp-greedy"):
        console.print(f"tcpbp-greedy (thesis Algorithm 1) misses the exact optimum on {len(result.greedy_differs)} pair(s)")
        for g in result.greedy_differs[:20]:
            console.print(
                f"  {g.src} → {g.dst}: exact {g.exact_cost:.6g} via {_path_text(g.exact_nodes)}; "
                f"greedy {g.greedy_cost:.6g} via {_path_text(g.greedy_nodes)}"
            )


@planning_app.command()
def allocate(
    file: Annotated[Path, typer.Argument(help="Scenario JSON or SNDlib native file with demands.")],
    method: Annotated[str, typer.Option(help="Allocation method: fdm.")] = "fdm",
    demand_scale: Annotated[float, typer.Option(help="Multiply every demand by F before allocating.")] = 1.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the JSON document.")] = False,
) -> None:
    """Minimum-delay bandwidth allocation of FILE's demands."""
    if method not in METHODS:
        _fail(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    if not demand_scale > 0:
        _fail("--demand-scale must be > 0")
    net = _read_network(file)
    if not net.demands:
        _fail(f"{file}: no demands to allocate (scenario flows need a rate_mbps; SNDlib needs DEMANDS)")
    try:
        result = allocate_fdm(net, demand_scale=demand_scale)
    except (SubflowError, ValueError) as exc:
        _fail(str(exc))
    if as_json:
        json.dump(result.model_dump(mode="json"), sys.stdout)
        sys.stdout.write("\n")
        return
    console = Console()
    console.print(
        f"[bold]{net.name or file.name}[/bold] — FDM: γ = {result.gamma:.6g} Mbit/s, "
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
    file: Annotated[Path, typer.Argument(help="GraphML (Topology Zoo or own) or SNDlib native file.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Scenario JSON to write.")],
    name: Annotated[Optional[str], typer.Option(help="Scenario name (default: the network's).")] = None,
) -> None:
    """Convert FILE into a scenario document."""
    try:
        data = file.read_bytes()
    except OSError as exc:
        _fail(f"{file}: {exc.strerror or exc}")
    try:
        result = import_scenario(data, str(file), name)
    except (SubflowError, ValueError) as exc:
        _explain(file, exc)
    output.write_text(json.dumps(result.scenario.model_dump(mode="json"), indent=1) + "\n")
    sc = result.scenario
    typer.echo(f"{output}: {len(sc.nodes)} nodes, {len(sc.links)} links, {len(sc.flows)} flows ({result.format})")
    for note in result.notes:
        typer.echo(f"  note: {note}")
