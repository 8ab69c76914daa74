"""Remote mode of ``subflow``: the commands run against a running Subflow service instead of in-process.

Settings, first found wins:

* the server: ``subflow --server URL``, else ``SUBFLOW_SERVER``, else ``server`` in the config file;
* the personal API token (``sft_…``, created under the account's API tokens or ``POST /api/users/me/tokens``):
  ``SUBFLOW_TOKEN``, else ``token`` in the config file (never an option: it would show in the process list).

The config file is ``SUBFLOW_CONFIG``, else ``$XDG_CONFIG_HOME/subflow/config.toml``, else
``~/.config/subflow/config.toml``; TOML with the keys ``server`` and ``token``. It is read only when the
option and the environment leave something unset, and refused (naming it) unless only its owner may read
and write it (mode 600), or when it holds another key.

The client is thin: :class:`Client` reads the service's own OpenAPI document (``GET /openapi.json``) once
and every call names an operation of it by method and path template (``"POST",
"/api/scenarios/{scenario_id}/routes"``); the call is refused before anything is sent if the service has no
such operation, or the operation declares no such path, query or header parameter or no request body. The
request and response bodies are the documents of :mod:`subflow` that the service itself validates, so there
is no second description of the API here. Every answer of 400 or more becomes a
:class:`subflow.errors.RemoteCallFailed` carrying the status, the message and the field errors (a 422's
``detail``), which the commands turn into an exit code (:func:`subflow_cli.output.fail_remote`).
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
import time
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import httpx
import typer

from subflow.errors import RemoteCallFailed, RemoteConfigInvalid
from subflow_cli.output import fail, remote_errors

#: Where FastAPI serves the service's OpenAPI document (no credentials needed).
OPENAPI_PATH = "/openapi.json"
#: Keys of the config file.
CONFIG_KEYS = ("server", "token")
#: Statuses of a finished comparison or job.
FINAL_STATES = ("succeeded", "failed", "cancelled")
#: Seconds between two reads of a comparison or job when its progress stream is not available.
POLL_S = 0.5
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


@dataclass(frozen=True)
class RemoteConfig:
    """Where the remote commands go: ``server`` (base URL without ``/api``), ``token`` (None: anonymous,
    which the service answers 401) and where each came from (for messages)."""

    server: str
    token: str | None
    server_from: str
    token_from: str | None


def config_path(env: Mapping[str, str] | None = None) -> Path:
    """The config file: ``SUBFLOW_CONFIG``, else ``$XDG_CONFIG_HOME/subflow/config.toml``, else
    ``~/.config/subflow/config.toml``."""
    env = os.environ if env is None else env
    if env.get("SUBFLOW_CONFIG"):
        return Path(env["SUBFLOW_CONFIG"]).expanduser()
    base = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else Path.home() / ".config"
    return base / "subflow" / "config.toml"


def read_config(path: Path) -> dict[str, str]:
    """The settings of the config file at ``path`` ({} if there is none); :class:`RemoteConfigInvalid`
    if its group or others have any permission on it (it holds a token), it is not TOML, or it has a key
    other than :data:`CONFIG_KEYS` or a value that is not a string."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise RemoteConfigInvalid(str(path), exc.strerror or str(exc)) from None
    mode = stat.S_IMODE(st.st_mode)
    if mode & 0o077:
        raise RemoteConfigInvalid(str(path), f"mode {mode:o} lets other users read the API token; only mode 600 "
                                             f"is accepted (chmod 600 {path})")
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise RemoteConfigInvalid(str(path), f"not a TOML file ({exc})") from None
    for key, value in data.items():
        if key not in CONFIG_KEYS:
            raise RemoteConfigInvalid(str(path), f"unknown key {key!r}; the keys are {', '.join(CONFIG_KEYS)}")
        if not isinstance(value, str):
            raise RemoteConfigInvalid(str(path), f"{key} must be a string")
    return data


