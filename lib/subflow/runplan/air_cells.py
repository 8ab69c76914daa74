"""The air of an access point with a radio: per-station queues sharing the cell's airtime (802.11 DCF).

An access point with a ``radio`` (and no ``rate_table``) serves each node associated with it (a
station, or an access point using it as its uplink: a *member*) through two queues of its own:

* ``"air:<ap>:<ap>><member>"``, the access point's queue for that member (downlink);
* ``"air:<ap>:<member>><ap>"``, the member's own queue (uplink).

Each queue that holds traffic is a *contender* for the channel. DCF gives every contender the
same transmission opportunities (Heusse et al., INFOCOM 2003, §III), so saturated contenders
get the same throughput R, each paying its own airtime per bit 1/g_i, with g_i the bulk TCP
goodput its member's MCS would carry alone (:func:`station_tcp_goodput_mbps`: 802.11 airtime
with the TCP ACKs of the other direction). A contender whose flows ask for less (``rate_mbps``)
takes only that, and the airtime it leaves goes to the others: R is the level at which the
contenders fill the channel,

    Σ_j min(d_j, R) / g_j = 1                 (airtime of one second per second)

with d_j the contender's demand (infinite with a bulk flow). The contenders of access points
on an overlapping channel that hear this one (:func:`co_channel_windows`) count in the sum.
Each queue's capacity is R (its goodput share, stated as a shaper's rate by
:func:`subflow.runplan.document.capacity_for_goodput_mbps` and capped by ``wireless_bandwidth_mbps``). When
every contender's demand fits (Σ d_j/g_j ≤ 1) a queue gets what the channel leaves it,
g_i·(1 − Σ_{j≠i} d_j/g_j). A queue with no traffic is given the share it would have as one more
saturated contender.

Who contends, from the resolved flows: a queue while a running flow's current segment has a
subflow across it, with the sum of those flows' ``rate_mbps`` as its demand (infinite with a bulk
flow). So a station with no traffic takes no airtime (nor does one whose flows are routed
elsewhere, e.g. over SATCOM), a relay contends in the directions it forwards, a station with two
flows shares its one queue, and the queue of a slow station delays only its own traffic.

References
----------
.. [1] M. Heusse, F. Rousseau, G. Berger-Sabbatel, A. Duda, "Performance anomaly of 802.11b",
   IEEE INFOCOM 2003, §III (equal transmission opportunities, throughput 1/Σ_j(1/g_j)).
.. [2] G. Bianchi, "Performance analysis of the IEEE 802.11 distributed coordination function",
   IEEE JSAC 18(3), 2000 (saturation throughput; :mod:`subflow.radio.airtime`).
.. [3] IEEE Std 802.11-2020, 10.3 (DCF), 10.22.2 (EDCA: per-access-category queues).
"""

from __future__ import annotations

import math
from functools import lru_cache

from subflow.planning.network import Arc
from subflow.radio.airtime import Phy as AirPhy, tcp_goodput_mbps
from subflow.radio.association import hop_budget, hop_rate_steps, radio_budget, range_windows
from subflow.radio.propagation import mcs_table
from subflow.runplan.document import CapacityChange, Resource, capacity_for_goodput_mbps
from subflow.runplan.shares import water_level
from subflow.scenario.document import AccessPointNode, NodeRadio, Scenario
from subflow.space.mobility import distance_at



def has_station_queues(ap: AccessPointNode) -> bool:
    """Whether ``ap``'s air is modelled per station (a ``radio`` and no ``rate_table``); otherwise it is one
    shared resource ``"air:<ap>"`` at ``wireless_bandwidth_mbps`` or the slowest station's table rate."""
    return ap.radio is not None and not ap.rate_table


def station_queue_id(ap_id: str, src: str, dst: str) -> str:
    """Resource id of the air queue from ``src`` to ``dst`` in ``ap_id``'s cell: ``"air:<ap>:<src>><dst>"``."""
    return f"air:{ap_id}:{src}>{dst}"


