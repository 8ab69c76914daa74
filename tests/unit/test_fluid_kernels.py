"""The vectorised kernel gives the scalar kernel's results on plans both accept."""

from __future__ import annotations

import random

import pytest

from subflow.plan import resolve_plan
from subflow_agent.engines import fluid_vec
from subflow_agent.engines.fluid import VECTOR_MIN_SUBFLOWS, run

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


def _close(a, b, multipath: bool) -> None:
    """Single-path plans: the same numbers. Multipath (LowRTT + LIA, whose congested dynamics
    amplify the kernels' different floating-point summation order): the same total within
    1 % and each flow within 10 %."""
    assert [f.id for f in a.flows] == [f.id for f in b.flows]
    for fa, fb in zip(a.flows, b.flows):
        ma, mb = sum(fa.throughput_mbps), sum(fb.throughput_mbps)
        assert ma == pytest.approx(mb, rel=0.10 if multipath else 1e-9, abs=1e-6), fa.id
    ta = sum(sum(f.throughput_mbps) for f in a.flows)
    tb = sum(sum(f.throughput_mbps) for f in b.flows)
    assert ta == pytest.approx(tb, rel=0.01 if multipath else 1e-9)
    if not multipath:
        kinds = lambda out: sorted((round(e["t_s"], 3), e["kind"], e.get("flow", "")) for e in out.events)  # noqa: E731
        assert kinds(a) == kinds(b)


@pytest.mark.parametrize("seed, cut", [(1, False), (2, True), (3, True)])
def test_kernels_agree_on_a_loaded_mesh(seed, cut):
    for strategy in ("sptcp", "mptcp"):
        plan = resolve_plan(_mesh(seed, 16, cut), strategy)
        _close(run(plan, kernel="scalar"), run(plan, kernel="vector"), strategy == "mptcp")


@pytest.mark.parametrize("example", ["naval-direct-move", "naval-random-walk"])
def test_kernels_agree_on_handover_scenarios(example):
    for strategy in ("sptcp", "mptcp"):
        plan = resolve_plan(load_example(example), strategy)
        _close(run(plan, kernel="scalar"), run(plan, kernel="vector"), strategy == "mptcp")


def test_auto_picks_the_vector_kernel_only_where_it_applies():
    big = resolve_plan(_mesh(4, VECTOR_MIN_SUBFLOWS, False), "sptcp")
    assert fluid_vec.supports(big)
    assert run(big).model_dump() == run(big, kernel="vector").model_dump()
    zwa = resolve_plan(_mesh(4, VECTOR_MIN_SUBFLOWS, False), "sptcp-zwa")
    assert not fluid_vec.supports(zwa)
    with pytest.raises(ValueError):
        run(zwa, kernel="vector")
    assert run(zwa).model_dump() == run(zwa, kernel="scalar").model_dump()
