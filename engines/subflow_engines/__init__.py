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

from subflow_engines import fluid, linux, mininet_wifi


@dataclass(frozen=True)
class EngineInfo:
    name: str
    description: str
    run: Callable[..., EngineOutput]
    available: bool = True
    strategies: tuple[str, ...] = ()
    supports: dict[str, Any] = field(default_factory=dict)
    #: checks a plan before it runs; raises :class:`subflow.errors.EngineCannotRun` naming the parameter
    validate: Callable[[RunPlan], Any] | None = None

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

_probed: dict[str, EngineInfo] = {}


def all_engines(refresh: bool = False) -> dict[str, EngineInfo]:
    """Every engine with what this host offers: ``fluid`` always; ``linux`` and ``mininet-wifi``
    after probing the host (once, cached; ``refresh`` probes again). Importing this package
    probes nothing, so the CLI and the fluid engine start fast."""
    if refresh or not _probed:
        caps = linux.detect()
        _probed["linux"] = EngineInfo(
            name="linux",
            description=linux.DESCRIPTION,
            run=linux.run,
            available=caps.available,
            strategies=linux.supported_strategies(),
            supports=linux.supports(caps),
            validate=lambda plan, caps=caps: linux.validate(plan, caps),
        )
        _probed["mininet-wifi"] = EngineInfo(
            name="mininet-wifi",
            description=mininet_wifi.DESCRIPTION,
            run=mininet_wifi.run,
            available=mininet_wifi.available(),
            strategies=tuple(sorted(STRATEGIES)),
            supports=mininet_wifi.supports(),
        )
    return {**ENGINES, **_probed}


def startup() -> None:
    """Agent start-up: probe the host and remove stale leftovers of dead ``linux`` runs."""
    linux.startup()
    all_engines(refresh=True)


def get_engine(name: str) -> EngineInfo:
    """Return the engine called ``name``.

    Raises
    ------
    UnknownEngine
        If it is not registered or not available on this host.
    """
    info = ENGINES.get(name) or all_engines().get(name)
    if info is None or not info.available:
        raise UnknownEngine(name, sorted(n for n, e in all_engines().items() if e.available))
    return info


def run_plan(plan: RunPlan, **kwargs: Any) -> EngineOutput:
    """Run ``plan`` on the engine it names (``plan.engine``)."""
    return get_engine(plan.engine).run(plan, **kwargs)
