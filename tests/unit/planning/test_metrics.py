"""Throughput models, fairness, composition and link-state handling (thesis Ch. 2–4)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from subflow.planning.link_state import (
    LinkStateEstimator,
    LinkStateOptions,
    path_on,
    quantize_delay_ms,
    quantize_loss,
    select_with_hysteresis,
)
from subflow.planning.network import Network
from subflow.planning.shortest_paths import compose_loss, shortest_path, tcpbp_cost
from subflow.planning.throughput_models import (
    inverse_sqrt_law,
    jain_index,
    mathis_throughput_mbps,
    padhye_approx_throughput_mbps,
    padhye_throughput_mbps,
    round_trip,
)


def test_compose_loss_is_one_minus_product_of_survivals():
    assert compose_loss([]) == 0.0
    assert compose_loss([0.5, 0.5]) == pytest.approx(0.75)
    p = [0.003, 0.0002, 0.0037]  # route 1 ⇒ 3 ⇒ 4 ⇒ 10 of the thesis
    assert compose_loss(p) == pytest.approx(1 - np.prod([1 - x for x in p]))
    with pytest.raises(ValueError):
        compose_loss([1.0])


def test_tcpbp_cost_is_d_sqrt_p():
    assert tcpbp_cost(9.0, 0.021929) == pytest.approx(9.0 * math.sqrt(0.021929))
    assert tcpbp_cost(0.0, 0.3) == 0.0 and tcpbp_cost(5.0, 0.0) == 0.0
    with pytest.raises(ValueError):
        tcpbp_cost(-1.0, 0.1)


def test_mathis_reproduces_the_thesis_case_study():
    # thesis §3.6.1: p = 0.001 %, RTT = 10 ms, C = 1: "≈ 369.4 Mbps" (MSS 1460 bytes)
    assert mathis_throughput_mbps(1460, 0.010, 1e-5, c=1.0) == pytest.approx(369.4, abs=0.05)
    # proportional to 1/(RTT·√p)
    a = mathis_throughput_mbps(1460, 0.02, 0.01)
    b = mathis_throughput_mbps(1460, 0.04, 0.04)
    assert a / b == pytest.approx(inverse_sqrt_law(0.02, 0.01) / inverse_sqrt_law(0.04, 0.04))
    assert math.isinf(mathis_throughput_mbps(1460, 0.02, 0.0))


def test_padhye_full_model_properties():
    mss, rtt = 1460, 0.1
    # close to the closed-form approximation (their Eq. 33) in the usual range
    for p in (0.001, 0.01, 0.05):
        full = padhye_throughput_mbps(mss, rtt, p)
        approx = padhye_approx_throughput_mbps(mss, rtt, p)
        assert full == pytest.approx(approx, rel=0.1)
    # at low loss (few timeouts) it tends to the square-root law with C = √(3/(2b)), b = 2
    low = padhye_throughput_mbps(mss, rtt, 1e-6)
    assert low == pytest.approx(mathis_throughput_mbps(mss, rtt, 1e-6, c=math.sqrt(3 / 4)), rel=0.02)
    # timeouts make it fall faster than 1/√p at high loss
    assert padhye_throughput_mbps(mss, rtt, 0.2) < mathis_throughput_mbps(mss, rtt, 0.2, c=math.sqrt(3 / 4)) / 2
    # decreasing in p and in RTT
    ps = [1e-4, 1e-3, 1e-2, 0.05, 0.1, 0.3]
    rates = [padhye_throughput_mbps(mss, rtt, p) for p in ps]
    assert rates == sorted(rates, reverse=True)
    assert padhye_throughput_mbps(mss, 0.2, 0.01) < padhye_throughput_mbps(mss, 0.1, 0.01)
    # window limit: never above Wmax·MSS/RTT
    wmax = 8
    limited = padhye_throughput_mbps(mss, rtt, 1e-4, wmax_packets=wmax)
    assert limited <= wmax * mss * 8 / rtt / 1e6 + 1e-12
    assert padhye_throughput_mbps(mss, rtt, 0.0, wmax_packets=wmax) == pytest.approx(wmax * mss * 8 / rtt / 1e6)
    with pytest.raises(ValueError):
        padhye_throughput_mbps(mss, 0.0, 0.01)


def test_jain_index_convention():
    assert jain_index([]) == 1.0
    assert jain_index([0.0, 0.0]) == 1.0  # stated convention: all zero = equal shares of nothing
    assert jain_index([1.0, 0.0, 0.0, 0.0]) == pytest.approx(0.25)
    assert jain_index([3.0, 3.0, 3.0]) == pytest.approx(1.0)


def test_round_trip_convention():
    assert round_trip(13.3, 0.0068876) == pytest.approx((0.0266, 1 - (1 - 0.0068876) ** 2))


def test_granularity_matches_thesis_section_4_1():
    assert quantize_delay_ms(np.array([2.449, 2.45, 10.649, 0.04]), 0.1).tolist() == pytest.approx([2.4, 2.5, 10.6, 0.0])
    assert quantize_loss(np.array([0.00234, 0.00235, 0.99999]), 1e-4).tolist() == pytest.approx([0.0023, 0.0024, 0.9999])


def _net():
    return Network.from_links(
        ["a", "b", "c"],
        [("ab", "a", "b", 1.0, 0.0, 10), ("bc", "b", "c", 1.0, 0.0, 10), ("ac", "a", "c", 3.0, 0.0, 10)],
    )


def test_sma_over_the_last_k_samples_with_granularity():
    net = _net()
    est = LinkStateEstimator(net, LinkStateOptions(sma_window=3))
    assert est.routing_metric("tcpbp") == "hop"  # §3.5.1: hop count until measurements exist
    assert est.network() is net
    with pytest.raises(LookupError):
        est.estimate()
    samples = [1.0, 2.0, 3.0, 4.0]
    for x in samples:
        est.observe(np.full(net.m, x), np.full(net.m, x / 100))
    d, p = est.estimate()
    assert d == pytest.approx(np.full(net.m, 3.0))  # mean of the last three
    assert p == pytest.approx(np.full(net.m, 0.03))
    assert est.routing_metric("tcpbp") == "tcpbp"
    est2 = LinkStateEstimator(net, LinkStateOptions(sma_window=2))
    est2.observe(np.full(net.m, 1.04), np.full(net.m, 0.00011))
    est2.observe(np.full(net.m, 1.07), np.full(net.m, 0.00012))
    d, p = est2.estimate()
    assert d == pytest.approx(np.full(net.m, 1.1)) and p == pytest.approx(np.full(net.m, 0.0001))
    with pytest.raises(ValueError):
        est.observe(np.ones(net.m), np.full(net.m, 1.0))


def test_hysteresis_keeps_the_current_route_below_dz():
    net = _net().with_arrays(loss=np.full(6, 0.01))
    best = shortest_path(net, "a", "c", "tcpbp")
    assert best.nodes == ("a", "b", "c")  # 2·√0.0199 = 0.282 < 3·√0.01 = 0.3
    current = ["a", "c"]
    cur = path_on(net, current, "tcpbp")
    gain = cur.cost - best.cost
    kept, changed = select_with_hysteresis(net, "tcpbp", current, best, dz=gain * 1.1)
    assert kept.nodes == ("a", "c") and not changed
    moved, changed = select_with_hysteresis(net, "tcpbp", current, best, dz=gain * 0.9)
    assert moved.nodes == best.nodes and changed
    kept, changed = select_with_hysteresis(net, "tcpbp", current, best, dz_rel=0.1)  # 6 % gain < 10 %
    assert kept.nodes == ("a", "c") and not changed
    # a current route that no longer exists is replaced
    gone, changed = select_with_hysteresis(net, "tcpbp", ["a", "x", "c"], best, dz=10)
    assert gone.nodes == best.nodes and changed
