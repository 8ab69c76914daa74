"""The remote CLI's settings (option > environment > config file of mode 600), its OpenAPI-driven client
and how the service's errors become messages and exit codes; the live service: tests/integration/test_remote_cli.py."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from subflow.errors import RemoteCallFailed, RemoteConfigInvalid
from subflow_cli.main import app
from subflow_cli.output import exit_code
from subflow_cli import remote
from subflow_cli.remote import Client, RemoteConfig, api_error, config_path, read_config, resolve, run_job
from subflow_cli.stored import if_match


def _config(tmp_path: Path, text: str, mode: int = 0o600) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    path.chmod(mode)
    return path


def test_config_path_follows_the_environment(tmp_path):
    assert config_path({"SUBFLOW_CONFIG": str(tmp_path / "c.toml")}) == tmp_path / "c.toml"
    assert config_path({"XDG_CONFIG_HOME": str(tmp_path)}) == tmp_path / "subflow" / "config.toml"
    assert config_path({}) == Path.home() / ".config" / "subflow" / "config.toml"


def test_no_server_anywhere_runs_in_process(tmp_path):
    assert resolve(None, {}, tmp_path / "absent.toml") is None
    assert resolve(None, {"SUBFLOW_TOKEN": "sft_x"}, tmp_path / "absent.toml") is None


def test_option_beats_environment_beats_config_file(tmp_path):
    path = _config(tmp_path, 'server = "http://file:1"\ntoken = "sft_file"\n')
    got = resolve(None, {}, path)
    assert got == RemoteConfig("http://file:1", "sft_file", str(path), str(path))
    got = resolve(None, {"SUBFLOW_SERVER": "http://env:2/", "SUBFLOW_TOKEN": "sft_env"}, path)
    assert (got.server, got.token, got.server_from, got.token_from) == ("http://env:2", "sft_env", "SUBFLOW_SERVER",
                                                                      "SUBFLOW_TOKEN")
    got = resolve("https://flag:3/api/", {"SUBFLOW_SERVER": "http://env:2"}, path)
    assert (got.server, got.token, got.server_from) == ("https://flag:3", "sft_file", "--server")


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660, 0o666])
def test_a_config_file_others_may_read_is_refused_naming_it(tmp_path, mode):
    path = _config(tmp_path, 'server = "http://file:1"\ntoken = "sft_file"\n', mode)
    with pytest.raises(RemoteConfigInvalid) as exc:
        resolve(None, {}, path)
    assert str(path) in str(exc.value) and f"mode {mode:o}" in str(exc.value) and "chmod 600" in str(exc.value)
    assert exit_code(exc.value) == 2


def test_the_config_file_is_not_read_when_option_and_environment_say_everything(tmp_path):
    path = _config(tmp_path, 'token = "sft_file"\n', 0o644)
    got = resolve("http://flag:3", {"SUBFLOW_TOKEN": "sft_env"}, path)
    assert got.token == "sft_env"


@pytest.mark.parametrize("text, message", [
    ('server = "http://a:1"\ntokn = "x"\n', "unknown key 'tokn'"),
    ("server = [1]\n", "server must be a string"),
    ("server = \n", "not a TOML file"),
])
def test_a_config_file_with_a_mistake_is_refused(tmp_path, text, message):
    with pytest.raises(RemoteConfigInvalid, match=message):
        read_config(_config(tmp_path, text))


@pytest.mark.parametrize("server", ["ftp://host", "host:8000", "http://"])
def test_a_server_that_is_no_http_address_is_refused(tmp_path, server):
    with pytest.raises(RemoteConfigInvalid, match="--server"):
        resolve(server, {}, tmp_path / "absent.toml")


def test_if_match_takes_the_version_in_any_spelling():
    assert if_match("3") == if_match("v3") == if_match('"v3"') == '"v3"'


def _response(status: int, body, headers: dict | None = None) -> httpx.Response:
    return httpx.Response(status, json=body, headers=headers or {})


def test_service_errors_become_messages_with_their_fields_and_exit_codes():
    e = api_error(_response(422, {"detail": [{"loc": ["body", "strategies", 1], "msg": "unknown strategy 'warp'",
                                              "type": "unknown_strategy"}]}), "POST /x")
    assert e.errors == [{"loc": ["body", "strategies", 1], "msg": "unknown strategy 'warp'"}]
    assert "HTTP 422" in str(e) and exit_code(e) == 2
    e = api_error(_response(412, {"detail": "version 1 is no longer current"}, {"ETag": '"v2"'}), "PUT /x")
    assert '"v2"' in str(e) and "--if-match v2" in str(e) and exit_code(e) == 2
    e = api_error(_response(429, {"detail": "QUOTA_JOBS"}, {"Retry-After": "5"}), "POST /x")
    assert e.retry_after_s == 5 and "try again in 5 s" in str(e) and exit_code(e) == 4
    assert exit_code(api_error(_response(401, {"detail": "Not authenticated"}), "GET /x")) == 3
    assert exit_code(api_error(_response(403, {"detail": "scope 'read'"}), "GET /x")) == 3
    assert exit_code(api_error(_response(404, {"detail": "scenario 'x' not found"}), "GET /x")) == 2
    assert exit_code(api_error(httpx.Response(502, text="bad gateway"), "GET /x")) == 1
    assert exit_code(RemoteCallFailed("unreachable")) == 1


OPENAPI = {"paths": {"/api/scenarios/{scenario_id}": {
    "get": {"parameters": [{"name": "scenario_id", "in": "path", "required": True}]},
    "put": {"parameters": [{"name": "scenario_id", "in": "path", "required": True},
                           {"name": "if-match", "in": "header"}], "requestBody": {}},
}}}


def _client(seen: list[httpx.Request]) -> Client:
    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path == "/openapi.json":
            return httpx.Response(200, json=OPENAPI)
        return httpx.Response(200, json={"id": "s1", "headers": dict(request.headers)})

    return Client(RemoteConfig("http://svc", "sft_t", "--server", "SUBFLOW_TOKEN"),
                  transport=httpx.MockTransport(handle))


def test_the_client_calls_only_what_the_openapi_document_declares():
    seen: list[httpx.Request] = []
    client = _client(seen)
    r = client.call("PUT", "/api/scenarios/{scenario_id}", path_params={"scenario_id": "a/b"},
                    headers={"If-Match": '"v1"'}, json_body={"name": "x"})
    assert r.status_code == 200
    sent = seen[-1]
    assert sent.url.raw_path == b"/api/scenarios/a%2Fb" and sent.headers["if-match"] == '"v1"'
    assert sent.headers["authorization"] == "Bearer sft_t" and json.loads(sent.content) == {"name": "x"}
    before = len(seen)
    with pytest.raises(RemoteCallFailed, match="no operation DELETE"):
        client.call("DELETE", "/api/scenarios/{scenario_id}", path_params={"scenario_id": "a"})
    with pytest.raises(RemoteCallFailed, match="no query parameter 'format'"):
        client.call("GET", "/api/scenarios/{scenario_id}", path_params={"scenario_id": "a"}, query={"format": "x"})
    with pytest.raises(RemoteCallFailed, match="takes no request body"):
        client.call("GET", "/api/scenarios/{scenario_id}", path_params={"scenario_id": "a"}, json_body={})
    assert len(seen) == before  # refused before anything was sent
    assert [r.url.path for r in seen].count("/openapi.json") == 1  # read once


def test_remote_only_commands_need_a_server(tmp_path):
    out = CliRunner().invoke(app, ["list"], env={"SUBFLOW_SERVER": None, "SUBFLOW_CONFIG": str(tmp_path / "no.toml")})
    assert out.exit_code == 2 and "--server URL" in out.stderr


def test_a_refused_config_file_stops_a_command_that_may_run_remotely(tmp_path):
    path = _config(tmp_path, 'server = "http://127.0.0.1:9"\n', 0o644)
    out = CliRunner().invoke(app, ["routes", "x.json"], env={"SUBFLOW_SERVER": None, "SUBFLOW_CONFIG": str(path)})
    assert out.exit_code == 2 and str(path) in out.stderr
    # --local ignores the settings
    out = CliRunner().invoke(app, ["--local", "routes", "absent.json"],
                             env={"SUBFLOW_SERVER": None, "SUBFLOW_CONFIG": str(path)})
    assert out.exit_code == 2 and "absent.json" in out.stderr and str(path) not in out.stderr


JOB_OPENAPI = {"paths": {
    "/api/scenarios/{scenario_id}/routes": {"post": {"parameters": [{"name": "scenario_id", "in": "path"}],
                                                     "requestBody": {}}},
    "/api/jobs/{job_id}": {"get": {"parameters": [{"name": "job_id", "in": "path"}]}},
    "/api/jobs/{job_id}/events": {"get": {"parameters": [{"name": "job_id", "in": "path"}]}},
}}


def test_a_request_too_heavy_for_inline_goes_to_a_worker_job_followed_to_its_end(monkeypatch, capsys):
    """422 on ``background`` → sent again with ``"background": true``; the job's stream refused (429) → the job
    is read until it ends, and its result returned."""
    monkeypatch.setattr(remote, "POLL_S", 0.0)
    bodies, polls = [], []

    def handle(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/openapi.json":
            return httpx.Response(200, json=JOB_OPENAPI)
        if path.endswith("/routes"):
            bodies.append(json.loads(request.content))
            if not bodies[-1].get("background"):
                return httpx.Response(422, json={"detail": [{"loc": ["body", "background"], "msg": "too heavy"}]})
            return httpx.Response(202, json={"job_id": "j1", "status": "queued", "status_url": "/api/jobs/j1"})
        if path.endswith("/events"):
            return httpx.Response(429, json={"detail": "QUOTA_STREAMS"})
        polls.append(path)
        done = len(polls) >= 3
        return httpx.Response(200, json={"job_id": "j1", "status": "succeeded" if done else "running",
                                         "progress": 1.0 if done else 0.5, "result": {"routes": []} if done else None,
                                         "error": None})

    client = Client(RemoteConfig("http://svc", None, "--server", None), transport=httpx.MockTransport(handle))
    got = remote.analysis(client, "/api/scenarios/{scenario_id}/routes", "s1", {"metric": "hop"}, "routes")
    assert got == {"routes": []}
    assert bodies == [{"metric": "hop"}, {"metric": "hop", "background": True}]
    err = capsys.readouterr().err
    assert "sent to a worker" in err and "routes job j1: running, 50 %" in err


def test_a_failed_job_is_an_error_of_exit_code_1():
    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/openapi.json":
            return httpx.Response(200, json=JOB_OPENAPI)
        if request.url.path.endswith("/events"):
            return httpx.Response(200, text='data: {"status": "failed", "progress": 0.2}\n\n',
                                  headers={"content-type": "text/event-stream"})
        return httpx.Response(200, json={"job_id": "j1", "status": "failed", "progress": 0.2, "result": None,
                                         "error": "worker died"})

    client = Client(RemoteConfig("http://svc", None, "--server", None), transport=httpx.MockTransport(handle))
    with pytest.raises(RemoteCallFailed, match="routes job j1 failed: worker died") as exc:
        run_job(client, "j1", "routes", show=False)
    assert exit_code(exc.value) == 1
