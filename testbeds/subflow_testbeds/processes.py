"""Processes of a Subflow deployment, for the tests and benchmarks that start one for real.

One copy of what they all do: pick a free loopback port, wait until a process answers over
HTTP, start ``scripts/serve.sh`` (the README's way) and sign in as its first admin, stop a
process group, read a process's CPU time. Loopback only: every address is 127.0.0.1.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import httpx

#: Seconds ``scripts/serve.sh`` may take to print "Subflow is running" (migrations, seeding and
#: three processes on a loaded 2-core machine).
SERVE_STARTUP_S = 180.0


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (nothing listens on it once this returns)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tail(path: Path, lines: int = 40) -> str:
    """The last ``lines`` lines of a log file, or a note that there is none."""
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return f"(no log at {path})"


def wait_http(url: str, *, alive: Callable[[], None] | None = None, timeout_s: float = 60.0,
              interval_s: float = 0.2, what: str = "") -> None:
    """Poll ``url`` until it answers 200.

    Parameters
    ----------
    url : str
        The URL to GET (1 s timeout per try).
    alive : callable, optional
        Called before each try; it raises when the process that should answer has exited.
    timeout_s, interval_s : float
        Seconds to wait in all, and between tries.
    what : str
        Appended to the error (e.g. the tail of the process's log).

    Raises
    ------
    TimeoutError
        If ``url`` did not answer 200 within ``timeout_s``.
    """
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if alive is not None:
            alive()
        try:
            if httpx.get(url, timeout=1.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(interval_s)
    raise TimeoutError(f"{url} did not answer 200 within {timeout_s:.0f} s\n{what}")


def exited_check(popen: subprocess.Popen, log: Path, name: str = "process") -> Callable[[], None]:
    """An ``alive`` callable for :func:`wait_http`: raises ``RuntimeError`` with the log's tail
    once ``popen`` has exited."""

    def check() -> None:
        if popen.poll() is not None:
            raise RuntimeError(f"{name} exited with {popen.returncode}:\n{tail(log)}")

    return check


def start_serve(root: Path, env: Mapping[str, str], log: Path) -> subprocess.Popen:
    """Start ``scripts/serve.sh`` of ``root`` in its own process group (so :func:`stop_group` ends
    every process it started) and wait until it prints "Subflow is running".

    ``env`` is the whole environment (``SUBFLOW_DATA_DIR``, ``SUBFLOW_PORT``, ``AGENT_PORT`` …).

    Raises
    ------
    RuntimeError
        If serve.sh exits or does not start within :data:`SERVE_STARTUP_S`; the message holds the
        tail of its output.
    """
    with log.open("ab") as fh:
        popen = subprocess.Popen([str(root / "scripts" / "serve.sh")], env=dict(env), cwd=root, stdout=fh,
                                 stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + SERVE_STARTUP_S
    while "Subflow is running" not in log.read_text(errors="replace"):
        if popen.poll() is not None or time.monotonic() > deadline:
            stop_group(popen)
            raise RuntimeError(f"serve.sh did not start:\n{tail(log, 60)}")
        time.sleep(0.2)
    return popen


def sign_in(base_url: str, credentials: Path) -> str:
    """An access token of the first admin, whose ``username:password`` serve.sh wrote to
    ``credentials`` (``<data dir>/admin-credentials``). Raises ``httpx.HTTPStatusError`` on a refusal."""
    user, password = credentials.read_text().strip().split(":", 1)
    r = httpx.post(f"{base_url}/api/auth/login", data={"username": user, "password": password}, timeout=30)
    r.raise_for_status()
    return r.json()["access_token"]


def stop_group(popen: subprocess.Popen, timeout_s: float = 60.0) -> None:
    """SIGTERM the process group of ``popen`` (started with ``start_new_session=True``), then
    SIGKILL if it has not ended within ``timeout_s``."""
    if popen.poll() is not None:
        return
    os.killpg(popen.pid, signal.SIGTERM)
    try:
        popen.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(popen.pid, signal.SIGKILL)
        popen.wait(timeout=10)


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (Linux ``/proc/<pid>/stat``, fields 14-15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