def air_arcs(member: str, ap: AccessPointNode) -> list[Arc]:
    """The two air hops between ``member`` and access point ``ap``: uplink then downlink.

    Per-station queues (:func:`station_queue_id`) for an access point with :func:`has_station_queues`,
    else both hops on the shared ``"air:<ap>"``. Delay, loss and nominal capacity are the access point's
    ``wireless_delay_ms``, ``wireless_loss`` and ``wireless_bandwidth_mbps``.
    """
    d, p, c = ap.wireless_delay_ms, ap.wireless_loss, ap.wireless_bandwidth_mbps
    if has_station_queues(ap):
        return [Arc(station_queue_id(ap.id, member, ap.id), member, ap.id, d, p, c),
                Arc(station_queue_id(ap.id, ap.id, member), ap.id, member, d, p, c)]
    rid = f"air:{ap.id}"
    return [Arc(rid, member, ap.id, d, p, c), Arc(rid, ap.id, member, d, p, c)]


def station_queue_resources(scenario: Scenario, timeline) -> list[Resource]:
    """The per-station air queues of every access point with :func:`has_station_queues`, both directions of
    each (access point, member) pair that ever associates (``timeline.associations``), in association order.

    Each starts at the access point's ``wireless_bandwidth_mbps`` (its capacity over time:
    :func:`station_queue_capacity_changes`), with its ``wireless_delay_ms``, ``wireless_loss`` and
    ``queue_packets``.
    """
    aps = {n.id: n for n in scenario.nodes if isinstance(n, AccessPointNode) and has_station_queues(n)}
    out: list[Resource] = []
    seen: set[str] = set()
    for a in timeline.associations:
        ap = aps.get(a.access_point)
        if ap is None:
            continue
        for rid, *_ in air_arcs(a.station, ap):
            if rid not in seen:
                seen.add(rid)
                out.append(Resource(id=rid, kind="air", capacity_mbps=ap.wireless_bandwidth_mbps,
                                    delay_ms=ap.wireless_delay_ms, loss=ap.wireless_loss,
                                    queue_packets=ap.queue_packets))
    return out


def table_rate_at(steps: list[tuple[float, float]], d: float) -> float:
    """The rate (Mbit/s) of the first ``(distance_m, rate_mbps)`` step whose distance is at least ``d``
    (metres; the last step's rate beyond the table): a ``rate_table`` read at a slant range."""
    return next((r for dist, r in steps if dist >= d), steps[-1][1])


