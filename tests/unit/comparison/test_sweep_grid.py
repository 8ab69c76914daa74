"""Two-parameter (grid) sweeps: expansion, unit addressing, aggregation and limits."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest
from pydantic import ValidationError

from subflow.comparison.sweeps import SweepSpec, aggregate, expand, point_count, unit_at, unit_count
from subflow.errors import LimitExceeded, ScenarioInvalid
from subflow.results.document import SweepResult
from subflow.service.limits import Limits, check_sweep

DOC = json.loads((Path(__file__).resolve().parents[3] / "examples" / "naval-direct-move.json").read_text())
GRID = SweepSpec(parameter="links.uav-ship.bandwidth_mbps", values=[1, 2, 4],
                 parameter_y="nodes.uav.range_m", values_y=[200, 300])


def _field(doc, kind, item, name):
    return next(x for x in doc[kind] if x["id"] == item)[name]


def test_grid_expands_every_pair_row_major_with_its_seeds():
    units = expand(DOC, GRID, 2)
    assert point_count(GRID) == 6 and unit_count(GRID, 2) == 12 == len(units)
    pairs = [(u.value, u.value_y) for u in units[::2]]
    assert pairs == [(1, 200), (1, 300), (2, 200), (2, 300), (4, 200), (4, 300)]
    for u in units:
        assert _field(u.scenario, "links", "uav-ship", "bandwidth_mbps") == u.value
        assert _field(u.scenario, "nodes", "uav", "range_m") == u.value_y
        assert u.scenario["run"]["seed"] == DOC["run"]["seed"] + u.repetition
        one = unit_at(DOC, GRID, 2, u.index)
        assert (one.point, one.repetition, one.value, one.value_y, one.scenario) == (
            u.point, u.repetition, u.value, u.value_y, u.scenario)


def test_grid_aggregate_gives_each_cell_its_mean_and_ci():
    units = expand(DOC, GRID, 3)
    # synthetic summaries: mean throughput = x·10 + y/100 + repetition
    summaries = [{"s": {"mean_mbps": u.value * 10 + u.value_y / 100 + u.repetition, "jain_index": 1.0, "zero_s": 0.0}}
                 for u in units]
    sweep = SweepResult.model_validate(aggregate(units, summaries, GRID)["sweep"])
    assert sweep.parameter_y == "nodes.uav.range_m" and sweep.values_y == [200, 300]
    assert len(sweep.points) == 6
    for p in sweep.points:
        runs = [p.value * 10 + p.value_y / 100 + r for r in range(3)]
        assert p.strategies["s"].mean_mbps == pytest.approx(statistics.fmean(runs))
        # t_{0.975, 2} = 4.302653 (tables); sd of (m, m+1, m+2) = 1
        assert p.strategies["s"].ci95_mbps == pytest.approx(4.302653 / 3 ** 0.5, rel=1e-6)
        assert p.strategies["s"].runs == 3


def test_one_axis_sweep_keeps_its_shape():
    spec = SweepSpec(parameter="nodes.uav.range_m", values=[100, 200])
    assert spec.model_dump(exclude_defaults=True) == {"parameter": "nodes.uav.range_m", "values": [100, 200]}
    out = aggregate(expand(DOC, spec, 1), [{"s": {"mean_mbps": 1.0, "jain_index": 1.0, "zero_s": 0.0}}] * 2, spec)
    assert "parameter_y" not in out["sweep"] and "value_y" not in out["sweep"]["points"][0]


def test_grid_refusals():
    with pytest.raises(ValidationError):
        SweepSpec(parameter="a.b", values=[1], parameter_y="c.d")
    with pytest.raises(ValidationError):
        SweepSpec(parameter="a.b", values=[1], parameter_y="a.b", values_y=[2])
    bad = GRID.model_copy(update={"parameter_y": "nodes.ghost.range_m"})
    with pytest.raises(ScenarioInvalid) as e:
        expand(DOC, bad, 1)
    assert e.value.errors[0]["loc"] == ["sweep", "parameter_y"]
    with pytest.raises(LimitExceeded) as e:  # limits count the product: 3 × 2 × 2 = 12 > 10
        check_sweep(point_count(GRID), 2, Limits(max_sweep_units=10))
    assert "12" in str(e.value)
    check_sweep(point_count(GRID), 2, Limits(max_sweep_units=12))


def test_failed_link_sweep_takes_the_link_down_for_the_whole_run():
    from subflow.comparison.compare import compare
    from subflow_engines import run_plan

    spec = SweepSpec(parameter="failed_link", values=[None, "satcom-ship"])
    units = expand(DOC, spec, 1)
    assert units[0].scenario.get("link_events", []) == DOC.get("link_events", [])
    assert {"t_s": 0, "link": "satcom-ship", "state": "down"} in units[1].scenario["link_events"]
    # without the SATCOM backhaul the users have no path until they associate with the UAV:
    # they enter its range at t = 60 s (scenario description) and associate 2 s later
    doc = compare(units[1].scenario, ["sptcp"], run_plan)
    for f in doc.strategies["sptcp"].summary.flows:
        assert f.zero_s >= 60.0
    with pytest.raises(ScenarioInvalid) as e:
        expand(DOC, SweepSpec(parameter="failed_link", values=["nope"]), 1)
    assert "nope" in e.value.errors[0]["msg"]
