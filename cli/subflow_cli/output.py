"""How every ``subflow`` command reports an error: one line (or a list of field errors) on stderr and an exit code.

Exit codes: 0 success; 1 the service could not be reached or failed (HTTP 5xx), or a remote comparison or job
failed or was cancelled; 2 bad input (a file, a scenario, an option; the service's 400, 404, 409, 412, 413,
422, 428; a config file refused); 3 not allowed (the service's 401, 403); 4 busy (the service's 429, after
``Retry-After`` seconds it may succeed).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import typer

from subflow.errors import RemoteCallFailed, RemoteConfigInvalid

EXIT_FAILED, EXIT_INPUT, EXIT_FORBIDDEN, EXIT_BUSY = 1, 2, 3, 4


def fail(message: str, code: int = EXIT_INPUT) -> NoReturn:
    """Print ``error: <message>`` in red on stderr and exit with ``code`` (default 2, bad input)."""
    typer.secho(f"error: {message}", err=True, fg=typer.colors.RED)
    raise typer.Exit(code=code)


def read_json(path: Path) -> Any:
    """The JSON document in file ``path``; a missing or unreadable file, or one that is not JSON, ends the command
    with exit code 2 naming the file and the reason."""
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        fail(f"{path}: no such file")
    except OSError as exc:
        fail(f"{path}: {exc.strerror or exc}")
    except json.JSONDecodeError as exc:
        fail(f"{path}: not valid JSON ({exc})")


def error_lines(errors: Iterable[Mapping[str, Any]]) -> str:
    """Field errors (``{"loc": [...], "msg": ...}``, as in :class:`subflow.errors.ScenarioInvalid` and
    pydantic's ``ValidationError.errors()``) as indented ``a.b.0: message`` lines."""
    return "\n".join(f"  {'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in errors)


def exit_code(exc: RemoteCallFailed | RemoteConfigInvalid) -> int:
    """The exit code of a remote error (see the module)."""
    if isinstance(exc, RemoteConfigInvalid):
        return EXIT_INPUT
    if exc.status is None or exc.status >= 500:
        return EXIT_FAILED
    if exc.status in (401, 403):
        return EXIT_FORBIDDEN
    if exc.status == 429:
        return EXIT_BUSY
    return EXIT_INPUT


def fail_remote(exc: RemoteCallFailed | RemoteConfigInvalid) -> NoReturn:
    """Report a remote error with its field errors (``body.links.0.dst: …``) and exit with its code."""
    errors = getattr(exc, "errors", None)
    fail(f"{exc}\n{error_lines(errors)}" if errors else str(exc), exit_code(exc))


@contextmanager
def remote_errors() -> Iterator[None]:
    """Turn the remote errors raised inside into :func:`fail_remote`."""
    try:
        yield
    except (RemoteCallFailed, RemoteConfigInvalid) as exc:
        fail_remote(exc)
