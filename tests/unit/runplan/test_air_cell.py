"""An access point with a radio: its air carries the cell's 802.11 DCF capacity.

The expected figures are worked out here from the airtime of IEEE 802.11-2020 (clause 18 ERP-OFDM
at 2.4 GHz: 20 µs preamble and SIGNAL, 4 µs symbols, 6 µs signal extension, 9 µs slot, SIFS 10 µs,
DIFS 28 µs, CWmin 15; Ack at the highest basic rate in {6, 12, 24} Mbit/s not above the data rate),
not by calling the planner's functions, and the cell is shared by equal transmission opportunities
(Heusse et al., INFOCOM 2003): n stations of goodputs g_i carry n / Σ(1/g_i) together.

Path loss as measured in the Wi-Fi hop study: log-distance, exponent 3, 46.68 dB at 1 m, 20 dBm at both
ends, 802.11g at 2412 MHz.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from subflow.runplan.resolve import resolve_plan
from subflow_engines.fluid import run as fluid_run

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MSS = 1448
#: a shaper's frame for a 1448-byte MSS: + IPv4/TCP/timestamps 52 + Ethernet 14 bytes
FRAME = 1514
DIFS_US, SIFS_US, BACKOFF_US = 28.0, 10.0, 7.5 * 9.0
#: MPDU of a data segment: 1448 + 52 (TCP/IP) + 8 (LLC/SNAP) + 24 (MAC header) + 4 (FCS) = 1536 bytes;
#: of a TCP ACK: 52 + 8 + 24 + 4 = 88 bytes
DATA_MPDU, ACK_MPDU, MAC_ACK = 1536, 88, 14


def _ppdu_us(rate_mbps: float, mpdu_bytes: int) -> float:
    """ERP-OFDM TXTIME (IEEE 802.11-2020 18.5.3, 17.4.3): 20 µs + 4 µs · ⌈(16 + 8·L + 6)/N_DBPS⌉ + 6 µs."""
    return 20.0 + 4.0 * math.ceil((16 + 8 * mpdu_bytes + 6) / (4 * rate_mbps)) + 6.0


def _tcp_goodput_mbps(rate_mbps: float) -> float:
    """Bulk TCP over one 802.11g hop with delayed ACKs: one data exchange and half a TCP ACK exchange per segment."""
    control = max(r for r in (6, 12, 24) if r <= rate_mbps)
    ack = _ppdu_us(control, MAC_ACK)
    data = DIFS_US + BACKOFF_US + _ppdu_us(rate_mbps, DATA_MPDU) + SIFS_US + ack
    tcp_ack = DIFS_US + BACKOFF_US + _ppdu_us(rate_mbps, ACK_MPDU) + SIFS_US + ack
    return 8 * MSS / (data + 0.5 * tcp_ack)


def test_hand_airtime_reproduces_the_published_54_mbps_figure():
    # docs/radio.md: 802.11g at 54 Mbit/s carries about 23.9 Mbit/s of bulk TCP (Jun et al., NCA 2003:
    # under half the PHY rate); the hand sums: 393.5 µs per data exchange + 181.5 µs / 2 per TCP ACK
    assert _tcp_goodput_mbps(54) == pytest.approx(8 * 1448 / 484.25)
    assert _tcp_goodput_mbps(54) == pytest.approx(23.9, abs=0.05)


def _scenario(distances_m, rate_selection=None, wireless_bandwidth_mbps=54.0, duration_s=20.0):
    radio = {"tx_power_dbm": 20, "frequency_mhz": 2412, "phy": "g"}
    nodes = [{"id": "h1", "kind": "host"},
             {"id": "ap1", "kind": "access_point", "position": {"x_m": 0, "y_m": 0}, "range_m": 5000,
              "wireless_bandwidth_mbps": wireless_bandwidth_mbps, "radio": radio}]
    flows = []
    for k, d in enumerate(distances_m):
        nodes.append({"id": f"sta{k}", "kind": "station", "position": {"x_m": d, "y_m": 0}, "radio": radio})
        flows.append({"id": f"f{k}", "src": "h1", "dst": f"sta{k}"})
    doc = {"name": "cell", "nodes": nodes,
           "links": [{"id": "l1", "src": "h1", "dst": "ap1", "bandwidth_mbps": 1000}],
           "flows": flows, "run": {"duration_s": duration_s},
           "radio": {"propagation": {"model": "log_distance", "exponent": 3, "reference_distance_m": 1,
                                     "reference_loss_db": 46.68}}}
    if rate_selection is not None:
        doc["radio"]["rate_selection"] = rate_selection
    return doc


def _air_capacities(doc) -> dict[str, float]:
    """Capacity of each of ap1's per-station queues over the (static) run: {resource id: Mbit/s}."""
    plan = resolve_plan(doc, "sptcp")
    out = {r.id: r.capacity_mbps for r in plan.resources if r.id.startswith("air:ap1:")}
    for c in plan.capacity_changes:
        if c.resource in out:
            assert c.t_s == 0.0
            out[c.resource] = c.capacity_mbps
    return out


