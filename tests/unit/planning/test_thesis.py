"""Reproduction of the TCPBP thesis on its 10-node High-Speed Lossy Network (Ch. 4).

``examples/hsln-10node.json`` encodes Figs. 6–8 (nominal delays and losses).
Conventions needed to match the published numbers:

* Routes are computed for the 45 unordered pairs {i, j} as the route i ⇒ j,
  i before j in node order (the topology is symmetric, "1 ⇒ 10 = 10 ⇒ 1").
* Hop-count ties are broken by the smaller one-way delay (then first found) —
  the rule of :mod:`subflow.runplan.path_policies` and :mod:`subflow.planning.shortest_paths`. (Breaking them
  by node ids instead gives 24 equal routes, not 26.)
* Table 4 quotes round-trip values of the symmetric route: RTT = 2·d and
  p = 1 − (1 − p_one-way)². The thesis emulated every value with ±5 %
  variation, so its measured 1/(RTT√p) differ from the nominal ones by up to
  1.2 %; we check 2 %.
"""

from __future__ import annotations

import pytest

from subflow.planning.network import Network
from subflow.planning.shortest_paths import compute_routes
from subflow.planning.throughput_models import inverse_sqrt_law, round_trip

from tests.conftest import load_example

# Table 2 of the thesis: 45 distinct routes; TCPBP = hop-count on 26, TCPBP = delay on 39.
TABLE2 = {"total": 45, "tcpbp_eq_hop": 26, "tcpbp_eq_delay": 39}
# Table 4: route 1 ⇒ 10 and 1/(RTT·√p) per metric.
TABLE4 = {
    "tcpbp": (["s1", "s3", "s4", "s10"], 324.09),
    "hop": (["s1", "s5", "s10"], 265.18),
    "delay": (["s1", "s5", "s4", "s10"], 321.99),
}


@pytest.fixture(scope="module")
def hsln() -> Network:
    return Network.from_scenario(load_example("hsln-10node"))


@pytest.fixture(scope="module")
def routes(hsln):
    pairs = [(a, b) for i, a in enumerate(hsln.nodes) for b in hsln.nodes[i + 1 :]]
    return {m: compute_routes(hsln, m, 1, pairs) for m in ("hop", "delay", "tcpbp", "tcpbp-greedy")}


def _same(r1, r2) -> int:
    return sum(1 for a, b in zip(r1.routes, r2.routes) if a.paths[0].nodes == b.paths[0].nodes)


def test_table2_route_summary(routes):
    assert len(routes["tcpbp"].routes) == TABLE2["total"]
    assert all(r.reachable for r in routes["tcpbp"].routes)
    assert _same(routes["tcpbp"], routes["hop"]) == TABLE2["tcpbp_eq_hop"]
    assert _same(routes["tcpbp"], routes["delay"]) == TABLE2["tcpbp_eq_delay"]


def test_table2_is_matched_by_the_exact_optimum_not_by_algorithm_1(routes):
    # The thesis's own single-label search misses the optimum on two of the 45
    # routes here (2 ⇒ 6 and 4 ⇒ 6), which would give 28 and 37 instead.
    greedy = routes["tcpbp-greedy"]
    assert (_same(greedy, routes["hop"]), _same(greedy, routes["delay"])) == (28, 37)
    missed = {(g.src, g.dst) for g in routes["tcpbp"].greedy_differs}
    assert missed == {("s2", "s6"), ("s4", "s6")}


@pytest.mark.parametrize("metric", ["tcpbp", "hop", "delay"])
def test_table4_route_and_inverse_sqrt_law(hsln, metric):
    nodes, published = TABLE4[metric]
    r = compute_routes(hsln, metric, 1, [("s1", "s10")]).routes[0]
    path = r.paths[0]
    assert path.nodes == nodes
    rtt_s, p_rt = round_trip(path.delay_ms, path.loss)
    assert inverse_sqrt_law(rtt_s, p_rt) == pytest.approx(published, rel=0.02)


def test_table4_ordering_tcpbp_beats_delay_beats_hop(hsln):
    value = {}
    for metric in TABLE4:
        p = compute_routes(hsln, metric, 1, [("s1", "s10")]).routes[0].paths[0]
        value[metric] = inverse_sqrt_law(*round_trip(p.delay_ms, p.loss))
    assert value["tcpbp"] > value["delay"] > value["hop"]


def test_routes_are_symmetric_on_the_symmetric_topology(hsln):
    fwd = compute_routes(hsln, "tcpbp", 1, [("s1", "s10")]).routes[0].paths[0]
    back = compute_routes(hsln, "tcpbp", 1, [("s10", "s1")]).routes[0].paths[0]
    assert back.nodes == fwd.nodes[::-1]
    assert back.cost == pytest.approx(fwd.cost)
