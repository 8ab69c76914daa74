"""The embedded fluid engine against independent references.

References are computed here from first principles (link capacity, the
Mathis et al. 1997 square-root law, RFC 6298 backoff), never from the engine.
"""

from __future__ import annotations

import math

import pytest

from subflow.comparison.compare import compare, run_strategy
from subflow.errors import RunCancelled
from subflow.runplan.resolve import resolve_plan
from subflow.scenario.document import load_scenario
from subflow_engines import run_plan
from subflow_engines.fluid import run as fluid_run


def _line(bw=10.0, delay=10.0, loss=0.0, flows=1, rate=None, duration=60.0, seed=1, queue=200):
    return load_scenario({
        "name": "line",
        "nodes": [{"id": "a", "kind": "host"}, {"id": "b", "kind": "host"}],
        "links": [{"id": "l", "src": "a", "dst": "b", "bandwidth_mbps": bw, "delay_ms": delay, "loss": loss,
                   "queue_packets": queue}],
        "flows": [{"id": f"f{i}", "src": "a", "dst": "b", "rate_mbps": rate} for i in range(flows)],
        "run": {"duration_s": duration, "seed": seed},
    })


def _steady_mean(flow: dict | object, skip: int = 10) -> float:
    thr = flow.throughput_mbps[skip:]
    return sum(thr) / len(thr)


def test_bulk_flow_fills_a_lossless_bottleneck():
    res = run_strategy(_line(bw=10.0), "sptcp", run_plan)
    assert _steady_mean(res.flows[0]) >= 0.9 * 10.0
    assert max(res.flows[0].throughput_mbps) <= 10.0 * 1.05  # cannot beat the capacity


@pytest.mark.parametrize("n", [2, 4, 8])
def test_equal_rtt_flows_share_fairly_at_high_utilization(n):
    res = run_strategy(_line(bw=20.0, flows=n), "sptcp", run_plan)
    means = [_steady_mean(f) for f in res.flows]
    assert sum(means) >= 0.9 * 20.0
    jain = sum(means) ** 2 / (n * sum(m * m for m in means))
    assert jain >= 0.95


def test_app_limited_flow_gets_its_demand():
    res = run_strategy(_line(bw=50.0, rate=3.0), "sptcp", run_plan)
    assert _steady_mean(res.flows[0]) == pytest.approx(3.0, rel=0.02)


@pytest.mark.parametrize("p, rtt_s", [(1e-3, 0.01), (1e-3, 0.1), (1e-2, 0.1), (1e-2, 0.6)])
def test_lossy_path_follows_the_mathis_square_root_law(p, rtt_s):
    # Mathis, Semke, Mahdavi, Ott (1997): B = MSS * sqrt(3/2) / (RTT * sqrt(p)); capacity far above B.
    # The law ignores timeouts, so it holds where the window is large (p <= 1 %, RTT >= RTO/10 at 1 %);
    # beyond, see tests/unit/engines/test_fluid_tcp_model.py (Padhye et al.'s Eq. 31)
    res = run_strategy(_line(bw=1000.0, delay=rtt_s * 500, loss=p, duration=200.0), "sptcp", run_plan)
    mathis = 1448 * 8 * math.sqrt(1.5) / (rtt_s * math.sqrt(p)) / 1e6
    assert _steady_mean(res.flows[0], skip=20) == pytest.approx(mathis, rel=0.25)


def test_same_seed_same_numbers_other_seed_other_numbers():
    a = run_strategy(_line(loss=0.01, seed=5), "sptcp", run_plan)
    b = run_strategy(_line(loss=0.01, seed=5), "sptcp", run_plan)
    c = run_strategy(_line(loss=0.01, seed=6), "sptcp", run_plan)
    assert a.flows[0].throughput_mbps == b.flows[0].throughput_mbps
    assert a.flows[0].throughput_mbps != c.flows[0].throughput_mbps


def _zero_runs(thr: list[float], t_s: list[float]) -> list[tuple[float, int]]:
    runs, start, length = [], None, 0
    for t, v in zip(t_s, thr):
        if v < 1e-3:
            start = t if start is None else start
            length += 1
        elif start is not None:
            runs.append((start, length))
            start, length = None, 0
    if start is not None:
        runs.append((start, length))
    return runs