def _air_capacity(doc) -> float:
    """The cell's capacity: the sum over its downlink queues (every station has one bulk flow from h1)."""
    caps = _air_capacities(doc)
    down = [c for rid, c in caps.items() if ">sta" in rid]
    # the stations' queues get one share each, DCF's equal throughput (Heusse et al., §III)
    assert max(down) == pytest.approx(min(down), rel=1e-12)
    return sum(down)


@pytest.mark.parametrize("method, slow_rate", [("error_rate", 36), ("nist", 24), ("min_sensitivity", 12)])
def test_two_stations_share_the_cell_by_airtime(method, slow_rate):
    # 10 m: 54 Mbit/s by either method. 50 m: received power 20 − 46.68 − 30·log10(50) = −77.65 dBm:
    # over the standard's sensitivities (12 Mbit/s needs −79 dBm, 18 Mbit/s −77 dBm) 12 Mbit/s; SNR over
    # −93.99 dBm (thermal + 7 dB) of 16.3 dB, where the NIST model keeps 24 Mbit/s (16-QAM 1/2) under 10 % PER
    # (36 Mbit/s needs 16.6 dB) and the soft-decision bound 36 Mbit/s (16-QAM 3/4) under a BER of 1e-6
    # (13.9 dB; 48 Mbit/s needs 18.5 dB)
    g_fast, g_slow = _tcp_goodput_mbps(54), _tcp_goodput_mbps(slow_rate)
    cell = 2 / (1 / g_fast + 1 / g_slow)
    assert _air_capacity(_scenario([10, 50], method)) == pytest.approx(cell * FRAME / MSS, rel=1e-9)
    # more than the slowest station's PHY rate shared out would have given as goodput, less than the fast one alone
    assert g_slow < cell < g_fast


def test_the_cell_is_the_harmonic_mean_of_the_stations_goodputs_whatever_their_number():
    rates = {10: 54, 30: 54, 50: 36}  # error_rate picks (SNR 22.9 dB at 30 m, 54 Mbit/s needs 19.8 dB)
    expected = len(rates) / sum(1 / _tcp_goodput_mbps(r) for r in rates.values())
    assert _air_capacity(_scenario(list(rates))) == pytest.approx(expected * FRAME / MSS, rel=1e-9)


def test_wireless_bandwidth_still_caps_the_air():
    assert _air_capacity(_scenario([10], wireless_bandwidth_mbps=10.0)) == 10.0


def test_error_rate_is_the_default_and_nist_and_min_sensitivity_the_cautious_options():
    assert _air_capacity(_scenario([50])) == pytest.approx(_tcp_goodput_mbps(36) * FRAME / MSS, rel=1e-9)
    assert _air_capacity(_scenario([50], "nist")) == pytest.approx(_tcp_goodput_mbps(24) * FRAME / MSS, rel=1e-9)
    assert _air_capacity(_scenario([50], "min_sensitivity")) == pytest.approx(
        _tcp_goodput_mbps(12) * FRAME / MSS, rel=1e-9)


