"""Engines that execute a :class:`subflow.runplan.document.RunPlan`.

Every engine exposes ``run(plan, on_progress=None, should_stop=None) ->
EngineOutput``, a capabilities entry for ``GET /capabilities`` and ``FIELDS``, its
declaration of the scenario fields it honours (:mod:`subflow.runplan.capabilities`). The
``run`` of an :class:`EngineInfo` refuses a plan whose scenario sets a field the
engine does not honour (:meth:`EngineInfo.check`), so no field is silently ignored.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from subflow.errors import UnknownEngine
from subflow.results.document import EngineOutput
from subflow.runplan.capabilities import Declaration, check_fields, describe
from subflow.runplan.document import RunPlan
from subflow.runplan.output_checks import check_output
from subflow.runplan.strategies import STRATEGIES

from subflow_engines import fluid, linux, mininet_wifi


@dataclass(frozen=True)
class EngineInfo:
    name: str
    description: str
    #: the engine's own entry point (unchecked); callers use :meth:`run`
    run_unchecked: Callable[..., EngineOutput]
    #: which scenario fields the engine honours (:mod:`subflow.runplan.capabilities`)
    fields: Declaration
    available: bool = True
    strategies: tuple[str, ...] = ()
    supports: dict[str, Any] = field(default_factory=dict)
    #: host-specific checks of a plan before it runs; raise :class:`subflow.errors.EngineCannotRun`
    #: naming the parameter
    validate: Callable[[RunPlan], Any] | None = None
    #: physical checks of a measured output against its plan (:func:`subflow.runplan.output_checks.check_output`);
    #: None where the engine checks itself at every sample (fluid)
    check_output: Callable[[RunPlan, EngineOutput], None] | None = None

    def check(self, plan: RunPlan) -> None:
        """Refuse ``plan`` before anything starts.

        Raises
        ------
        EngineCannotRun
            Naming the scenario field (``links[3].jitter_ms=20``) the engine does not honour
            (:func:`subflow.runplan.capabilities.check_fields`), or the parameter this host cannot apply.
        """
        if plan.scenario is not None:
            check_fields(plan.scenario, self.fields, self.name)
        if self.validate is not None:
            self.validate(plan)

    def run(self, plan: RunPlan, **kwargs: Any) -> EngineOutput:
        """:meth:`check` the plan, run it (keyword arguments go to the engine), and check its output.

        Raises
        ------
        EngineCannotRun
            From :meth:`check`.
        EngineInvariantViolated
            When the output breaks a physical bound (:mod:`subflow.runplan.output_checks`).
        """
        self.check(plan)
        out = self.run_unchecked(plan, **kwargs)
        if self.check_output is not None:
            self.check_output(plan, out)
        return out

    def capabilities(self) -> dict[str, Any]:
        """The engine's entry of ``GET /capabilities`` (:class:`subflow.service.agent_api.EngineCapabilities`),
        its field declaration as ``fields`` (:func:`subflow.runplan.capabilities.describe`)."""
        return {
            "name": self.name,
            "description": self.description,
            "available": self.available,
            "strategies": list(self.strategies),
            "supports": self.supports,
            "fields": describe(self.fields),
        }


ENGINES: dict[str, EngineInfo] = {
    "fluid": EngineInfo(
        name="fluid",
        description="Embedded flow-level simulator: per-subflow cwnd dynamics, fluid drop-tail "
        "queues, RTO backoff at handover. Runs anywhere, faster than real time.",
        run_unchecked=fluid.run,
        fields=fluid.FIELDS,
        strategies=tuple(sorted(STRATEGIES)),
        supports={
            "link_parameters": ["bandwidth_mbps", "delay_ms", "loss", "jitter_ms", "queue_packets"],
            "jitter": "varies RTT samples (affects RTO), not packet order",
            "mobility": ["static", "waypoints", "linear", "random_walk", "random_waypoint", "gauss_markov", "loiter"],
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
            run_unchecked=linux.run,
            fields=linux.FIELDS,
            available=caps.available,
            strategies=linux.supported_strategies(),
            supports=linux.supports(caps),
            validate=lambda plan, caps=caps: linux.validate(plan, caps),
            check_output=check_output,
        )
        _probed["mininet-wifi"] = EngineInfo(
            name="mininet-wifi",
            description=mininet_wifi.DESCRIPTION,
            run_unchecked=mininet_wifi.run,
            fields=mininet_wifi.FIELDS,
            available=mininet_wifi.available(),
            strategies=tuple(sorted(STRATEGIES)),
            supports=mininet_wifi.supports(),
            # the emulated 802.11 PHY sets the air rate, not the plan
            check_output=lambda plan, out: check_output(plan, out, unbounded_kinds=("air",)),
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
