"""Checks of a comparison request, made by the API before anything is stored or queued.

The request is checked from what the backend knows at once; no run plan is
resolved here (the worker resolves them) and, for the engines configured in
``settings.ENGINES``, the emulator agent is not called:

* every strategy is registered (:class:`~subflow.errors.UnknownStrategy`);
* the engine is known: configured in ``settings.ENGINES`` or reported available
  by the agent's cached ``GET /capabilities`` (:mod:`subflow_backend.agent`,
  30 s cache, 3 s timeout; :class:`~subflow.errors.UnknownEngine`), and it lists
  every requested strategy when a capabilities snapshot says what it runs
  (:class:`StrategyNotSupported`);
* the sweep's parameter path names a field and every value gives a valid
  scenario (:class:`~subflow.errors.ScenarioInvalid`, ``loc ["sweep", ...]``);
* the scenario sets no field that the engine's declaration (``fields`` of its entry in the
  capabilities snapshot, :mod:`subflow.runplan.capabilities`) refuses or lacks
  (:class:`~subflow.errors.FieldNotHonoured`, ``loc`` in the document);
* no flow of the scenario joins two nodes that no link and no association of
  the run ever connect, not even at different times (:func:`subflow.comparison.connectivity.check_connectable`,
  :class:`subflow.errors.FlowUnreachable`).
  This is a necessary condition only: a flow whose endpoints are connected
  through links that are never up at the same time is found by the worker,
  which fails the comparison naming the flow.

What the agent's host cannot honour (e.g. a delay the ``linux`` engine cannot
emulate) is refused by the agent when the worker submits the plan, and the
comparison becomes ``failed`` with the agent's reason.
"""

from __future__ import annotations

import copy
from typing import Any

from subflow.comparison.connectivity import check_connectable
from subflow.comparison.sweeps import SweepSpec, expand
from subflow.errors import StrategyNotSupported, UnknownEngine
from subflow.runplan.capabilities import check_fields, from_description
from subflow.runplan.strategies import get_strategy
from subflow.scenario.document import Scenario, load_scenario
from subflow.service.agent_api import EngineCapabilities

from subflow_backend import agent
from subflow_backend.schemas import EnginesPublic
from subflow_backend.settings import settings


def _engine_entry(snapshot: EnginesPublic | None, engine: str) -> EngineCapabilities | None:
    if snapshot is None or not snapshot.agent_reachable:
        return None
    return next((e for e in snapshot.engines if e.name == engine), None)


def check_engine(engine: str, strategies: list[str]) -> None:
    """Check that ``engine`` is known and runs every one of ``strategies``.

    An engine of ``settings.ENGINES`` is accepted without asking the agent; its
    strategies are checked against the last capabilities snapshot, if there is
    one. Any other engine must be reported available by the agent (cached
    capabilities, fetched with a 3 s timeout when older than 30 s).

    Raises
    ------
    UnknownEngine
        The engine is neither configured nor available at the agent.
    StrategyNotSupported
        The capabilities of the engine do not list a requested strategy.
    """
    if engine in settings.ENGINES:
        entry = _engine_entry(agent.snapshot(), engine)
    else:
        entry = _engine_entry(agent.capabilities(), engine)
        if entry is None or not entry.available:
            raise UnknownEngine(engine, agent.engine_names())
    supported = list(entry.strategies or []) if entry else []
    if not supported:
        return  # nothing known about its strategies: the agent checks the plan
    for i, name in enumerate(strategies):
        if name not in supported:
            raise StrategyNotSupported(engine, name, i, supported)


def check_fields_honoured(engine: str, scenario: Scenario) -> None:
    """Refuse a scenario field that ``engine`` does not honour, from the engine's declaration in
    the last capabilities snapshot (nothing known: the agent checks the plan when it arrives).

    Raises
    ------
    FieldNotHonoured
        Naming the field (``loc`` its path in the scenario document).
    """
    entry = _engine_entry(agent.snapshot(), engine)
    if entry is not None and entry.fields is not None:
        check_fields(scenario, from_description(entry.fields.model_dump()), engine)


def check_request(
    document: dict[str, Any],
    strategies: list[str],
    engine: str,
    seed: int | None,
    repetitions: int,
    sweep: SweepSpec | None,
) -> tuple[Scenario, int]:
    """Check a comparison request on the stored scenario ``document``.

    Returns
    -------
    (Scenario, int)
        The scenario as it will run (``seed`` applied to ``run.seed`` unless
        None) and the number of units (sweep points × ``repetitions``).

    Raises
    ------
    UnknownStrategy, UnknownEngine, StrategyNotSupported, FieldNotHonoured, FlowUnreachable
        As described in the module docstring.
    ScenarioInvalid
        The stored document no longer validates (``loc`` in the document), or
        the sweep is bad (``loc ["sweep", "parameter"]`` or
        ``["sweep", "values", k, ...]``).
    """
    for name in strategies:
        get_strategy(name)
    check_engine(engine, strategies)
    snapshot = copy.deepcopy(document)
    if seed is not None:
        snapshot.setdefault("run", {})["seed"] = seed
    scenario = load_scenario(snapshot)
    points = expand(scenario.model_dump(mode="json"), sweep, 1)  # validates every point
    check_fields_honoured(engine, scenario)
    check_connectable(scenario)
    return scenario, len(points) * repetitions
