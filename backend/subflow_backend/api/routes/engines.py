"""``/api/engines``: the engines of the emulator agent and what each supports."""

from __future__ import annotations

from fastapi import APIRouter

from subflow_backend import agent
from subflow_backend.schemas import EnginesPublic

router = APIRouter(prefix="/engines", tags=["engines"])


@router.get("", response_model=EnginesPublic)
def list_engines(refresh: bool = False) -> EnginesPublic:
    """``{"agent_reachable": bool, "engines": [{"name", "description", "available", "strategies",
    "supports"}]}`` from the agent's ``GET /capabilities`` (cached 30 s; ``refresh=true`` re-reads).
    If the agent is down, the configured engines are listed with ``available: null``."""
    return agent.capabilities(refresh=refresh)
