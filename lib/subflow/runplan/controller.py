"""The SDN controller loop of ``mptcp-fdm``: per-subflow rate limits from the Flow Deviation Method.

As in sd-mptcp-tactical §V.C, the controller polls the network every
``controller.interval_s`` seconds. When the set of MPTCP connections or their
subflow paths changed since its last allocation (an association, a
disassociation, a link failure, a flow starting or stopping), it re-runs FDM
(:func:`subflow.planning.fdm.allocate_fdm`, warm-started from its previous allocation)
over the connections' demands restricted to their current subflow paths, and
installs the per-path rates as the subflows' rate limits (the OVS queues of
the paper) from that tick on. A subflow that appears between two ticks runs
unlimited until the next one.

Modelling choices, stated:

* The shared air of an access point becomes one arc that every wireless hop of
  that access point crosses (both directions), so FDM sees it as shared.
* The controller minimises mean delay including propagation
  (``include_propagation``): that is what makes it use the low-latency UAV
  path at all, rather than only the large SATCOM capacity.
* A bulk flow (no ``rate_mbps``) asks for the sum of its paths' bottleneck
  capacities; demands that do not fit are tempered by FDM's documented rule.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from subflow.planning.fdm import FdmOptions, allocate_fdm
from subflow.planning.network import Demand, Network
from subflow.runplan.document import CapacityChange, FlowPlan, Resource, Segment, SubflowPath

_BIG_MBPS = 1e9


def _air_visits(sp: SubflowPath, kinds: dict[str, str]) -> list[str]:
    """Per hop of ``sp``, the name of its air crossing: ``rid`` the first time the path crosses an
    access point's air, ``rid#k`` the k-th time (a relay in the same cell: sta1 → ap → relay)."""
    seen: dict[str, int] = {}
    out = []
    for rid in sp.resources:
        if kinds[rid] == "air":
            seen[rid] = seen.get(rid, 0) + 1
            out.append(rid if seen[rid] == 1 else f"{rid}#{seen[rid]}")
        else:
            out.append(rid)
    return out


def _expanded(sp: SubflowPath, kinds: dict[str, str]) -> tuple[str, ...]:
    """The subflow's node path with each air hop routed through its access point's air arc."""
    out = [sp.nodes[0]]
    for i, (rid, name) in enumerate(zip(sp.resources, _air_visits(sp, kinds))):
        nxt = sp.nodes[i + 1]
        if kinds[rid] == "air":
            out += [f"~{name}.in", f"~{name}.out"]
        out.append(nxt)
    return tuple(out)


def _fdm_network(paths: list[SubflowPath], resources: dict[str, Resource]) -> Network:
    """The :class:`~subflow.planning.network.Network` FDM allocates on: the arcs the subflow ``paths`` cross.

    A wired hop is one arc (the resource); an air hop of access point ``ap``
    enters the node ``~air:<ap>.in``, crosses the air arc (``air:<ap>``, shared by
    both directions and every station) to ``~air:<ap>.out`` and leaves it on
    zero-delay, unlimited arcs. A path that crosses the same air twice (through a
    relay of the same cell) crosses a second arc ``air:<ap>#2`` of the same capacity
    the second time, so that FDM's paths stay simple; that crossing's airtime is then
    not counted against the first (an approximation, docs/radio.md).
    """
    nodes: list[str] = []
    seen_nodes: set[str] = set()
    arcs: dict[tuple[str, str], tuple[str, str, str, float, float, float]] = {}
    kinds = {rid: r.kind for rid, r in resources.items()}

    def node(n: str) -> None:
        if n not in seen_nodes:
            seen_nodes.add(n)
            nodes.append(n)

    for sp in paths:
        for i, (rid, name) in enumerate(zip(sp.resources, _air_visits(sp, kinds))):
            a, b = sp.nodes[i], sp.nodes[i + 1]
            r = resources[rid]
            node(a)
            node(b)
            if r.kind == "air":
                ain, aout = f"~{name}.in", f"~{name}.out"
                node(ain)
                node(aout)
                arcs.setdefault((a, ain), (f"{name}-enter-{a}", a, ain, 0.0, 0.0, _BIG_MBPS))
                arcs.setdefault((ain, aout), (name, ain, aout, r.delay_ms, r.loss, r.capacity_mbps))
                arcs.setdefault((aout, b), (f"{name}-leave-{b}", aout, b, 0.0, 0.0, _BIG_MBPS))
            else:
                arcs.setdefault((a, b), (rid, a, b, r.delay_ms, r.loss, r.capacity_mbps))
    return Network.from_arcs(nodes, list(arcs.values()))


