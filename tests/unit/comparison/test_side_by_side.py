"""Strategies of one comparison side by side (``compare(..., parallel=N)``): the same document as one after
another, the runs really overlapping, and a failure raised without starting what was still waiting."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from subflow.comparison.compare import compare
from subflow.errors import EngineCannotRun
from subflow_engines import get_engine

EXAMPLE = json.loads((Path(__file__).resolve().parents[3] / "examples" / "naval-direct-move.json").read_text())
STRATEGIES = ["sptcp", "mptcp", "mptcp-fdm"]


def test_the_document_is_the_same_one_after_another_or_side_by_side():
    engine = get_engine("fluid")
    one = compare(EXAMPLE, STRATEGIES, engine.run).model_dump(mode="json")
    many = compare(EXAMPLE, STRATEGIES, engine.run, parallel=3).model_dump(mode="json")
    assert list(many["strategies"]) == STRATEGIES
    assert many == one


def test_runs_overlap_and_progress_counts_each_strategy_once():
    engine = get_engine("fluid")
    inside, most = 0, 0
    lock = threading.Lock()
    both_in = threading.Barrier(2, timeout=30)

    def runner(plan):
        nonlocal inside, most
        with lock:
            inside += 1
            most = max(most, inside)
        both_in.wait()  # times out (BrokenBarrierError) unless the two runs are in at the same time
        try:
            return engine.run(plan)
        finally:
            with lock:
                inside -= 1

    seen = []
    compare(EXAMPLE, ["sptcp", "mptcp"], runner, on_progress=lambda f, name, _r: seen.append((f, name)), parallel=2)
    assert most == 2
    assert sorted(f for f, _ in seen) == [0.5, 1.0]
    assert sorted(name for _, name in seen) == ["mptcp", "sptcp"]


def test_a_failure_is_raised_and_nothing_waiting_starts():
    engine = get_engine("fluid")
    started = []

    def runner(plan):
        started.append(plan.strategy)
        if plan.strategy == "sptcp":
            raise EngineCannotRun("links[0].bandwidth_mbps: refused by a test runner")
        return engine.run(plan)

    with pytest.raises(EngineCannotRun, match="refused by a test runner"):
        compare(EXAMPLE, ["sptcp", "mptcp", "mptcp-fdm", "sptcp-tcpbp"], runner, parallel=2)
    assert "sptcp" in started
    assert len(started) <= 3  # the two first, and at most one more handed out before sptcp's failure was seen


def test_parallel_below_one_is_refused():
    with pytest.raises(ValueError, match="parallel"):
        compare(EXAMPLE, ["sptcp"], get_engine("fluid").run, parallel=0)
