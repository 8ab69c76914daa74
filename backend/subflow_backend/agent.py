"""What the emulator agent can run, as the API sees it (cached ``GET /capabilities``)."""

from __future__ import annotations

import threading
import time
from typing import Any

import httpx

from subflow_backend.settings import settings

_CACHE_S = 30.0
_lock = threading.Lock()
_cached: tuple[float, dict[str, Any]] | None = None


def capabilities(refresh: bool = False) -> dict[str, Any]:
    """The agent's ``{"engines": [...]}`` plus ``"agent_reachable"``.

    Cached for 30 s. When the agent cannot be reached, the engines named in
    ``settings.ENGINES`` are listed with ``"available": null`` (unknown) and
    ``"agent_reachable": false``; this never raises.
    """
    global _cached
    with _lock:
        if not refresh and _cached is not None and time.monotonic() - _cached[0] < _CACHE_S:
            return _cached[1]
    try:
        r = httpx.get(
            f"{settings.AGENT_URL.rstrip('/')}/capabilities",
            headers={"Authorization": f"Bearer {settings.AGENT_TOKEN}"},
            timeout=3.0,
        )
        r.raise_for_status()
        body = r.json()
        engines = body.get("engines") if isinstance(body, dict) else None
        if not isinstance(engines, list):
            raise ValueError("no engines list")
        result = {"agent_reachable": True, "engines": engines}
    except (httpx.HTTPError, ValueError) as exc:
        result = {
            "agent_reachable": False,
            "error": str(exc) or type(exc).__name__,
            "engines": [{"name": n, "description": "", "available": None, "strategies": [], "supports": {}}
                        for n in settings.ENGINES],
        }
    with _lock:
        _cached = (time.monotonic(), result)
    return result


def snapshot() -> dict[str, Any] | None:
    """The last result of :func:`capabilities`, however old, or None; never calls the agent."""
    with _lock:
        return None if _cached is None else _cached[1]


def engine_names() -> list[str]:
    """Engines a comparison may name: ``settings.ENGINES`` and every engine the agent reports available."""
    names = list(settings.ENGINES)
    for e in capabilities().get("engines", []):
        if e.get("available") and e.get("name") not in names:
            names.append(e["name"])
    return names
