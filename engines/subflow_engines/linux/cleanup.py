"""Ownership records and teardown for the ``linux`` engine.

A run's prefix ``sf<6 hex>`` is its owner id: every name it creates starts with it (namespaces
``<prefix>-<node>``, interfaces ``<prefix>…``, the work directory ``<prefix>.d``). Before a run
creates anything it writes ``$SUBFLOW_LINUX_STATE_DIR/<prefix>.json`` (default
``/run/subflow-linux``) naming its owner process (pid + start time, so a recycled pid is not
taken for the owner), each namespace before it is added and, as they start, the PIDs of the
processes it launched (with their start times, so a recycled PID is never signalled). Teardown
signals those PIDs, kills whatever else runs in the run's namespaces, deletes the namespaces
(which removes their veths, bridges, qdiscs, iptables rules and MPTCP endpoints) and the work
directory, and removes the record last; where a namespace cannot be deleted the record stays,
marked ``abandoned``, so the next sweep tries again.

:func:`cleanup_stale` (the sweep: the agent's start-up and the start of every run) removes the
leftovers of runs whose owner is gone: a record whose owner process is dead (or that its owner
abandoned), with its namespaces, links, processes and work directory. Leftovers without a record
(none are made by this module: a record is written first and removed last) are removed only once
they are older than :data:`ORPHAN_GRACE_S` and no process runs in their namespaces. A live owner's
run (another agent, a test, another state directory's run) is left alone.
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

from subflow.errors import CommandFailed

from . import commands
from .commands import check_name

log = logging.getLogger("subflow_engines.linux")

PREFIX_RE = re.compile(r"^(sf[0-9a-f]{6})")
NS_RE = re.compile(r"^(sf[0-9a-f]{6})-[a-z0-9-]+$")
#: seconds before leftovers that carry a run prefix but have no record count as orphans
ORPHAN_GRACE_S = 120.0
#: attempts at deleting a namespace (a loaded host can make ``ip`` time out)
NETNS_DEL_ATTEMPTS = 3


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
    """Whether ``pid`` runs and started at ``start`` (clock ticks; None: any start). A zombie (exited,
    not yet reaped by its parent) does not run: waiting for it to exit would wait in vain."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    fields = stat.rsplit(")", 1)[1].split()
    return fields[0] not in ("Z", "X") and (start is None or int(fields[19]) == start)


#: where ``ip netns add`` mounts the named namespaces
NETNS_DIR = Path("/run/netns")


def list_namespaces() -> list[str]:
    """Names of every named network namespace (the entries of ``/run/netns``, as ``ip netns list``
    shows them, read without a subprocess so a loaded host cannot make it time out)."""
    try:
        return sorted(os.listdir(NETNS_DIR))
    except OSError:
        return []


def _quiet(args: list[str], problems: list[str], timeout: float = 30.0) -> str | None:
    """Run ``args`` (no shell), never raising: stdout, or None with the failure added to ``problems``."""
    try:
        proc = commands.run(args, check=False, timeout=timeout)
    except CommandFailed as exc:
        problems.append(str(exc))
        return None
    if proc.returncode != 0:
        problems.append(f"{' '.join(args)}: {proc.stderr.strip()}")
        return None
    return proc.stdout


class RunRecord:
    """The on-disk ownership record of one run (or capability probe)."""

    def __init__(self, prefix: str):
        self.prefix = check_name(prefix)
        self.path = state_dir() / f"{prefix}.json"
        self.pids: list[tuple[int, int | None]] = []
        self.namespaces: list[str] = []

    def write(self) -> None:
        """Write the record (atomically: a reader sees the old one or the new one)."""
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


def _kill_namespace_processes(namespaces: list[str], problems: list[str]) -> None:
    """SIGKILL every process inside ``namespaces`` (only a run puts processes there)."""
    for ns in namespaces:
        check_name(ns)
        out = _quiet(["ip", "netns", "pids", ns], problems) or ""
        for p in out.split():
            if p.isdigit():
                try:
                    os.kill(int(p), signal.SIGKILL)
                except ProcessLookupError:
                    pass