def test_naval_direct_move_sptcp_gap_and_mptcp_continuity(naval_direct):
    doc = compare(naval_direct, ["sptcp", "mptcp"], run_plan).model_dump()
    for flow in doc["strategies"]["sptcp"]["flows"]:
        runs = _zero_runs(flow["throughput_mbps"], flow["t_s"])
        assert any(59.0 <= start <= 62.0 and length >= 2 for start, length in runs), runs
        assert flow["throughput_mbps"][50] == pytest.approx(3.0, rel=0.05)  # before the handover: full demand
    for flow in doc["strategies"]["mptcp"]["flows"]:
        assert min(flow["throughput_mbps"]) > 1e-3
        ids = [s["id"] for s in flow["subflows"]]
        assert len(ids) == 2 and any(s.endswith("/uav") for s in ids)
    # single-path TCP on the 1 Mbit/s UAV backhaul after the handover: the two flows share it
    after = [sum(f["throughput_mbps"][70:100]) / 30 for f in doc["strategies"]["sptcp"]["flows"]]
    assert sum(after) == pytest.approx(1.0, rel=0.1)


def test_rto_backs_off_exponentially_during_the_handover(naval_direct):
    res = run_strategy(load_scenario(naval_direct), "sptcp", run_plan)
    rtos = [e for e in res.events if e.kind == "rto" and e.flow == "f1"]
    # RTO = SRTT + max(4·RTTVAR, 200 ms) over the ~500 ms SATCOM RTT (Linux's form): 0.7 s, then 1.4 s,
    # and 2.8 s, which expires after the association at 63 s and resumes
    assert len(rtos) >= 2 and [e.resumed for e in rtos] == [False] * (len(rtos) - 1) + [True]
    srtt = rtos[0].rto_s - 0.2  # the variance term is at its 200 ms floor on a steady path
    assert 0.5 <= srtt <= 0.56
    for a, b in zip(rtos, rtos[1:]):
        assert b.rto_s == pytest.approx(2 * a.rto_s, rel=1e-3)  # RFC 6298 §5.5
        assert b.t_s - a.t_s == pytest.approx(a.rto_s * 2, abs=0.02)  # next expiry one doubled RTO later
    assert rtos[-1].t_s >= 63.0  # resumes only after association completed (60 s + 3 s delay)


def test_cancel_and_progress(naval_direct):
    plan = resolve_plan(naval_direct, "mptcp")
    seen: list[float] = []
    fluid_run(plan, on_progress=seen.append)
    assert seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen)
    with pytest.raises(RunCancelled):
        fluid_run(plan, should_stop=lambda: True)


def _two_path(cut=True):
    doc = {
        "name": "two-path",
        "nodes": [{"id": "a", "kind": "host"}, {"id": "r1", "kind": "router"}, {"id": "r2", "kind": "router"},
                  {"id": "b", "kind": "host"}],
        "links": [
            {"id": "a-r1", "src": "a", "dst": "r1", "bandwidth_mbps": 10, "delay_ms": 10},
            {"id": "r1-b", "src": "r1", "dst": "b", "bandwidth_mbps": 100, "delay_ms": 1},
            {"id": "a-r2", "src": "a", "dst": "r2", "bandwidth_mbps": 3, "delay_ms": 20},
            {"id": "r2-b", "src": "r2", "dst": "b", "bandwidth_mbps": 100, "delay_ms": 1},
        ],
        "flows": [{"id": "f", "src": "a", "dst": "b"}],
        "run": {"duration_s": 30},
    }
    if cut:
        doc["link_events"] = [{"t_s": 10, "link": "a-r1", "state": "down"}, {"t_s": 18, "link": "a-r1", "state": "up"}]
    return doc


