"""The sweep (:func:`subflow_engines.linux.cleanup.cleanup_stale`) removes only what a dead owner left.

Real namespaces named like a run's, records written by hand naming an owner process the test
starts and kills; only this test's prefixes are created or asserted about (other runs on the host
are left to their owners, which is what the sweep must do too).
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import time

import pytest

from subflow_engines.linux import cleanup

pytestmark = pytest.mark.linux


def _ns(prefix: str) -> str:
    name = f"{prefix}-x"
    subprocess.run(["ip", "netns", "add", name], check=True)
    return name


def _record(prefix: str, owner: subprocess.Popen | None, **extra) -> None:
    pid = owner.pid if owner is not None else 2 ** 22 + 1  # above pid_max: never a process
    data = {"prefix": prefix, "owner_pid": pid, "owner_start": cleanup._start_time(pid), "pids": [],
            "namespaces": [f"{prefix}-x"], **extra}
    cleanup.state_dir().mkdir(parents=True, exist_ok=True)
    (cleanup.state_dir() / f"{prefix}.json").write_text(json.dumps(data))


@pytest.fixture
def prefixes():
    made: list[str] = []
    yield made
    for prefix in made:  # whatever a failing assertion left of this test's own prefixes
        cleanup.teardown(prefix, [], [f"{prefix}-x"])


def _new(prefixes: list[str]) -> str:
    prefixes.append("sf" + secrets.token_hex(3))
    return prefixes[-1]


def test_the_sweep_keeps_a_live_owners_run_and_removes_a_dead_ones(need_linux, prefixes):
    owner = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        live, dead, abandoned = _new(prefixes), _new(prefixes), _new(prefixes)
        for prefix in (live, dead, abandoned):
            _ns(prefix)
        _record(live, owner)
        _record(dead, None)
        _record(abandoned, owner, abandoned=True)  # its owner gave up on it: the sweep retries
        cleaned = cleanup.cleanup_stale()
        assert live not in cleaned and dead in cleaned and abandoned in cleaned
        assert f"{live}-x" in cleanup.list_namespaces()
        assert cleanup.leftovers(live)["records"] == [f"{live}.json"]
        for prefix in (dead, abandoned):
            assert cleanup.leftovers(prefix) == {"namespaces": [], "host_links": [], "records": [], "processes": []}
        owner.kill()
        owner.wait()
        assert live in cleanup.cleanup_stale()
        assert cleanup.leftovers(live) == {"namespaces": [], "host_links": [], "records": [], "processes": []}
    finally:
        if owner.poll() is None:
            owner.kill()
            owner.wait()


def test_leftovers_without_a_record_wait_out_the_grace_and_any_process_inside(need_linux, prefixes):
    prefix = _new(prefixes)
    ns = _ns(prefix)
    # young: perhaps a run whose record lives in another state directory, or is being written
    assert not cleanup._orphan_without_record(prefix, grace_s=60.0)
    assert prefix not in cleanup.cleanup_stale()
    assert ns in cleanup.list_namespaces()
    inside = subprocess.Popen(["ip", "netns", "exec", ns, "sleep", "60"])
    try:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not subprocess.run(["ip", "netns", "pids", ns], capture_output=True,
                                                                  text=True).stdout.split():
            time.sleep(0.05)
        assert not cleanup._orphan_without_record(prefix, grace_s=0.0)  # something runs in it: not an orphan
    finally:
        inside.kill()
        inside.wait()
    assert cleanup._orphan_without_record(prefix, grace_s=0.0)


def test_teardown_removes_processes_namespaces_and_record(need_linux, prefixes):
    prefix = _new(prefixes)
    ns = _ns(prefix)
    rec = cleanup.RunRecord(prefix)
    rec.namespaces.append(ns)
    rec.write()
    # a process of the run in its namespace, recorded with its start time
    p = subprocess.Popen(["ip", "netns", "exec", ns, "sleep", "60"])
    rec.add_pid(p.pid)
    cleanup.work_dir(prefix).mkdir(parents=True, exist_ok=True)
    assert cleanup.leftovers(prefix, owner_pid=os.getpid())["processes"] == [str(p.pid)]
    problems = cleanup.teardown(prefix, rec.pids, rec.namespaces)
    p.wait(timeout=10)
    assert problems == []
    assert cleanup.leftovers(prefix) == {"namespaces": [], "host_links": [], "records": [], "processes": []}