class AirRates:
    """What each air resource carries over time by the radio model, for one station alone.

    Parameters
    ----------
    scenario : Scenario
        In its local frame (:func:`subflow.space.mobility.to_local`).
    timeline : AssociationTimeline
        :func:`subflow.radio.association.association_timeline` of the scenario.

    Notes
    -----
    Each association's rate steps by distance (:func:`subflow.radio.association.hop_rate_steps`) are
    computed once; :meth:`at` reads them at a time.
    """

    def __init__(self, scenario: Scenario, timeline):
        nodes = {n.id: n for n in scenario.nodes}
        self.trajectories = timeline.trajectories
        mss = scenario.transport.mss_bytes
        self.members: list[tuple[object, AccessPointNode, list[tuple[float, float]], bool]] = []
        for a in timeline.associations:
            ap = nodes[a.access_point]
            if not isinstance(ap, AccessPointNode) or (ap.radio is None and not ap.rate_table):
                continue
            queues = has_station_queues(ap)
            if queues:
                steps = [(dist, capacity_for_goodput_mbps(g, mss))
                         for dist, g in _goodput_steps(scenario, ap, nodes[a.station], self.trajectories, mss)]
            else:
                steps = hop_rate_steps(hop_budget(scenario, ap, nodes[a.station], self.trajectories), ap)
            self.members.append((a, ap, steps, queues))

    def at(self, t_s: float) -> dict[str, float]:
        """Rates at ``t_s`` (s), Mbit/s, per resource id.

        For the shared ``"air:<ap>"`` of an access point with a ``rate_table``: the table rate of its slowest
        station associated at ``t_s`` (the run's rule, ``_air_capacity_changes`` of
        :mod:`subflow.runplan.resolve`). For each per-station queue (:func:`has_station_queues`) of a member
        associated at ``t_s``: the shaper rate (:func:`subflow.runplan.document.capacity_for_goodput_mbps`)
        of the bulk TCP goodput its MCS at that distance carries alone (:func:`station_tcp_goodput_mbps`;
        0 beyond the radio's range). Both capped by ``wireless_bandwidth_mbps``. Resources with no member
        associated at ``t_s`` are absent (they keep ``wireless_bandwidth_mbps``). How a cell's stations
        share its airtime (:func:`station_queue_capacity_changes`) depends on which queues carry traffic,
        and is the run's.
        """
        out: dict[str, float] = {}
        for a, ap, steps, queues in self.members:
            if not a.t_associated_s <= t_s < a.t_end_s:
                continue
            d = distance_at(self.trajectories[a.station], self.trajectories[ap.id], t_s)
            cap = ap.wireless_bandwidth_mbps
            if queues:
                for rid, *_ in air_arcs(a.station, ap):
                    out[rid] = min(cap, _goodput_at(steps, d))
            else:
                rid = f"air:{ap.id}"
                out[rid] = min(out.get(rid, cap), table_rate_at(steps, d))
        return out


@lru_cache(maxsize=None)
def station_tcp_goodput_mbps(phy: str, channel_width_mhz: int, frequency_mhz: float, rate_mbps: float,
                             mss_bytes: int) -> float:
    """TCP goodput of one saturated bulk flow over an 802.11 hop at PHY rate ``rate_mbps``, Mbit/s.

    The MCS of ``phy`` (``"a"``, ``"g"``, ``"n"``, ``"ac"``; one spatial stream, 800 ns GI) at
    ``channel_width_mhz`` whose rate is ``rate_mbps`` (:func:`subflow.radio.propagation.mcs_table`), and the
    airtime of its bulk TCP flow (:func:`subflow.radio.airtime.tcp_goodput_mbps`: PLCP preamble and header,
    MAC header and FCS, SIFS + Ack or BlockAck at the control rate, DIFS/AIFS + mean backoff, A-MPDU
    for n/ac, the TCP ACKs' own accesses; IEEE 802.11-2020 10.3, 10.12, 17.4.3, 19.4.3, 21.4.3).

    Parameters
    ----------
    phy : {"a", "g", "n", "ac"}
        The access point radio's PHY.
    channel_width_mhz : int
        Channel width, MHz.
    frequency_mhz : float
        Carrier, MHz; sets the band of an 802.11n radio (2.4 or 5 GHz: signal extension and SIFS).
    rate_mbps : float
        PHY rate of the station's MCS, Mbit/s (a rate of :meth:`subflow.radio.propagation.LinkBudget.rate_steps`).
    mss_bytes : int
        TCP payload per segment, bytes.

    Returns
    -------
    float
        Goodput, Mbit/s.

    Raises
    ------
    ValueError
        For a rate that is not one of the PHY's MCS at that width.
    """
    mcs = next((m for m in mcs_table(phy, channel_width_mhz) if m.rate_mbps == rate_mbps), None)
    if mcs is None:
        raise ValueError(f"802.11{phy} at {channel_width_mhz} MHz has no MCS of {rate_mbps:g} Mbit/s")
    band = (2.4 if frequency_mhz < 4000 else 5.0) if phy == "n" else None
    air = AirPhy(standard=phy, channel_width_mhz=channel_width_mhz, band_ghz=band)
    return tcp_goodput_mbps(air, mcs.index, mss_bytes=mss_bytes)