def normalise_server(url: str, source: str) -> str:
    """``url`` without a trailing ``/`` or ``/api``; :class:`RemoteConfigInvalid` unless it is http(s) with a host."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise RemoteConfigInvalid(source, f"{url!r} is not a server address (http://HOST[:PORT] or https://…)")
    base = url.strip().rstrip("/")
    return base[: -len("/api")] if base.endswith("/api") else base


def resolve(server_option: str | None, env: Mapping[str, str] | None = None,
            path: Path | None = None) -> RemoteConfig | None:
    """The remote settings (see the module), or None when no server is set anywhere (the command runs
    in-process). The config file is read only if the option and the environment leave the server or the
    token unset."""
    env = os.environ if env is None else env
    server, server_from = server_option or None, "--server"
    if server is None and env.get("SUBFLOW_SERVER"):
        server, server_from = env["SUBFLOW_SERVER"], "SUBFLOW_SERVER"
    token, token_from = (env["SUBFLOW_TOKEN"], "SUBFLOW_TOKEN") if env.get("SUBFLOW_TOKEN") else (None, None)
    if server is None or token is None:
        path = config_path(env) if path is None else path
        config = read_config(path)
        if server is None and config.get("server"):
            server, server_from = config["server"], str(path)
        if token is None and config.get("token"):
            token, token_from = config["token"], str(path)
    if server is None:
        return None
    return RemoteConfig(normalise_server(server, server_from), token, server_from, token_from)


# --------------------------------------------------------------------------- errors of the service


def _retry_after(response: httpx.Response) -> float | None:
    try:
        return float(response.headers["Retry-After"])
    except (KeyError, ValueError):
        return None


def api_error(response: httpx.Response, what: str) -> RemoteCallFailed:
    """The service's refusal ``response`` (status ≥ 400) of the call ``what`` as a :class:`RemoteCallFailed`:
    FastAPI's ``detail`` (a message, or field errors ``[{"loc", "msg"}]``) with what the status means."""
    code = response.status_code
    try:
        detail: Any = response.json().get("detail")
    except (ValueError, AttributeError):
        detail = response.text.strip()[:500] or response.reason_phrase
    errors = [{"loc": list(d.get("loc", [])), "msg": d.get("msg", "")} for d in detail
              if isinstance(d, dict)] if isinstance(detail, list) else []
    text = detail if isinstance(detail, str) else json.dumps(detail) if detail and not errors else ""
    retry = _retry_after(response)
    if code == 401:
        message = f"not signed in ({text or 'no credentials'}): set SUBFLOW_TOKEN, or token in the config file, " \
                  "to a personal API token of yours"
    elif code == 403:
        message = f"forbidden: {text}"
    elif code == 404:
        message = f"not found: {text}"
    elif code == 412:
        etag = response.headers.get("ETag", "")
        message = f"{text}; the current version is {etag}: get it again, apply your change, and put it with " \
                  f"--if-match {etag.strip(chr(34))}"
    elif code == 429:
        message = f"the service is busy for you: {text}" + (f" (try again in {retry:g} s)" if retry else "")
    elif code >= 500:
        message = f"the service failed (HTTP {code}): {text}"
    elif errors:
        message = "the service refused the request (HTTP 422)"
    else:
        message = f"{text} (HTTP {code})"
    return RemoteCallFailed(f"{what}: {message}", status=code, errors=errors, retry_after_s=retry)


# --------------------------------------------------------------------------- the client


