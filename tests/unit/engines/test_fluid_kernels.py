"""The vectorised kernel gives the scalar kernel's results on plans both accept."""

from __future__ import annotations

import random

import pytest

from subflow.runplan.resolve import resolve_plan
from subflow_engines.fluid import VECTOR_MIN_SUBFLOWS, run, vectorised as fluid_vec
from subflow_engines.fluid.common import timeout_probability

from tests.conftest import load_example


def _mesh(seed: int, flows: int, cut: bool) -> dict:
    rng = random.Random(seed)
    n = 12
    nodes = [{"id": f"n{i}", "kind": "router"} for i in range(n)]
    links, pairs = [], set()
    for i in range(n):  # a ring plus random chords: connected, with shared bottlenecks
        for j in ((i + 1) % n, rng.randrange(n)):
            if i != j and frozenset((i, j)) not in pairs:
                pairs.add(frozenset((i, j)))
                links.append({"id": f"l{len(links)}", "src": f"n{i}", "dst": f"n{j}",
                              "bandwidth_mbps": rng.choice([5, 10, 20, 50]), "delay_ms": rng.choice([5, 10, 20]),
                              "queue_packets": rng.choice([20, 100])})
    fl = []
    for k in range(flows):
        a, b = rng.sample(range(n), 2)
        fl.append({"id": f"f{k}", "src": f"n{a}", "dst": f"n{b}", "start_s": rng.choice([0, 2, 5]),
                   "rate_mbps": rng.choice([None, None, 2.0])})
    doc = {"name": "mesh", "nodes": nodes, "links": links, "flows": fl, "run": {"duration_s": 20}}
    if cut:
        doc["link_events"] = [{"t_s": 8, "link": "l0", "state": "down"}, {"t_s": 14, "link": "l0", "state": "up"}]
    return doc


def _same(a, b) -> None:
    """Single-path plans: the same numbers and the same events (queue-overflow draws are
    counter-based, so both kernels see the same ones)."""
    assert [f.id for f in a.flows] == [f.id for f in b.flows]
    for fa, fb in zip(a.flows, b.flows):
        assert sum(fa.throughput_mbps) == pytest.approx(sum(fb.throughput_mbps), rel=1e-9, abs=1e-6), fa.id
    kinds = lambda out: sorted((round(e.t_s, 3), e.kind, getattr(e, "flow", "")) for e in out.events)  # noqa: E731
    assert kinds(a) == kinds(b)


def _alike(doc: dict, seeds=range(1, 5)) -> None:
    """Multipath (Linux's scheduler + LIA): congested dynamics amplify the kernels' different
    floating-point summation order until one overflow draw differs, and from there the two
    runs are different sample paths of the same random process. So they are compared as
    such: the total over ``seeds`` within 2 %, each flow's mean over ``seeds`` within 20 %
    (seed-to-seed, single runs of one kernel differ per flow by up to ~40 %). Uncoupled multipath
    runs agree exactly (test_kernels_agree_exactly_on_uncoupled_multipath)."""
    means = {}
    for kernel in ("scalar", "vector"):
        rows = []
        for seed in seeds:
            plan = resolve_plan({**doc, "run": {**doc.get("run", {}), "seed": seed}}, "mptcp")
            rows.append([sum(f.throughput_mbps) for f in run(plan, kernel=kernel).flows])
        means[kernel] = rows
    total = {k: sum(map(sum, rows)) for k, rows in means.items()}
    assert total["scalar"] == pytest.approx(total["vector"], rel=0.02)
    ms = [sum(col) / len(col) for col in zip(*means["scalar"])]
    mv = [sum(col) / len(col) for col in zip(*means["vector"])]
    for i, (a, b) in enumerate(zip(ms, mv)):
        assert a == pytest.approx(b, rel=0.20, abs=1e-6), f"flow {i}"


@pytest.mark.parametrize("seed, cut", [(1, False), (2, True), (3, True)])
def test_kernels_agree_on_a_loaded_mesh(seed, cut):
    plan = resolve_plan(_mesh(seed, 16, cut), "sptcp")
    _same(run(plan, kernel="scalar"), run(plan, kernel="vector"))
    _alike(_mesh(seed, 16, cut))


def test_kernels_agree_exactly_on_uncoupled_multipath():
    """Without LIA's coupling a multipath plan's numbers are the same in both kernels: a path's
    base RTT is summed in the same order (a float apart, a subflow's handshake ended a step later
    in the vectorised kernel, and slow start's ACK clock amplified that to 5-8 % on this mesh)."""
    for seed in (1, 2):
        doc = _mesh(3, 16, True)
        plan = resolve_plan({**doc, "run": {**doc["run"], "seed": seed}}, "mptcp-uncoupled")
        _same(run(plan, kernel="scalar"), run(plan, kernel="vector"))


@pytest.mark.parametrize("example", ["naval-direct-move", "naval-random-walk"])
def test_kernels_agree_on_handover_scenarios(example):
    plan = resolve_plan(load_example(example), "sptcp")
    _same(run(plan, kernel="scalar"), run(plan, kernel="vector"))
    _alike(load_example(example), seeds=range(1, 3))


def test_auto_picks_the_vector_kernel_only_where_it_applies():
    big = resolve_plan(_mesh(4, VECTOR_MIN_SUBFLOWS, False), "sptcp")
    assert fluid_vec.supports(big)
    assert run(big).model_dump() == run(big, kernel="vector").model_dump()
    zwa = resolve_plan(_mesh(4, VECTOR_MIN_SUBFLOWS, False), "sptcp-zwa")
    assert not fluid_vec.supports(zwa)
    with pytest.raises(ValueError):
        run(zwa, kernel="vector")
    assert run(zwa).model_dump() == run(zwa, kernel="scalar").model_dump()


def test_kernels_agree_on_finite_transfers():
    # a file per flow (size_bytes): the same completion times and completion events
    doc = _mesh(5, 12, True)
    for k, f in enumerate(doc["flows"]):
        f["size_bytes"] = 2_000_000 + 500_000 * k
    plan = resolve_plan(doc, "sptcp")
    a, b = run(plan, kernel="scalar"), run(plan, kernel="vector")
    _same(a, b)
    assert [f.completion_s for f in a.flows] == [f.completion_s for f in b.flows]
    assert any(f.completion_s is not None for f in a.flows)


@pytest.mark.parametrize("loss, spread", [(0.02, "all"), (0.05, "all"), (0.1, "one")])
def test_kernels_agree_on_lossy_paths_with_timeouts(loss, spread):
    """Random link loss, fast recovery and the timeout decisions are counter-based draws in
    both kernels: a lossy single-path plan gives the same numbers and the same RTO events."""
    from subflow_testbeds.grid import chain

    plan = resolve_plan(chain(loss, spread, 36.0, duration_s=30.0), "sptcp")
    a, b = run(plan, kernel="scalar"), run(plan, kernel="vector")
    _same(a, b)
    assert any(e.kind == "rto" for e in a.events)  # the timeouts are exercised
    assert a.flows[0].subflows[0].retransmissions == b.flows[0].subflows[0].retransmissions


def test_timeout_probability_is_padhye_eq_24():
    from subflow.planning.throughput_models import _padhye_q

    for p in (0.001, 0.01, 0.05, 0.2):
        for w in (4.0, 7.5, 20.0, 100.0):
            assert timeout_probability(p, w) == pytest.approx(_padhye_q(p, w), rel=1e-12)
    assert timeout_probability(0.01, 3.0) == 1.0 and timeout_probability(0.0, 10.0) == 0.0

