"""Scenario validation: errors name the field path and the reason."""

from __future__ import annotations

import copy

import pytest

from subflow.errors import ScenarioInvalid
from subflow.scenario.document import load_scenario, scenario_json_schema


def _locs(exc: ScenarioInvalid) -> list[list]:
    return [e["loc"] for e in exc.errors]


@pytest.mark.parametrize(
    "mutate, loc, words",
    [
        (lambda d: d["links"][0].update(dst="nowhere"), ["links", 0, "dst"], "unknown node"),
        (lambda d: d["links"][1].update(bandwidth_mbps=-5), ["links", 1, "bandwidth_mbps"], "greater than 0"),
        (lambda d: d["links"][2].update(loss=1.0), ["links", 2, "loss"], "less than 1"),
        (lambda d: d["links"][2].update(loss=-0.1), ["links", 2, "loss"], "greater than or equal"),
        (lambda d: d["flows"][1].update(dst="ghost"), ["flows", 1, "dst"], "unknown node"),
        (lambda d: d["flows"][0].update(src="ship"), ["flows", 0, "dst"], "differ"),
        (lambda d: d["nodes"][2].update(range_m=0), ["nodes", 2, "access_point", "range_m"], "greater than 0"),
        (lambda d: d["nodes"][1].update(id="ship"), ["nodes", 1, "id"], "duplicate"),
        (lambda d: d["run"].update(interval_s=500), ["run"], "interval_s"),
        (lambda d: d["flows"][0].update(stop_s=500), ["flows", 0, "stop_s"], "duration"),
        (lambda d: d["nodes"][0].update(kind="blimp"), ["nodes", 0], "kind"),
        (lambda d: d["links"][0].update(src="sta 1; rm -rf /"), ["links", 0, "src"], "pattern"),
    ],
)
def test_invalid_scenarios_name_the_field(naval_direct, mutate, loc, words):
    doc = copy.deepcopy(naval_direct)
    mutate(doc)
    with pytest.raises(ScenarioInvalid) as info:
        load_scenario(doc)
    matching = [e for e in info.value.errors if e["loc"][: len(loc)] == loc]
    assert matching, f"no error at {loc}; got {_locs(info.value)}"
    assert any(words.lower() in (e["msg"] + str(e["loc"])).lower() for e in matching)


def test_example_is_valid_and_round_trips(naval_direct):
    s = load_scenario(naval_direct)
    again = load_scenario(s.model_dump(mode="json"))
    assert again == s
    assert {n.kind for n in s.nodes} == {"host", "switch", "access_point", "station"}


def test_unknown_fields_are_rejected(naval_direct):
    naval_direct["links"][0]["bandwith_mbps"] = 3  # typo must not pass silently
    with pytest.raises(ScenarioInvalid) as info:
        load_scenario(naval_direct)
    assert ["links", 0, "bandwith_mbps"] in _locs(info.value)


def test_json_schema_lists_node_kinds_and_units():
    schema = scenario_json_schema()
    text = str(schema)
    for kind in ("host", "station", "access_point", "switch", "satellite", "router"):
        assert f"'{kind}'" in text
    for field in ("bandwidth_mbps", "delay_ms", "loss", "jitter_ms", "queue_packets", "range_m", "x_m"):
        assert field in text
