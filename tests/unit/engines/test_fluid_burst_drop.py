"""A full drop-tail queue of the fluid network drops more of bursty arrivals than of smooth ones
(subflow_engines.fluid.queues.burst_weight), conserving bits."""

from __future__ import annotations

import math

import numpy as np
import pytest

from subflow_engines.fluid.queues import BURST_DROP_BIAS, Incidence, burst_weight, row_state, serve


def test_burst_weight_is_one_for_a_smoothed_arrival_and_grows_with_the_upstream_rate():
    assert burst_weight(0.5) == 1.0 and burst_weight(1.0) == 1.0
    assert burst_weight(2.0) == pytest.approx(1.0 + BURST_DROP_BIAS * 0.5)
    assert burst_weight(math.inf) == pytest.approx(1.0 + BURST_DROP_BIAS)
    assert burst_weight(1.5) < burst_weight(6.7) < burst_weight(math.inf)


def _step(cap_bps, buf_bits, queue_bits, rows, inject_bits, dt=0.001):
    """One :func:`serve` step of ``rows`` ([(slot, [resources])]) with resources of ``cap_bps``, after
    :func:`row_state` has set the burst weights."""
    n_res = len(cap_bps)
    net = Incidence(rows, n_res)
    cap = np.array(cap_bps, dtype=float)
    slots = max(s for s, _ in rows) + 1
    inject = np.array(inject_bits, dtype=float)
    queue = np.array(queue_bits, dtype=float)
    arrived, drop_frac, res_delay = np.zeros(n_res), np.zeros(n_res), np.zeros(n_res)
    got, dropped, qdelay, queued = np.zeros(slots), np.zeros(slots), np.zeros(slots), np.zeros(slots)
    # the burst weights, as the engine sets them when rows or capacities change
    row_state(net.row_arrays(), res_delay, qdelay, np.zeros(slots), np.zeros(slots), cap, net.burst)
    overflow = serve(inject, net.row_slot, net.row_first, net.order_res, net.order_ptr, net.srv_next,
                     net.srv_slot, net.lag_in, net.ack_ptr, net.ack_slot, queue, cap, cap * dt,
                     np.array(buf_bits, dtype=float), net.backlog, net.pending, net.arriving, net.burst, arrived,
                     drop_frac, res_delay, got, dropped, qdelay, queued, True, np.zeros(n_res))
    return overflow, got, dropped, queued, queue


def test_a_full_queue_drops_the_bursty_arrival_more_and_conserves_bits():
    # resource 0: a 10 Mbit/s upstream hop (full, so it passes 10 kbit a step); resource 1: the shared
    # 10 Mbit/s queue, full; resource 2: the bursty sender's 100 Mbit/s access link.
    # slot 0 reaches 1 through 0 (smoothed, rho = 1), slot 1 through 2 (rho = 10).
    cap = [10e6, 10e6, 100e6]
    buf = [1e9, 20e3, 1e9]
    overflow, got, dropped, queued, queue = _step(cap, buf, [0.0, 20e3, 0.0], [(0, [0, 1]), (1, [2, 1])],
                                                  [10e3, 10e3])
    assert overflow
    w0, w1 = burst_weight(1.0), burst_weight(10.0)
    # each slot's loss signal is its burst weight times the queue's drop per unit of weight
    assert dropped[1] / dropped[0] == pytest.approx(w1 / w0)
    # bits: what entered = what left the last hop + what is held in the queues + what was dropped
    lost = sum(inj - g - q for inj, g, q in zip([10e3, 10e3], got, queued))
    assert lost == pytest.approx(10e3 + 10e3 - 10e3)  # the full queue served 10 kbit and dropped the rest
    assert queue[1] == pytest.approx(20e3)
    assert all(x >= -1e-9 for x in (*got, *queued))


def test_arrivals_alike_share_the_drop_alike():
    cap = [10e6, 100e6, 100e6]
    buf = [20e3, 1e9, 1e9]
    # two senders' access links (both rho = inf at their first hop, then rho = 10 at the queue)
    overflow, got, dropped, queued, _ = _step(cap, buf, [20e3, 0.0, 0.0], [(0, [1, 0]), (1, [2, 0])],
                                              [10e3, 30e3])
    assert overflow and dropped[0] == pytest.approx(dropped[1])
