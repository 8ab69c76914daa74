"""Radio from propagation: path loss, MCS selection, ranges and the scenario rules.

Expected values come from textbook formulas written out here (Friis 20·log10(4πd/λ), the log-distance
law, the two-ray ground law, Rappaport §4) and from IEEE 802.11-2020's receiver minimum sensitivity
tables copied below — never from :mod:`subflow.radio.propagation` itself.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest

from subflow.errors import ScenarioInvalid
from subflow.radio.association import association_timeline
from subflow.radio.propagation import LinkBudget, PathLoss, friis_loss_db, mcs_table, select_mcs, two_ray_crossover_m
from subflow.runplan.resolve import resolve_plan
from subflow.scenario.document import load_scenario

C = 299_792_458.0
EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "uav-relay-chain.json"

# IEEE 802.11-2020 Table 17-18 (OFDM, 20 MHz): rate (Mb/s) -> minimum sensitivity (dBm)
OFDM_SENSITIVITY = {6: -82, 9: -81, 12: -79, 18: -77, 24: -74, 36: -70, 48: -66, 54: -65}
# Table 19-23 (HT, MCS 0-7): 20 MHz and 40 MHz; rates (1 SS, 800 ns GI): Tables 19-27, 19-28
HT20 = [(6.5, -82), (13, -79), (19.5, -77), (26, -74), (39, -70), (52, -66), (58.5, -65), (65, -64)]
HT40 = [(13.5, -79), (27, -76), (40.5, -74), (54, -71), (81, -67), (108, -63), (121.5, -62), (135, -61)]
# Table 21-25 (VHT, 80 MHz, MCS 0-9), rates of Table 21-32 (1 SS, 800 ns GI)
VHT80 = [(29.25, -76), (58.5, -73), (87.75, -71), (117, -68), (175.5, -64), (234, -60), (263.25, -59),
         (292.5, -58), (351, -53), (390, -51)]


def friis_textbook(d_m: float, f_hz: float) -> float:
    return 20 * math.log10(4 * math.pi * d_m / (C / f_hz))


# ------------------------------------------------------------------------------ path loss


def test_friis_at_2_4_ghz_and_100_m_is_80_05_db():
    assert friis_textbook(100, 2.4e9) == pytest.approx(80.05, abs=0.005)
    assert friis_loss_db(100, 2400) == pytest.approx(friis_textbook(100, 2.4e9), abs=1e-9)
    assert friis_loss_db(1000, 5180) == pytest.approx(friis_textbook(1000, 5.18e9), abs=1e-9)
    # +6.02 dB per doubling of the distance (inverse square law)
    assert friis_loss_db(200, 2400) - friis_loss_db(100, 2400) == pytest.approx(20 * math.log10(2), abs=1e-9)


def test_log_distance_against_ns3_default_reference_loss():
    # ns-3 LogDistancePropagationLossModel defaults: n = 3, d0 = 1 m, L0 = 46.6777 dB
    pl = PathLoss(model="log_distance", exponent=3.0, reference_distance_m=1.0, reference_loss_db=46.6777)
    assert pl.loss_db(100) == pytest.approx(46.6777 + 30 * 2, abs=1e-9)
    assert pl.loss_db(1000) == pytest.approx(46.6777 + 30 * 3, abs=1e-9)
    assert pl.loss_db(0.5) == pytest.approx(46.6777)  # below d0: the reference loss
    # ns-3's 46.6777 dB is Friis at 1 m for 5.15 GHz with c = 3e8 m/s; a null reference loss is Friis at d0
    assert 20 * math.log10(4 * math.pi * 1.0 / (3e8 / 5.15e9)) == pytest.approx(46.6777, abs=1e-3)
    dflt = PathLoss(model="log_distance", frequency_mhz=5150, exponent=2.0)
    assert dflt.loss_db(50) == pytest.approx(friis_textbook(50, 5.15e9), abs=1e-9)


def test_two_ray_crossover_and_fourth_power_law():
    ht = hr = 1.5
    lam = C / 2.4e9
    dc = 4 * math.pi * ht * hr / lam
    assert dc == pytest.approx(226.4, abs=0.1)
    assert two_ray_crossover_m(2400, ht, hr) == pytest.approx(dc, rel=1e-12)
    pl = PathLoss(model="two_ray", frequency_mhz=2400, tx_height_m=ht, rx_height_m=hr)
    assert pl.loss_db(100) == pytest.approx(friis_textbook(100, 2.4e9), abs=1e-9)  # before the crossover
    assert pl.loss_db(1000) == pytest.approx(40 * math.log10(1000) - 20 * math.log10(ht * hr), abs=1e-9)
    # continuous at the crossover, and 12.04 dB per doubling beyond it
    assert pl.loss_db(dc * (1 - 1e-9)) == pytest.approx(pl.loss_db(dc * (1 + 1e-9)), abs=1e-6)
    assert pl.loss_db(2000) - pl.loss_db(1000) == pytest.approx(40 * math.log10(2), abs=1e-9)


@pytest.mark.parametrize("model", ["friis", "log_distance", "two_ray"])
def test_the_inverse_gives_the_distance_of_a_loss(model):
    pl = PathLoss(model=model, frequency_mhz=5180, exponent=3.5, tx_height_m=10, rx_height_m=2)
    for d in (3.0, 40.0, 700.0, 5000.0):
        assert pl.distance_m(pl.loss_db(d)) == pytest.approx(d, rel=1e-9)


# ------------------------------------------------------------------------------ MCS selection


def _budget(phy, width, power_dbm=20.0):
    return LinkBudget(tx_power_dbm=power_dbm, tx_gain_dbi=0.0, rx_gain_dbi=0.0, phy=phy, channel_width_mhz=width,
                      path_loss=PathLoss(model="friis", frequency_mhz=5180 if phy in ("a", "ac") else 2412))


def _distance_for_rx(budget, rx_dbm):
    """Distance where a Friis hop receives ``rx_dbm``: the textbook formula solved for d."""
    f_hz = budget.path_loss.frequency_mhz * 1e6
    return (C / f_hz) / (4 * math.pi) * 10 ** ((budget.tx_power_dbm - rx_dbm) / 20)


@pytest.mark.parametrize("phy", ["a", "g"])
def test_ofdm_rates_follow_table_17_18(phy):
    assert [(m.rate_mbps, m.sensitivity_dbm) for m in mcs_table(phy)] == list(OFDM_SENSITIVITY.items())
    budget = _budget(phy, 20)
    for rate, sens in OFDM_SENSITIVITY.items():
        at = _distance_for_rx(budget, sens + 0.01)  # just above the sensitivity: that rate
        assert budget.rate_mbps(at) == rate
        below = _distance_for_rx(budget, sens - 0.01)
        assert budget.rate_mbps(below) < rate
    assert budget.rate_mbps(_distance_for_rx(budget, -82.01)) == 0.0


@pytest.mark.parametrize("phy,width,table", [("n", 20, HT20), ("n", 40, HT40), ("ac", 80, VHT80)])
def test_ht_and_vht_rates_follow_tables_19_23_and_21_25(phy, width, table):
    assert [(m.rate_mbps, m.sensitivity_dbm) for m in mcs_table(phy, width)] == [(float(r), float(s)) for r, s in table]
    budget = _budget(phy, width)
    for rate, sens in table:
        assert budget.rate_mbps(_distance_for_rx(budget, sens + 0.01)) == rate
    assert budget.rate_mbps(_distance_for_rx(budget, table[0][1] - 0.01)) == 0.0


def test_a_noise_floor_10_db_higher_needs_10_db_more_signal():
    # default noise floor: -174 dBm/Hz + 10 log10(20 MHz) + 10 dB noise figure = -90.99 dBm
    assert select_mcs(-65 - (-174 + 10 * math.log10(20e6) + 10), "g").rate_mbps == 54
    noisy = LinkBudget(20, 0, 0, "g", 20, PathLoss(frequency_mhz=2412), noise_floor_dbm=-80.99)
    clean = _budget("g", 20)
    assert noisy.rate_mbps(_distance_for_rx(clean, -55.0 + 0.01)) == 54
    # -65 dBm over a 10 dB higher floor is worth -75 dBm over the reference one: 18 Mb/s (-77), not 24 (-74)
    assert noisy.rate_mbps(_distance_for_rx(clean, -65.0 + 0.01)) == 18


def test_the_range_is_where_the_lowest_mcs_fails():
    budget = _budget("g", 20, power_dbm=20)
    # 20 dBm, 0 dBi, -82 dBm: 102 dB of Friis loss at 2412 MHz
    expected = (C / 2.412e9) / (4 * math.pi) * 10 ** (102 / 20)
    assert budget.range_m() == pytest.approx(expected, rel=1e-9)
    assert budget.rate_mbps(expected * 0.999) == 6
    assert budget.rate_mbps(expected * 1.001) == 0
    steps = budget.rate_steps()
    assert [r for _, r in steps] == [54, 48, 36, 24, 18, 12, 9, 6]
    assert steps[-1][0] == pytest.approx(expected)


# ------------------------------------------------------------------------------ scenarios


def _ap_scenario(radio=None, rate_table=None, propagation=None, range_m=2000.0, rate_selection=None):
    ap = {"id": "ap1", "kind": "access_point", "position": {"x_m": 0, "y_m": 0}, "range_m": range_m,
          "wireless_bandwidth_mbps": 54}
    if radio is not None:
        ap["radio"] = radio
    if rate_table is not None:
        ap["rate_table"] = rate_table
    doc = {"name": "radio", "nodes": [
        {"id": "h1", "kind": "host"}, ap,
        {"id": "sta1", "kind": "station", "position": {"x_m": 10, "y_m": 0},
         "mobility": {"model": "linear", "start": {"x_m": 10, "y_m": 0}, "end": {"x_m": 3010, "y_m": 0},
                      "speed_mps": 30}}],
        "links": [{"id": "l1", "src": "h1", "dst": "ap1", "bandwidth_mbps": 100}],
        "flows": [{"id": "f1", "src": "sta1", "dst": "h1"}],
        "run": {"duration_s": 100}}
    if propagation is not None:
        doc["radio"] = {"propagation": propagation}
    if rate_selection is not None:
        doc.setdefault("radio", {})["rate_selection"] = rate_selection
    return doc


def _goodput_capacity(goodput_mbps: float) -> float:
    """The air capacity that carries ``goodput_mbps`` of TCP goodput with the engine's 1448/1514 framing."""
    return goodput_mbps * 1514 / 1448