def apply_fdm(flows: list[FlowPlan], resources: list[Resource], duration_s: float, interval_s: float,
              capacity_changes: Sequence[CapacityChange] = ()) -> list[dict[str, Any]]:
    """Install FDM rate limits on the multipath ``flows`` in place; return the controller's events.

    Parameters
    ----------
    flows : list of FlowPlan
        Resolved flows (segments with subflow paths); multipath ones get limits.
    resources : list of Resource
        Capacities (Mbit/s) and propagation delays (ms) of the plan.
    duration_s, interval_s : float
        Run length and the controller's polling period, seconds.
    capacity_changes : sequence of CapacityChange
        Capacities the controller follows (SATCOM link budgets' MODCOD steps): at each tick it allocates on
        the capacities then in force, and re-allocates when one of them changed.

    Returns
    -------
    list of dict
        ``allocation_change`` events: ``{"t_s", "kind", "node": "controller", "moved_mbps",
        "tempered", "mean_delay_s"}``.

    References
    ----------
    .. [1] Zhao et al., MILCOM 2018, §IV and §V.C (controller loop, OVS queues).
    .. [2] Fratta, Gerla, Kleinrock, Networks 3(2), 1973 (FDM).
    """
    base = {r.id: r for r in resources}
    kinds = {r.id: r.kind for r in resources}
    followed = sorted({c.resource for c in capacity_changes})

    def resources_at(t: float) -> dict[str, Resource]:
        if not followed:
            return base
        out = dict(base)
        for c in capacity_changes:
            if c.t_s <= t + 1e-12:
                out[c.resource] = out[c.resource].model_copy(update={"capacity_mbps": c.capacity_mbps})
        return out

    targets = [f for f in flows if f.multipath]
    if not targets:
        return []

    def state_at(t: float) -> tuple:
        key = []
        for f in targets:
            if not (f.start_s <= t < f.stop_s):
                continue
            seg = next((s for s in f.segments if s.t_start_s <= t < s.t_end_s), None)
            if seg and seg.subflows:
                key.append((f.id, tuple((sp.id, tuple(sp.nodes)) for sp in seg.subflows)))
        return tuple(key)

    ticks = [k * interval_s for k in range(int(math.floor(duration_s / interval_s)) + 1) if k * interval_s < duration_s]
    events: list[dict[str, Any]] = []
    limits_from: list[tuple[float, dict[tuple[str, str], float]]] = []  # (tick, {(flow, subflow): rate})
    previous = None
    last_key: tuple | None = None
    for t in ticks:
        res = resources_at(t)
        key = (state_at(t), tuple(res[r].capacity_mbps for r in followed)) if followed else state_at(t)
        if key == last_key:
            continue
        last_key = key
        if not (key[0] if followed else key):
            limits_from.append((t, {}))
            previous = None
            continue
        demands, owners, paths_used = [], [], []
        for f in targets:
            seg = next((s for s in f.segments if s.t_start_s <= t < s.t_end_s), None)
            if not (f.start_s <= t < f.stop_s) or seg is None or not seg.subflows:
                continue
            cands = tuple(_expanded(sp, kinds) for sp in seg.subflows)
            bottlenecks = [min(res[r].capacity_mbps for r in sp.resources) for sp in seg.subflows]
            demand = f.rate_mbps if f.rate_mbps is not None else sum(bottlenecks)
            demands.append(Demand(f.src, f.dst, demand, id=f.id, paths=cands))
            owners.append((f, seg))
            paths_used.extend(seg.subflows)
        net = _fdm_network(paths_used, res)
        alloc = allocate_fdm(net, demands, options=FdmOptions(include_propagation=True, tolerance=1e-10, max_iterations=20000), previous=previous)
        previous = alloc
        rates: dict[tuple[str, str], float] = {}
        for (f, seg), da in zip(owners, alloc.demands):
            by_nodes = {tuple(p.nodes): p.rate for p in da.paths}
            for sp in seg.subflows:
                rates[(f.id, sp.id)] = max(0.0, by_nodes.get(_expanded(sp, kinds), 0.0))
        limits_from.append((t, rates))
        events.append({
            "t_s": t, "kind": "allocation_change", "node": "controller",
            "moved_mbps": None if alloc.moved_mbps is None else round(alloc.moved_mbps, 6),
            "tempered": round(alloc.tempered, 6), "mean_delay_s": round(alloc.mean_delay_s, 6),
            "rates_mbps": {sid: round(v, 6) for (_fid, sid), v in rates.items()},
        })
    # split every multipath flow's segments at the ticks where limits change, and set the limits
    for f in targets:
        cuts = sorted({s.t_start_s for s in f.segments} | {s.t_end_s for s in f.segments}
                      | {t for t, _ in limits_from if f.segments and f.segments[0].t_start_s < t < f.segments[-1].t_end_s})
        new: list[Segment] = []
        for t0, t1 in zip(cuts, cuts[1:]):
            seg = next((s for s in f.segments if s.t_start_s <= t0 < s.t_end_s), None)
            if seg is None:
                continue
            rates = {}
            for t, r in limits_from:
                if t <= t0 + 1e-12:
                    rates = r
            subflows = [sp.model_copy(update={"rate_limit_mbps": rates.get((f.id, sp.id))}) for sp in seg.subflows]
            if new and new[-1].subflows == subflows and abs(new[-1].t_end_s - t0) < 1e-12:
                new[-1].t_end_s = t1
            else:
                new.append(Segment(t_start_s=t0, t_end_s=t1, subflows=subflows))
        f.segments = new
    return events
