"""How every ``subflow`` command reports an error: one line (or a list of field errors) on stderr, exit code 2."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NoReturn

import typer


def fail(message: str) -> NoReturn:
    """Print ``error: <message>`` in red on stderr and exit with code 2 (bad input)."""
    typer.secho(f"error: {message}", err=True, fg=typer.colors.RED)
    raise typer.Exit(code=2)


def error_lines(errors: Iterable[Mapping[str, Any]]) -> str:
    """Field errors (``{"loc": [...], "msg": ...}``, as in :class:`subflow.errors.ScenarioInvalid` and
    pydantic's ``ValidationError.errors()``) as indented ``a.b.0: message`` lines."""
    return "\n".join(f"  {'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in errors)