def test_mptcp_aggregates_two_disjoint_paths():
    doc = compare(_two_path(cut=False), ["sptcp", "mptcp"], run_plan).model_dump()
    sp = doc["strategies"]["sptcp"]["flows"][0]["throughput_mbps"][5:]
    mp = doc["strategies"]["mptcp"]["flows"][0]["throughput_mbps"][5:]
    assert sum(mp) / len(mp) >= 1.2 * 10.0  # at least 1.2x the best single path (10 Mbit/s)
    assert sum(sp) / len(sp) == pytest.approx(10.0, rel=0.05)


def test_path_cut_keeps_mptcp_on_the_surviving_path_and_reroutes_sptcp():
    doc = compare(_two_path(), ["sptcp", "mptcp"], run_plan).model_dump()
    mp = doc["strategies"]["mptcp"]
    during = mp["flows"][0]["throughput_mbps"][11:18]
    assert min(during) >= 0.8 * 3.0  # >= 80 % of the surviving 3 Mbit/s path
    kinds = [e["kind"] for e in mp["events"]]
    assert {"link_down", "link_up", "subflow_down"} <= set(kinds)
    sp = doc["strategies"]["sptcp"]
    rto = [e for e in sp["events"] if e["kind"] == "rto"]
    assert rto and 10.0 < rto[0]["t_s"] < 11.0  # stalls until its timer fires, then moves to r2
    after = sp["flows"][0]["throughput_mbps"][20:]
    assert sum(after) / len(after) == pytest.approx(10.0, rel=0.05)  # back on the 10 Mbit/s path after restore


def test_link_event_to_an_unknown_link_is_rejected():
    doc = _two_path()
    doc["link_events"][0]["link"] = "nope"
    from subflow.errors import ScenarioInvalid
    with pytest.raises(ScenarioInvalid) as info:
        load_scenario(doc)
    assert info.value.errors[0]["loc"] == ["link_events", 0, "link"]


def test_cubic_follows_its_response_function_where_it_is_not_reno_friendly():
    # RFC 9438 §5.1: average window W = (C·(3+β)/(4·(1−β)))^(1/4) · RTT^(3/4) / p^(3/4) packets
    p, rtt = 1e-4, 0.1
    doc = _line(bw=1000.0, delay=rtt * 500, loss=p, duration=200.0).model_dump()
    doc["transport"]["congestion_control"] = "cubic"
    res = run_strategy(load_scenario(doc), "sptcp", run_plan)
    w = (0.4 * (3 + 0.7) / (4 * (1 - 0.7))) ** 0.25 * rtt**0.75 / p**0.75
    expected = w * 1448 * 8 / rtt / 1e6
    assert _steady_mean(res.flows[0], skip=20) == pytest.approx(expected, rel=0.25)
    reno = run_strategy(_line(bw=1000.0, delay=rtt * 500, loss=p, duration=200.0), "sptcp", run_plan)
    assert _steady_mean(res.flows[0], skip=20) > _steady_mean(reno.flows[0], skip=20)


def test_rate_table_slows_the_cell_to_its_farthest_station():
    # a station walks away from its access point: 20 Mbit/s up to 50 m, 5 Mbit/s up to 150 m
    doc = {
        "name": "rate-table",
        "nodes": [
            {"id": "h", "kind": "host"},
            {"id": "ap", "kind": "access_point", "range_m": 200, "wireless_bandwidth_mbps": 54,
             "rate_table": [{"distance_m": 50, "bandwidth_mbps": 20}, {"distance_m": 150, "bandwidth_mbps": 5}]},
            {"id": "s", "kind": "station", "mobility": {"model": "linear", "start": {"x_m": 0, "y_m": 0},
                                                      "end": {"x_m": 120, "y_m": 0}, "speed_mps": 5}},
        ],
        "links": [{"id": "l", "src": "ap", "dst": "h", "bandwidth_mbps": 100, "delay_ms": 5}],
        "flows": [{"id": "f", "src": "h", "dst": "s"}],
        "run": {"duration_s": 30},
    }
    plan = resolve_plan(doc, "sptcp")
    assert [(c.t_s, c.capacity_mbps) for c in plan.capacity_changes] == [(0.0, 20.0), (pytest.approx(10.0), 5.0)]
    res = run_strategy(load_scenario(doc), "sptcp", run_plan)
    thr = res.flows[0].throughput_mbps
    assert sum(thr[3:9]) / 6 == pytest.approx(20.0, rel=0.05)
    assert sum(thr[15:]) / 15 == pytest.approx(5.0, rel=0.05)


