"""What the emulator agent can run, as the API sees it (cached ``GET /capabilities``)."""

from __future__ import annotations

import threading
import time
import httpx
from pydantic import ValidationError

from subflow.service.agent_api import Capabilities, EngineCapabilities

from subflow_backend.schemas import EnginesPublic
from subflow_backend.settings import settings

_CACHE_S = 30.0
_lock = threading.Lock()
_cached: tuple[float, EnginesPublic] | None = None


def capabilities(refresh: bool = False) -> EnginesPublic:
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
        result = EnginesPublic(agent_reachable=True, engines=Capabilities.model_validate_json(r.content).engines)
    except (httpx.HTTPError, ValidationError) as exc:
        result = EnginesPublic(
            agent_reachable=False,
            error=str(exc) or type(exc).__name__,
            engines=[EngineCapabilities(name=n, available=None) for n in settings.ENGINES],
        )
    with _lock:
        _cached = (time.monotonic(), result)
    return result


def snapshot() -> EnginesPublic | None:
    """The last result of :func:`capabilities`, however old, or None; never calls the agent."""
    with _lock:
        return None if _cached is None else _cached[1]


def engine_names() -> list[str]:
    """Engines a comparison may name: ``settings.ENGINES`` and every engine the agent reports available."""
    names = list(settings.ENGINES)
    for e in capabilities().engines:
        if e.available and e.name not in names:
            names.append(e.name)
    return names