def _delete_namespaces(namespaces: list[str], problems: list[str]) -> list[str]:
    """``ip netns del`` each of ``namespaces``, up to :data:`NETNS_DEL_ATTEMPTS` times; returns
    those still listed afterwards."""
    left = list(namespaces)
    for _ in range(NETNS_DEL_ATTEMPTS):
        tries: list[str] = []
        for ns in left:
            _quiet(["ip", "netns", "del", ns], tries)
        existing = set(list_namespaces())
        left = [ns for ns in left if ns in existing]
        if not left:
            return []
        problems.extend(tries)
        _kill_namespace_processes(left, problems)
        time.sleep(0.2)
    return left


def _abandon(prefix: str, left: list[str]) -> None:
    """Mark the record of ``prefix`` abandoned (its owner gave up on ``left``): the next sweep retries."""
    path = state_dir() / f"{prefix}.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        data = {"prefix": prefix, "owner_pid": -1, "owner_start": None, "pids": []}
    data["abandoned"] = True
    data["namespaces"] = left
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data))
    tmp.replace(path)


def teardown(prefix: str, pids: list[tuple[int, int | None]], namespaces: list[str]) -> list[str]:
    """Stop the run's processes and delete its namespaces, links, work directory and record.

    Processes: SIGTERM to each recorded PID (checked against its start time), then
    SIGKILL after 2 s. Any process still inside one of the run's namespaces (a child
    of one of ours) is killed too: only the run puts processes there. No step raises (a
    command that fails or times out on a loaded host is a problem returned, and the
    next step runs); a namespace still listed after :data:`NETNS_DEL_ATTEMPTS` deletions
    keeps the record, marked abandoned, for the next :func:`cleanup_stale`.

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
    _kill_namespace_processes(mine, problems)
    left = _delete_namespaces(mine, problems)
    # links that could have been left in the host namespace (none normally: veths are created in place)
    for name in host_links(prefix):
        _quiet(["ip", "link", "del", name], problems)
    shutil.rmtree(work_dir(prefix), ignore_errors=True)
    if left:
        _abandon(prefix, left)
        return problems
    for path in (state_dir() / f"{prefix}.json", state_dir() / f"{prefix}.tmp"):
        try:
            path.unlink()
        except FileNotFoundError:
            pass
    return problems


def host_links(prefix: str | None = None) -> list[str]:
    """Interfaces in the host namespace whose names carry a run prefix (``prefix`` or any)."""
    try:
        proc = commands.run(["ip", "-o", "link", "show"], check=False)
    except CommandFailed:
        return []
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


def read_record(prefix: str) -> dict | None:
    """The record of run ``prefix`` as written by :class:`RunRecord` (``owner_pid``, ``owner_start``,
    ``pids``, ``namespaces``, ``abandoned`` when its owner gave up on it), or None without one."""
    try:
        data = json.loads((state_dir() / f"{check_name(prefix)}.json").read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def owner_alive(prefix: str) -> bool:
    """True if the run ``prefix`` has a record whose owner process is still running (and has
    not abandoned it)."""
    data = read_record(prefix)
    if data is None or data.get("abandoned"):
        return False
    return _alive(int(data.get("owner_pid", -1)), data.get("owner_start"))


def _prefixes_on_host() -> set[str]:
    """Every run prefix found in a namespace name, a host link name or the state directory."""
    prefixes: set[str] = set()
    for ns in list_namespaces():
        m = NS_RE.match(ns)
        if m:
            prefixes.add(m.group(1))
    for name in host_links():
        prefixes.add(PREFIX_RE.match(name).group(1))
    d = state_dir()
    if d.is_dir():
        for f in d.iterdir():
            m = PREFIX_RE.match(f.name)
            if m and f.suffix in (".json", ".d", ".tmp"):
                prefixes.add(m.group(1))
    return prefixes


def _orphan_without_record(prefix: str, grace_s: float) -> bool:
    """Whether the leftovers of ``prefix``, which has no record, are an orphan's: every namespace
    and file of it older than ``grace_s`` and no process in its namespaces (a run whose record lives
    elsewhere, e.g. another ``SUBFLOW_LINUX_STATE_DIR``, still has its traffic running)."""
    now = time.time()
    paths = [NETNS_DIR / ns for ns in list_namespaces() if ns.startswith(prefix + "-")]
    paths += [p for p in state_dir().glob(f"{prefix}.*")] if state_dir().is_dir() else []
    for path in paths:
        try:
            if now - path.stat().st_mtime < grace_s:
                return False
        except OSError:
            continue
    for path in paths:
        if path.parent == NETNS_DIR:
            problems: list[str] = []
            out = _quiet(["ip", "netns", "pids", path.name], problems)
            if out is None or out.split():
                return False
    return True


def cleanup_stale(grace_s: float = ORPHAN_GRACE_S) -> list[str]:
    """The sweep: remove the leftovers of runs whose owner process is gone.

    A prefix with a record is removed when the record's owner (pid and start time) is dead or
    abandoned it; a prefix without one when :func:`_orphan_without_record` says so (``grace_s``,
    seconds). A run whose owner lives is never touched. Never raises on a failing command (the
    problems are logged).

    Returns
    -------
    list of str
        The prefixes cleaned.
    """
    cleaned = []
    for prefix in sorted(_prefixes_on_host()):
        data = read_record(prefix)
        if data is None:
            if not _orphan_without_record(prefix, grace_s):
                continue
        elif owner_alive(prefix):
            continue
        pids: list[tuple[int, int | None]] = []
        try:
            pids = [(int(p), s) for p, s in (data or {}).get("pids", [])]
        except (TypeError, ValueError):
            pass
        recorded = [n for n in (data or {}).get("namespaces", []) if isinstance(n, str) and NS_RE.match(n)]
        problems = teardown(prefix, pids, recorded)
        for p in problems:
            log.warning("stale cleanup of %s: %s", prefix, p)
        cleaned.append(prefix)
    return cleaned


def leftovers(prefix: str | None = None, owner_pid: int | None = None) -> dict[str, list[str]]:
    """What of ours is still on the host: namespaces, host links, records (and work
    directories), processes started by a run that are still alive. For tests and diagnostics.

    ``prefix``: only that run's; ``owner_pid``: only the runs whose record names that owner
    process (leftovers without a record then count for no owner). Both None: every run's."""
    prefixes = None
    if owner_pid is not None:
        prefixes = {p for p in _prefixes_on_host() if (read_record(p) or {}).get("owner_pid") == owner_pid}
        if prefix is not None:
            prefixes &= {prefix}
    elif prefix is not None:
        prefixes = {prefix}

    def ours(p: str | None) -> bool:
        return p is not None and (prefixes is None or p in prefixes)

    ns = [n for n in list_namespaces() if NS_RE.match(n) and ours(NS_RE.match(n).group(1))]
    links = [n for n in host_links() if ours(PREFIX_RE.match(n).group(1))]
    recs = []
    procs = []
    d = state_dir()
    if d.is_dir():
        for f in sorted(d.iterdir()):
            m = PREFIX_RE.match(f.name)
            if not (m and f.suffix in (".json", ".d", ".tmp") and ours(m.group(1))):
                continue
            recs.append(f.name)
            if f.suffix == ".json":
                for p, s in (read_record(m.group(1)) or {}).get("pids", []):
                    if _alive(int(p), s):
                        procs.append(str(p))
    return {"namespaces": ns, "host_links": links, "records": recs, "processes": procs}
