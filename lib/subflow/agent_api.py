"""The emulator agent's HTTP documents: ``GET /capabilities``, ``GET /health`` and a run.

Shared by the agent (which answers them), the worker's agent client (which
reads runs) and the backend (which relays the capabilities as
``GET /api/engines``), so each shape is defined once.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from subflow.results import EngineOutput

RunStatus = Literal["queued", "running", "succeeded", "failed", "cancelled"]


class EngineCapabilities(BaseModel):
    """One engine on the agent's host."""

    name: str = Field(description="Engine name a comparison may ask for (`fluid`, `linux`, ...).")
    description: str = ""
    available: bool | None = Field(description="Whether it can run on this host; null: unknown (agent unreachable).")
    strategies: list[str] = Field(default_factory=list, description="Strategy names it runs.")
    supports: dict[str, Any] = Field(
        default_factory=dict,
        description="Engine-specific notes: link parameters and mobility models honoured, real time or not, "
        "kernel features found (free-form, for people).",
    )


class Capabilities(BaseModel):
    """``GET /capabilities`` of the emulator agent."""

    engines: list[EngineCapabilities]


class AgentHealth(BaseModel):
    """``GET /health`` of the agent."""

    status: Literal["ok"]


class RunPublic(BaseModel):
    """A run of the agent (``POST /runs``, ``GET``/``DELETE /runs/{id}``): ``progress`` in [0, 1];
    ``output`` once ``succeeded``; ``error`` says why it ``failed`` (including
    ``time budget of N s exceeded``)."""

    id: str
    status: RunStatus
    engine: str
    strategy: str
    progress: float = Field(ge=0, le=1)
    error: str | None = None
    output: EngineOutput | None = None
