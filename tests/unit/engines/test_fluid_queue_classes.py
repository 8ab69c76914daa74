"""Queues by class in the fluid engine (``subflow_engines.fluid.classes``) on cases worked out by hand.

One 10 Mbit/s link, 5 ms one-way, 100-packet queues, MSS 1448 bytes: the link carries C = 10·1448/1514 Mbit/s of
goodput-scaled bits (``common.goodput_fraction``), so a full-sized packet takes S = 1448·8/C = 1514·8/10⁷ s =
1.2112 ms and a full 100-packet queue 121.12 ms. A G.711 call (EF) sends 200-byte packets at 80 kbit/s: 0.16 ms of
transmission.
"""

from __future__ import annotations

import pytest

from subflow.errors import EngineCannotRun
from subflow.runplan.resolve import resolve_plan
from subflow_engines import all_engines, fluid, run_plan
from subflow_engines.fluid import vectorised

WIRE = 1448 / 1514  # goodput share of a frame
S_MS = 1514 * 8 / 10e6 * 1e3  # one full-sized packet at 10 Mbit/s: 1.2112 ms
FULL_QUEUE_MS = 100 * S_MS  # 121.12 ms
VOICE_TX_MS = 200 * 8 / 10e6 * 1e3  # 0.16 ms

TCP = {"id": "t", "src": "a", "dst": "b"}
VOICE = {"id": "v", "src": "a", "dst": "b", "kind": "voice", "dscp": "EF"}


def _doc(*flows, queueing=None, duration=20.0) -> dict:
    doc = {"name": "classes", "nodes": [{"id": "a", "kind": "host"}, {"id": "b", "kind": "host"}],
           "links": [{"id": "a-b", "src": "a", "dst": "b", "bandwidth_mbps": 10.0, "delay_ms": 5.0,
                      "queue_packets": 100}],
           "run": {"duration_s": duration, "interval_s": 1.0}, "flows": list(flows)}
    if queueing is not None:
        doc["queueing"] = queueing
    return doc


def test_fifo_voice_waits_behind_the_bulk_flows_standing_queue():
    """FIFO: the EF call queues behind TCP's backlog, which grows towards the full buffer (121.12 ms)."""
    t, v = run_plan(resolve_plan(_doc(TCP, VOICE), "sptcp")).flows
    assert min(v.throughput_mbps) > 0.078
    assert max(v.delay_ms) >= 5.0 + VOICE_TX_MS + 0.9 * FULL_QUEUE_MS
    assert max(v.delay_ms) <= 5.0 + VOICE_TX_MS + FULL_QUEUE_MS + 1e-6


def test_strict_priority_voice_overtakes_the_bulk_queue_and_loses_nothing():
    """strict_priority: the call's class never holds a queue; it waits only for the BE packet in transmission
    (non-preemptive): W0 = ρ_BE·S/2 with ρ_BE = (C − 80 kbit/s·1448/1514)/C, so its delay is
    5 + 0.16 + ρ_BE·0.6056 = 5.7608 ms, within one BE packet of the empty link's. TCP takes the rest."""
    t, v = run_plan(resolve_plan(_doc(TCP, VOICE, queueing={"discipline": "strict_priority"}), "sptcp")).flows
    rho_be = (10.0 - 0.08) / 10.0
    expected = 5.0 + VOICE_TX_MS + rho_be * S_MS / 2  # 5.7608 ms
    assert v.delay_ms[2:] == pytest.approx([expected] * 18, abs=1e-3)
    assert all(5.0 + VOICE_TX_MS <= d <= 5.0 + VOICE_TX_MS + S_MS for d in v.delay_ms)
    assert v.loss == [0.0] * 20
    assert v.throughput_mbps[1:] == pytest.approx([0.08] * 19, abs=1e-6)
    # TCP's goodput: the link's less the call's, 10·1448/1514 − 0.08·1448/1514 = 9.4876 Mbit/s
    assert t.throughput_mbps[2:] == pytest.approx([(10.0 - 0.08) * WIRE] * 18, rel=1e-4)