def _shared_bottleneck() -> dict:
    # a multi-homed host whose two interfaces meet at the same 10 Mbit/s bottleneck as a plain TCP flow
    return {
        "name": "shared",
        "nodes": [{"id": "a", "kind": "host"}, {"id": "c", "kind": "host"}, {"id": "r1", "kind": "router"},
                  {"id": "r2", "kind": "router"}, {"id": "m", "kind": "router"}, {"id": "b", "kind": "host"}],
        "links": [
            {"id": "a-r1", "src": "a", "dst": "r1", "bandwidth_mbps": 100, "delay_ms": 5},
            {"id": "a-r2", "src": "a", "dst": "r2", "bandwidth_mbps": 100, "delay_ms": 5},
            {"id": "r1-m", "src": "r1", "dst": "m", "bandwidth_mbps": 100, "delay_ms": 5},
            {"id": "r2-m", "src": "r2", "dst": "m", "bandwidth_mbps": 100, "delay_ms": 5},
            {"id": "c-m", "src": "c", "dst": "m", "bandwidth_mbps": 100, "delay_ms": 10},
            {"id": "m-b", "src": "m", "dst": "b", "bandwidth_mbps": 10, "delay_ms": 5},
        ],
        "flows": [{"id": "mp", "src": "a", "dst": "b"}, {"id": "tcp", "src": "c", "dst": "b"}],
        "run": {"duration_s": 60},
    }


@pytest.mark.parametrize("strategy", ["mptcp", "mptcp-olia"])
def test_coupled_mptcp_is_fair_to_tcp_at_a_shared_bottleneck(strategy):
    # RFC 6356 goal 2 ("do no harm"): two subflows through one bottleneck take no more than one TCP's share;
    # the competing flow here also runs as MPTCP, but has a single interface and so a single subflow
    doc = compare(_shared_bottleneck(), [strategy], run_plan).model_dump()["strategies"][strategy]
    mp, tcp = (sum(f["throughput_mbps"][10:]) / 50 for f in doc["flows"])
    assert len(doc["flows"][0]["subflows"]) == 2 and len(doc["flows"][1]["subflows"]) == 1
    assert mp + tcp >= 0.9 * 10
    assert mp <= 1.25 * tcp


@pytest.mark.parametrize("strategy", ["cmt-pf", "mptcp-uncoupled"])
def test_uncoupled_subflows_take_more_than_their_share(strategy):
    doc = compare(_shared_bottleneck(), [strategy], run_plan).model_dump()["strategies"][strategy]
    mp, tcp = (sum(f["throughput_mbps"][10:]) / 50 for f in doc["flows"])
    assert mp > 1.4 * tcp  # two independent NewReno windows: about 2:1


def _one_lossy_path(demand_mbps=None):
    doc = _two_path(cut=False)
    doc["links"][2]["loss"] = 0.01  # a-r2: the 3 Mbit/s, 20 ms path loses 1 %
    if demand_mbps is not None:
        doc["flows"][0]["rate_mbps"] = demand_mbps
    return doc


def test_uncoupled_mptcp_is_a_tcp_on_each_path_and_lia_moves_traffic_off_the_lossy_one():
    # upstream Linux's MPTCP (no coupled congestion control): each subflow does what one TCP does on
    # its path, so the flow gets the clean path's rate plus a lossy TCP's; LIA (RFC 6356 §3) shifts
    # the window away from the lossy path and gets less there
    doc = compare(_one_lossy_path(), ["mptcp-uncoupled", "mptcp"], run_plan).model_dump()["strategies"]
    only_lossy = _one_lossy_path()
    only_lossy["nodes"] = [n for n in only_lossy["nodes"] if n["id"] != "r1"]
    only_lossy["links"] = [link for link in only_lossy["links"] if "r1" not in (link["src"], link["dst"])]
    lossy_tcp = compare(only_lossy, ["sptcp"], run_plan).model_dump()["strategies"]["sptcp"]["flows"][0][
        "throughput_mbps"][5:]

    def on_lossy(name):
        sub = next(sf for sf in doc[name]["flows"][0]["subflows"] if "r2" in sf["path"])
        return sum(sub["throughput_mbps"][5:]) / len(sub["throughput_mbps"][5:])

    alone = sum(lossy_tcp) / len(lossy_tcp)
    assert on_lossy("mptcp-uncoupled") == pytest.approx(alone, rel=0.15)
    assert on_lossy("mptcp") < 0.6 * on_lossy("mptcp-uncoupled")


