"""The multi-bottleneck testbeds (subflow_testbeds.multibottleneck): their shape, their routes, the
comparison arithmetic, and the stored kernel runs they are compared with (no kernel run here: those are
in tests/linux/test_multibottleneck.py)."""

from __future__ import annotations

import pytest

from subflow.runplan.resolve import resolve_plan
from subflow_testbeds import multibottleneck as mb


def _routes(doc: dict) -> dict[str, list[str]]:
    plan = resolve_plan(doc, "sptcp", "fluid")
    return {fp.id: fp.segments[0].subflows[0].nodes for fp in plan.flows}


def test_parking_lot_routes_cross_the_declared_bottlenecks():
    doc = mb.parking_lot()
    routes = _routes(doc)
    # written by hand from the topology: the long flow crosses r0..r3, each short flow one hop of the core
    assert routes == {
        "long": ["long-src", "r0", "r1", "r2", "r3", "long-dst"],
        "short1": ["short1-src", "r0", "r1", "short1-dst"],
        "short2": ["short2-src", "r1", "r2", "short2-dst"],
        "short3": ["short3-src", "r2", "r3", "short3-dst"],
    }
    assert mb.check_routes(resolve_plan(doc, "sptcp", "linux"), mb.PARKING_LOT_BOTTLENECKS) == []
    rates = {link["id"]: link["bandwidth_mbps"] for link in doc["links"]}
    assert [rates[b.link] for b in mb.PARKING_LOT_BOTTLENECKS] == [10.0, 10.0, 10.0]
    assert all(rates[h] == 100.0 for h in rates if not h.startswith("b"))


def test_mesh_is_a_mesh_with_several_shared_bottlenecks():
    doc = mb.mesh()
    assert 10 <= len(doc["nodes"]) <= 20
    assert len(doc["flows"]) >= 10
    assert len(doc["links"]) > len(doc["nodes"]) - 1  # cycles: not a tree
    plan = resolve_plan(doc, "sptcp", "fluid")
    assert mb.check_routes(plan, mb.MESH_BOTTLENECKS) == []
    sizes = [len(b.flows) for b in mb.MESH_BOTTLENECKS]
    assert len(sizes) >= 3 and min(sizes) >= 3 and max(sizes) < len(doc["flows"])
    crossings = {f["id"]: sum(f["id"] in b.flows for b in mb.MESH_BOTTLENECKS) for f in doc["flows"]}
    assert crossings == {"f1": 1, "f2": 2, "f3": 2, "f4": 3, "f5": 1, "f6": 1, "f7": 1, "f8": 2, "f9": 1,
                         "f10": 1, "f11": 1, "f12": 1}
    # the flow h6 -> h3 runs against B3's data: its route crosses r4 -> r2, the flows of B3 go r2 -> r4
    assert _routes(doc)["f12"] == ["h6", "r6", "r4", "r2", "r3", "h3"]


@pytest.mark.parametrize("key", sorted(mb.TESTBEDS))
def test_rtts_and_queues_are_in_the_kernel_friendly_range(key):
    tb = mb.TESTBEDS[key]
    doc = tb.scenario()
    plan = resolve_plan(doc, tb.strategy, "fluid")
    rtts = [mb.base_rtt_ms(doc, fp.id, fp) for fp in plan.flows]
    assert 20.0 <= min(rtts) and max(rtts) <= 60.0
    core = [link for link in doc["links"] if link["bandwidth_mbps"] < 100.0]
    for link in core:  # one BDP at 40 ms, 1514-byte frames
        assert link["queue_packets"] == round(link["bandwidth_mbps"] * 40e3 / 8 / 1514)
        assert link["delay_ms"] == 0.0
    assert doc["transport"]["congestion_control"] == "newreno"


def test_with_extra_rtt_moves_one_flow_onto_a_slower_sender():
    doc = mb.mesh()
    out = mb.with_extra_rtt(doc, "f12", 27.0)
    plan = {fp.id: fp for fp in resolve_plan(out, "sptcp", "fluid").flows}
    assert plan["f12"].segments[0].subflows[0].nodes == ["h6-x", "r6", "r4", "r2", "r3", "h3"]
    assert mb.base_rtt_ms(out, "f12", plan["f12"]) == 30.0 + 27.0  # h6's 15 ms one way, + 13.5
    assert mb.base_rtt_ms(out, "f10", plan["f10"]) == 30.0  # h6's other flow keeps its sender
    assert mb.check_routes(resolve_plan(out, "sptcp", "fluid"), mb.MESH_BOTTLENECKS) == []
    assert doc == mb.mesh()  # the original is not touched