def test_drr_shares_the_link_by_weight_between_two_backlogged_flows():
    """drr 3:1: two 8 Mbit/s udp flows over a 10 Mbit/s link get 7.5 and 2.5 Mbit/s and lose 1 − 7.5/8 = 0.0625
    and 1 − 2.5/8 = 0.6875 once their queues are full; the heavy class waits behind its full 100-packet queue
    at its share (100·1448·8 bit / (7.5·1448/1514 Mbit/s) = 161.49 ms), plus 5 ms, its packet's transmission
    (1228·8/10⁷ s = 0.9824 ms) and the residual of the other class's packet, W0 = 0.25·S/2 = 0.1514 ms."""
    q = {"discipline": "drr", "classes": [{"name": "hi", "dscp": ["EF"], "weight": 3},
                                          {"name": "lo", "dscp": ["BE"], "weight": 1}]}
    hi = {"id": "u1", "src": "a", "dst": "b", "kind": "udp", "rate_mbps": 8.0, "dscp": "EF"}
    lo = {"id": "u2", "src": "a", "dst": "b", "kind": "udp", "rate_mbps": 8.0, "dscp": "BE"}
    u1, u2 = run_plan(resolve_plan(_doc(hi, lo, queueing=q, duration=6.0), "sptcp")).flows
    assert u1.throughput_mbps == pytest.approx([7.5] * 6, abs=1e-6)
    assert u2.throughput_mbps == pytest.approx([2.5] * 6, abs=1e-6)
    assert u1.loss[-1] == pytest.approx(1 - 7.5 / 8, abs=1e-6)
    assert u2.loss[-1] == pytest.approx(1 - 2.5 / 8, abs=1e-6)
    queue_ms = 100 * 1448 * 8 / (7.5e6 * WIRE) * 1e3
    assert u1.delay_ms[-1] == pytest.approx(5.0 + queue_ms + 1228 * 8 / 10e6 * 1e3 + 0.25 * S_MS / 2, abs=1e-3)


def test_drr_gives_an_idle_class_share_to_the_others():
    """A class that asks less than its weighted share keeps its rate; the other takes the rest (water-filling):
    weights 3:1, the heavy class sends only 1 Mbit/s, the light one gets 10 − 1 = 9 Mbit/s."""
    q = {"discipline": "drr", "classes": [{"name": "hi", "dscp": ["EF"], "weight": 3},
                                          {"name": "lo", "dscp": ["BE"], "weight": 1}]}
    hi = {"id": "u1", "src": "a", "dst": "b", "kind": "udp", "rate_mbps": 1.0, "dscp": "EF"}
    lo = {"id": "u2", "src": "a", "dst": "b", "kind": "udp", "rate_mbps": 12.0, "dscp": "BE"}
    u1, u2 = run_plan(resolve_plan(_doc(hi, lo, queueing=q, duration=4.0), "sptcp")).flows
    assert u1.throughput_mbps == pytest.approx([1.0] * 4, abs=1e-6) and u1.loss == [0.0] * 4
    assert u2.throughput_mbps == pytest.approx([9.0] * 4, abs=1e-6)


def _cell(wifi: str) -> dict:
    # a server behind a 100 Mbit/s link to an access point whose air carries 20 Mbit/s (no radio: 802.11a
    # timing, 9 µs slots, SIFS 16 µs, DCF), one station receiving a bulk download (BE) and a G.711 call (EF)
    return {"name": "edca", "nodes": [
        {"id": "h", "kind": "host"},
        {"id": "ap", "kind": "access_point", "range_m": 200, "wireless_bandwidth_mbps": 20, "wireless_delay_ms": 1,
         "queue_packets": 100},
        {"id": "s", "kind": "station", "position": {"x_m": 10, "y_m": 0}}],
        "links": [{"id": "l", "src": "h", "dst": "ap", "bandwidth_mbps": 100, "delay_ms": 5}],
        "flows": [TCP | {"src": "h", "dst": "s"}, VOICE | {"src": "h", "dst": "s"}],
        "queueing": {"wifi": wifi}, "run": {"duration_s": 20.0, "interval_s": 1.0}}


