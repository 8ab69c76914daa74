"""The per-subflow sums of one network step (subflow_engines.fluid.queues.serve): the round trip's
queueing delay, the loss signal and the bits held, which serve takes resource by resource, equal
the walk of each subflow's path written here from their definitions (the module's equations)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from subflow_engines.fluid.queues import BURST_DROP_BIAS, Incidence, drop_shares, fifo_fractions, row_state, serve


def _reverse_of(n_links: int) -> np.ndarray:
    """Resources 2i and 2i + 1 are the two directions of link i."""
    return np.array([u + 1 if u % 2 == 0 else u - 1 for u in range(2 * n_links)], dtype=np.int64)


@st.composite
def networks(draw):
    n_links = draw(st.integers(1, 8))
    n_res = 2 * n_links
    n_rows = draw(st.integers(1, 12))
    rows = []
    for slot in range(n_rows):
        path = draw(st.lists(st.integers(0, n_res - 1), min_size=1, max_size=6, unique=True))
        rows.append((slot, path))
    cap = draw(st.lists(st.sampled_from([1e6, 10e6, 100e6]), min_size=n_res, max_size=n_res))
    buf = draw(st.lists(st.sampled_from([0.0, 12e3, 120e3]), min_size=n_res, max_size=n_res))
    queue = [draw(st.floats(0.0, 1.0)) * b for b in buf]
    inject = draw(st.lists(st.floats(0.0, 200e3), min_size=n_rows, max_size=n_rows))
    steps = draw(st.integers(1, 4))
    return n_res, rows, cap, buf, queue, inject, steps


@settings(max_examples=150, deadline=None)
@given(networks())
def test_serve_sums_equal_a_walk_of_each_path(case):
    n_res, rows, cap_bps, buf_bits, queue_bits, inject_bits, steps = case
    dt = 0.001
    reverse = _reverse_of(n_res // 2)
    net = Incidence(rows, n_res, reverse=reverse)
    cap = np.array(cap_bps)
    queue = np.array(queue_bits)
    slots = len(rows)
    arrived, drop_frac, res_delay = np.zeros(n_res), np.zeros(n_res), queue / cap
    got, dropped, qdelay, queued = (np.zeros(slots) for _ in range(4))
    row_state(net.row_arrays(), res_delay, qdelay, np.zeros(slots), np.zeros(slots), cap, net.burst)
    used = {u for _, p in rows for u in p}
    for _ in range(steps):
        serve(np.array(inject_bits), net.row_slot, net.row_first, net.order_res, net.order_ptr, net.srv_next,
              net.srv_slot, net.lag_in, net.ack_ptr, net.ack_slot, queue, cap, cap * dt, np.array(buf_bits),
              net.backlog, net.pending, net.arriving, net.burst, arrived, drop_frac, res_delay, got, dropped,
              qdelay, queued, True, np.zeros(n_res))
        for slot, path in rows:
            # the ACKs wait in the opposite direction of each hop, when some path sends data that way
            acks = [int(reverse[u]) for u in path if int(reverse[u]) in used]
            want_delay = sum(queue[u] / cap[u] for u in path + acks)
            assert math.isclose(qdelay[slot], want_delay, rel_tol=1e-12, abs_tol=1e-15)
            # loss signal: each hop's drop per unit of weight times the slot's weight there, the
            # narrowest capacity before the hop over the hop's own, 1 + α(1 − 1/ρ) above 1
            want_drop, narrow = 0.0, math.inf
            for u in path:
                rho = narrow / cap[u]
                want_drop += drop_frac[u] * (1.0 + BURST_DROP_BIAS * (1.0 - 1.0 / rho) if rho > 1.0 else 1.0)
                narrow = min(narrow, cap[u])
            assert math.isclose(dropped[slot], want_drop, rel_tol=1e-12, abs_tol=1e-15)
            held = sum(net.backlog[net.pos[j]] + net.pending[net.pos[j]]
                       for j in range(net.row_ptr[slot], net.row_ptr[slot + 1]))
            assert math.isclose(queued[slot], held, rel_tol=1e-12, abs_tol=1e-9)
        # and the step from the fresh sums (row_state) reads the same queueing delays
        fresh = np.zeros(slots)
        row_state(net.row_arrays(), res_delay, fresh, np.zeros(slots), np.zeros(slots), cap, np.ones_like(net.burst))
        assert np.array_equal(fresh, qdelay)


def test_one_fifo_queue_step_by_hand():
    """The FIFO equations of one queue (fifo_fractions), worked by hand. q 4 bits, c 6, a 5, buffer 2: the backlog
    leaves whole (s_q 1), 2 of the 5 arriving bits fit (s_a 0.4), 3 stay, 1 beyond the buffer is dropped. q 10,
    c 4, a 3, buffer 100: 4 of the backlog leave (s_q 0.4), no room for the arrivals (s_a 0), 6 + 3 = 9 stay."""
    assert fifo_fractions(4.0, 6.0, 5.0, 2.0) == (1.0, 0.4, 3.0, 2.0, 1.0, True)
    assert fifo_fractions(10.0, 4.0, 3.0, 100.0) == (0.4, 0.0, 3.0, 9.0, 0.0, False)
    assert fifo_fractions(0.0, 4.0, 0.0, 1.0) == (1.0, 1.0, 0.0, 0.0, 0.0, False)


def test_a_full_queues_drop_falls_on_arrivals_by_burst_weight():
    """drop_shares by hand: 1 bit dropped of 5 arriving, 3 of them left (s_a 0.4: 2.4 of an arrival of 4 bits at
    weight 1, 0.6 of one of 1 bit at weight 3). Σ bits·weight = 4 + 3 = 7; alike, each would lose 1/3 of its left
    bits; weighted, δ = (1/3)·5/7 = 5/21 per unit of weight: 2.4·5/21 + 0.6·3·5/21 = 1 bit in all; the loss signal
    per unit of weight 1/7. A drop of 2.5 bits weighted would take (2.5/3)·(5/7)·3 = 1.79 of the heavy arrival's
    left bits, more than it holds: every arrival loses 2.5/3 = 5/6 of its left bits alike (2.4·5/6 + 0.6·5/6 =
    2.5), the loss signal still 2.5/7 per unit of weight."""
    delta, df, uniform = drop_shares(1.0, 3.0, 5.0, 7.0, 3.0)
    assert not uniform
    assert math.isclose(delta, 5.0 / 21.0, rel_tol=1e-15) and math.isclose(df, 1.0 / 7.0, rel_tol=1e-15)
    assert math.isclose(2.4 * delta * 1.0 + 0.6 * delta * 3.0, 1.0, rel_tol=1e-12)
    delta, df, uniform = drop_shares(2.5, 3.0, 5.0, 7.0, 3.0)
    assert uniform and math.isclose(delta, 5.0 / 6.0, rel_tol=1e-15) and math.isclose(df, 2.5 / 7.0, rel_tol=1e-15)
    # a drop larger than what is left takes all of it
    assert drop_shares(4.0, 3.0, 5.0, 7.0, 3.0)[:1] == (1.0,)