class Client:
    """Calls of the operations of the service's OpenAPI document (see the module)."""

    def __init__(self, config: RemoteConfig, timeout_s: float = 120.0,
                 transport: httpx.BaseTransport | None = None):
        self.config = config
        headers = {"User-Agent": "subflow-cli"}
        if config.token:
            headers["Authorization"] = f"Bearer {config.token}"
        self.http = httpx.Client(base_url=config.server, headers=headers, timeout=timeout_s, transport=transport)
        self._operations: dict[tuple[str, str], dict[str, Any]] | None = None

    def close(self) -> None:
        self.http.close()

    def _send(self, method: str, url: str, what: str, **kwargs: Any) -> httpx.Response:
        try:
            return self.http.request(method, url, **kwargs)
        except httpx.HTTPError as exc:
            raise RemoteCallFailed(f"{what}: cannot reach {self.config.server} (from {self.config.server_from}): "
                                   f"{exc}") from None

    def operations(self) -> dict[tuple[str, str], dict[str, Any]]:
        """``(METHOD, path template) → operation`` of the service's OpenAPI document (read once)."""
        if self._operations is None:
            r = self._send("GET", OPENAPI_PATH, f"GET {OPENAPI_PATH}")
            if r.status_code != 200:
                raise api_error(r, f"GET {OPENAPI_PATH}")
            try:
                doc = r.json()
                self._operations = {(m.upper(), p): op for p, ops in doc["paths"].items() for m, op in ops.items()}
            except (ValueError, KeyError, AttributeError):
                raise RemoteCallFailed(f"{self.config.server} did not answer an OpenAPI document at {OPENAPI_PATH}: "
                                       "is it a Subflow service?") from None
        return self._operations

    def operation(self, method: str, path: str) -> dict[str, Any]:
        """The OpenAPI operation ``method path``; :class:`RemoteCallFailed` if the service has none."""
        op = self.operations().get((method, path))
        if op is None:
            raise RemoteCallFailed(f"the service at {self.config.server} has no operation {method} {path} "
                                   "(an older or newer version of Subflow?)")
        return op

    def call(self, method: str, path: str, *, path_params: Mapping[str, str] | None = None,
             query: Mapping[str, Any] | None = None, headers: Mapping[str, str] | None = None,
             json_body: Any = None, files: Any = None, data: Mapping[str, str] | None = None) -> httpx.Response:
        """Call the operation ``method path`` (a path template of the OpenAPI document) with its parameters
        (query parameters that are None are left out); the response if its status is below 400, else
        :class:`RemoteCallFailed` (:func:`api_error`)."""
        op = self.operation(method, path)
        declared = {(p["in"], p["name"].lower()) for p in op.get("parameters", [])}
        path_params = dict(path_params or {})
        query = {k: v for k, v in (query or {}).items() if v is not None}
        for where, names in (("path", path_params), ("query", query), ("header", headers or {})):
            for name in names:
                if (where, name.lower()) not in declared:
                    raise RemoteCallFailed(f"{method} {path} of the service has no {where} parameter {name!r}")
        if (json_body is not None or files is not None) and "requestBody" not in op:
            raise RemoteCallFailed(f"{method} {path} of the service takes no request body")
        url = path.format(**{k: quote(str(v), safe="") for k, v in path_params.items()})
        what = f"{method} {url}"
        r = self._send(method, url, what, params=query, headers=dict(headers or {}),
                       **({"json": json_body} if json_body is not None else {}),
                       **({"files": files} if files is not None else {}), **({"data": data} if data else {}))
        if r.status_code >= 400:
            raise api_error(r, what)
        return r

    def events(self, path: str, path_params: Mapping[str, str]) -> Iterator[dict[str, Any]]:
        """The JSON messages of the server-sent event stream ``GET path`` until it ends (nothing more if the
        stream is refused, e.g. 429 beyond ``QUOTA_STREAMS``, or the connection drops: callers read the
        resource itself to know where it stands)."""
        self.operation("GET", path)
        url = path.format(**{k: quote(str(v), safe="") for k, v in path_params.items()})
        try:
            with self.http.stream("GET", url, headers={"Accept": "text/event-stream"},
                                  timeout=httpx.Timeout(30.0, read=None)) as r:
                if r.status_code >= 400:
                    return
                for line in r.iter_lines():
                    if line.startswith("data:"):
                        try:
                            yield json.loads(line[5:].strip())
                        except ValueError:
                            continue
        except httpx.HTTPError:
            return

    # ---------------------------------------------------------------- shared steps of the commands

    def scenario_id(self, ref: str, project_id: str | None = None) -> str:
        """The id of the stored scenario ``ref``: an id as is, else the one scenario of that name among
        yours (of ``project_id`` if given); :class:`RemoteCallFailed` (404) if none, or (409) if several."""
        if _UUID.match(ref):
            return ref
        found = [s for s in self.list_scenarios(project_id) if s["name"] == ref]
        if not found:
            raise RemoteCallFailed(f"no scenario named {ref!r} among yours (subflow list shows them)", status=404)
        if len(found) > 1:
            where = ", ".join(f"{s['id']} (project {s['project_id']})" for s in found)
            raise RemoteCallFailed(f"several scenarios are named {ref!r}: {where}; give the id or --project",
                                   status=409)
        return found[0]["id"]

    def list_scenarios(self, project_id: str | None = None) -> list[dict[str, Any]]:
        """Every scenario of yours (of ``project_id`` if given), page by page."""
        rows: list[dict[str, Any]] = []
        while True:
            page = self.call("GET", "/api/scenarios", query={"skip": len(rows), "limit": 1000,
                                                             "project_id": project_id}).json()
            rows += page["data"]
            if not page["data"] or len(rows) >= page["count"]:
                return rows

    def follow(self, resource: str, events: str, path_params: Mapping[str, str],
               on_state: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        """Follow a comparison or a job until it finishes: its progress stream ``events`` (each message to
        ``on_state``), falling back to reading ``resource`` every :data:`POLL_S` s if the stream ends early;
        returns the finished ``resource`` (with its result)."""
        for state in self.events(events, path_params):
            on_state(state)
            if state.get("status") in FINAL_STATES:
                break
        while True:
            body = self.call("GET", resource, path_params=path_params).json()
            if body.get("status") in FINAL_STATES:
                return body
            on_state(body)
            time.sleep(POLL_S)


def progress_printer(label: str, enabled: bool = True) -> Callable[[dict[str, Any]], None]:
    """An ``on_state`` for :meth:`Client.follow` printing ``label: status, NN %`` (and units or runs done)
    on stderr when it changes."""
    last: list[str] = []

    def show(state: dict[str, Any]) -> None:
        parts = [str(state.get("status", "?")), f"{100 * float(state.get('progress') or 0):.0f} %"]
        if state.get("units_total", 1) and state.get("units_total", 1) > 1:
            parts.append(f"{state.get('units_done', 0)}/{state['units_total']} units")
        if state.get("runs_total"):
            parts.append(f"{state.get('runs_done', 0)}/{state['runs_total']} runs")
        line = f"{label}: {', '.join(parts)}"
        if enabled and (not last or last[-1] != line):
            last.append(line)
            print(line, file=sys.stderr, flush=True)

    return show


# --------------------------------------------------------------------------- what the commands call


def client_for(ctx: typer.Context) -> Client | None:
    """The client of the service the command runs against (``subflow --server``, ``SUBFLOW_SERVER``, the
    config file), or None to run in-process (no server set, or ``--local``); exits (2) on refused settings."""
    options = ctx.find_root().obj or {}
    if options.get("local"):
        return None
    with remote_errors():
        config = resolve(options.get("server"))
    return None if config is None else Client(config)


def needs_server(ctx: typer.Context, command: str) -> Client:
    """The client of a command that only exists remotely (``list``, ``get``, ``put``, ``versions``)."""
    client = client_for(ctx)
    if client is None:
        fail(f"subflow {command} works on a service's stored scenarios: give --server URL (or set "
             f"SUBFLOW_SERVER, or server in {config_path()})")
    return client


def run_job(client: Client, job_id: str, label: str, show: bool) -> Any:
    """Follow background job ``job_id`` until it ends; its result, or :class:`RemoteCallFailed` if it failed."""
    job = client.follow("/api/jobs/{job_id}", "/api/jobs/{job_id}/events", {"job_id": job_id},
                        progress_printer(f"{label} job {job_id}", show))
    if job["status"] != "succeeded":
        raise RemoteCallFailed(f"{label} job {job_id} {job['status']}: {job.get('error') or 'no reason given'}")
    return job["result"]


def analysis(client: Client, path: str, scenario_id: str, body: dict[str, Any], label: str,
             show: bool = True) -> Any:
    """POST ``body`` to the planning or analysis operation ``path`` of the scenario and return its document:
    answered inline (200), or as a background job (202) that is followed to its end. A request the service
    finds too heavy to answer inline (422 on ``background``) is sent again as a job."""
    params = {"scenario_id": scenario_id}
    try:
        r = client.call("POST", path, path_params=params, json_body=body)
    except RemoteCallFailed as exc:
        if not any(e["loc"][-1:] == ["background"] for e in exc.errors) or body.get("background"):
            raise
        if show:
            print(f"{label}: too heavy to answer inline, sent to a worker", file=sys.stderr)
        r = client.call("POST", path, path_params=params, json_body={**body, "background": True})
    if r.status_code == 202:
        return run_job(client, r.json()["job_id"], label, show)
    return r.json()


def comparison(client: Client, scenario_id: str, body: dict[str, Any], show: bool = True) -> dict[str, Any]:
    """Start a comparison of the stored scenario, follow its progress to the end (printed on stderr with
    ``show``; Ctrl-C cancels it) and return it finished, or :class:`RemoteCallFailed` if it failed or
    was cancelled."""
    created = client.call("POST", "/api/scenarios/{scenario_id}/comparisons",
                          path_params={"scenario_id": scenario_id}, json_body=body).json()
    params = {"scenario_id": scenario_id, "comparison_id": created["id"]}
    try:
        done = client.follow("/api/scenarios/{scenario_id}/comparisons/{comparison_id}",
                             "/api/scenarios/{scenario_id}/comparisons/{comparison_id}/events", params,
                             progress_printer(f"comparison {created['id']}", show))
    except KeyboardInterrupt:
        client.call("POST", "/api/scenarios/{scenario_id}/comparisons/{comparison_id}/cancel", path_params=params)
        raise RemoteCallFailed(f"comparison {created['id']} cancelled (Ctrl-C)") from None
    if done["status"] != "succeeded":
        raise RemoteCallFailed(f"comparison {created['id']} {done['status']}: {done.get('error') or 'no reason given'}")
    return done