def dcf_shares_mbps(goodputs_mbps: list[float], demands_mbps: list[float]) -> list[float]:
    """Each contender's goodput share of one channel under DCF, Mbit/s.

    Contender i alone on the channel would carry ``g_i``; it asks for ``d_i`` (``math.inf``: as much as
    it gets). With equal transmission opportunities the saturated contenders get the same R, where

        Σ_j min(d_j, R)/g_j = 1,

    and a contender below R keeps R as its share (it uses only ``d_i``). When every demand fits
    (Σ_j d_j/g_j ≤ 1) contender i's share is what the channel leaves it: g_i·(1 − Σ_{j≠i} d_j/g_j).
    With every demand infinite this is Heusse et al.'s 1/Σ_j(1/g_j) for each.

    Parameters
    ----------
    goodputs_mbps : list of float
        g_i, Mbit/s, > 0.
    demands_mbps : list of float
        d_i, Mbit/s, > 0 (``math.inf`` for a bulk flow), as many as ``goodputs_mbps``.

    Returns
    -------
    list of float
        The shares, Mbit/s, each > 0 and ≤ g_i.

    Raises
    ------
    ValueError
        For an empty list, lists of different lengths, or a non-positive goodput or demand.
    """
    n = len(goodputs_mbps)
    if n == 0 or len(demands_mbps) != n:
        raise ValueError("goodputs_mbps and demands_mbps must be non-empty lists of the same length")
    if min(goodputs_mbps) <= 0 or min(demands_mbps) <= 0:
        raise ValueError("goodputs and demands must be positive Mbit/s")
    need = [d / g for d, g in zip(demands_mbps, goodputs_mbps)]
    level = water_level(need, [1.0 / g for g in goodputs_mbps])  # the level is the saturated contenders' rate
    if level is None:
        return [g * (1.0 - (sum(need) - x)) for x, g in zip(need, goodputs_mbps)]
    return [min(level, g) for g in goodputs_mbps]


def channels_overlap(a: NodeRadio, b: NodeRadio) -> bool:
    """Whether two radios' channels overlap in frequency: |f_a − f_b| < (w_a + w_b)/2 (MHz; e.g.
    2.4 GHz channels 1 and 6, 25 MHz apart at 20 MHz, do not; 1 and 3 do)."""
    return abs(a.frequency_mhz - b.frequency_mhz) < (a.channel_width_mhz + b.channel_width_mhz) / 2.0


def co_channel_windows(scenario: Scenario, aps: list[AccessPointNode], trajectories) -> dict[str, dict[str, list]]:
    """For each access point, the others it shares the medium with, and when.

    Two access points with radios share the medium while their channels overlap
    (:func:`channels_overlap`) and each would find the channel busy when the other transmits:
    their distance is within the carrier-sense range of the weaker direction
    (:meth:`subflow.radio.propagation.LinkBudget.carrier_sense_range_m`, −82 dBm; the propagation of
    ``scenario.radio.propagation``). Distances follow both trajectories (a UAV's loiter).

    Parameters
    ----------
    scenario : Scenario
        In its local frame (:func:`subflow.space.mobility.to_local`).
    aps : list of AccessPointNode
        Access points with a ``radio``.
    trajectories : dict
        Every node's trajectory (:attr:`subflow.radio.association.AssociationTimeline.trajectories`).

    Returns
    -------
    dict
        ``{ap_id: {other_id: [(t0_s, t1_s), ...]}}``; access points that share with none are left out.
    """
    out: dict[str, dict[str, list]] = {}
    for i, a in enumerate(aps):
        for b in aps[i + 1:]:
            if not channels_overlap(a.radio, b.radio):
                continue
            ha, hb = trajectories[a.id][0].z0_m, trajectories[b.id][0].z0_m
            reach = min(radio_budget(scenario, a.radio, b.radio, ha, hb).carrier_sense_range_m(),
                        radio_budget(scenario, b.radio, a.radio, hb, ha).carrier_sense_range_m())
            windows = range_windows(trajectories[a.id], trajectories[b.id], reach)
            if windows:
                out.setdefault(a.id, {})[b.id] = windows
                out.setdefault(b.id, {})[a.id] = windows
    return out


