"""Analysis commands of ``subflow``: failure analysis and capacity search.

``subflow failures FILE [--metric delay] [--links L1,L2] [--nodes] [--json]``
    Re-plan the scenario under every single link (and with ``--nodes`` every node) failure:
    routes and FDM allocation with the element removed, each flow's impact against the intact
    plan, worst first. ``--json`` prints :class:`subflow.analysis.failures.FailureReport`.

``subflow capacity FILE --parameter PATH --low A --high B --min-mean X [--max-zero Y]
[--strategy mptcp] [--repetitions N] [--tolerance T] [--max-steps S] [--json]``
    Smallest value of ``PATH`` (e.g. ``links.uav-ship.bandwidth_mbps``) in [A, B] at which every
    flow's mean ≥ X Mbit/s and time at zero ≤ Y s, by bisection with the in-process engine
    (:func:`subflow.analysis.capacity.capacity_search`). ``--json`` prints
    :class:`subflow.analysis.capacity.CapacityResult` (with the trace).

Exit codes: 0 success (``capacity``: also when nothing in range meets the target, reported as
``not_found``), 2 bad input.

Register in ``main.py`` with ``app.registered_commands += analysis_app.registered_commands``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, NoReturn, Optional

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.table import Table

from subflow.analysis.capacity import CapacityRequest, CapacityResult, capacity_search, check_request
from subflow.analysis.failures import FailureReport, FailureRequest, analyse_failures
from subflow.errors import ScenarioInvalid, SubflowError
from subflow_engines import get_engine

from subflow_cli import remote
from subflow_cli.output import error_lines, fail as _fail, read_json, remote_errors

analysis_app = typer.Typer(add_completion=False, help="Failure analysis and capacity planning.")



def _explain(file: Path, exc: Exception) -> NoReturn:
    if isinstance(exc, ScenarioInvalid):
        lines = error_lines(exc.errors)
        _fail(f"{file}: invalid request\n{lines}")
    if isinstance(exc, ValidationError):
        lines = error_lines(exc.errors())
        _fail(f"invalid options\n{lines}")
    _fail(f"{file}: {exc}")


def _num(x: float | None, fmt: str = "{:.2f}") -> str:
    return "—" if x is None else fmt.format(x)


@analysis_app.command()
def failures(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="Scenario JSON file (remote: a stored scenario's id or name).")],
    metric: Annotated[str, typer.Option(help="Routing metric: hop, delay, loss, tcpbp, tcpbp-greedy.")] = "delay",
    links: Annotated[Optional[str], typer.Option(help="Comma-separated link ids to fail (default: every link).")] = None,
    nodes: Annotated[bool, typer.Option("--nodes", help="Also fail every node.")] = False,
    k: Annotated[int, typer.Option("--k", help="Elements failing at once (1-3): every combination of k.")] = 1,
    shared_risk: Annotated[bool, typer.Option("--shared-risk", help="Also fail every SATCOM link at once, and each "
                                                                    "constellation's links.")] = False,
    at: Annotated[Optional[float], typer.Option("--at", help="The time analysed, s into the run (default: every "
                                                              "window of the run, each failure at its worst).")
                  ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Single link (and node) failures, re-planned on the run's network, worst first."""
    body = {"metric": metric, "links": links.split(",") if links else None, "nodes": nodes, "t_s": at, "k": k,
            "shared_risk": shared_risk}
    client = remote.client_for(ctx)
    if client is not None:
        with remote_errors():
            found = remote.analysis(client, "/api/scenarios/{scenario_id}/failures", client.scenario_id(str(file)),
                                    body, "failures", show=not as_json)
        report = FailureReport.model_validate(found)
    else:
        doc = read_json(file)
        try:
            report = analyse_failures(doc, FailureRequest(**body))
        except (SubflowError, ValueError) as exc:
            _explain(file, exc)
    if as_json:
        typer.echo(report.model_dump_json())
        return
    when = (f"at t = {report.t_s:g} s" if report.t_s is not None
            else f"over the run's {report.duration_s:g} s, each at its worst window")
    table = Table(title=f"{file.name}: failures {when}, worst first "
                        f"(intact: {report.intact_delivered_mbps:.2f} Mbit/s delivered at the start)")
    table.add_column("failure", no_wrap=True)
    for col in ("at s", "lost Mbit/s", "flows cut", "paths changed", "max +delay ms", "worst flow"):
        table.add_column(col)
    for c in report.cases:
        w = c.flows[0] if c.flows else None
        worst = (f"{w.flow}: {_num(w.delivered_mbps)} of {_num(w.intact_delivered_mbps)} Mbit/s"
                 + ("" if w.reachable else " (cut)")) if w else "—"
        table.add_row(f"{c.kind} {c.element}", f"{c.t_s:g}", f"{c.lost_mbps:.2f}", str(c.flows_cut), str(c.paths_changed),
                      _num(c.max_delay_change_ms, "{:+.1f}"), worst)
    Console().print(table)