@pytest.mark.parametrize("strategy", ["mptcp", "mptcp-uncoupled", "cmt-pf"])
def test_a_demand_below_capacity_is_spread_by_linger_time_for_mptcp_and_slowest_first_for_cmt(strategy):
    """2 Mbit/s over a 10 Mbit/s, 22 ms path and a 3 Mbit/s, 42 ms path. MPTCP (Linux's scheduler: the subflow
    whose queue would flush soonest, common.linger_fill) keeps both subflows in use, the short-RTT one carrying
    most; a scheduler that always filled the lowest-RTT subflow first would leave the slow one idle (the kernel's
    MPTCP does not: tests/unit/validation/test_seeds_kernel.py). SCTP CMT fills its slowest path first."""
    doc = compare(_two_path(cut=False) | {"flows": [{"id": "f", "src": "a", "dst": "b", "rate_mbps": 2}]},
                  [strategy], run_plan).model_dump()["strategies"][strategy]
    subflows = doc["flows"][0]["subflows"]
    fast = next(sf for sf in subflows if "r1" in sf["path"])["throughput_mbps"][10:]
    slow = next(sf for sf in subflows if "r2" in sf["path"])["throughput_mbps"][10:]
    share = sum(fast) / (2.0 * len(fast))
    assert (sum(fast) + sum(slow)) / len(fast) == pytest.approx(2.0, rel=0.03)
    if strategy == "cmt-pf":
        assert share < 0.5
    else:
        assert 0.5 < share < 0.95


def test_olia_aggregates_disjoint_paths():
    doc = compare(_two_path(cut=False), ["mptcp-olia"], run_plan).model_dump()["strategies"]["mptcp-olia"]
    thr = doc["flows"][0]["throughput_mbps"][5:]
    assert sum(thr) / len(thr) >= 1.2 * 10.0


@pytest.mark.parametrize("kernel", ["scalar", "vectorised"])
@pytest.mark.parametrize("queue", [50, 100])
def test_slow_start_bursts_overflow_a_queue_below_half_the_bdp_at_twice_its_size(kernel, queue):
    """Slow start is ACK-clocked (RFC 5681 §3.1): each ACK releases two segments at once, so a
    round reaches a router's bottleneck in bursts at twice its rate and queues half the window;
    a queue of B packets below BDP/2 overflows in the round whose window passes 2B, before the
    link is even full (Lakshman & Madhow, IEEE/ACM ToN 1997, §III). The drop is detected a round
    trip later, when the ACKs have doubled the window they had grown, so the first ssthresh lies
    between 2B and 4B. The kernel (scripts/cwnd_trace.py, NewReno, 20 Mbit/s, 300 ms, BDP ≈ 496,
    B = 100, unpaced) detected at 506 and set ssthresh 259. A fluid sender at cwnd/RTT fills the
    link first and overflows only at BDP + B, a third more here (ssthresh 613 before)."""
    from subflow_testbeds.grid import chain
    from subflow_engines.fluid.scalar import ScalarSimulator
    from subflow_engines.fluid.vectorised import VectorSimulator

    doc = chain(0.0, "one", 300.0, "newreno", bottleneck_mbps=20.0, duration_s=8.0, queue_packets=queue, n_nodes=4)
    plan = resolve_plan(doc, "sptcp", "fluid")
    base = ScalarSimulator if kernel == "scalar" else VectorSimulator
    first: list[float] = []

    class Traced(base):
        def advance(self, step, t, b, n):  # one step at a time (the vectorised kernel runs several)
            ran = super().advance(step, t, b, 1)
            if first:
                return ran
            if kernel == "scalar":
                ss = [s.ssthresh for c in self.conns for s in c.subs.values()]
            else:
                ss = [float(v) for v in self.ssthresh]
            first.extend(v for v in ss if math.isfinite(v))
            return ran

    Traced(plan).run()
    assert first, "no loss reduction in slow start"
    assert 2 * queue <= first[0] <= 4 * queue