def _goodput_at(steps: list[tuple[float, float]], d: float) -> float:
    """The goodput of the first step whose distance is ≥ ``d`` (0 beyond the last)."""
    return next((g for dist, g in steps if d <= dist), 0.0)


class _Cell:
    """One access point's members: association windows and goodput steps (distance_m, goodput_mbps)."""

    def __init__(self, ap: AccessPointNode):
        self.ap = ap
        self.members: list[tuple[str, float, float, list[tuple[float, float]]]] = []


def _goodput_steps(scenario: Scenario, ap: AccessPointNode, station, trajectories, mss_bytes: int
                   ) -> list[tuple[float, float]]:
    """``(distance_m, goodput_mbps)`` steps of ``station``'s hop to ``ap`` (a radio, per-station queues): the bulk
    TCP goodput of the MCS its link budget reaches up to each distance (:func:`station_tcp_goodput_mbps`)."""
    r = ap.radio
    steps = hop_rate_steps(hop_budget(scenario, ap, station, trajectories), ap)
    return [(d, station_tcp_goodput_mbps(r.phy, r.channel_width_mhz, r.frequency_mhz, rate, mss_bytes))
            for d, rate in steps]


def _cells(scenario: Scenario, timeline, mss_bytes: int) -> dict[str, _Cell]:
    nodes = {n.id: n for n in scenario.nodes}
    cells: dict[str, _Cell] = {}
    for ap in scenario.nodes:
        if isinstance(ap, AccessPointNode) and has_station_queues(ap):
            cells[ap.id] = _Cell(ap)
    for a in timeline.associations:
        cell = cells.get(a.access_point)
        if cell is None:
            continue
        goodput = _goodput_steps(scenario, cell.ap, nodes[a.station], timeline.trajectories, mss_bytes)
        cell.members.append((a.station, a.t_associated_s, a.t_end_s, goodput))
    return cells


def _queue_demands(flows, t: float) -> dict[str, float]:
    """Demand (Mbit/s) on every air queue some subflow crosses at ``t``: the sum of the ``rate_mbps`` of the
    flows whose current segment crosses it, ``math.inf`` when one of them is bulk."""
    out: dict[str, float] = {}
    for f in flows:
        if not f.start_s <= t < f.stop_s:
            continue
        seg = next((sg for sg in f.segments if sg.t_start_s <= t < sg.t_end_s), None)
        if seg is None:
            continue
        d = math.inf if f.rate_mbps is None else f.rate_mbps
        crossed = {rid for sp in seg.subflows for rid in sp.resources if rid.startswith("air:")}
        for rid in crossed:
            out[rid] = out.get(rid, 0.0) + d
    return out


def _contenders(cell: _Cell, trajectories, demands: dict[str, float], t: float) -> list[tuple[str, float, float]]:
    """The queues of ``cell`` at ``t``: (resource id, g_i Mbit/s, demand Mbit/s; 0 = no traffic)."""
    out = []
    for member, t_from, t_to, steps in cell.members:
        if not t_from <= t < t_to:
            continue
        g = _goodput_at(steps, distance_at(trajectories[member], trajectories[cell.ap.id], t))
        if g <= 0:
            continue
        for rid in (station_queue_id(cell.ap.id, cell.ap.id, member), station_queue_id(cell.ap.id, member, cell.ap.id)):
            out.append((rid, g, demands.get(rid, 0.0)))
    return out


