"""Traffic loads laid on imported topologies, one definition shared by the benchmarks and the tests."""

from __future__ import annotations

import random
from typing import Any


def random_bulk_flows(doc: dict[str, Any], flows: int, duration_s: float, seed: int = 1) -> dict[str, Any]:
    """Replace ``doc``'s flows with ``flows`` bulk flows between random node pairs, and its run.

    Parameters
    ----------
    doc : dict
        A scenario document (``subflow.scenario.document.Scenario`` as JSON), changed in place.
    flows : int
        Number of flows (>= 0); flow ``f{i}`` goes from one node drawn uniformly to another
        (``random.Random(seed).sample(node ids, 2)``), with no rate (a bulk transfer for the run).
    duration_s : float
        The run's duration in seconds; samples every 1 s.
    seed : int
        Seed of the draw: the same seed gives the same pairs on the same graph.

    Returns
    -------
    dict
        ``doc`` itself, for chaining.

    Raises
    ------
    ValueError
        If ``flows`` is negative or the graph has fewer than two nodes.
    """
    ids = [n["id"] for n in doc["nodes"]]
    if flows < 0:
        raise ValueError(f"flows: must be >= 0, got {flows}")
    if len(ids) < 2:
        raise ValueError(f"nodes: a random flow needs two nodes, the graph has {len(ids)}")
    rng = random.Random(seed)
    doc["flows"] = [{"id": f"f{i}", "src": a, "dst": b} for i, (a, b) in
                    enumerate(rng.sample(ids, 2) for _ in range(flows))]
    doc["run"] = {"duration_s": duration_s, "interval_s": 1.0}
    return doc