def test_fluid_goodput_of_one_station_at_10_m_is_the_airtime_figure():
    # the engine used to carry 54 · 1448/1514 = 51.6 Mbit/s here: a wired pipe at the PHY rate
    out = fluid_run(resolve_plan(_scenario([10], duration_s=30.0), "sptcp"), kernel="scalar")
    tp = out.flows[0].throughput_mbps[10:]
    assert sum(tp) / len(tp) == pytest.approx(_tcp_goodput_mbps(54), rel=0.03)


# ----------------------------------------------------------------------------- per-station queues
def _with_flows(distances_m, flows):
    """``_scenario`` with other flows: ``flows`` is a list of (station index, rate_mbps or None, uplink?)."""
    doc = _scenario(distances_m)
    doc["flows"] = [{"id": f"f{k}", "src": f"sta{i}" if up else "h1", "dst": "h1" if up else f"sta{i}",
                     **({} if rate is None else {"rate_mbps": rate})}
                    for k, (i, rate, up) in enumerate(flows)]
    return doc


def test_a_station_without_traffic_takes_no_airtime():
    # sta1 at 50 m is associated but has no flow: sta0's queue gets the whole channel, its goodput alone
    caps = _air_capacities(_with_flows([10, 50], [(0, None, False)]))
    assert caps["air:ap1:ap1>sta0"] == pytest.approx(_tcp_goodput_mbps(54) * FRAME / MSS, rel=1e-9)


def test_a_station_with_two_flows_shares_its_one_queue():
    # DCF's equal opportunities are per queue, not per flow: sta0's two flows and sta1's one get one share each
    caps = _air_capacities(_with_flows([10, 50], [(0, None, False), (0, None, False), (1, None, False)]))
    share = 1 / (1 / _tcp_goodput_mbps(54) + 1 / _tcp_goodput_mbps(36))
    assert caps["air:ap1:ap1>sta0"] == pytest.approx(share * FRAME / MSS, rel=1e-9)
    assert caps["air:ap1:ap1>sta1"] == pytest.approx(share * FRAME / MSS, rel=1e-9)


def test_uplink_and_downlink_queues_contend_alike():
    # sta0 downloads, sta1 uploads: two queues, the access point's for sta0 and sta1's own
    caps = _air_capacities(_with_flows([10, 50], [(0, None, False), (1, None, True)]))
    share = 1 / (1 / _tcp_goodput_mbps(54) + 1 / _tcp_goodput_mbps(36))
    assert caps["air:ap1:ap1>sta0"] == pytest.approx(share * FRAME / MSS, rel=1e-9)
    assert caps["air:ap1:sta1>ap1"] == pytest.approx(share * FRAME / MSS, rel=1e-9)


def test_an_application_limited_station_leaves_its_airtime_to_the_others():
    # sta1 (36 Mbit/s, g1) asks 2 Mbit/s and uses 2/g1 of the air; sta0 (g0) gets the rest: (1 - 2/g1)·g0
    g0, g1 = _tcp_goodput_mbps(54), _tcp_goodput_mbps(36)
    caps = _air_capacities(_with_flows([10, 50], [(0, None, False), (1, 2.0, False)]))
    assert caps["air:ap1:ap1>sta0"] == pytest.approx((1 - 2.0 / g1) * g0 * FRAME / MSS, rel=1e-9)
    assert caps["air:ap1:ap1>sta1"] >= 2.0 * FRAME / MSS


def test_the_fluid_engine_gives_each_station_its_share():
    # two bulk stations at 54 and 36 Mbit/s: equal goodput 1/(1/g0 + 1/g1) each (Heusse et al.)
    out = fluid_run(resolve_plan(_with_flows([10, 50], [(0, None, False), (1, None, False)]), "sptcp"),
                    kernel="scalar")
    share = 1 / (1 / _tcp_goodput_mbps(54) + 1 / _tcp_goodput_mbps(36))
    for f in out.flows:
        tp = f.throughput_mbps[5:]
        assert sum(tp) / len(tp) == pytest.approx(share, rel=0.05), f.id


@SETTINGS
@given(st.lists(st.tuples(st.floats(0.5, 300.0), st.one_of(st.just(math.inf), st.floats(0.01, 300.0))),
                min_size=1, max_size=12))
