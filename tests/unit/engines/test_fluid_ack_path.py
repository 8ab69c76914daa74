"""The fluid engine queues a subflow's ACKs behind the data in the reverse direction of its hops:
its round trip holds the queues of the link directions its ACKs cross (subflow_engines.fluid.queues)."""

from __future__ import annotations

import numpy as np
import pytest

from subflow.runplan.resolve import resolve_plan
from subflow.scenario.document import load_scenario
from subflow_engines.fluid import run
from subflow_engines.fluid.common import reverse_index
from subflow_engines.fluid.queues import Incidence

MSS = 1448
RBUF_BYTES = 48_000
LINK_MBPS = 10.0


def _opposite_dumbbell() -> dict:
    """``a`` — ``b`` (10 Mbit/s, 10 ms, queue 100 packets), a sender ``g`` before ``a`` (100 Mbit/s,
    0 ms) and a sender ``h`` behind ``b`` (100 Mbit/s, 10 ms). ``up`` sends g → a → b (base RTT
    20 ms), ``down`` sends h → b → a (base RTT 40 ms); every connection's receive buffer is 48 kB, so
    each keeps at most that much in flight. (Both senders reach the bottleneck over a faster
    access link: a sender whose own first hop is the bottleneck keeps its excess in the socket,
    as TCP small queues do, and queues nothing there.)"""
    nodes = [{"id": n, "kind": "router"} for n in ("a", "b", "g", "h")]
    links = [
        {"id": "ab", "src": "a", "dst": "b", "bandwidth_mbps": LINK_MBPS, "delay_ms": 10.0, "queue_packets": 100},
        {"id": "ga", "src": "g", "dst": "a", "bandwidth_mbps": 100.0, "delay_ms": 0.0, "queue_packets": 100},
        {"id": "hb", "src": "h", "dst": "b", "bandwidth_mbps": 100.0, "delay_ms": 10.0, "queue_packets": 100},
    ]
    flows = [{"id": "up", "src": "g", "dst": "b"}, {"id": "down", "src": "h", "dst": "a"}]
    return {"name": "opposite-dumbbell", "nodes": nodes, "links": links, "flows": flows,
            "transport": {"congestion_control": "newreno", "mss_bytes": MSS, "rbuf_bytes": RBUF_BYTES},
            "run": {"duration_s": 30.0, "interval_s": 1.0}}


def _mean(series, t_s, start_s: float) -> float:
    vals = [v for t, v in zip(t_s, series) if t >= start_s]
    return sum(vals) / len(vals)


@pytest.mark.parametrize("kernel", ["scalar", "vector"])
def test_acks_wait_behind_the_opposite_directions_standing_queue(kernel):
    """Derived by hand. ``up`` is limited by the receive window W = 48 kB·8 = 384 kbit and its base RTT
    (20 ms) is shorter than W/C (C = 10 Mbit/s·1448/1514 = 9.564 Mbit/s of goodput: 40.15 ms), so it
    fills a→b and keeps a standing queue of W − C·20 ms bits there, a queueing delay of
    W/C − 20 ms = 20.15 ms (16.6 packets, no overflow, no loss). ``down``'s data cross h→b and b→a
    (below its capacity; ``up``'s ACKs take none), its ACKs a→b and b→h: behind ``up``'s queue
    (``up``'s ACKs cross b→a and a→g, neither queued). So its RTT is 40 + 20.15 = 60.15 ms and,
    window-limited, it delivers W/60.15 ms = 6.38 Mbit/s; were its ACKs not queued, W/40 ms =
    9.6 Mbit/s would fill b→a instead (9.56)."""
    plan = resolve_plan(load_scenario(_opposite_dumbbell()), "sptcp", "fluid")
    out = run(plan, kernel=kernel)
    c_bps = LINK_MBPS * 1e6 * MSS / (MSS + 66)  # goodput of 1514-byte frames
    w_bits = RBUF_BYTES * 8.0
    queue_delay_s = w_bits / c_bps - 0.020
    assert queue_delay_s == pytest.approx(0.02015, abs=1e-5)
    rtt_down_s = 0.040 + queue_delay_s
    flows = {f.id: f for f in out.flows}
    up = _mean(flows["up"].throughput_mbps, flows["up"].t_s, 10.0)
    down = _mean(flows["down"].throughput_mbps, flows["down"].t_s, 10.0)
    assert up == pytest.approx(c_bps / 1e6, rel=1e-3)
    assert down == pytest.approx(w_bits / rtt_down_s / 1e6, rel=1e-3)  # 6.38 Mbit/s
    assert down < 0.8 * c_bps / 1e6


def test_the_kernels_agree_on_the_opposite_dumbbell():
    plan = resolve_plan(load_scenario(_opposite_dumbbell()), "sptcp", "fluid")
    a, b = run(plan, kernel="scalar"), run(plan, kernel="vector")
    for fa, fb in zip(a.flows, b.flows):
        assert fa.throughput_mbps == pytest.approx(fb.throughput_mbps, rel=1e-9, abs=1e-6), fa.id


def test_reverse_resources_are_the_opposite_wired_direction_only():
    ids = ["ab:a>b", "ab:b>a", "air:ap", "cd:c>d", "x:y:p>q", "x:y:q>p"]
    index = {rid: i for i, rid in enumerate(ids)}
    # a link's two directions pair up; the air (both directions' one queue) and a link whose other
    # direction the plan lacks have none
    assert reverse_index(ids, index).tolist() == [1, 0, -1, -1, 5, 4]


def test_incidence_lists_the_served_reverse_resources_of_each_row():
    ids = ["ab:a>b", "ab:b>a", "bc:b>c", "bc:c>b", "air:ap"]
    rev = reverse_index(ids, {rid: i for i, rid in enumerate(ids)})
    # slot 0: a>b, b>c, air; slot 1: c>b, b>a. Slot 0's ACKs cross b>a and c>b (both carry slot
    # 1's data); slot 1's cross b>c and a>b; the air adds nothing
    net = Incidence([(1, [3, 1]), (0, [0, 2, 4])], len(ids), reverse=rev)
    rows = {int(s): net.rev_res[net.rev_ptr[k]:net.rev_ptr[k + 1]].tolist() for k, s in enumerate(net.row_slot)}
    assert rows == {0: [1, 3], 1: [2, 0]}
    # a direction no row crosses has no queue to wait in
    alone = Incidence([(0, [0, 2])], len(ids), reverse=rev)
    assert alone.rev_res.tolist() == [] and alone.rev_ptr.tolist() == [0, 0]
    assert np.array_equal(Incidence([(0, [0])], len(ids)).rev_ptr, [0, 0])