def test_association_range_and_air_rate_follow_the_radio():
    radio = {"tx_power_dbm": 20, "frequency_mhz": 2412, "phy": "g"}
    plan = resolve_plan(_ap_scenario(radio, rate_selection="min_sensitivity"), "sptcp")
    lam = C / 2.412e9
    # the station at 10 + 30 t m leaves when Friis loss reaches 102 dB (20 dBm, 0 dBi, -82 dBm)
    range_m = lam / (4 * math.pi) * 10 ** (102 / 20)
    t_leave = (range_m - 10) / 30
    ends = [s.t_end_s for s in plan.flows[0].segments if s.subflows]
    assert max(ends) == pytest.approx(t_leave, rel=1e-6)
    # the air's capacity: 54 Mb/s while above -65 dBm, then each step down at the textbook distance;
    # 54 Mb/s carries about 23.9 Mb/s of bulk TCP once 802.11's airtime is paid (docs/radio.md)
    # (sta1's own queue: its flow goes up to h1; the one station with traffic has the channel to itself)
    changes = [(c.t_s, c.capacity_mbps) for c in plan.capacity_changes if c.resource == "air:ap1:sta1>ap1"]
    assert changes[0][0] == 0 and changes[0][1] == pytest.approx(_goodput_capacity(23.9), rel=0.005)
    associated = [c for c in changes if c[0] < max(ends)]
    assert all(b[1] < a[1] for a, b in zip(associated, associated[1:]))
    assert changes[-1] == (pytest.approx(t_leave), 54)  # an empty cell: wireless_bandwidth_mbps again
    # changes[1]: 54 -> 48 Mb/s at -65 dBm; changes[2]: 48 -> 36 at -66 dBm; changes[3]: 36 -> 24 at -70 dBm
    d_36 = lam / (4 * math.pi) * 10 ** ((20 + 70) / 20)
    assert 10 + 30 * changes[2][0] == pytest.approx(lam / (4 * math.pi) * 10 ** ((20 + 66) / 20), rel=1e-6)
    assert 10 + 30 * changes[3][0] == pytest.approx(d_36, rel=1e-6)


