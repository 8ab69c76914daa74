"""The service's stored scenarios (remote mode only: ``subflow --server URL …``).

``subflow list [--project P] [--json]``
    Your scenarios (``GET /api/scenarios``, every page): id, name, project, version, last update.

``subflow get SCENARIO [--version N] [--json] [-o FILE]``
    One stored scenario (``GET /api/scenarios/{id}``, or an earlier version: ``…/versions/{n}``); ``--json``
    prints the API's document (``ScenarioPublic``: the scenario with its ``version``), ``-o`` writes the
    scenario document alone (which every local command reads) and prints the version to send back.

``subflow put SCENARIO FILE [--if-match vN]``
    Replace the stored scenario by FILE (``PUT /api/scenarios/{id}`` with ``If-Match``), only if it is still at
    the version you edited: FILE is a scenario document with ``--if-match``, or the output of ``get --json``
    (its ``version`` is the If-Match). Someone saved meanwhile: 412, exit code 2, the current version named.

``subflow versions SCENARIO [--json]``
    The saved versions of a scenario (``GET /api/scenarios/{id}/versions``).

SCENARIO is a stored scenario's id, or its name if only one of yours has it.
Register in ``main.py`` with ``app.registered_commands += stored_app.registered_commands``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.table import Table

from subflow_cli import remote
from subflow_cli.output import fail as _fail, read_json, remote_errors

stored_app = typer.Typer(add_completion=False, help="Stored scenarios of a service.")

_SCENARIO = "/api/scenarios/{scenario_id}"


def _counts(doc: dict[str, Any]) -> str:
    return f"{len(doc.get('nodes', []))} nodes, {len(doc.get('links', []))} links, {len(doc.get('flows', []))} flows"


def if_match(text: str) -> str:
    """An ``If-Match`` value from ``3``, ``v3`` or ``"v3"`` (the ETag of version 3): ``"v3"``."""
    m = re.fullmatch(r'"?v?(\d+)"?', text.strip())
    if m is None:
        _fail(f"--if-match {text!r}: give the version edited, e.g. v3 (the ETag of `subflow get`)")
    return f'"v{int(m.group(1))}"'


@stored_app.command("list")
def list_(
    ctx: typer.Context,
    project: Annotated[Optional[str], typer.Option(help="Only this project's scenarios (its id).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print {data: [ScenarioSummary], count} as JSON.")] = False,
) -> None:
    """List your stored scenarios."""
    client = remote.needs_server(ctx, "list")
    with remote_errors():
        rows = client.list_scenarios(project)
    if as_json:
        typer.echo(json.dumps({"data": rows, "count": len(rows)}))
        return
    table = Table(title=f"scenarios on {client.config.server}")
    for col in ("id", "name", "project", "version", "updated"):
        table.add_column(col, justify="right" if col == "version" else "left")
    for r in rows:
        table.add_row(r["id"], r["name"], r["project_id"], str(r["version"]), r["updated_at"])
    Console(width=200).print(table)


@stored_app.command("get")
def get(
    ctx: typer.Context,
    scenario: Annotated[str, typer.Argument(help="Stored scenario: id or name.")],
    version: Annotated[Optional[int], typer.Option(help="An earlier saved version (subflow versions).")] = None,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write the scenario document here.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the API's document (scenario + version).")] = False,
) -> None:
    """Show or download a stored scenario."""
    client = remote.needs_server(ctx, "get")
    with remote_errors():
        sid = client.scenario_id(scenario)
        if version is None:
            r = client.call("GET", _SCENARIO, path_params={"scenario_id": sid})
        else:
            r = client.call("GET", _SCENARIO + "/versions/{version}",
                            path_params={"scenario_id": sid, "version": str(version)})
    body = r.json()
    doc = body["scenario"]
    number = body["version"]
    if output is not None:
        output.write_text(json.dumps(doc, indent=1) + "\n")
        typer.echo(f"{output}: {body['name']} version {number}; send it back with "
                   f"subflow put {sid} {output} --if-match v{number}", err=True)
    if as_json:
        typer.echo(json.dumps(body))
        return
    if output is not None:
        return
    table = Table(show_header=False, title=body["name"])
    rows = [("id", sid), ("project", body.get("project_id", "")), ("version", f"{number} (ETag \"v{number}\")"),
            ("description", body.get("description", "")), ("size", _counts(doc))]
    if version is None:
        rows += [("updated", f"{body['updated_at']} by {body.get('updated_by') or '—'}")]
    else:
        rows += [("saved", f"{body['saved_at']} by {body.get('saved_by') or '—'}")]
    for key, value in rows:
        table.add_row(key, str(value))
    Console().print(table)


@stored_app.command("put")
def put(
    ctx: typer.Context,
    scenario: Annotated[str, typer.Argument(help="Stored scenario: id or name.")],
    file: Annotated[Path, typer.Argument(help="Scenario JSON file, or the output of `subflow get --json`.")],
    if_match_: Annotated[Optional[str], typer.Option("--if-match", help="The version you edited (v3 or 3); default: "
                                                     "the version of a `get --json` FILE.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the API's document of the new version.")] = False,
) -> None:
    """Replace a stored scenario, only if nobody saved it since the version you edited (If-Match)."""
    client = remote.needs_server(ctx, "put")
    given = read_json(file)
    wrapped = isinstance(given, dict) and isinstance(given.get("scenario"), dict) and "version" in given
    doc = given["scenario"] if wrapped else given
    etag = if_match(if_match_) if if_match_ is not None else if_match(str(given["version"])) if wrapped else None
    if etag is None:
        _fail("--if-match is required with a plain scenario document: the version you edited (subflow get shows it)")
    with remote_errors():
        sid = client.scenario_id(scenario)
        body = client.call("PUT", _SCENARIO, path_params={"scenario_id": sid}, headers={"If-Match": etag},
                           json_body=doc).json()
    if as_json:
        typer.echo(json.dumps(body))
        return
    typer.echo(f"{sid} ({body['name']}): version {body['version']} saved (ETag \"v{body['version']}\"), "
               f"{_counts(body['scenario'])}")


@stored_app.command("versions")
def versions(
    ctx: typer.Context,
    scenario: Annotated[str, typer.Argument(help="Stored scenario: id or name.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print {data: [version], count} as JSON.")] = False,
) -> None:
    """List the saved versions of a stored scenario, newest first."""
    client = remote.needs_server(ctx, "versions")
    with remote_errors():
        sid = client.scenario_id(scenario)
        body = client.call("GET", _SCENARIO + "/versions", path_params={"scenario_id": sid}).json()
    if as_json:
        typer.echo(json.dumps(body))
        return
    table = Table(title=f"versions of {scenario}")
    for col in ("version", "saved", "by", "name", "current"):
        table.add_column(col, justify="right" if col == "version" else "left")
    for v in body["data"]:
        table.add_row(str(v["version"]), v["saved_at"], v.get("saved_by") or "—", v["name"],
                      "yes" if v["current"] else "")
    Console(width=160).print(table)
