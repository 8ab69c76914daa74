"""Engines that execute a :class:`subflow.plan.RunPlan`.

Every engine exposes ``run(plan, on_progress=None, should_stop=None) ->
EngineOutput`` and a capabilities entry for ``GET /capabilities``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from subflow.errors import UnknownEngine
from subflow.plan import RunPlan
from subflow.results import EngineOutput
from subflow.strategies import STRATEGIES

from subflow_agent.engines import fluid


@dataclass(frozen=True)
class EngineInfo:
    name: str
    description: str
    run: Callable[..., EngineOutput]
    available: bool = True
    strategies: tuple[str, ...] = ()
    supports: dict[str, Any] = field(default_factory=dict)

    def capabilities(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "available": self.available,
            "strategies": list(self.strategies),
            "supports": self.supports,
        }


ENGINES: dict[str, EngineInfo] = {
    "fluid": EngineInfo(
        name="fluid",
        description="Embedded flow-level simulator: per-subflow cwnd dynamics, fluid drop-tail "
        "queues, RTO backoff at handover. Runs anywhere, faster than real time.",
        run=fluid.run,
        strategies=tuple(sorted(STRATEGIES)),
        supports={
            "link_parameters": ["bandwidth_mbps", "delay_ms", "loss", "jitter_ms", "queue_packets"],
            "jitter": "varies RTT samples (affects RTO), not packet order",
            "mobility": ["static", "waypoints", "linear", "random_walk"],
            "real_time": False,
        },
    ),
}


def get_engine(name: str) -> EngineInfo:
    """Return the engine called ``name``.

    Raises
    ------
    UnknownEngine
        If it is not registered or not available on this host.
    """
    info = ENGINES.get(name)
    if info is None or not info.available:
        raise UnknownEngine(name, sorted(n for n, e in ENGINES.items() if e.available))
    return info


def run_plan(plan: RunPlan, **kwargs: Any) -> EngineOutput:
    """Run ``plan`` on the engine it names (``plan.engine``)."""
    return get_engine(plan.engine).run(plan, **kwargs)
