"""Shared SATCOM beams: the terminals of a beam share its carriers in time, as an 802.11 cell's stations share
its airtime (:mod:`subflow.runplan.air_cells`).

A beam (:class:`~subflow.scenario.document.SatcomBeam`) has one forward carrier (satellite → terminals, the
resources ``"<link>:<sat>><terminal>"`` of its member links) and, with ``return_symbol_rate_msps``, one return
carrier (``"<link>:<terminal>><sat>"``). Each member link's budget gives ``c_i``, what its terminal would carry
with the whole carrier at its own MODCOD (:func:`subflow.space.link_budget.link_budgets` at the beam's symbol
rate). With ``equal_airtime`` the carrier's time goes in equal parts to the terminals with traffic in that
direction (time-division multiplexing of a DVB-S2 forward carrier, each terminal's frames at its own ACM
MODCOD: EN 302 307-1 §5, Annex D): terminal i carries ``a_i · c_i`` with ``a_i`` its share of time,

    Σ_j min(d_j / c_j, a) = 1,    a_i = a          (one second of carrier time per second)

``d_j`` the demand of the flows crossing terminal j's resource (``math.inf`` with a bulk flow). A terminal
whose flows need less than ``a`` keeps only their time, the rest going to the others; when every demand fits
(Σ_j d_j / c_j ≤ 1) terminal i's capacity is what the others leave it, ``c_i (1 − Σ_{j≠i} d_j / c_j)``. A
member without traffic gets the share it would have as one more saturated terminal. Who contends is read
from the resolved flows, as for the 802.11 queues: a resource while a running flow's current segment has a
subflow across it.

With ``demand_assigned`` (DAMA) terminal i needs ``x_i = min(d_i / c_i, 1)`` of the carrier's time (a bulk
flow: the whole carrier, what it can use). When the needs fit (Σ_j x_j ≤ 1) the capacities are as above;
otherwise each terminal is first guaranteed ``g_i = min(x_i, m)`` (``m`` the beam's ``min_share`` ≤ 1/n:
no terminal with bulk traffic is starved) and the remaining time ``R = 1 − Σ_j g_j`` goes in proportion to
the demand still unmet, ``u_i = x_i − g_i``:

    a_i = g_i + R · u_i / Σ_j u_j

(Σ_j u_j > R, so no terminal gets more than it needs while another is short). The guaranteed part plays the
role of DVB-RCS2's Constant Rate Assignment and the proportional part that of its rate- and volume-based
dynamic capacity (RBDC/VBDC) served in proportion to the requests when the capacity is short [3]; the time
left when every demand fits is Free Capacity Assignment to every terminal.

Demands are rates on the wire: a flow's ``rate_mbps`` (TCP goodput) divided by
:func:`subflow.runplan.document.goodput_fraction`, as a shaper counts it.

So two saturated terminals, one at 8PSK 3/4 (2.228124 bit/symbol) and one faded to QPSK 2/5 (0.789412), on a
5 Msym/s carrier get 5.570 and 1.974 Mbit/s: the sum, 7.544 Mbit/s, is below the 11.141 Mbit/s the first
would carry alone (the "performance anomaly" of a shared medium, Heusse et al. 2003, here in time shares).

References
----------
.. [1] ETSI EN 302 307-1 V1.4.1 (2014-11), §5 and Annex D (ACM: per-terminal MODCOD on one TDM carrier).
.. [2] M. Heusse, F. Rousseau, G. Berger-Sabbatel, A. Duda, "Performance anomaly of 802.11b", IEEE INFOCOM 2003.
.. [3] ETSI EN 301 545-2 V1.2.1 (2014-11), DVB-RCS2 lower layers, the return link's capacity categories
   (CRA, RBDC, VBDC, FCA) of dynamic capacity assignment; ETSI TR 101 545-4 V1.1.1 (2014-04) (implementation
   guidelines) describes how a scheduler serves them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial

from subflow.runplan.document import CapacityChange, capacity_for_goodput_mbps
from subflow.runplan.shares import water_level
from subflow.scenario.document import Scenario

__all__ = [
    "beam_capacity_changes", "beam_resources", "beam_share_rule", "demand_assigned_shares", "equal_airtime_shares",
    "planned_share_notes",
]


def equal_airtime_shares(capacities_mbps: list[float], demands_mbps: list[float]) -> list[float]:
    """Each terminal's capacity on a carrier shared in equal time, Mbit/s.

    Terminal i alone on the carrier would carry ``c_i``; its flows ask ``d_i`` (``math.inf``: as much as
    they get). The saturated terminals get the same time share ``a`` with Σ_j min(d_j/c_j, a) = 1 and carry
    ``a · c_i``; a terminal below ``a`` keeps ``a · c_i`` as its capacity (it uses only ``d_i``). When every
    demand fits (Σ_j d_j/c_j ≤ 1), terminal i's capacity is ``c_i (1 − Σ_{j≠i} d_j/c_j)``.

    Parameters
    ----------
    capacities_mbps : list of float
        ``c_i``, Mbit/s, > 0.
    demands_mbps : list of float
        ``d_i``, Mbit/s, > 0 (``math.inf``: bulk), as many as ``capacities_mbps``.

    Returns
    -------
    list of float
        Capacities, Mbit/s, each in (0, c_i].

    Raises
    ------
    ValueError
        For an empty list, lists of different lengths, or a non-positive capacity or demand.
    """
    n = len(capacities_mbps)
    if n == 0 or len(demands_mbps) != n:
        raise ValueError("capacities_mbps and demands_mbps must be non-empty lists of the same length")
    if min(capacities_mbps) <= 0 or min(demands_mbps) <= 0:
        raise ValueError("capacities and demands must be positive Mbit/s")
    need = [d / c for d, c in zip(demands_mbps, capacities_mbps)]
    level = water_level(need, [1.0] * n)
    if level is None:
        return [c * (1.0 - (sum(need) - x)) for c, x in zip(capacities_mbps, need)]
    return [c * level for c in capacities_mbps]


def demand_assigned_shares(capacities_mbps: list[float], demands_mbps: list[float], min_share: float) -> list[float]:
    """Each terminal's capacity on a carrier assigned by demand (DAMA), Mbit/s (the module's rule).

    Terminal i needs ``x_i = min(d_i / c_i, 1)`` of the time. If Σ_j x_j ≤ 1 every demand fits and terminal i's
    capacity is ``c_i (1 − Σ_{j≠i} x_j)`` (the free time is there for any of them). Otherwise it gets
    ``g_i = min(x_i, min_share)`` guaranteed and a part of the rest ``R = 1 − Σ_j g_j`` in proportion to its
    unmet need ``u_i = x_i − g_i``: ``a_i = g_i + R u_i / Σ_j u_j``, and carries ``a_i c_i``.

    Parameters
    ----------
    capacities_mbps : list of float
        ``c_i``, what terminal i would carry with the whole carrier, Mbit/s, > 0.
    demands_mbps : list of float
        ``d_i``, Mbit/s on the wire, > 0 (``math.inf``: bulk, needs the whole carrier), as many as
        ``capacities_mbps``.
    min_share : float
        The guaranteed time of each terminal, in (0, 1/n] for n terminals.

    Returns
    -------
    list of float
        Capacities, Mbit/s, each in (0, c_i]; the time shares ``a_i`` sum to at most 1.

    Raises
    ------
    ValueError
        For an empty list, lists of different lengths, a non-positive capacity or demand, or ``min_share``
        outside (0, 1/n].

    References: ETSI EN 301 545-2 V1.2.1, capacity categories CRA (the guarantee), RBDC/VBDC (by demand), FCA
    (the free time).
    """
    n = len(capacities_mbps)
    if n == 0 or len(demands_mbps) != n:
        raise ValueError("capacities_mbps and demands_mbps must be non-empty lists of the same length")
    if min(capacities_mbps) <= 0 or min(demands_mbps) <= 0:
        raise ValueError("capacities and demands must be positive Mbit/s")
    if not 0.0 < min_share <= 1.0 / n + 1e-12:
        raise ValueError(f"min_share must lie in (0, 1/{n}]")
    need = [min(d / c, 1.0) for d, c in zip(demands_mbps, capacities_mbps)]
    total = sum(need)
    if total <= 1.0:
        return [c * (1.0 - (total - x)) for c, x in zip(capacities_mbps, need)]
    guaranteed = [min(x, min_share) for x in need]
    rest = 1.0 - sum(guaranteed)
    unmet = [x - g for x, g in zip(need, guaranteed)]
    short = sum(unmet)
    return [c * (g + rest * u / short) for c, g, u in zip(capacities_mbps, guaranteed, unmet)]


def beam_share_rule(beam) -> Callable[[list[float], list[float]], list[float]]:
    """The sharing function of ``beam`` (a :class:`~subflow.scenario.document.SatcomBeam`): capacities alone and
    demands (Mbit/s) → capacities. ``demand_assigned`` without ``min_share``: 1/(2n), n its member links."""
    if beam.policy == "demand_assigned":
        return partial(demand_assigned_shares, min_share=beam.min_share or 0.5 / len(beam.links))
    return equal_airtime_shares


def beam_resources(scenario: Scenario, link_budgets: dict) -> dict[str, list[str]]:
    """``{carrier: [resource id, ...]}`` of every shared carrier: ``"<beam>:forward"`` (the member links'
    satellite → terminal resources) and, with a return symbol rate, ``"<beam>:return"``."""
    out: dict[str, list[str]] = {}
    if scenario.satcom is None:
        return out
    for beam in scenario.satcom.beams:
        members = [link_budgets[lid] for lid in beam.links if lid in link_budgets]
        out[f"{beam.id}:forward"] = [f"{s.link}:{s.satellite}>{s.terminal}" for s in members]
        if beam.return_symbol_rate_msps is not None:
            out[f"{beam.id}:return"] = [f"{s.link}:{s.terminal}>{s.satellite}" for s in members]
    return out


def _demands(flows, rids: set[str], t: float, mss_bytes: float) -> dict[str, float]:
    """Demand (Mbit/s on the wire) on each of ``rids`` at ``t``: the ``rate_mbps`` of the running flows whose
    current segment crosses it, as a shaper counts them (segments of ``mss_bytes``), summed; ``math.inf`` with a
    bulk flow."""
    out: dict[str, float] = {}
    for f in flows:
        if not f.start_s <= t < f.stop_s:
            continue
        seg = next((sg for sg in f.segments if sg.t_start_s <= t < sg.t_end_s), None)
        if seg is None:
            continue
        d = math.inf if f.rate_mbps is None else capacity_for_goodput_mbps(f.rate_mbps, mss_bytes)
        for rid in {r for sp in seg.subflows for r in sp.resources} & rids:
            out[rid] = out.get(rid, 0.0) + d
    return out


def _shares(alone: dict[str, float], demands: dict[str, float], rule=equal_airtime_shares) -> dict[str, float]:
    """Capacity of each member (resource id → Mbit/s) from its capacity alone and its demand, by ``rule``
    (:func:`beam_share_rule`)."""
    active = [r for r in alone if alone[r] > 0 and demands.get(r, 0.0) > 0]
    out = dict(zip(active, rule([alone[r] for r in active], [demands[r] for r in active]) if active else []))
    for r in alone:
        if r not in out:
            out[r] = 0.0 if alone[r] <= 0 else rule(
                [alone[r], *(alone[q] for q in active)], [math.inf, *(demands[q] for q in active)])[0]
    return out


def beam_capacity_changes(scenario: Scenario, budget, link_budgets: dict, flows) -> list[CapacityChange]:
    """The capacity of every shared beam's member resources over the run (the module's model), as changes.

    Parameters
    ----------
    scenario : Scenario
        Validated.
    budget : BudgetPlan
        :attr:`subflow.runplan.topology.NetworkTimeline.budget`: each member's capacity alone over time.
    link_budgets : dict
        :attr:`subflow.runplan.topology.NetworkTimeline.link_budgets`.
    flows : list of FlowPlan
        The resolved flows (who contends, and their demand).

    Returns
    -------
    list of CapacityChange
        A change wherever a member's capacity differs from the one before (the first against its capacity
        alone at the start), by time. These replace the budget's own changes of those resources.
    """
    duration = scenario.run.duration_s
    mss = scenario.transport.mss_bytes
    rules = {b.id: beam_share_rule(b) for b in scenario.satcom.beams} if scenario.satcom else {}
    changes: list[CapacityChange] = []
    for carrier, rids in beam_resources(scenario, link_budgets).items():
        rule = rules[carrier.rsplit(":", 1)[0]]
        cuts = {0.0, *(t for r in rids for t, _ in budget.steps.get(r, []))}
        for f in flows:
            cuts.update((f.start_s, f.stop_s, *(t for sg in f.segments for t in (sg.t_start_s, sg.t_end_s))))
        times = sorted(t for t in cuts if 0.0 <= t < duration)
        current = {r: budget.initial_capacity_mbps.get(r, 0.0) for r in rids}
        for t0, t1 in zip(times, times[1:] + [duration]):
            mid = 0.5 * (t0 + t1)
            alone = {r: budget.capacity_at(mid).get(r, 0.0) for r in rids}
            for r, value in _shares(alone, _demands(flows, set(rids), mid, mss), rule).items():
                if value != current[r] and value > 0:
                    changes.append(CapacityChange(t_s=t0, resource=r, capacity_mbps=value))
                    current[r] = value
    return sorted(changes, key=lambda c: (c.t_s, c.resource))


def planned_share_notes(scenario: dict, flows) -> list[str]:
    """What an engine that applies the plan's beam shares cannot follow, as notes for its output.

    The shares (:func:`beam_capacity_changes`) are computed when the plan is made, from who has traffic (the
    flows' ``start_s``/``stop_s`` and paths) and how much (``rate_mbps``), not from what the flows carry during
    the run: a flow that ends before its ``stop_s`` (``size_bytes`` done) or sends less than its ``rate_mbps``
    keeps its time share to its planned end, and the other members do not get it.

    Parameters
    ----------
    scenario : dict
        The validated scenario document (:attr:`subflow.runplan.document.RunPlan.scenario`).
    flows : list of FlowPlan
        The plan's flows.

    Returns
    -------
    list of str
        One note per beam that some flow crosses (empty without beams).
    """
    notes = []
    for i, beam in enumerate((scenario.get("satcom") or {}).get("beams") or []):
        prefixes = tuple(f"{lid}:" for lid in beam["links"])
        crossing = [f for f in flows if any(r.startswith(prefixes) for sg in f.segments for sp in sg.subflows
                                            for r in sp.resources)]
        if not crossing:
            continue
        sized = [f.id for f in crossing if f.size_bytes is not None]
        notes.append(
            f"satcom.beams[{i}] ({beam['id']}): the members' time shares are the plan's (from the flows' planned "
            "start_s/stop_s, rate_mbps and each member's MODCOD), applied at the plan's change points; a flow that "
            "ends early or sends less than its rate_mbps does not free its carrier time for the others during the run"
            + (f" (flows {', '.join(sized)} carry size_bytes: counted as contending until their stop_s)" if sized
               else ""))
    return notes