def test_error_rate_selection_keeps_the_range_where_its_slowest_mcs_fails():
    # the default rate selection: SNR over thermal noise + 7 dB (−93.99 dBm at 20 MHz) against the NIST
    # model's 10 % PER thresholds; the station leaves where no MCS makes it any more
    from subflow.radio.propagation import select_mcs_by_error_rate

    radio = {"tx_power_dbm": 20, "frequency_mhz": 2412, "phy": "g"}
    propagation = {"model": "log_distance", "exponent": 3, "reference_loss_db": 46.68}
    plan = resolve_plan(_ap_scenario(radio, range_m=5000, propagation=propagation), "sptcp")
    d_leave = 10 + 30 * max(s.t_end_s for s in plan.flows[0].segments if s.subflows)
    floor = -174 + 10 * math.log10(20e6) + 7

    def snr(d):
        return 20 - 46.68 - 30 * math.log10(d) - floor

    assert select_mcs_by_error_rate(snr(d_leave * 0.999), "g").rate_mbps == 6
    assert select_mcs_by_error_rate(snr(d_leave * 1.001), "g") is None
    # farther than the standard's sensitivities reach (6 Mb/s at -82 dBm over -90.99 dBm)
    assert d_leave > 1.3 * 10 ** ((20 - 46.68 + 82) / 30)


