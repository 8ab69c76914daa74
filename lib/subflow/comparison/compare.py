"""One comparison code path shared by the CLI, the worker and the tests.

:func:`compare` resolves a plan per strategy, hands it to a *runner* (the
in-process engine for the CLI, the emulator agent over HTTP for the worker),
summarises each output and assembles the versioned result document.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from typing import Any

from subflow.results.document import (
    EngineOutput,
    ResultDocument,
    StrategyResult,
    comparison_document,
    event_order,
    parse_events,
    summarize,
)
from subflow.results.planned import has_rate_plan, plan_comparison
from subflow.runplan.document import RunPlan
from subflow.runplan.resolve import resolve_plan
from subflow.runplan.strategies import get_strategy
from subflow.scenario.document import Scenario, load_scenario

Runner = Callable[[RunPlan], EngineOutput]


def run_strategy(scenario: Scenario, strategy: str, runner: Runner, engine: str = "fluid") -> StrategyResult:
    """Resolve, run and summarise one strategy on ``scenario``.

    Raises
    ------
    ScenarioInvalid, UnknownStrategy, Unreachable
        From :func:`subflow.runplan.resolve.resolve_plan`.
    """
    plan = resolve_plan(scenario, strategy, engine)
    return strategy_result(scenario, plan, runner(plan))


def strategy_result(scenario: Scenario, plan: RunPlan, output: EngineOutput) -> StrategyResult:
    """The summary of ``output``, the engine's run of ``plan`` (:func:`subflow.results.document.summarize`), with the
    plan's radio events merged into the engine's transport events in time order and, for a plan with planned
    rates, the planned-versus-measured comparison."""
    windows = {f.id: (f.start_s, f.stop_s) for f in plan.flows}
    result = summarize(output, plan.interval_s, windows)
    result.events = sorted(parse_events(plan.events) + result.events, key=event_order)
    if has_rate_plan(result):
        result.planned = plan_comparison(scenario, result)
    return result


def compare(
    scenario: Scenario | dict[str, Any],
    strategies: list[str],
    runner: Runner,
    engine: str = "fluid",
    on_progress: Callable[[float, str, StrategyResult], None] | None = None,
    parallel: int = 1,
) -> ResultDocument:
    """Run every strategy on ``scenario`` and return the result document.

    Parameters
    ----------
    scenario : Scenario or dict
    strategies : list of str
        Names from :data:`subflow.runplan.strategies.STRATEGIES`, at least one, no repeats.
    runner : callable
        ``RunPlan -> EngineOutput``.
    engine : str
        Engine name recorded in each plan.
    on_progress : callable, optional
        Called after each strategy with (fraction done in [0, 1], name, result), in the calling thread.
    parallel : int
        How many strategies' runs go on at once (threads calling ``runner``; ≥ 1; plans are resolved and
        outputs summarised in the calling thread, one after another). Above 1 only for a runner that
        may run plans side by side without changing their figures: a simulator (``fluid``), never an engine
        that measures in real time on a shared host (``linux``, ``mininet-wifi``: their capabilities say
        ``real_time``). The document is the same whatever the value: strategies keep their listed order.

    Returns
    -------
    ResultDocument
        The version-1 result document of :mod:`subflow.results.document` (``model_dump(mode="json")``
        gives the stored JSON).

    Raises
    ------
    ValueError
        If ``strategies`` is empty or repeats a name.
    UnknownStrategy
        Before anything runs, if a name is unknown.
    """
    scenario = load_scenario(scenario)
    if not strategies:
        raise ValueError("strategies: at least one strategy is required")
    if len(set(strategies)) != len(strategies):
        raise ValueError("strategies: a strategy is listed twice")
    for name in strategies:
        get_strategy(name)
    if parallel < 1:
        raise ValueError(f"parallel: {parallel} strategies at once; at least 1")
    if parallel == 1 or len(strategies) == 1:
        results: dict[str, StrategyResult] = {}
        for i, name in enumerate(strategies):
            results[name] = run_strategy(scenario, name, runner, engine)
            if on_progress:
                on_progress((i + 1) / len(strategies), name, results[name])
        return comparison_document(scenario, results)
    return comparison_document(scenario, _run_side_by_side(scenario, strategies, runner, engine, on_progress,
                                                           parallel))


def _run_side_by_side(scenario: Scenario, strategies: list[str], runner: Runner, engine: str,
                      on_progress: Callable[[float, str, StrategyResult], None] | None,
                      parallel: int) -> dict[str, StrategyResult]:
    """Every strategy's plan resolved here, one after another; the ``runner`` calls up to ``parallel`` at once
    (only they run in other threads: the library's planning and summaries stay in this one); each output
    summarised here as it arrives. Results in ``strategies``' order. The first failure (in finishing order)
    is raised once the runs already started have ended; none not yet started is started after it."""
    plans = {name: resolve_plan(scenario, name, engine) for name in strategies}
    done: dict[str, StrategyResult] = {}
    with ThreadPoolExecutor(max_workers=min(parallel, len(strategies)), thread_name_prefix="strategy") as pool:
        pending = {pool.submit(runner, plans[name]): name for name in strategies}
        while pending:
            finished, _ = wait(pending, return_when=FIRST_EXCEPTION)
            for future in finished:
                name = pending.pop(future)
                if future.exception() is not None:
                    for other in pending:
                        other.cancel()
                    raise future.exception()
                done[name] = strategy_result(scenario, plans[name], future.result())
                if on_progress:
                    on_progress(len(done) / len(strategies), name, done[name])
    return {name: done[name] for name in strategies}
