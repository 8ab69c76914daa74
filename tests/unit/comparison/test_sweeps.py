"""Sweeps and repetitions: parameter paths, unit expansion, aggregation."""

from __future__ import annotations

import math

import pytest

from subflow.comparison.compare import compare
from subflow.comparison.sweeps import SweepSpec, aggregate, apply_parameter, ci95_half_width, expand, unit_summary
from subflow.errors import ScenarioInvalid
from subflow_engines import run_plan


def test_parameter_paths_address_list_items_by_id(naval_direct):
    doc = apply_parameter(naval_direct, "nodes.uav.range_m", 450)
    assert next(n for n in doc["nodes"] if n["id"] == "uav")["range_m"] == 450
    assert next(n for n in naval_direct["nodes"] if n["id"] == "uav")["range_m"] == 300  # copy, not in place
    doc = apply_parameter(naval_direct, "links.uav-ship.bandwidth_mbps", 2)
    assert next(l for l in doc["links"] if l["id"] == "uav-ship")["bandwidth_mbps"] == 2
    assert apply_parameter(naval_direct, "transport.rbuf_bytes", 65536)["transport"]["rbuf_bytes"] == 65536
    assert apply_parameter(naval_direct, "run.duration_s", 50)["run"]["duration_s"] == 50


@pytest.mark.parametrize("path, words", [
    ("nodes.ghost.range_m", "no node with id 'ghost'"),
    ("nodes.range_m", "addressed as nodes.<id>.<field>"),
    ("bogus.x", "unknown field 'bogus'"),
])
def test_bad_parameter_paths_name_the_sweep_parameter(naval_direct, path, words):
    with pytest.raises(ScenarioInvalid) as info:
        apply_parameter(naval_direct, path, 1)
    assert info.value.errors[0]["loc"] == ["sweep", "parameter"] and words in info.value.errors[0]["msg"]


def test_invalid_values_are_reported_with_their_index(naval_direct):
    spec = SweepSpec(parameter="links.uav-ship.loss", values=[0.1, 1.5])
    with pytest.raises(ScenarioInvalid) as info:
        expand(naval_direct, spec, 1)
    assert info.value.errors[0]["loc"][:3] == ["sweep", "values", 1]


def test_expand_gives_point_by_repetition_units_with_consecutive_seeds(naval_direct):
    spec = SweepSpec(parameter="nodes.uav.range_m", values=[200, 300])
    units = expand(naval_direct, spec, 3)
    assert [(u.point, u.repetition) for u in units] == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    assert [u.scenario["run"]["seed"] for u in units] == [1, 2, 3, 1, 2, 3]
    with pytest.raises(ValueError):
        expand(naval_direct, None, 0)


def test_ci95_uses_student_t():
    # t_{0.975, 2} = 4.3027 (statistical tables); values 1, 2, 3: s = 1, n = 3
    assert ci95_half_width([1.0, 2.0, 3.0]) == pytest.approx(4.3027 / math.sqrt(3), rel=1e-4)
    assert ci95_half_width([5.0]) == 0.0


def test_aggregate_matches_a_hand_computation(naval_direct):
    spec = SweepSpec(parameter="nodes.uav.range_m", values=[250, 400])
    doc = dict(naval_direct)
    doc["nodes"] = [dict(n) for n in naval_direct["nodes"]]
    for n in doc["nodes"]:
        if n["id"] == "sta1":
            n["mobility"] = {"model": "random_walk", "bounds": {"x_min_m": 0, "y_min_m": -400, "x_max_m": 1400, "y_max_m": 400},
                             "speed_min_mps": 5, "speed_max_mps": 20, "step_s": 5, "seed": 4}
    units = expand(doc, spec, 3)
    summaries = [unit_summary(compare(u.scenario, ["sptcp", "mptcp"], run_plan)) for u in units]
    agg = aggregate(units, summaries, spec)
    for p, point in enumerate(agg["sweep"]["points"]):
        runs = [s["sptcp"]["mean_mbps"] for u, s in zip(units, summaries) if u.point == p]
        assert point["value"] == spec.values[p]
        assert point["strategies"]["sptcp"]["mean_mbps"] == pytest.approx(sum(runs) / 3)
        assert point["strategies"]["sptcp"]["runs"] == 3
    reps = aggregate(units[:3], summaries[:3], None)["repetitions"]
    assert reps["mptcp"]["runs"] == 3


def test_representative_points_keep_all_or_spread_evenly_with_both_ends():
    from subflow.comparison.sweeps import representative_points

    assert representative_points(3, 16) == [0, 1, 2]
    assert representative_points(0, 16) == []
    # 100 points, 5 documents: 0, 24.75→25, 49.5→50 (round half to even), 74.25→74, 99
    assert representative_points(100, 5) == [0, 25, 50, 74, 99]
    assert representative_points(10, 1) == [0]
    assert representative_points(17, 16)[0] == 0 and representative_points(17, 16)[-1] == 16
    assert len(representative_points(17, 16)) == 16
