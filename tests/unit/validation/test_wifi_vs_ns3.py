"""The fluid engine's goodput vs distance against the stored ns-3 802.11 reference (one station, bulk TCP downlink).

The expected figures are ns-3's (docs/validation/wifi_ns3_reference.json, IdealWifiManager, median of the
stored seeds), never the engine's; the scenario is :func:`subflow_testbeds.wifi.single_station_scenario`.
The aim is fluid / ns-3 Ideal within 0.85-1.15 for the default rate selection (``error_rate``) in every cell
tested. The cautious selections (``nist``, ``min_sensitivity``) miss it by design; their misses are strict
xfails with the ratio measured when they were written and its cause (docs/validation/README.md, "Fluid engine against
ns-3"), so that a change which brings them in range is noticed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from subflow_testbeds.wifi import fluid_goodput_mbps, ns3_cutoff_range_m, single_station_scenario

REF = Path(__file__).resolve().parents[3] / "docs" / "validation" / "wifi_ns3_reference.json"
LOW, HIGH = 0.85, 1.15


@pytest.fixture(scope="module")
def ref() -> dict:
    return json.loads(REF.read_text())


def _ideal(ref: dict, std: str, d: float) -> float:
    return ref["cells"][f"distance/{std}/ideal/{d:g}"]["median_mbps"][0]


_HARD = "the NIST model's hard-decision bound at 10 % PER needs about 3 dB more SNR per MCS than ns-3's Ideal"

CELLS = [
    *[(std, d, "error_rate") for std in ("g", "n", "ac") for d in (10, 30, 40, 50, 60, 65)],
    ("g", 20, "nist"),
    pytest.param("g", 50, "nist", marks=pytest.mark.xfail(
        strict=True, reason=f"ratio 0.79: {_HARD} (24 against 36 Mbit/s, SNR 16.3 dB)")),
    pytest.param("n", 50, "nist", marks=pytest.mark.xfail(
        strict=True, reason=f"ratio 0.63: {_HARD} (26 against 39 Mbit/s, SNR 16.3 dB)")),
    ("g", 10, "min_sensitivity"),
    pytest.param("g", 50, "min_sensitivity", marks=pytest.mark.xfail(
        strict=True, reason="ratio 0.47: the standard's minimum sensitivities (10 dB noise figure) pick "
        "12 Mbit/s where ns-3's Ideal runs 36")),
    pytest.param("ac", 50, "min_sensitivity", marks=pytest.mark.xfail(
        strict=True, reason="ratio 0: VHT MCS 0 at 80 MHz needs -76 dBm, the station (-77.6 dBm) is out of "
        "range where ns-3 still carries 70.6 Mbit/s")),
]


@pytest.mark.parametrize("std, d, method", CELLS)
def test_fluid_goodput_within_15_percent_of_ns3_ideal(ref, std, d, method):
    ns3 = _ideal(ref, std, d)
    assert ns3 > 0
    ratio = fluid_goodput_mbps(std, d, method) / ns3
    assert LOW <= ratio <= HIGH, f"fluid / ns-3 Ideal = {ratio:.3f}"


@pytest.mark.parametrize("std", ["g", "n", "ac"])
def test_both_are_silent_beyond_ns3s_detection_threshold(ref, std):
    # ns-3 receives no frame below -82 dBm: 69.8 m on this path loss; its 70 m cell is 0 and so is the engine's
    assert 68 < ns3_cutoff_range_m() < 70
    assert _ideal(ref, std, 70) == 0.0 and _ideal(ref, std, 68) > 0
    assert fluid_goodput_mbps(std, 70) == 0.0
    assert fluid_goodput_mbps(std, 68) > 0


def test_scenario_matches_the_ns3_parameters(ref):
    p = ref["parameters"]
    doc = single_station_scenario("ac", 10)
    prop = doc["radio"]["propagation"]
    assert prop["exponent"] == p["propagation"]["exponent"]
    assert prop["reference_loss_db"] == pytest.approx(p["propagation"]["reference_loss_db"])
    assert prop["reference_distance_m"] == p["propagation"]["reference_distance_m"]
    # thermal noise over 20 MHz (-100.99 dBm) plus ns-3's 7 dB noise figure
    assert prop["noise_floor_dbm"] == pytest.approx(-100.99 + p["phy"]["rx_noise_figure_db"], abs=0.01)
    ap = doc["nodes"][1]
    assert ap["radio"]["tx_power_dbm"] == p["phy"]["tx_power_dbm"]
    assert ap["radio"]["channel_width_mhz"] == 80  # channel_settings {42, 80, BAND_5GHZ, 0}
    assert doc["transport"]["mss_bytes"] == p["tcp"]["mss_bytes"]
    assert "noise_floor_dbm" not in single_station_scenario("g", 10, "min_sensitivity")["radio"]["propagation"]


@pytest.mark.parametrize("std, stations", [("g", 2), ("g", 4), ("n", 2), ("n", 4)])
def test_anomaly_cell_totals_within_15_percent_of_ns3_ideal(ref, std, stations):
    """Stations at 5 and 65 m share the cell (Heusse et al.'s anomaly): the engine's per-station queues with
    equal transmission opportunities carry the cell total ns-3's Ideal manager carries, ±15 %."""
    from subflow_testbeds.wifi import fluid_anomaly_mbps

    cell = next(c for c in ref["cells"].values()
                if c["kind"] == "anomaly" and c["manager"] == "ideal" and c["standard"] == std
                and c["stations"] == stations)
    fluid = fluid_anomaly_mbps(std, cell["distances_m"])
    assert LOW <= sum(fluid) / sum(cell["median_mbps"]) <= HIGH, (fluid, cell["median_mbps"])
    # the slow station's airtime drags the cell below the near station alone (the anomaly itself)
    alone = _ideal(ref, std, 1)
    assert sum(fluid) < 0.8 * alone