@analysis_app.command()
def capacity(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="Scenario JSON file (remote: a stored scenario's id or name).")],
    parameter: Annotated[str, typer.Option(help="Dotted numeric field, e.g. links.uav-ship.bandwidth_mbps.")],
    low: Annotated[float, typer.Option(help="Lower end of the search range (the parameter's unit).")],
    high: Annotated[float, typer.Option(help="Upper end of the search range.")],
    min_mean: Annotated[Optional[float], typer.Option(help="Every tcp flow's mean throughput at least this, Mbit/s.")] = None,
    max_zero: Annotated[Optional[float], typer.Option(help="Every flow's time at zero at most this, s.")] = None,
    min_mos: Annotated[Optional[float], typer.Option(help="Every voice flow's MOS at least this in every interval (1-4.5).")] = None,
    max_delay: Annotated[Optional[float], typer.Option(help="Every udp/voice/video flow's one-way delay at most this in every interval, ms.")] = None,
    max_loss: Annotated[Optional[float], typer.Option(help="Every udp/voice/video flow's loss at most this in every interval (fraction).")] = None,
    allowed_fraction: Annotated[float, typer.Option(help="Fraction of the intervals that may miss --min-mos, --max-delay, --max-loss.")] = 0.0,
    strategy: Annotated[str, typer.Option(help="Strategy of the runs.")] = "mptcp",
    engine: Annotated[str, typer.Option(help="Engine to run on.")] = "fluid",
    repetitions: Annotated[int, typer.Option(min=1, max=50, help="Seeds per step.")] = 2,
    tolerance: Annotated[Optional[float], typer.Option(help="Stop when the bracket is narrower (default (high-low)/64).")] = None,
    max_steps: Annotated[int, typer.Option(min=2, max=40, help="Steps at most.")] = 12,
    window: Annotated[Optional[tuple[float, float]], typer.Option(
        help="Judge the target over this part of the run only: START END, seconds (default: the whole run).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result and trace as JSON.")] = False,
) -> None:
    """Smallest parameter value meeting a per-flow throughput / outage / voice quality target (bisection)."""
    body = {"parameter": parameter, "low": low, "high": high, "min_mean_mbps": min_mean, "max_zero_s": max_zero,
            "min_mos": min_mos, "max_delay_ms": max_delay, "max_loss": max_loss, "allowed_fraction": allowed_fraction,
            "strategy": strategy, "engine": engine, "repetitions": repetitions,
            "tolerance": tolerance if tolerance is not None else max((high - low) / 64, 1e-9),
            "max_steps": max_steps, "window_s": list(window) if window else None}
    client = remote.client_for(ctx)
    if client is not None:
        with remote_errors():
            found = remote.analysis(client, "/api/scenarios/{scenario_id}/capacity-searches",
                                    client.scenario_id(str(file)), body, "capacity search", show=not as_json)
        result = CapacityResult.model_validate(found)
    else:
        result = _local_capacity(file, body, as_json)
    if as_json:
        typer.echo(result.model_dump_json())
        return
    t0, t1 = result.window_s
    judged = f"each flow judged over {t0:g}-{t1:g} s of the run"
    table = Table(title=f"{parameter}: trace")
    for col in ("step", "value", "pass", *(f"{f.flow} mean / zero" + (" / MOS, delay, loss" if f.kind != "tcp" else "")
                                            for f in result.trace[0].flows)):
        table.add_column(col)
    for s in result.trace:
        table.add_row(str(s.step), f"{s.value:g}", "yes" if s.passed else "no", *(_capacity_cell(f) for f in s.flows))
    Console().print(table)
    if result.status == "not_found":
        typer.echo(f"not found: {parameter} = {high:g} (high) does not meet the target ({judged})")
    else:
        typer.echo(f"{result.status}: {parameter} = {result.value:g} ({result.runs} runs; {judged})")


def _capacity_cell(f) -> str:
    """One flow's figures at one step: mean and zero time; for udp, voice and video flows the judged interval
    MOS, delay (``silent``: an interval with nothing delivered) and loss."""
    cell = f"{f.mean_mbps:.3f} Mbit/s / {f.zero_s:.1f} s"
    if f.kind == "tcp":
        return cell
    delay = f"{f.delay_ms:.0f} ms" if f.delay_ms is not None else ("silent" if f.silent_intervals else "—")
    return cell + f" / {_num(f.mos, '{:.2f}')}, {delay}, {_num(f.loss, '{:.3f}')}"


def _local_capacity(file: Path, body: dict, as_json: bool) -> CapacityResult:
    """The capacity search of ``body`` (a :class:`CapacityRequest`) on FILE with the in-process engine, each
    step reported on stderr unless ``as_json``."""
    doc = read_json(file)
    try:
        request = CapacityRequest(**body)
        check_request(doc, request, max_sweep_units=10**6)
        info = get_engine(request.engine)

        def progress(step, done, bound):
            if not as_json:
                typer.echo(f"step {step.step}: {request.parameter} = {step.value:g} → "
                           f"{'pass' if step.passed else 'fail'} ({done}/{bound} runs)", err=True)

        return capacity_search(doc, request, runner=lambda plan: info.run(plan), on_step=progress)
    except (SubflowError, ValueError) as exc:
        _explain(file, exc)
