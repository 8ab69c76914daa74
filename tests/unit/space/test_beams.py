"""Shared SATCOM beams: terminals of one beam share its forward carrier in equal time.

Expected values are derived by hand from the spectral efficiencies of ETSI EN 302 307-1 V1.4.1, Table 13
(normal FECFRAME, bit per transmitted symbol): 16APSK 4/5 3.165623, QPSK 3/5 1.188304.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subflow.errors import FieldNotHonoured, ScenarioInvalid
from subflow.runplan.beams import equal_airtime_shares
from subflow.runplan.capabilities import LINK_BUDGET_FIELDS, Honours, Refuses, check_fields
from subflow.runplan.resolve import resolve_plan
from subflow.runplan.topology import NetworkTimeline
from subflow.scenario.document import load_scenario

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "naval-geo-rain-fade.json"
RS_MSPS = 5.0
#: EN 302 307-1 Table 13
EFF_16APSK_4_5 = 3.165623
EFF_QPSK_3_5 = 1.188304
#: TCP payload per frame on the fluid engine's links (MSS 1448 of 1514 bytes on the wire)
GOODPUT_FRACTION = 1448 / 1514
BEAM_FIELDS = [f for f in LINK_BUDGET_FIELDS if f.startswith(("SatcomSettings.beams", "SatcomBeam."))]


def beam_scenario(fade_db: float = 10.0) -> dict:
    """Two ships under the Ka satellite's spot beam (5 Msym/s forward carrier), both fed from the shore through
    the teleport: ship1 in clear sky, ship2 under a scripted 10 dB rain fade (its terminal EIRP raised to 60 dBW
    so that its return carrier still closes). One bulk flow shore → each ship."""
    d = json.loads(EXAMPLE.read_text())
    d["name"] = "shared-beam"
    d["nodes"] = [n for n in d["nodes"] if n["id"] != "kusat"]
    ship1 = next(n for n in d["nodes"] if n["id"] == "ship1")
    ship1.pop("mobility")
    ship1["position"] = {"lat_deg": 51.0, "lon_deg": 1.45}
    ship2 = copy.deepcopy(ship1)
    ship2["id"], ship2["position"] = "ship2", {"lat_deg": 51.02, "lon_deg": 1.5}
    d["nodes"].append(ship2)
    links = {link["id"]: link for link in d["links"]}
    s1 = links["ship1-ka"]
    s1["budget"].pop("rain_rate_mm_h")
    s2 = copy.deepcopy(s1)
    s2["id"], s2["src"] = "ship2-ka", "ship2"
    s2["budget"].update(rain_attenuation_db=[[0, fade_db]], terminal_eirp_dbw=60.0)
    d["links"] = [s1, s2, links["ka-gw"], links["teleport-shore"]]
    d["flows"] = [{"id": "f1", "src": "shore", "dst": "ship1"}, {"id": "f2", "src": "shore", "dst": "ship2"}]
    d["run"] = {"duration_s": 30.0, "interval_s": 1, "seed": 1}
    d["satcom"]["beams"] = [{"id": "ka-spot", "satellite": "kasat", "forward_symbol_rate_msps": RS_MSPS,
                             "links": ["ship1-ka", "ship2-ka"]}]
    return d


def test_equal_airtime_halves_the_carrier_time_and_sums_below_the_fast_terminal():
    """Each saturated terminal gets half of the forward carrier's time and carries half its own MODCOD's rate:
    ship1 16APSK 4/5: 5 × 3.165623 = 15.828115 Mbit/s alone → 7.914058; ship2 QPSK 3/5: 5 × 1.188304 = 5.94152
    alone → 2.97076. Together 10.884634 Mbit/s, below the 15.828 ship1 would carry alone."""
    network = NetworkTimeline(beam_scenario())
    s1, s2 = network.link_budgets["ship1-ka"], network.link_budgets["ship2-ka"]
    assert set(s1.down_modcod) == {"16APSK 4/5"} and set(s2.down_modcod) == {"QPSK 3/5"}
    plan = resolve_plan(beam_scenario(), "sptcp")
    alone = {r.id: r.capacity_mbps for r in plan.resources}
    assert alone["ship1-ka:kasat>ship1"] == pytest.approx(RS_MSPS * EFF_16APSK_4_5)
    assert alone["ship2-ka:kasat>ship2"] == pytest.approx(RS_MSPS * EFF_QPSK_3_5)
    shared = {c.resource: c.capacity_mbps for c in plan.capacity_changes if c.t_s == 0.0}
    assert shared["ship1-ka:kasat>ship1"] == pytest.approx(7.9140575)
    assert shared["ship2-ka:kasat>ship2"] == pytest.approx(2.97076)
    assert shared["ship1-ka:kasat>ship1"] + shared["ship2-ka:kasat>ship2"] == pytest.approx(10.8848175)
    assert 10.8848175 < RS_MSPS * EFF_16APSK_4_5
    # the return carriers are not shared (no return_symbol_rate_msps): no change on them
    assert not [c for c in plan.capacity_changes if c.resource.endswith(">kasat")]


def test_fluid_goodputs_follow_the_time_shares():
    """In the fluid engine each flow's goodput is its time share of the carrier × 1448/1514 (framing):
    7.914058 × 0.956407 = 7.569 and 2.97076 × 0.956407 = 2.841 Mbit/s."""
    from subflow_engines import run_plan

    out = run_plan(resolve_plan(beam_scenario(), "sptcp"))
    mean = {f.id: sum(f.throughput_mbps[10:]) / len(f.throughput_mbps[10:]) for f in out.flows}
    assert mean["f1"] == pytest.approx(7.9140575 * GOODPUT_FRACTION, rel=0.03)
    assert mean["f2"] == pytest.approx(2.97076 * GOODPUT_FRACTION, rel=0.03)


def test_shared_return_carrier():
    """With return_symbol_rate_msps the return carriers are shared too. Flows ship → shore, 5 Msym/s return:
    ship1's uplink closes 8PSK 2/3 (1.980636 bit/symbol: 9.90318 Mbit/s alone), ship2's QPSK 2/5 (0.789412:
    3.94706 alone); half the time each: 4.95159 and 1.97353 Mbit/s."""
    d = beam_scenario()
    d["satcom"]["beams"][0]["return_symbol_rate_msps"] = RS_MSPS
    d["flows"] = [{"id": "f1", "src": "ship1", "dst": "shore"}, {"id": "f2", "src": "ship2", "dst": "shore"}]
    network = NetworkTimeline(d)
    assert set(network.link_budgets["ship1-ka"].up_modcod) == {"8PSK 2/3"}
    assert set(network.link_budgets["ship2-ka"].up_modcod) == {"QPSK 2/5"}
    plan = resolve_plan(d, "sptcp")
    shared = {c.resource: c.capacity_mbps for c in plan.capacity_changes if c.t_s == 0.0}
    assert shared["ship1-ka:ship1>kasat"] == pytest.approx(RS_MSPS * 1.980636 / 2)
    assert shared["ship2-ka:ship2>kasat"] == pytest.approx(RS_MSPS * 0.789412 / 2)
    # no forward traffic: each forward member gets the share of one more saturated terminal on an idle carrier,
    # i.e. the whole carrier, its capacity alone (no change)
    assert not [c for c in plan.capacity_changes if ":kasat>" in c.resource]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(min_value=0.01, max_value=500),
                          st.floats(min_value=0.01, max_value=500) | st.just(math.inf)), min_size=1, max_size=12))
def test_equal_airtime_never_exceeds_the_carrier_time_or_a_terminal_alone(terminals):
    caps, demands = [c for c, _ in terminals], [d for _, d in terminals]
    shares = equal_airtime_shares(caps, demands)
    assert all(0 < s <= c * (1 + 1e-12) for s, c in zip(shares, caps))
    # the time actually used, min(demand, capacity) / c_i, never exceeds one second per second
    assert sum(min(d, s) / c for s, c, d in zip(shares, caps, demands)) <= 1 + 1e-9


def test_equal_airtime_shares_by_hand():
    # two saturated terminals: half the time each
    assert equal_airtime_shares([15.828115, 5.94152], [math.inf, math.inf]) == pytest.approx([7.9140575, 2.97076])
    # ship2 asks 1 Mbit/s: it needs 1/5.94152 = 0.168307 of the time, ship1 gets the remaining 0.831693
    # (15.828115 × 0.831693 = 13.164); ship2's capacity is the same time share of its own rate (4.941)
    assert equal_airtime_shares([15.828115, 5.94152], [math.inf, 1.0]) == pytest.approx(
        [15.828115 * (1 - 1 / 5.94152), 5.94152 * (1 - 1 / 5.94152)])
    # demands that fit (2/10 + 3/10 ≤ 1): each gets what the other leaves, 10 × 0.7 and 10 × 0.8
    assert equal_airtime_shares([10.0, 10.0], [2.0, 3.0]) == pytest.approx([7.0, 8.0])
    # three saturated terminals: a third each
    assert equal_airtime_shares([9.0, 6.0, 3.0], [math.inf] * 3) == pytest.approx([3.0, 2.0, 1.0])
    with pytest.raises(ValueError):
        equal_airtime_shares([], [])


def _beam_edit(edit):
    d = beam_scenario()
    edit(d["satcom"]["beams"][0])
    return d


@pytest.mark.parametrize("beam_edit, loc", [
    (lambda b: b.pop("forward_symbol_rate_msps"), ["satcom", "beams", 0, "forward_symbol_rate_msps"]),
    (lambda b: b.update(forward_symbol_rate_msps=0), ["satcom", "beams", 0, "forward_symbol_rate_msps"]),
    (lambda b: b.update(links=["ship1-ka", "no-such-link"]), ["satcom", "beams", 0, "links", 1]),
    (lambda b: b.update(links=["ship1-ka", "teleport-shore"]), ["satcom", "beams", 0, "links", 1]),
    (lambda b: b.update(links=[]), ["satcom", "beams", 0, "links"]),
    (lambda b: b.update(satellite="ship1"), ["satcom", "beams", 0, "satellite"]),
    (lambda b: b.update(policy="round_robin"), ["satcom", "beams", 0, "policy"]),
])
def test_bad_beam_refused_naming_the_field(beam_edit, loc):
    with pytest.raises(ScenarioInvalid) as exc:
        load_scenario(_beam_edit(beam_edit))
    assert loc in [list(e["loc"])[:len(loc)] for e in exc.value.errors]


def test_a_link_in_two_beams_is_refused():
    d = beam_scenario()
    d["satcom"]["beams"].append({"id": "ka-spot-2", "satellite": "kasat", "forward_symbol_rate_msps": 5.0,
                                 "links": ["ship2-ka"]})
    with pytest.raises(ScenarioInvalid) as exc:
        load_scenario(d)
    assert ["satcom", "beams", 1, "links", 0] in [list(e["loc"]) for e in exc.value.errors]


@pytest.mark.parametrize("engine", ["mininet_wifi"])
def test_mininet_wifi_refuses_beams_naming_them(engine):
    import importlib

    fields = importlib.import_module(f"subflow_engines.{engine}").FIELDS
    assert BEAM_FIELDS and all(isinstance(fields[f], Refuses) for f in BEAM_FIELDS)
    # with every other field accepted (the engines refuse budgets and orbits too), the beam is what is named
    lenient = {f: fields[f] if f in BEAM_FIELDS else Honours("test") for f in fields}
    with pytest.raises(FieldNotHonoured) as exc:
        check_fields(beam_scenario(), lenient, engine)
    assert str(exc.value).startswith("satcom.beams=")


def test_fluid_honours_beams():
    from subflow_engines.fluid import FIELDS

    assert all(isinstance(FIELDS[f], Honours) for f in BEAM_FIELDS)
    check_fields(beam_scenario(), FIELDS, "fluid")


def test_linux_honours_beams_and_says_what_its_shares_cannot_follow():
    """The linux engine applies the members' time shares as the plan's capacity changes; its notes name the
    beam and the flows whose early end the planned shares cannot follow."""
    from subflow.runplan.beams import planned_share_notes
    from subflow_engines.linux import FIELDS

    assert all(isinstance(FIELDS[f], Honours) for f in BEAM_FIELDS)
    check_fields(beam_scenario(), FIELDS, "linux")
    d = beam_scenario()
    d["flows"][1]["size_bytes"] = 1_000_000
    plan = resolve_plan(d, "sptcp", "linux")
    notes = planned_share_notes(plan.scenario, plan.flows)
    assert len(notes) == 1 and notes[0].startswith("satcom.beams[0] (ka-spot)") and "flows f2 carry size_bytes" in notes[0]
    # no beam, or no flow across it: no note
    d["flows"] = [{"id": "f1", "src": "shore", "dst": "teleport"}]
    plan = resolve_plan(d, "sptcp", "linux")
    assert planned_share_notes(plan.scenario, plan.flows) == []
