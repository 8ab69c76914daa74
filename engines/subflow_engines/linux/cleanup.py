"""Ownership records and teardown for the ``linux`` engine.

Before a run creates anything it writes ``$SUBFLOW_LINUX_STATE_DIR/<prefix>.json``
(default ``/run/subflow-linux``) naming its owner process (pid + start time) and,
as they start, the PIDs of the processes it launched (with their start times, so a
recycled PID is never signalled). Teardown signals those PIDs, then deletes the
run's namespaces (which removes their veths, bridges, qdiscs, iptables rules and
MPTCP endpoints), then the record.

:func:`cleanup_stale` (called when the agent starts the engine) removes leftovers
whose owner is gone: namespaces/links named ``sf<6 hex>-…``/``sf<6 hex>…`` with no
record or with a dead owner. A live owner's run (another agent, a test) is left alone.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import signal
import time
from pathlib import Path

from . import commands
from .commands import check_name

log = logging.getLogger("subflow_engines.linux")

PREFIX_RE = re.compile(r"^(sf[0-9a-f]{6})")
NS_RE = re.compile(r"^(sf[0-9a-f]{6})-[a-z0-9-]+$")


def state_dir() -> Path:
    return Path(os.environ.get("SUBFLOW_LINUX_STATE_DIR", "/run/subflow-linux"))


def work_dir(prefix: str) -> Path:
    """Scratch directory of run ``prefix`` (iperf3 JSON, delay-line logs): ``<state dir>/<prefix>.d``."""
    return state_dir() / f"{check_name(prefix)}.d"


def _start_time(pid: int) -> int | None:
    """Start time of ``pid`` in clock ticks since boot (field 22 of /proc/PID/stat), or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[19])


def _alive(pid: int, start: int | None) -> bool:
    st = _start_time(pid)
    return st is not None and (start is None or st == start)


def list_namespaces() -> list[str]:
    """Names of every network namespace under /run/netns (``ip netns list``)."""
    proc = commands.run(["ip", "netns", "list"], check=False)
    return [line.split()[0] for line in proc.stdout.splitlines() if line.strip()]


class RunRecord:
    """The on-disk ownership record of one run (or capability probe)."""

    def __init__(self, prefix: str):
        self.prefix = check_name(prefix)
        self.path = state_dir() / f"{prefix}.json"
        self.pids: list[tuple[int, int | None]] = []
        self.namespaces: list[str] = []

    def write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {
            "prefix": self.prefix,
            "owner_pid": os.getpid(),
            "owner_start": _start_time(os.getpid()),
            "pids": self.pids,
            "namespaces": self.namespaces,
        }
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data))
        tmp.replace(self.path)

    def add_pid(self, pid: int) -> None:
        self.pids.append((pid, _start_time(pid)))
        self.write()

    def add_namespace(self, ns: str) -> None:
        self.namespaces.append(check_name(ns))
        self.write()


def _signal_pid(pid: int, start: int | None, sig: int) -> None:
    if _alive(pid, start):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def teardown(prefix: str, pids: list[tuple[int, int | None]], namespaces: list[str]) -> list[str]:
    """Stop the run's processes and delete its namespaces and record.

    Processes: SIGTERM to each recorded PID (checked against its start time), then
    SIGKILL after 2 s. Any process still inside one of the run's namespaces (a child
    of one of ours) is killed too: only the run puts processes there.

    Returns the list of problems met (empty when everything went).
    """
    problems: list[str] = []
    for pid, st in pids:
        _signal_pid(pid, st, signal.SIGTERM)
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline and any(_alive(p, s) for p, s in pids):
        time.sleep(0.05)
    for pid, st in pids:
        _signal_pid(pid, st, signal.SIGKILL)
    existing = set(list_namespaces())
    mine = sorted({ns for ns in namespaces if ns in existing} | {ns for ns in existing if ns.startswith(prefix + "-")})
    for ns in mine:
        check_name(ns)
        out = commands.run(["ip", "netns", "pids", ns], check=False).stdout.split()
        for p in out:
            if p.isdigit():
                try:
                    os.kill(int(p), signal.SIGKILL)
                except ProcessLookupError:
                    pass
    for ns in mine:
        proc = commands.run(["ip", "netns", "del", ns], check=False)
        if proc.returncode != 0:
            problems.append(f"ip netns del {ns}: {proc.stderr.strip()}")
    # links that could have been left in the host namespace (none normally: veths are created in place)
    for name in host_links(prefix):
        commands.run(["ip", "link", "del", name], check=False)
    shutil.rmtree(work_dir(prefix), ignore_errors=True)
    try:
        (state_dir() / f"{prefix}.json").unlink()
    except FileNotFoundError:
        pass
    return problems


def host_links(prefix: str | None = None) -> list[str]:
    """Interfaces in the host namespace whose names carry a run prefix (``prefix`` or any)."""
    proc = commands.run(["ip", "-o", "link", "show"], check=False)
    out = []
    for line in proc.stdout.splitlines():
        parts = line.split(":", 2)
        if len(parts) < 2:
            continue
        name = parts[1].strip().split("@")[0]
        m = PREFIX_RE.match(name)
        if m and (prefix is None or m.group(1) == prefix):
            out.append(name)
    return out


def owner_alive(prefix: str) -> bool:
    """True if the run ``prefix`` has a record whose owner process is still running."""
    path = state_dir() / f"{prefix}.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return False
    return _alive(int(data.get("owner_pid", -1)), data.get("owner_start"))


def cleanup_stale() -> list[str]:
    """Remove the leftovers of runs whose owner process is gone. Returns the prefixes cleaned."""
    prefixes: set[str] = set()
    for ns in list_namespaces():
        m = NS_RE.match(ns)
        if m:
            prefixes.add(m.group(1))
    for name in host_links():
        prefixes.add(PREFIX_RE.match(name).group(1))
    d = state_dir()
    if d.is_dir():
        for f in list(d.glob("sf*.json")) + list(d.glob("sf*.d")):
            m = PREFIX_RE.match(f.name)
            if m:
                prefixes.add(m.group(1))
    cleaned = []
    for prefix in sorted(prefixes):
        if owner_alive(prefix):
            continue
        pids: list[tuple[int, int | None]] = []
        try:
            data = json.loads((d / f"{prefix}.json").read_text())
            pids = [(int(p), s) for p, s in data.get("pids", [])]
        except (OSError, ValueError):
            pass
        problems = teardown(prefix, pids, [])
        for p in problems:
            log.warning("stale cleanup: %s", p)
        cleaned.append(prefix)
    return cleaned


def leftovers(prefix: str | None = None) -> dict[str, list[str]]:
    """What of ours (``prefix`` or any run) is still on the host: namespaces, host links,
    records, processes started by a run that are still alive. For tests and diagnostics."""
    ns = [n for n in list_namespaces() if NS_RE.match(n) and (prefix is None or n.startswith(prefix + "-"))]
    recs = []
    procs = []
    d = state_dir()
    if d.is_dir():
        for f in d.glob("sf*.d"):
            if prefix is None or f.name == f"{prefix}.d":
                recs.append(f.name)
        for f in d.glob("sf*.json"):
            if prefix is None or f.stem == prefix:
                recs.append(f.name)
                try:
                    for p, s in json.loads(f.read_text()).get("pids", []):
                        if _alive(int(p), s):
                            procs.append(str(p))
                except (OSError, ValueError):
                    pass
    return {"namespaces": ns, "host_links": host_links(prefix), "records": recs, "processes": procs}