def test_edca_voice_goes_first_in_the_cell_and_best_effort_takes_the_rest():
    """EDCA by hand (IEEE 802.11-2020 Table 9-155 defaults against the DCF the cell's capacity counts):
    DCF access DIFS 34 µs + 15·9/2 µs = 101.5 µs; AC_VO AIFS 34 µs + 3·9/2 = 47.5 µs (Δ −54 µs); AC_BE
    43 µs + 67.5 µs = 110.5 µs (Δ +9 µs). A full frame takes S = 1448·8 bit / (20·1448/1514 Mbit/s) = 605.6 µs of
    air, so a bit of AC_VO costs 1 − 54/605.6 = 0.91083 of a DCF bit, one of AC_BE 1 + 9/605.6 = 1.01486.
    BE gets the air the call leaves: (C − 80 kbit/s·1448/1514·0.91083)/1.01486 → 18.7794 Mbit/s of TCP goodput.
    The call: 5 + 1 ms propagation, 200·8/10⁸ s on the wire, 200·8·0.91083/(2·10⁷) s on the air, and the residual
    of the BE frame in the air, ρ_BE·S·1.01486/2 with ρ_BE = 18.7794·1.01486/(20·1448/1514): 6.3950 ms."""
    c = 20e6 * WIRE
    s_air = 1448 * 8 / c
    cost_vo, cost_be = 1 - 54e-6 / s_air, 1 + 9e-6 / s_air
    be = (c - 0.08e6 * WIRE * cost_vo) / cost_be
    t, v = run_plan(resolve_plan(_cell("edca"), "sptcp")).flows
    assert t.throughput_mbps[2:] == pytest.approx([be / 1e6] * 18, rel=1e-4)
    rho_be = be * cost_be / c
    expected = 6.0 + 200 * 8 / 100e6 * 1e3 + 200 * 8 * cost_vo / 20e6 * 1e3 + rho_be * s_air * cost_be / 2 * 1e3
    assert v.delay_ms[2:] == pytest.approx([expected] * 18, abs=1e-3)
    assert v.loss == [0.0] * 20
    # under dcf the call waits in the air's one FIFO behind the download's queue
    _, v_dcf = run_plan(resolve_plan(_cell("dcf"), "sptcp")).flows
    assert min(v_dcf.delay_ms[2:]) > 5 * expected


def test_the_plan_carries_each_flows_class_and_the_queueing():
    plan = resolve_plan(_doc(TCP, VOICE, queueing={"discipline": "strict_priority"}), "sptcp")
    assert plan.queueing.discipline == "strict_priority"
    assert [(f.dscp, f.traffic_class) for f in plan.flows] == [("BE", "best_effort"), ("EF", "voice")]
    fifo = resolve_plan(_doc(TCP, VOICE), "sptcp")
    assert fifo.queueing.discipline == "fifo" and [f.traffic_class for f in fifo.flows] == [None, None]


def test_queues_by_class_run_on_the_scalar_kernel():
    tcp_only = resolve_plan(_doc(TCP, queueing={"discipline": "drr"}), "sptcp")
    assert not vectorised.supports(tcp_only)
    assert vectorised.supports(resolve_plan(_doc(TCP), "sptcp"))
    with pytest.raises(ValueError):
        fluid.run(tcp_only, kernel="vector")


def test_fluid_honours_the_queueing_and_linux_refuses_it_naming_the_field():
    doc = _doc(TCP, queueing={"discipline": "strict_priority"})
    all_engines()["fluid"].check(resolve_plan(doc, "sptcp"))
    with pytest.raises(EngineCannotRun, match=r"^queueing\b.*: engine linux does not honour it"):
        all_engines()["linux"].check(resolve_plan(doc, "sptcp", "linux"))


def test_drr_splits_two_bulk_tcp_flows_by_their_classes_weights():
    """TCP flows are in their DSCP's class too: an AF41 download (video, weight 3) and a BE one (best_effort,
    weight 2) under the default classes share the 10 Mbit/s link 3:2, 6 and 4 Mbit/s of frames, i.e.
    6·1448/1514 = 5.7385 and 4·1448/1514 = 3.8256 Mbit/s of goodput."""
    af41 = {"id": "t1", "src": "a", "dst": "b", "dscp": "AF41"}
    be = {"id": "t2", "src": "a", "dst": "b"}
    t1, t2 = run_plan(resolve_plan(_doc(af41, be, queueing={"discipline": "drr"}, duration=30.0), "sptcp")).flows
    assert sum(t1.throughput_mbps[10:]) / 20 == pytest.approx(6.0 * WIRE, rel=1e-3)
    assert sum(t2.throughput_mbps[10:]) / 20 == pytest.approx(4.0 * WIRE, rel=1e-3)