def _cuts(cell: _Cell, others: list[_Cell], windows: dict[str, list], trajectories, scenario: Scenario,
          flows) -> list[float]:
    duration = scenario.run.duration_s
    cuts = {0.0}
    for c in (cell, *others):
        for member, t_from, t_to, steps in c.members:
            cuts.update((t_from, t_to))
            for dist, _ in steps:
                for t0, t1 in range_windows(trajectories[member], trajectories[c.ap.id], dist):
                    cuts.update(t for t in (t0, t1) if t_from < t < t_to)
    for w in windows.values():
        for t0, t1 in w:
            cuts.update((t0, t1))
    for f in flows:
        cuts.update((f.start_s, f.stop_s))
        for sg in f.segments:
            cuts.update((sg.t_start_s, sg.t_end_s))
    return sorted(t for t in cuts if 0.0 <= t < duration)


def station_queue_capacity_changes(scenario: Scenario, timeline, flows) -> list[CapacityChange]:
    """Capacity of every per-station air queue over the run (the module's model), as changes.

    Parameters
    ----------
    scenario : Scenario
        In its local frame (:func:`subflow.space.mobility.to_local`).
    timeline : AssociationTimeline
        :func:`subflow.radio.association.association_timeline` of the scenario.
    flows : list of FlowPlan
        The resolved flows: a queue contends while a segment of a running flow has a subflow across it,
        with the flow's ``rate_mbps`` as its demand (infinite for a bulk flow; summed over the flows).

    Returns
    -------
    list of CapacityChange
        Per queue of :func:`station_queue_resources`, a change wherever its capacity (Mbit/s, as a shaper
        counts it: :func:`subflow.runplan.document.capacity_for_goodput_mbps` of its goodput share, capped by
        ``wireless_bandwidth_mbps``) differs from the one before, the first against
        ``wireless_bandwidth_mbps``; by time.
    """
    mss = scenario.transport.mss_bytes
    trajectories = timeline.trajectories
    cells = _cells(scenario, timeline, mss)
    shared = co_channel_windows(scenario, [c.ap for c in cells.values()], trajectories)
    changes: list[CapacityChange] = []
    for cell in cells.values():
        windows = shared.get(cell.ap.id, {})
        others = [cells[o] for o in windows]
        times = _cuts(cell, others, windows, trajectories, scenario, flows)
        cap = cell.ap.wireless_bandwidth_mbps
        current = {rid: cap for m, *_ in cell.members for rid, *_ in air_arcs(m, cell.ap)}
        for t0, t1 in zip(times, times[1:] + [math.inf]):
            mid = t0 + (0.5 * (t1 - t0) if t1 < math.inf else 1e-6)
            demands = _queue_demands(flows, mid)
            mine = _contenders(cell, trajectories, demands, mid)
            theirs = [q for o in others if any(w0 <= mid < w1 for w0, w1 in windows[o.ap.id])
                      for q in _contenders(o, trajectories, demands, mid) if q[2] > 0]
            share = _queue_shares(mine, theirs)
            for rid in current:
                value = min(cap, capacity_for_goodput_mbps(share[rid], mss)) if rid in share else cap
                if value != current[rid]:
                    changes.append(CapacityChange(t_s=t0, resource=rid, capacity_mbps=value))
                    current[rid] = value
    return sorted(changes, key=lambda c: (c.t_s, c.resource))


def _queue_shares(mine: list[tuple[str, float, float]], theirs: list[tuple[str, float, float]]) -> dict[str, float]:
    """Goodput share (Mbit/s) of each of ``mine``'s queues, against the contenders of ``mine`` and ``theirs``
    that have traffic; a queue without traffic gets the share it would have as one more saturated contender."""
    active = [q for q in (*mine, *theirs) if q[2] > 0]
    out: dict[str, float] = {}
    if active:
        for (rid, _, _), s in zip(active, dcf_shares_mbps([g for _, g, _ in active], [d for _, _, d in active])):
            out[rid] = s
    for rid, g, d in mine:
        if d <= 0:
            out[rid] = dcf_shares_mbps([g, *(q[1] for q in active)], [math.inf, *(q[2] for q in active)])[0]
    return {rid: s for rid, s in out.items() if any(rid == q[0] for q in mine)}