def test_dcf_shares_fill_the_airtime_with_equal_saturated_shares(contenders):
    """Independent checks of the DCF shares: the airtime used, Σ min(d_i, s_i)/g_i, is at most one second per
    second and is one whenever the demands do not fit; every contender that uses its whole share gets the same
    share; every share is at least the contender's demand when the demands fit, and never above g_i."""
    from subflow.runplan.air_cells import dcf_shares_mbps

    g = [c[0] for c in contenders]
    d = [c[1] for c in contenders]
    s = dcf_shares_mbps(g, d)
    used = sum(min(di, si) / gi for gi, di, si in zip(g, d, s))
    load = sum(di / gi for gi, di in zip(g, d))
    assert used <= 1 + 1e-9
    if load > 1:
        assert used == pytest.approx(1.0, rel=1e-9)
        limited = [si for di, si in zip(d, s) if di >= si]
        assert max(limited) == pytest.approx(min(limited), rel=1e-9)
    else:
        assert all(si >= di * (1 - 1e-9) for di, si in zip(d, s))
    assert all(0 < si <= gi * (1 + 1e-12) for gi, si in zip(g, s))


# ----------------------------------------------------------------------------- the planners read the same radio
def test_the_planners_air_hops_carry_each_stations_radio_rate():
    # the routes, allocation and failure requests read NetworkTimeline's arcs: a station's air hops carry what its
    # MCS carries alone (the hand airtime above), not the access point's nominal 54 Mbit/s; the plan's own queue for
    # a station alone in the cell (its flow the only one) gets the same figure
    from subflow.analysis.planning import AllocationRequest, allocation_document
    from subflow.runplan.topology import NetworkTimeline

    doc = _with_flows([10, 50], [(0, 5.0, False)])
    doc["flows"].append({"id": "f1", "src": "h1", "dst": "sta1", "rate_mbps": 5.0})
    caps = {a.resource: a.capacity_mbps for a in NetworkTimeline(doc).interval(10.0).arcs}
    assert caps["air:ap1:ap1>sta0"] == pytest.approx(_tcp_goodput_mbps(54) * FRAME / MSS, rel=1e-9)
    assert caps["air:ap1:sta0>ap1"] == pytest.approx(_tcp_goodput_mbps(54) * FRAME / MSS, rel=1e-9)
    assert caps["air:ap1:ap1>sta1"] == pytest.approx(_tcp_goodput_mbps(36) * FRAME / MSS, rel=1e-9)
    alone = _air_capacities(_with_flows([10, 50], [(0, None, False)]))
    assert caps["air:ap1:ap1>sta0"] == pytest.approx(alone["air:ap1:ap1>sta0"], rel=1e-12)
    allocation = allocation_document(doc, AllocationRequest(t_s=10.0))
    loads = {(ld["link"], ld["dst"]): ld for ld in allocation["links"]}
    assert loads["air:ap1:sta1", "sta1"]["capacity"] == pytest.approx(_tcp_goodput_mbps(36) * FRAME / MSS, rel=1e-9)


def test_a_station_moving_away_loses_rate_in_the_planners_too():
    # sta0 walks from 10 m to 50 m: 54 Mbit/s at the start, 36 Mbit/s (error_rate) at the end
    from subflow.runplan.topology import NetworkTimeline

    doc = _scenario([10])
    doc["nodes"][2]["mobility"] = {"model": "waypoints", "points": [{"t_s": 0, "x_m": 10, "y_m": 0},
                                                                    {"t_s": 20, "x_m": 50, "y_m": 0}]}
    net = NetworkTimeline(doc)
    start = {a.resource: a.capacity_mbps for a in net.interval(0.1).arcs}
    end = {a.resource: a.capacity_mbps for a in net.interval(19.9).arcs}
    assert start["air:ap1:ap1>sta0"] == pytest.approx(_tcp_goodput_mbps(54) * FRAME / MSS, rel=1e-9)
    assert end["air:ap1:ap1>sta0"] == pytest.approx(_tcp_goodput_mbps(36) * FRAME / MSS, rel=1e-9)
