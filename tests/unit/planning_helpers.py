"""Shared data paths and independent validators for the planning-core tests.

The SNDlib and Topology Zoo files are not part of this repository (their
licences: SNDlib academic / non-commercial, Zoo CC BY 4.0); tests read them
from ``../shared/data`` next to the repository root and skip when absent.
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

import networkx as nx
import pytest

from subflow.planning.network import Network

ROOT = Path(__file__).resolve().parents[2]
#: ``$SUBFLOW_SHARED_DIR/data`` when set (worktrees live elsewhere), else ``../shared/data``
DATA = (Path(os.environ["SUBFLOW_SHARED_DIR"]) if os.environ.get("SUBFLOW_SHARED_DIR") else ROOT.parent / "shared") / "data"
SNDLIB = DATA / "sndlib"
ZOO = DATA / "topology-zoo"

# Maximum concurrent flow factors published in ../shared/data/sndlib/README.md
README_LAMBDA = {"abilene": 0.01655, "nobel-us": 0.04132, "germany50": 0.30888}


def data_file(path: Path) -> Path:
    """``path`` if it exists, else skip the test with the reason."""
    if not path.exists():
        pytest.skip(f"{path} not found: the shared SNDlib / Topology Zoo data live in ../shared/data "
                    "(not copied into the repository because of their licences)")
    return path


def tcpbp_f(d: float, p: float) -> float:
    return d * math.sqrt(p)


def arcs_of(net: Network) -> list[list[tuple[int, float, float, int]]]:
    """Adjacency ``u -> [(v, delay_ms, loss, arc)]`` built from the raw arrays."""
    adj: list[list[tuple[int, float, float, int]]] = [[] for _ in range(net.n)]
    for a in range(net.m):
        adj[int(net.src[a])].append((int(net.dst[a]), float(net.delay_ms[a]), float(net.loss[a]), a))
    return adj


def brute_force_costs(net: Network, s: int, t: int) -> list[tuple[float, float, float, int]]:
    """Every simple path s → t, exhaustively: ``(f, d, p, hops)`` sorted by f.

    f = d·√p with d = Σ delay_ms and p = 1 − Π(1 − p_i), computed along the path.
    """
    adj = arcs_of(net)
    out: list[tuple[float, float, float, int]] = []
    seen = [False] * net.n
    seen[s] = True
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * net.n + 100))

    def dfs(u: int, d: float, survive: float, hops: int) -> None:
        if u == t:
            p = 1.0 - survive
            out.append((tcpbp_f(d, p), d, p, hops))
            return
        for v, dd, pp, _ in adj[u]:
            if not seen[v]:
                seen[v] = True
                dfs(v, d + dd, survive * (1.0 - pp), hops + 1)
                seen[v] = False

    dfs(s, 0.0, 1.0, 0)
    out.sort()
    return out


def better_path_exists(net: Network, s: int, t: int, claim: float, rel: float = 1e-9) -> bool:
    """Whether some simple path s → t has f < claim·(1 − rel).

    Exhaustive depth-first enumeration of simple paths, cut only when a
    prefix cannot beat the claim even with the least remaining delay and the
    least remaining loss (each from a networkx Dijkstra towards t) — f never
    decreases along a path, so no better path is skipped.
    """
    delay = nx.DiGraph()
    logsurv = nx.DiGraph()
    for a in range(net.m):
        u, v = int(net.src[a]), int(net.dst[a])
        d = float(net.delay_ms[a])
        q = -math.log1p(-float(net.loss[a]))
        if not delay.has_edge(v, u) or d < delay[v][u]["w"]:
            delay.add_edge(v, u, w=d)
        if not logsurv.has_edge(v, u) or q < logsurv[v][u]["w"]:
            logsurv.add_edge(v, u, w=q)
    delay.add_node(t)
    logsurv.add_node(t)
    ld = nx.single_source_dijkstra_path_length(delay, t, weight="w")
    lq = nx.single_source_dijkstra_path_length(logsurv, t, weight="w")
    target = claim * (1.0 - rel)
    adj = arcs_of(net)
    seen = [False] * net.n
    seen[s] = True
    found = [False]
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * net.n + 100))

    def dfs(u: int, d: float, survive: float) -> None:
        if found[0] or u not in ld:
            return
        bound = (d + ld[u]) * math.sqrt(max(0.0, 1.0 - survive * math.exp(-lq[u])))
        if bound >= target:
            return
        if u == t:
            found[0] = True
            return
        for v, dd, pp, _ in adj[u]:
            if not seen[v]:
                seen[v] = True
                dfs(v, d + dd, survive * (1.0 - pp))
                seen[v] = False

    dfs(s, 0.0, 1.0)
    return found[0]


def check_route(net: Network, s: int, t: int, arcs: list[int], cost: float) -> None:
    """``arcs`` is a simple path s → t whose f, recomputed hop by hop, is ``cost``."""
    v = s
    seen = {s}
    d, survive = 0.0, 1.0
    for a in arcs:
        assert int(net.src[a]) == v, "route is not contiguous"
        v = int(net.dst[a])
        assert v not in seen, "route revisits a node"
        seen.add(v)
        d += float(net.delay_ms[a])
        survive *= 1.0 - float(net.loss[a])
    assert v == t
    assert tcpbp_f(d, 1.0 - survive) == pytest.approx(cost, rel=1e-9, abs=1e-12)
