"""Flow Deviation obeys the forwarding roles (docs/radio.md): no transit through a host or a
station that is not marked relay, in the flow-deviation phase, its first path and the λ* LP."""

from __future__ import annotations

import pytest

from subflow.analysis.planning import AllocationRequest, allocation_document


def _scenario(relay: bool, rate_mbps: float) -> dict:
    """h1 → h2 by a wide path through the host h3 (100 Mbit/s, 1 ms links) or a narrow one through
    the switch sw (10 Mbit/s, 5 ms links)."""
    return {
        "schema_version": 1, "name": "fdm-forwarding",
        "nodes": [{"id": "h1", "kind": "host", "position": {"x_m": 0, "y_m": 0}},
                  {"id": "h2", "kind": "host", "position": {"x_m": 200, "y_m": 0}},
                  {"id": "h3", "kind": "host", "relay": relay, "position": {"x_m": 100, "y_m": 50}},
                  {"id": "sw", "kind": "switch", "position": {"x_m": 100, "y_m": -50}}],
        "links": [{"id": "a", "src": "h1", "dst": "h3", "bandwidth_mbps": 100, "delay_ms": 1},
                  {"id": "b", "src": "h3", "dst": "h2", "bandwidth_mbps": 100, "delay_ms": 1},
                  {"id": "c", "src": "h1", "dst": "sw", "bandwidth_mbps": 10, "delay_ms": 5},
                  {"id": "d", "src": "sw", "dst": "h2", "bandwidth_mbps": 10, "delay_ms": 5}],
        "flows": [{"id": "f1", "src": "h1", "dst": "h2", "rate_mbps": rate_mbps}],
        "run": {"duration_s": 10, "interval_s": 1, "seed": 1},
    }


def _paths(doc: dict) -> dict[tuple[str, ...], float]:
    return {tuple(p["nodes"]): p["rate"] for p in doc["demands"][0]["paths"] if p["rate"] > 1e-9}


def test_no_transit_through_a_host_that_is_not_a_relay():
    doc = allocation_document(_scenario(relay=False, rate_mbps=5.0), AllocationRequest())
    assert _paths(doc) == {("h1", "sw", "h2"): pytest.approx(5.0)}
    assert doc["tempered"] == 1.0


def test_a_relay_host_carries_transit_traffic():
    # M/M/1 optimum over the two paths (D = Σ f/(C - f)): by the first-order condition
    # C1/(C1-x)² = C2/(C2-(5-x))² with C1 = 100 on the host path, C2 = 10 on the switch path,
    # most of the 5 Mbit/s goes through h3
    doc = allocation_document(_scenario(relay=True, rate_mbps=5.0), AllocationRequest())
    paths = _paths(doc)
    assert sum(paths.values()) == pytest.approx(5.0)
    x = paths.get(("h1", "h3", "h2"), 0.0)
    y = 5.0 - x
    assert 100 / (100 - x) ** 2 == pytest.approx(10 / (10 - y) ** 2, rel=1e-3) if y > 1e-6 else x == pytest.approx(5.0)
    assert x > 4.0


def test_the_restricted_problem_is_tempered_on_the_switch_path_alone():
    # 30 Mbit/s cannot fit into the 10 Mbit/s switch path: λ* = 10/30, tempered by 0.9 λ* (fdm.py)
    doc = allocation_document(_scenario(relay=False, rate_mbps=30.0), AllocationRequest())
    assert doc["tempered"] == pytest.approx(0.9 * 10 / 30, rel=1e-6)
    assert _paths(doc) == {("h1", "sw", "h2"): pytest.approx(9.0, rel=1e-6)}