def test_strict_priority_starves_the_lower_class_of_an_overloaded_link():
    """An EF udp flow of 12 Mbit/s takes the whole 10 Mbit/s link; the BE TCP flow below it gets nothing."""
    u = {"id": "u", "src": "a", "dst": "b", "kind": "udp", "rate_mbps": 12.0, "dscp": "EF"}
    out = run_plan(resolve_plan(_doc(u, TCP, queueing={"discipline": "strict_priority"}, duration=5.0), "sptcp"))
    assert out.flows[0].throughput_mbps == pytest.approx([10.0] * 5, abs=1e-6)
    assert out.flows[1].throughput_mbps == [0.0] * 5


def test_edca_in_a_radio_cell_keeps_the_call_off_the_download_queue():
    """An 802.11g access point with a radio (per-station air queues at the cell's DCF capacity, about 23.9 Mbit/s
    of bulk TCP at 54 Mbit/s, docs/radio.md) sends a station a download (BE) and a call (EF) through the same
    per-station queue. Under edca the call waits only for the BE frame in the air: its delay is the air's 1 ms
    plus at most one full frame's airtime (1448·8 bit / 23.9 Mbit/s = 0.48 ms) and its own short frame; under
    dcf it queues behind the download (tens of ms)."""
    radio = {"tx_power_dbm": 20, "frequency_mhz": 2412, "phy": "g"}

    def run(wifi):
        doc = {"name": "cell", "nodes": [
            {"id": "h1", "kind": "host"},
            {"id": "ap1", "kind": "access_point", "position": {"x_m": 0, "y_m": 0}, "range_m": 5000,
             "wireless_bandwidth_mbps": 54.0, "radio": radio},
            {"id": "sta0", "kind": "station", "position": {"x_m": 10.0, "y_m": 0}, "radio": radio}],
            "links": [{"id": "l1", "src": "h1", "dst": "ap1", "bandwidth_mbps": 1000}],
            "flows": [{"id": "t", "src": "h1", "dst": "sta0"},
                      {"id": "v", "src": "h1", "dst": "sta0", "kind": "voice", "dscp": "EF"}],
            "run": {"duration_s": 20.0},
            "radio": {"propagation": {"model": "log_distance", "exponent": 3, "reference_distance_m": 1,
                                      "reference_loss_db": 46.68}},
            "queueing": {"wifi": wifi}}
        return run_plan(resolve_plan(doc, "sptcp")).flows

    t, v = run("edca")
    frame_ms = 1448 * 8 / 23.9e6 * 1e3
    assert all(1.0 < d <= 1.0 + frame_ms + 0.1 for d in v.delay_ms[1:])
    assert v.loss[1:] == [0.0] * (len(v.loss) - 1)
    assert min(t.throughput_mbps[2:]) > 22.0  # the download keeps the rest of the air
    _, v_dcf = run("dcf")
    assert min(v_dcf.delay_ms[2:]) > 10.0


@pytest.mark.parametrize(("standard", "slots"), [
    # against DCF (AIFSN 2, CWmin 15: 2 + 7.5 slots) on 802.11a/g; against AC_BE (3 + 7.5) on 802.11n/ac
    ("a", {"voice": -6, "video": -4, "best_effort": 1, "background": 5}),
    ("ac", {"voice": -7, "video": -5, "best_effort": 0, "background": 4}),
])
def test_each_access_categorys_access_time_against_the_cells(standard, slots):
    """IEEE 802.11-2020 Table 9-155 (as Linux mac80211's ieee80211_set_wmm_default): AIFSN 7/3/2/2 and CWmin
    15/15/7/3 for BK/BE/VI/VO; the mean backoff is CWmin/2 slots (9 µs)."""
    from subflow.radio.airtime import Phy
    from subflow_engines.fluid.classes import access_delta_s

    for ac, n in slots.items():
        assert access_delta_s(Phy(standard=standard), ac) == pytest.approx(n * 9e-6, abs=1e-12)
