"""The per-subflow sums of one network step (subflow_engines.fluid.queues.serve): the round trip's
queueing delay, the loss signal and the bits held, which serve takes resource by resource, equal
the walk of each subflow's path written here from their definitions (the module's equations)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from subflow_engines.fluid.queues import BURST_DROP_BIAS, Incidence, row_state, serve


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