def test_range_m_caps_the_radio_range_and_the_rate_table_overrides_its_rates():
    radio = {"tx_power_dbm": 20, "frequency_mhz": 2412, "phy": "g"}
    capped = association_timeline(load_scenario(_ap_scenario(radio, range_m=300)))
    assert capped.associations[0].t_end_s == pytest.approx((300 - 10) / 30)
    table = [{"distance_m": 100, "bandwidth_mbps": 11}, {"distance_m": 5000, "bandwidth_mbps": 2}]
    plan = resolve_plan(_ap_scenario(radio, rate_table=table), "sptcp")
    # while associated, the table's rates only (54, wireless_bandwidth_mbps, once the station has left)
    assoc = association_timeline(load_scenario(_ap_scenario(radio, rate_table=table))).associations[0]
    assert {c.capacity_mbps for c in plan.capacity_changes if c.t_s < assoc.t_end_s} == {11, 2}


def test_without_a_radio_nothing_changes():
    doc = _ap_scenario()
    assert "radio" not in json.dumps(load_scenario(doc).model_dump(exclude_defaults=True)["nodes"])
    plan = resolve_plan(doc, "sptcp")
    assert plan.capacity_changes == []
    assert max(s.t_end_s for s in plan.flows[0].segments if s.subflows) == pytest.approx((2000 - 10) / 30)


@pytest.mark.parametrize("where,value,loc", [
    (("nodes", 1, "radio", "tx_power_dbm"), 60, ["nodes", 1, "access_point", "radio", "tx_power_dbm"]),
    (("nodes", 1, "radio", "frequency_mhz"), -2412, ["nodes", 1, "access_point", "radio", "frequency_mhz"]),
    (("radio", "propagation", "exponent"), 12, ["radio", "propagation", "exponent"]),
    (("radio", "propagation", "exponent"), 0.5, ["radio", "propagation", "exponent"]),
])
def test_bad_radio_input_names_the_field(where, value, loc):
    doc = _ap_scenario({"tx_power_dbm": 20, "frequency_mhz": 2412, "phy": "g"}, propagation={"model": "log_distance"})
    target = doc
    for k in where[:-1]:
        target = target[k]
    target[where[-1]] = value
    with pytest.raises(ScenarioInvalid) as exc:
        load_scenario(doc)
    assert exc.value.errors[0]["loc"] == loc


def test_a_frequency_outside_the_phy_band_is_refused():
    doc = _ap_scenario({"frequency_mhz": 5180, "phy": "g"})
    with pytest.raises(ScenarioInvalid) as exc:
        load_scenario(doc)
    assert "802.11g" in exc.value.errors[0]["msg"]


# ------------------------------------------------------------------------------ the relay-chain example


