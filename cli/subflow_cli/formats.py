"""``subflow formats`` and ``subflow export``: the file formats of :mod:`subflow.io.formats`.

``subflow formats [--json]``
    Every format with its directions (import, export), extension and media type.

``subflow export SCENARIO.json --format core-xml|containerlab|graphml|ns2|mininet-wifi|json [-o FILE] [--strategy S]``
    Write the scenario in an export format (standard output without ``-o``). What the format cannot carry
    is refused naming the field (exit code 2), or, for ``containerlab``, listed in the file's comments.
    Remote (``subflow --server URL export ID …``): the stored scenario, by ``GET /api/scenarios/{id}/export``.

``subflow import FILE -o scenario.json [--format F]`` (in :mod:`subflow_cli.planning`) reads every import format.

Register in ``main.py`` with ``app.registered_commands += formats_app.registered_commands``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.table import Table

from subflow.errors import ScenarioInvalid, SubflowError
from subflow.io.formats import all_formats, export_scenario, names
from subflow.runplan.strategies import get_strategy
from subflow_cli import remote
from subflow_cli.output import error_lines, fail as _fail, read_json, remote_errors

formats_app = typer.Typer(add_completion=False, help="File formats in and out.")


@formats_app.command("formats")
def formats_(
    as_json: Annotated[bool, typer.Option("--json", help="Print the list as JSON.")] = False,
) -> None:
    """List the file formats Subflow imports and exports."""
    infos = all_formats()
    if as_json:
        typer.echo(json.dumps([f.model_dump() for f in infos], indent=1))
        return
    table = Table("format", "import", "export", "extension", "media type", "title")
    for f in infos:
        table.add_row(f.name, "yes" if "import" in f.directions else "", "yes" if "export" in f.directions else "",
                      f.extension, f.media_type, f.title)
    Console(width=160).print(table)


@formats_app.command("export")
def export(
    ctx: typer.Context,
    scenario: Annotated[Path, typer.Argument(help="Scenario JSON file (remote: a stored scenario's id or name).")],
    format: Annotated[str, typer.Option("--format", "-f", help=" | ".join(names("export")) + ".")] = "json",
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="File to write (default: stdout).")] = None,
    strategy: Annotated[str, typer.Option(help="Transport strategy of a mininet-wifi script.")] = "sptcp",
) -> None:
    """Write SCENARIO in another tool's format."""
    client = remote.client_for(ctx)
    if client is not None:
        with remote_errors():
            text = client.call("GET", "/api/scenarios/{scenario_id}/export",
                               path_params={"scenario_id": client.scenario_id(str(scenario))},
                               query={"format": format,
                                      "strategy": strategy if format == "mininet-wifi" else None}).text
        _write(text, output, format)
        return
    if format not in names("export"):
        _fail(f"unknown export format {format!r}; known: {', '.join(names('export'))}")
    doc = read_json(scenario)
    try:
        if format == "mininet-wifi":
            get_strategy(strategy)
        text = export_scenario(doc, format, strategy)
    except ScenarioInvalid as exc:
        _fail(f"{scenario}: invalid scenario\n{error_lines(exc.errors)}")
    except (SubflowError, ValueError) as exc:
        _fail(f"{scenario}: {exc}")
    _write(text, output, format)


def _write(text: str, output: Path | None, format: str) -> None:
    if output is None:
        typer.echo(text, nl=not text.endswith("\n"))
    else:
        output.write_text(text)
        typer.echo(f"{output}: {format}, {len(text)} characters", err=True)