def test_slow_start_on_the_senders_own_link_grows_to_twice_what_is_out_and_loses_nothing():
    """Where the sender's own link is the bottleneck, TCP small queues keep the bursts in the
    socket (the host's qdisc holds about a millisecond of them), and Linux stops growing the window
    at twice the segments out (tcp_is_cwnd_limited): slow start never overflows the link's queue,
    and the flow runs at the link's goodput with no loss."""
    doc = {"name": "own-link", "nodes": [{"id": "a", "kind": "host"}, {"id": "b", "kind": "host"}],
           "links": [{"id": "l", "src": "a", "dst": "b", "bandwidth_mbps": 20.0, "delay_ms": 50.0,
                      "queue_packets": 20}],
           "flows": [{"id": "f", "src": "a", "dst": "b"}], "run": {"duration_s": 20.0, "interval_s": 1.0}}
    out = fluid_run(resolve_plan(load_scenario(doc), "sptcp", "fluid"))
    flow = out.flows[0]
    goodput = 20.0 * 1448 / 1514
    assert flow.subflows[0].retransmissions == 0
    assert min(flow.throughput_mbps[3:]) == pytest.approx(goodput, rel=0.01)
    bdp = 20e6 * 1448 / 1514 / (1448 * 8) * 0.1
    assert max(flow.subflows[0].cwnd_packets) <= 2.0 * bdp * 1.05


def test_slow_start_counts_no_more_than_it_sent_when_a_queue_drains():
    """A hop draining a backlog sends on more than arrived in the step: that backlog is not the
    ACK clock of a flow that sent a sliver into it, nor its goodput. Slow start's ACKs acknowledge
    what the flow sent (less what was dropped), never more, and the flow receives no more than it
    put in; with 200 flows over Kdl a count by pass fraction (departed/arrived) overflowed 2**x
    (benchmarks/engine.py)."""
    from subflow_engines.fluid.scalar import ScalarSimulator

    doc = {"name": "drain", "nodes": [{"id": "a", "kind": "host"}, {"id": "b", "kind": "host"}],
           "links": [{"id": "l", "src": "a", "dst": "b", "bandwidth_mbps": 100.0, "delay_ms": 10.0}],
           "flows": [{"id": "f", "src": "a", "dst": "b"}], "run": {"duration_s": 5.0, "interval_s": 1.0}}
    sim = ScalarSimulator(resolve_plan(load_scenario(doc), "sptcp", "fluid"))
    dt = sim.clock.dt_s
    step, t = 0, 0.0
    while True:  # until the subflow is open and sending in slow start
        sim.step(step, t, 0)
        sub = next(iter(sim.conns[0].subs.values()))
        if sub.phase == "open" and sub.x > 0:
            break
        step, t = step + 1, t + dt
    assert sub.ack_clocked
    sub.cwnd, sub.ssthresh = 2.0, math.inf
    sub.acks.clear()
    sub.inflight = 0.0
    # the hop holds a backlog of other bits a million times what the flow sends in the step
    sim.queue_bits[sub.res[-1]] = 1e6 * sub.x * dt
    sim.cap_dt_bits[sub.res[-1]] = 2e6 * sub.x * dt  # and drains all of it and more in the step
    sim.serve_network(0)
    assert sim.got_bits[sub.slot] <= sub.x * dt * (1 + 1e-12)  # it gets back at most what it sent
    sim.update_windows(sim.conns[0], step, t, 0)
    sent = sub.x * dt / sim.pkt_bits
    ScalarSimulator.ack_clock(sub, sub.acks[-1][1], sim.cwnd_clamp)  # every ACK of the step is in
    assert sub.cwnd == pytest.approx(2.0 + sent)  # grown by what it sent, not by 1e6 times it