def test_the_relay_chain_example_carries_traffic_over_the_backhaul_and_the_adhoc_link():
    doc = json.loads(EXAMPLE.read_text())
    plan = resolve_plan(doc, "sptcp")
    paths = {f.id: [sp.nodes for s in f.segments for sp in s.subflows] for f in plan.flows}
    assert ["sta2", "uav2", "uav1", "ship-ap", "ship"] in paths["f2"]
    assert ["sta3", "sta1", "uav2", "uav1", "ship-ap", "ship"] in paths["f3"]
    # backhaul hop uav1 -> ship-ap, 905 m (900 m, 100 m of altitude): 20 dBm + 6 + 6 dBi - Friis at 5180 MHz
    d = math.hypot(900, 100)
    rx = 20 + 6 + 6 - friis_textbook(d, 5.18e9)
    rate = next(r for r, s in reversed(HT20) if rx >= s)
    assert rate == 26
    # ship-ap's cell: uav1 at 26 Mb/s (HT MCS 3) and sta4 (123.7 m away, 0 dBi, no radio of its own) at 65 Mb/s
    # (MCS 7), each with its bulk TCP airtime (A-MPDU). At t = 0 only uav1's uplink queue carries traffic (f2,
    # 5 Mbit/s, from sta2 behind uav2): it has the channel to itself; sta4 has no flow, and its idle queue is
    # given what it would get as one more saturated contender: the airtime f2 leaves, (1 - 5/g_uav1)·g_sta4
    from subflow.radio.airtime import Phy, tcp_goodput_mbps

    rx4 = 20 + 6 - friis_textbook(math.sqrt(100**2 + 70**2 + 20**2), 5.18e9)
    assert rx4 >= -64
    g_uav1, g_sta4 = tcp_goodput_mbps(Phy("n"), 3), tcp_goodput_mbps(Phy("n"), 7)
    first = {c.resource: c.capacity_mbps for c in plan.capacity_changes if c.t_s == 0}
    assert first["air:ship-ap:uav1>ship-ap"] == pytest.approx(_goodput_capacity(g_uav1), rel=1e-9)
    assert first["air:ship-ap:ship-ap>sta4"] == pytest.approx(_goodput_capacity((1 - 5 / g_uav1) * g_sta4), rel=1e-9)


@pytest.mark.parametrize("uplinks,msg", [
    ({"uav1": "h1"}, "is not an access point"),
    ({"uav1": "uav1"}, "its own uplink"),
    ({"uav1": "uav2", "uav2": "uav1"}, "cycle"),
])
def test_uplinks_name_another_access_point_without_cycles(uplinks, msg):
    doc = {"name": "chain", "nodes": [{"id": "h1", "kind": "host"}] + [
        {"id": ap, "kind": "access_point", "range_m": 500, **({"uplink": uplinks[ap]} if ap in uplinks else {})}
        for ap in ("uav1", "uav2")]}
    with pytest.raises(ScenarioInvalid) as exc:
        load_scenario(doc)
    assert exc.value.errors[0]["loc"][-1] == "uplink" and msg in exc.value.errors[0]["msg"]


def test_the_adhoc_link_rate_follows_friis_between_the_two_stations():
    plan = resolve_plan(json.loads(EXAMPLE.read_text()), "sptcp")
    # sta1 starts at (2600, 0), sta3 stands at (2450, 100): 15 dBm, 0 dBi both ends, 5180 MHz
    rx = 15 - friis_textbook(math.hypot(150, 100), 5.18e9)
    rate = next(r for r, s in reversed(HT20) if rx >= s)
    first = {c.resource: c.capacity_mbps for c in plan.capacity_changes if c.t_s == 0}
    assert first["adhoc:sta1~sta3"] == rate == 19.5
    # the stations stay within 15 + 82 dB of Friis loss (the slowest MCS) while sta1 flies to (2150, 0):
    reach = (C / 5.18e9) / (4 * math.pi) * 10 ** ((15 + 82) / 20)
    assert reach > math.hypot(2450 - 2150, 100)
    # so sta3's flow keeps its route through sta1 until the end of the run
    f3 = next(f for f in plan.flows if f.id == "f3")
    assert f3.segments[-1].t_end_s == 80 and f3.segments[-1].subflows[0].nodes[:2] == ["sta3", "sta1"]
