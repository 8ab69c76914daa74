"""The emulator agent's HTTP documents: ``GET /capabilities``, ``GET /health`` and a run.

Shared by the agent (which answers them), the worker's agent client (which
reads runs) and the backend (which relays the capabilities as
``GET /api/engines``), so each shape is defined once.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from subflow.results.document import EngineOutput

RunStatus = Literal["queued", "running", "succeeded", "failed", "cancelled"]


class FieldDeclaration(BaseModel):
    """Which scenario fields an engine honours (:func:`subflow.runplan.capabilities.describe`): every field of the
    scenario JSON Schema, named ``"<definition>.<property>"`` (``"Link.jitter_ms"``), in exactly one
    of the three maps. A scenario that sets a refused (or undeclared) field is refused naming it."""

    honours: dict[str, str] = Field(default_factory=dict, description="Field -> how the engine applies it.")
    describes: dict[str, str] = Field(
        default_factory=dict, description="Field -> what it names; it changes no figure of a run.")
    refuses: dict[str, str] = Field(
        default_factory=dict, description="Field -> why the engine cannot apply it (a run setting it is refused).")


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
    fields: FieldDeclaration | None = Field(
        default=None,
        description="The engine's declaration of the scenario fields it honours; null: not known "
        "(agent unreachable), the agent then checks the plan when it arrives.",
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
