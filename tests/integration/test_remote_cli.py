"""The remote CLI (``subflow --server URL …``) against the live stack: the same commands and output as
in-process, on the service's stored scenarios, with a personal API token from the environment or a
config file of mode 600."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from subflow_cli.main import app

pytestmark = pytest.mark.integration

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def cli(pg_stack, tmp_path):
    """``cli(*args, token=..., server=True) -> Result``: ``subflow --server <stack> *args`` with the stack's
    token in SUBFLOW_TOKEN and no config file."""
    runner = CliRunner()

    def run(*args: str, token: str | None = None, server: bool = True, env: dict | None = None):
        environ = {"SUBFLOW_SERVER": None, "SUBFLOW_TOKEN": token or pg_stack.token,
                   "SUBFLOW_CONFIG": str(tmp_path / "no-config.toml"), **(env or {})}
        prefix = ["--server", pg_stack.base_url] if server else []
        return runner.invoke(app, [*prefix, *args], env=environ, catch_exceptions=False)

    return run


def _local(*args: str):
    return CliRunner().invoke(app, ["--local", *args], env={"SUBFLOW_SERVER": None}, catch_exceptions=False)


@pytest.fixture
def stored(cli, tmp_path):
    """A copy of naval-direct-move imported through the CLI: ``(id, name, local file of the same document)``."""
    doc = json.loads((EXAMPLES / "naval-direct-move.json").read_text())
    doc["name"] = f"it-cli-{uuid.uuid4().hex[:8]}"
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(doc))
    r = cli("import", str(path))
    assert r.exit_code == 0, r.output
    sid = r.stdout.split()[0]
    assert f"({doc['name']}, project" in r.stdout and "version 1" in r.stdout
    return sid, doc["name"], path


def test_list_get_put_with_if_match_and_versions(cli, stored, tmp_path):
    sid, name, _ = stored
    listed = json.loads(cli("list", "--json").stdout)
    assert any(s["id"] == sid and s["name"] == name for s in listed["data"]) and listed["count"] == len(listed["data"])
    assert name in cli("list").stdout

    got = json.loads(cli("get", name, "--json").stdout)  # by name as well as by id
    assert got["id"] == sid and got["version"] == 1
    r = cli("get", sid)
    assert r.exit_code == 0 and '"v1"' in r.stdout and "nodes" in r.stdout

    edited = tmp_path / "edited.json"
    r = cli("get", sid, "-o", str(edited))
    assert r.exit_code == 0 and "--if-match v1" in r.stderr
    doc = json.loads(edited.read_text())
    doc["description"] = "edited by the remote CLI"
    edited.write_text(json.dumps(doc))
    r = cli("put", sid, str(edited), "--if-match", "v1")
    assert r.exit_code == 0, r.output
    assert "version 2 saved" in r.stdout

    # a stale If-Match: 412, nothing saved, the current version named
    r = cli("put", sid, str(edited), "--if-match", "v1")
    assert r.exit_code == 2, r.output
    assert '"v2"' in r.stderr and "--if-match v2" in r.stderr
    # without If-Match a plain document is refused before anything is sent
    r = cli("put", sid, str(edited))
    assert r.exit_code == 2 and "--if-match" in r.stderr

    # the output of get --json carries its version
    wrapped = tmp_path / "wrapped.json"
    wrapped.write_text(cli("get", sid, "--json").stdout)
    assert cli("put", sid, str(wrapped)).exit_code == 0

    history = json.loads(cli("versions", sid, "--json").stdout)
    assert [v["version"] for v in history["data"]] == [3, 2, 1]
    assert "edited by the remote CLI" in json.loads(cli("get", sid, "--version", "2", "--json").stdout)["description"]
    assert "yes" in cli("versions", sid).stdout


def test_compare_follows_progress_and_prints_as_the_local_cli(cli, stored):
    sid, _, path = stored
    r = cli("compare", sid, "--strategies", "sptcp,mptcp", "--seed", "3")
    assert r.exit_code == 0, r.output
    assert f"comparison " in r.stderr and ": succeeded, 100 %" in r.stderr  # progress until done
    local = _local("compare", str(path), "--strategies", "sptcp,mptcp", "--seed", "3")
    assert r.stdout == local.stdout  # the same table: the same compare() on the same engine

    r = cli("compare", sid, "--strategies", "sptcp", "--json")
    assert r.exit_code == 0 and r.stderr == ""
    result = json.loads(r.stdout)
    assert list(result["strategies"]) == ["sptcp"] and result["version"] == 1


def test_sweep(cli, stored):
    sid, _, path = stored
    args = ("--parameter", "run.seed", "--values", "1,2", "--strategies", "sptcp", "--json")
    r = cli("sweep", sid, *args)
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout) == json.loads(_local("sweep", str(path), *args).stdout)
    r = cli("sweep", sid, "--parameter", "run.seed", "--values", "1,2", "--strategies", "sptcp")
    assert r.exit_code == 0 and "± " in r.stdout


@pytest.mark.parametrize("command", [
    ("routes", "--metric", "delay", "--k", "2"),
    ("allocate",),
    ("failures",),
])
def test_planning_and_analysis_as_the_local_cli(cli, stored, command):
    sid, name, path = stored
    r = cli(command[0], sid, *command[1:], "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout) == json.loads(_local(command[0], str(path), *command[1:], "--json").stdout)
    table = cli(command[0], name, *command[1:])
    assert table.exit_code == 0 and "┃" in table.stdout


def test_capacity_is_a_followed_job(cli, stored):
    sid, _, _ = stored
    r = cli("capacity", sid, "--parameter", "links.uav-ship.bandwidth_mbps", "--low", "1", "--high", "20",
            "--min-mean", "0.5", "--repetitions", "1", "--max-steps", "2", "--strategy", "sptcp")
    assert r.exit_code == 0, r.output
    assert "capacity search job" in r.stderr and "succeeded" in r.stderr
    assert "links.uav-ship.bandwidth_mbps: trace" in r.stdout and "runs;" in r.stdout


def test_export_and_import_round_trip(cli, stored, tmp_path):
    sid, _, path = stored
    r = cli("export", sid, "--format", "ns2")
    assert r.exit_code == 0 and r.stdout == _local("export", str(path), "--format", "ns2").stdout
    out = tmp_path / "exported.json"
    assert cli("export", sid, "-o", str(out)).exit_code == 0
    ids = [[n["id"] for n in json.loads(f.read_text())["nodes"]] for f in (out, path)]
    assert ids[0] == ids[1]
    r = cli("import", str(out), "--name", f"it-cli-copy-{uuid.uuid4().hex[:6]}", "-o", str(tmp_path / "copy.json"))
    assert r.exit_code == 0 and json.loads((tmp_path / "copy.json").read_text())["nodes"]


def test_api_errors_name_their_field_and_set_the_exit_code(cli, stored, pg_stack):
    sid, _, _ = stored
    r = cli("compare", sid, "--strategies", "sptcp,warp")
    assert r.exit_code == 2
    assert "HTTP 422" in r.stderr and "\n  body.strategies: unknown strategy 'warp'" in r.stderr
    r = cli("routes", sid, "--pairs", "ship:atlantis")
    assert r.exit_code == 2 and "body.pairs" in r.stderr
    r = cli("get", str(uuid.uuid4()))
    assert r.exit_code == 2 and "not found" in r.stderr
    r = cli("list", token="sft_not-a-token")
    assert r.exit_code == 3 and "SUBFLOW_TOKEN" in r.stderr
    read_only = pg_stack.new_token(pg_stack.login(*pg_stack.admin), "read")
    r = cli("put", sid, str(stored[2]), "--if-match", "v1", token=read_only)
    assert r.exit_code == 3 and "scope 'read'" in r.stderr


def test_config_file_must_be_mode_600(cli, pg_stack, stored, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text(f'server = "{pg_stack.base_url}"\ntoken = "{pg_stack.token}"\n')
    config.chmod(0o644)
    env = {"SUBFLOW_CONFIG": str(config), "SUBFLOW_TOKEN": None}
    r = cli("list", server=False, env=env)
    assert r.exit_code == 2
    assert str(config) in r.stderr and "mode 644" in r.stderr and "chmod 600" in r.stderr
    config.chmod(0o600)
    r = cli("list", "--json", server=False, env=env)
    assert r.exit_code == 0, r.output
    assert any(s["id"] == stored[0] for s in json.loads(r.stdout)["data"])
    # --local ignores the configured server: compare runs in-process on a file
    r = CliRunner().invoke(app, ["--local", "validate", str(stored[2])], env=env)
    assert r.exit_code == 0 and "valid" in r.stdout
    assert os.stat(config).st_mode & 0o777 == 0o600
