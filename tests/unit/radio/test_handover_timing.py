"""A Wi-Fi handover's length from its mechanisms (subflow.radio.association.handover_timing): beacon-loss detection,
scanning, authentication and association, with association_delay_s as an override; and the fluid engine's
handover against the stored ns-3 cells (docs/validation/wifi_ns3_reference.json)."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest
from pydantic import ValidationError

from subflow.radio.association import association_timeline, handover_timing
from subflow.scenario.document import AccessPointNode, HandoverSettings, load_scenario
from subflow_testbeds.wifi import fluid_handover, handover_scenario

REF = Path(__file__).resolve().parents[3] / "docs" / "validation" / "wifi_ns3_reference.json"


def _ap(**kw) -> AccessPointNode:
    return AccessPointNode(id="ap", range_m=100.0, position={"x_m": 0.0, "y_m": 0.0}, **kw)


def test_default_timing_is_ns3s_beacon_loss_and_passive_scan():
    t = handover_timing(_ap(), HandoverSettings())
    # 10 beacons of 100 TU (102.4 ms), the last heard on average half an interval before the station left
    assert t.detection_s == pytest.approx(9.5 * 0.1024)
    assert t.scan_s == pytest.approx(0.120)
    # four management frames at 6 Mbit/s, each at least DIFS (28 µs) + a 20 µs preamble + an Ack (> 30 µs):
    # more than 0.3 ms in all, and a few frames of tens of bytes take well under 2 ms
    assert 0.3e-3 < t.join_s < 2e-3


def test_timing_follows_the_settings():
    active = handover_timing(_ap(beacon_interval_ms=200.0),
                             HandoverSettings(missed_beacons=7, scan="active", scan_channels=11, probe_wait_ms=30.0))
    assert active.detection_s == pytest.approx(6.5 * 0.2)
    assert active.scan_s == pytest.approx(11 * 0.030)
    passive = handover_timing(_ap(), HandoverSettings(scan_channels=3, channel_dwell_ms=110.0))
    assert passive.scan_s == pytest.approx(0.330)


@pytest.mark.parametrize("field, value", [("missed_beacons", 0), ("scan", "blind"), ("scan_channels", 0),
                                          ("channel_dwell_ms", -1.0), ("probe_wait_ms", float("nan")),
                                          ("scan_results_max_age_s", -1.0)])
def test_bad_settings_name_the_field(field, value):
    with pytest.raises(ValidationError) as err:
        HandoverSettings(**{field: value})
    assert field in str(err.value)


def _events(doc: dict) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for e in association_timeline(load_scenario(doc)).events:
        out.setdefault(f"{e['kind']}:{e['access_point']}", []).append(e["t_s"])
    return out


def test_a_handover_waits_for_detection_scan_and_join():
    doc = handover_scenario(100.0, 1.0)
    ev = _events(doc)
    left = ev["disassociation:ap1"][0]
    # the station at y = 1 m leaves AP1's 69.8 m range at x = sqrt(69.8² − 1) on its way from x = 10 at 10 m/s
    range_m = doc["nodes"][2]["range_m"]
    assert left == pytest.approx(((range_m ** 2 - 1.0) ** 0.5 - 10.0) / 10.0, abs=1e-6)
    t = handover_timing(load_scenario(doc).nodes[2], HandoverSettings())
    assert ev["association:ap2"] == [pytest.approx(left + t.detection_s + t.scan_s + t.join_s)]
    # the handover starts when the old hop is lost, so the whole outage reads as the handover
    assert ev["handover_start:ap2"] == [pytest.approx(left)]


def test_out_of_coverage_the_station_joins_at_the_end_of_the_first_scan_in_range():
    doc = handover_scenario(160.0, 1.0)
    ev = _events(doc)
    settings = HandoverSettings()
    t = handover_timing(load_scenario(doc).nodes[2], settings)
    left = ev["disassociation:ap1"][0]
    scans_from = left + t.detection_s
    enters = (160.0 - (doc["nodes"][2]["range_m"] ** 2 - 1.0) ** 0.5 - 10.0) / 10.0
    k = 1
    while scans_from + k * t.scan_s < enters:
        k += 1
    assert ev["association:ap2"] == [pytest.approx(scans_from + k * t.scan_s + t.join_s)]
    assert ev["handover_start:ap2"] == [pytest.approx(enters)]


@pytest.mark.parametrize("max_age_s, skips", [(86_400.0, True), (6.0, False), (0.0, False)])
def test_a_recent_scan_that_heard_the_next_access_point_spares_the_scan(max_age_s, skips):
    # 80 m apart: at t = 0 the station (x = 10 m) is 70 m from AP2, within its 69.8 m range 0.02 s later,
    # so the scan the run starts after (0-0.12 s) heard AP2. ns-3 joins it as soon as it declares AP1 lost;
    # with results at most 6 s old, the 6.9 s old scan no longer counts and the station scans again
    doc = handover_scenario(80.0, 1.0)
    doc["radio"]["handover"] = {"scan_results_max_age_s": max_age_s}
    ev = _events(doc)
    t = handover_timing(load_scenario(doc).nodes[2], HandoverSettings())
    left = ev["disassociation:ap1"][0]
    expected = left + t.detection_s + (0.0 if skips else t.scan_s) + t.join_s
    assert ev["association:ap2"] == [pytest.approx(expected)]


def test_a_scan_that_did_not_hear_the_access_point_is_not_reused():
    # 100 m apart: AP2 is out of range during the first scan, so even unlimited reuse scans again
    doc = handover_scenario(100.0, 1.0)
    t = handover_timing(load_scenario(doc).nodes[2], HandoverSettings())
    left = _events(doc)["disassociation:ap1"][0]
    assert _events(doc)["association:ap2"] == [pytest.approx(left + t.detection_s + t.scan_s + t.join_s)]


def test_association_delay_overrides_the_model():
    doc = handover_scenario(100.0, 1.0)
    for node in doc["nodes"][2:4]:
        node["association_delay_s"] = 2.0
    ev = _events(doc)
    left = ev["disassociation:ap1"][0]
    assert ev["handover_start:ap2"] == [pytest.approx(left)]
    assert ev["association:ap2"] == [pytest.approx(left + 2.0)]


@pytest.fixture(scope="module")
def ref() -> dict:
    return json.loads(REF.read_text())


@pytest.mark.parametrize("spacing_m, min_rto_s", [(80.0, 1.0), (100.0, 1.0), (160.0, 1.0), (80.0, 0.2),
                                                  (120.0, 0.2), (160.0, 0.2)])
def test_fluid_handover_against_ns3(ref, spacing_m, min_rto_s):
    """docs/validation, "Fluid engine against ns-3: handover": the join time, the outage and the mean goodput of
    the cells, with ns-3's RTO form (``transport.rto_form`` ``"rfc6298"``), against ns-3's Ideal manager (±15 %)."""
    cell = ref["cells"][f"handover/g/ideal/{spacing_m:g}/rto{min_rto_s:g}"]
    f = fluid_handover(spacing_m, min_rto_s)
    joined = statistics.median(next(t for t, ap in a if ap == 1) for a in cell["association"])
    assert f["joined_s"] == pytest.approx(joined, abs=0.2)
    assert 0.85 <= f["outage_s"] / cell["median_outage_s"] <= 1.15, (f, cell["median_outage_s"])
    assert 0.85 <= f["mean_mbps"] / cell["median_mbps"][0] <= 1.15, (f, cell["median_mbps"])
    assert f["gap_start_s"] == pytest.approx(statistics.median(cell["gap_start_s"]), abs=0.15)