def test_bdp_packets():
    assert mb.bdp_packets(10.0) == 33  # 10e6 * 0.040 / (1514 * 8) = 33.03
    assert mb.bdp_packets(20.0, 20.0) == 33


def test_compare_flags_a_flow_outside_20_percent_and_a_bottleneck_outside_10():
    kernel = [{"a": 4.0, "b": 6.0}, {"a": 5.0, "b": 5.0}, {"a": 6.0, "b": 4.5}]  # medians a 5.0, b 5.0
    bn = [mb.Bottleneck("l", "x", "y", ("a", "b"))]  # sums 10.0, 10.0, 10.5 -> median 10.0
    ok = mb.compare(kernel, {"a": 5.9, "b": 3.9}, bn)
    assert [r.within for r in ok.flows] == [True, False]  # 1.18 and 0.78
    assert ok.bottlenecks[0].kernel == 10.0 and ok.bottlenecks[0].within  # 9.8 / 10.0
    assert ok.flows[0].kernel_runs == (4.0, 5.0, 6.0)
    assert ok.flows[0].spread == pytest.approx(0.2)
    high = mb.compare(kernel, {"a": 6.0, "b": 5.2}, bn)
    assert [r.within for r in high.flows] == [True, True]  # 1.20 exactly, 1.04
    assert not high.bottlenecks[0].within  # 11.2 / 10.0 = 1.12
    assert [r.name for r in high.misses] == ["l"]
    assert "MISS" in high.report()


def test_flow_means_exclude_the_warm_up():
    from types import SimpleNamespace

    out = SimpleNamespace(flows=[SimpleNamespace(id="f", t_s=[0.0, 1.0, 2.0, 3.0], throughput_mbps=[9.0, 9.0, 2.0, 4.0])])
    assert mb.flow_means(out, warmup_s=2.0) == {"f": 3.0}


def test_stored_kernel_runs_match_the_scenarios():
    store = mb.load_kernel()
    assert sorted(store) == sorted(mb.TESTBEDS), "run scripts/validation.py --kernel-multibottleneck as root"
    for key, entry in store.items():
        tb = mb.TESTBEDS[key]
        doc = tb.scenario()
        assert entry["scenario_digest"] == mb.scenario_digest(doc), f"{key}: scenario changed, rerun the kernel"
        assert entry["duration_s"] == doc["run"]["duration_s"] and entry["warmup_s"] == tb.warmup_s
        assert len(entry["runs"]) == mb.KERNEL_RUNS
        flows = {f["id"] for f in doc["flows"]}
        for run in entry["runs"]:
            assert set(run["flows_mbps"]) == flows
            assert run["congestion_control"] == "reno"
            assert all(run["min_rtt_ms"][f] for f in flows)
            assert len(run["loadavg_before"]) == 3 and run["loadavg_1min_during"]["mean"] is not None
        assert entry["commit"]["linux_engine"]


def test_reno_loss_rate_reads_the_square_root_law():
    # W = 2.8952 Mbit/s · 40 ms / (1448 · 8 bit) = 10.0 packets -> p = 8 / (3 · 100)
    assert mb.reno_loss_rate(2.8952, 40.0) == pytest.approx(8.0 / 300.0, rel=1e-3)
    # half the window, four times the loss rate
    assert mb.reno_loss_rate(1.4476, 40.0) == pytest.approx(4.0 * mb.reno_loss_rate(2.8952, 40.0))


def test_mesh_round_trips_hold_the_acks_queue_and_agree_with_the_kernels():
    """f12's ACKs return over r2 -> r4 behind B3's data, so its queueing delay is B2's (which f5, on B2
    alone with an empty ACK path, measures) plus B3's (which f7, on B3 alone, measures); and every
    flow's mean RTT in the engine is within 10 % of the kernel's (iperf3's mean RTT, stored)."""
    tb = mb.TESTBEDS["mesh"]
    doc = tb.scenario()
    plan = {fp.id: fp for fp in resolve_plan(doc, "sptcp", "fluid").flows}
    rtt = mb.fluid_mean_rtts_ms(tb, seeds=(1,))
    queued = {f: rtt[f] - mb.base_rtt_ms(doc, f, plan[f]) for f in rtt}
    assert queued["f5"] > 10.0 and queued["f7"] > 10.0  # both bottlenecks hold a standing queue
    assert queued["f12"] == pytest.approx(queued["f5"] + queued["f7"], rel=1e-6)
    kernel = mb.load_kernel()["mesh"]["runs"]
    for f in mb.MESH_FLOWS:
        k = sorted(r["mean_rtt_ms"][f] for r in kernel)[1]  # median of 3
        assert rtt[f] == pytest.approx(k, rel=0.10), f
