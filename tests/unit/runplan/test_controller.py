"""mptcp-fdm: the SDN controller installs the FDM optimum as per-subflow rate limits."""

from __future__ import annotations

import pytest
from scipy.optimize import minimize, minimize_scalar

from subflow.comparison.compare import compare
from subflow.runplan.resolve import resolve_plan
from subflow_engines import run_plan

PACKET_BITS = 12000.0


def _independent_uav_total() -> float:
    """Least mean delay (M/M/1 + propagation) over the total rate u the two users send via the UAV,
    by symmetry u/2 each; arcs (flow, capacity Mbit/s, propagation s) of naval-direct-move."""

    def cost(u: float) -> float:
        arcs = [(3 - u / 2, 50, 0.25)] * 2 + [(6 - u, 50, 0.001), (u, 54, 0.001), (u, 1, 0.010)]
        return sum(f / (c - f) + f * tau * 1e6 / PACKET_BITS for f, c, tau in arcs)

    return minimize_scalar(cost, bounds=(0, 0.999), method="bounded", options={"xatol": 1e-10}).x


def _independent_uav_split() -> tuple[float, float]:
    """The same least mean delay over (u1, u2), each user's own rate via the UAV, with no
    symmetry assumed: the users' access links are separate arcs, so the split is unique."""

    def cost(u) -> float:
        u1, u2 = u
        arcs = [(3 - u1, 50, 0.25), (3 - u2, 50, 0.25), (6 - u1 - u2, 50, 0.001),
                (u1 + u2, 54, 0.001), (u1 + u2, 1, 0.010)]
        if u1 + u2 >= 0.999:
            return 1e9
        return sum(f / (c - f) + f * tau * 1e6 / PACKET_BITS for f, c, tau in arcs)

    res = minimize(cost, x0=[0.9, 0.0], method="Nelder-Mead",
                   options={"xatol": 1e-9, "fatol": 1e-14, "maxiter": 20000})
    return float(res.x[0]), float(res.x[1])


def test_controller_installs_the_delay_optimal_split_after_the_handover(naval_direct):
    plan = resolve_plan(naval_direct, "mptcp-fdm")
    changes = [e for e in plan.events if e["kind"] == "allocation_change"]
    assert [c["t_s"] for c in changes] == [0.0, 63.0]  # start, then the first tick after association
    assert changes[0]["rates_mbps"] == {"f1/satcom": pytest.approx(3.0), "f2/satcom": pytest.approx(3.0)}
    rates = changes[1]["rates_mbps"]
    assert rates["f1/uav"] + rates["f2/uav"] == pytest.approx(_independent_uav_total(), abs=1e-3)
    for f in ("f1", "f2"):
        assert rates[f"{f}/satcom"] + rates[f"{f}/uav"] == pytest.approx(3.0)  # demand met
    # each user's own share (not only the total) is the optimum's: equal users, equal UAV shares
    u1, u2 = _independent_uav_split()
    assert (rates["f1/uav"], rates["f2/uav"]) == (pytest.approx(u1, abs=1e-3), pytest.approx(u2, abs=1e-3))
    limited = [sp for fp in plan.flows for seg in fp.segments if seg.t_start_s >= 63.0 for sp in seg.subflows]
    assert limited and all(sp.rate_limit_mbps is not None for sp in limited)


def test_mptcp_fdm_has_no_gap_and_keeps_the_uav_path_below_capacity(naval_direct):
    doc = compare(naval_direct, ["mptcp", "mptcp-fdm"], run_plan).model_dump()
    fdm = doc["strategies"]["mptcp-fdm"]
    assert fdm["summary"]["zero_s"] == 0
    uav = [sum(sf["throughput_mbps"][k] for f in fdm["flows"] for sf in f["subflows"] if sf["id"].endswith("/uav"))
           for k in range(64, 100)]
    assert max(uav) <= 0.8  # FDM's ~0.78 Mbit/s: the 1 Mbit/s UAV backhaul is never filled
    plain = doc["strategies"]["mptcp"]
    uav_plain = [sum(sf["throughput_mbps"][k] for f in plain["flows"] for sf in f["subflows"] if sf["id"].endswith("/uav"))
                 for k in range(63, 67)]
    assert max(uav_plain) >= 0.95  # the scheduler fills the UAV backhaul when the subflows join


@pytest.mark.parametrize("strategy", ["mptcp-lba", "mptcp-lba-adjust"])
def test_lba_strategies_route_distinct_subflows_and_run(strategy):
    from tests.conftest import load_example

    doc = compare(load_example("hsln-10node"), [strategy], run_plan).model_dump()["strategies"][strategy]
    paths = [tuple(sf["path"]) for sf in doc["flows"][0]["subflows"]]
    assert 1 < len(paths) <= 4 and len(set(paths)) == len(paths)
    assert all(p[0] == "s1" and p[-1] == "s10" for p in paths)
    assert len(paths[0]) == 3  # the first subflow takes a minimum-hop path (all links idle)
    assert doc["summary"]["mean_mbps"] > 0
    naval = compare(load_example("naval-direct-move"), [strategy], run_plan).model_dump()["strategies"][strategy]
    assert naval["summary"]["zero_s"] == 0  # the SATCOM subflow carries the flows through the handover
