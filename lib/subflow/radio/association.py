"""Station–access point association timeline.

Policy (v0): *strongest signal first* with stickiness, as Mininet-WiFi's
``ssf`` with the station keeping its access point while in range. Signal
strength is taken as decreasing with distance, so "strongest" is the nearest
access point in range. A station disassociates when it leaves the range of its access point; its next
hop carries traffic after a handover whose length follows from 802.11's mechanisms
(:func:`handover_timing`): the station notices the loss only after
``radio.handover.missed_beacons`` beacons (beacon-loss detection), then scans,
picks an access point in range, authenticates and associates. A station out of
every range scans continuously and joins an access point at the end of the first
scan after it comes into range. An access point's ``association_delay_s``, when
set, overrides that model: the hop through it carries traffic that long after
the station left its previous access point's range or came into this one's.
A station has one radio per access point ``network`` (technology) and
associates independently on each. Stations already in range at t = 0 start associated (the network is set up
before the run starts). An attempt that the station abandons by leaving the
range before it completes is reported but carries no traffic.

Access points may move too (a UAV relay on a loiter pattern, a ship): ranges
are then computed on the station's trajectory relative to the access point's
(:func:`subflow.space.mobility.relative_legs`), still exactly. Distances are slant
ranges (3-D, with the nodes' altitudes). A geographic scenario is computed in
its local projected frame (:func:`subflow.space.mobility.to_local`).

With a ``radio`` on the access point, the range of each hop is the smaller of
``range_m`` and the distance where the slowest MCS fails
(:func:`hop_budget`, :mod:`subflow.radio.propagation`). An access point with an ``uplink``
is a client of that access point (wireless backhaul): it associates with it
like a station, with the same rules.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from subflow.radio.airtime import Phy, frame_airtime_s
from subflow.radio.propagation import LinkBudget, PathLoss, default_noise_floor_dbm
from subflow.scenario.document import AccessPointNode, HandoverSettings, NodeRadio, Scenario, StationNode
from subflow.space.mobility import Leg, in_range_intervals, position3_at, relative_legs, to_local, trajectory

_EPS = 1e-9

#: frame bodies of a join, bytes (IEEE 802.11-2020 §9.3.3): Authentication (open system: algorithm, sequence,
#: status), twice; Association Request (capability, listen interval, a 32-byte SSID element, 8 supported
#: rates) and Association Response (capability, status, AID, 8 supported rates)
JOIN_FRAME_BODIES_BYTES = (6, 6, 48, 16)


@dataclass(frozen=True)
class HandoverTiming:
    """How long each step of a handover to or from an access point takes, s.

    Attributes
    ----------
    detection_s : float
        Beacon-loss detection: from leaving the access point's range until the station declares it
        lost, (missed_beacons − ½)·beacon interval (the last beacon was heard on average half an
        interval before the station left).
    scan_s : float
        One scan: ``scan_channels`` × the channel dwell (passive) or the probe wait (active).
    join_s : float
        Open-system authentication and association: four management frames, each one channel access
        at the PHY's lowest rate with its Ack (:func:`subflow.radio.airtime.frame_airtime_s`).
    """

    detection_s: float
    scan_s: float
    join_s: float


def handover_timing(ap: AccessPointNode, settings: HandoverSettings) -> HandoverTiming:
    """The handover timing of ``ap`` under ``settings`` (``scenario.radio.handover``).

    Parameters
    ----------
    ap : AccessPointNode
        Its ``beacon_interval_ms`` and its radio's PHY (802.11g without a radio) apply.
    settings : HandoverSettings

    Returns
    -------
    HandoverTiming

    References
    ----------
    .. [1] IEEE 802.11-2020, §11.1.3 (beacons, 100 TU by default), §11.1.4 (passive and active scanning),
       §11.3 (authentication and association).
    .. [2] ns-3 ``StaWifiMac`` (MaxMissedBeacons 10, WaitBeaconTimeout 120 ms, ProbeRequestTimeout 50 ms),
       the defaults of :class:`subflow.scenario.document.HandoverSettings`.
    """
    beacon_s = ap.beacon_interval_ms / 1000.0
    dwell_ms = settings.channel_dwell_ms if settings.scan == "passive" else settings.probe_wait_ms
    phy = Phy(ap.radio.phy, channel_width_mhz=ap.radio.channel_width_mhz) if ap.radio is not None else Phy("g")
    join = sum(frame_airtime_s(phy, 0, body, n_mpdus=1) for body in JOIN_FRAME_BODIES_BYTES)
    return HandoverTiming(detection_s=(settings.missed_beacons - 0.5) * beacon_s,
                          scan_s=settings.scan_channels * dwell_ms / 1000.0, join_s=join)


def _join_time(t: float, key: tuple[str, str], ap: AccessPointNode, hand: HandoverTiming,
               scan_from: dict, last_scan: dict, ap_windows: list[tuple[float, float]],
               settings: HandoverSettings) -> float:
    """When a radio that decided at ``t`` to join ``ap`` is associated: after authentication and association,
    at once when its last scan, at most ``settings.scan_results_max_age_s`` old, heard ``ap`` (it was in range
    during the scan's window), else at the end of its current scan (``last_scan`` updated)."""
    w0, w1 = last_scan.get(key, (-math.inf, -math.inf))
    fresh = t - w1 <= settings.scan_results_max_age_s + _EPS
    if fresh and any(a0 < w1 + _EPS and w0 < a1 for a0, a1 in ap_windows):
        return t + hand.join_s
    end = _scan_end(t, scan_from[key], hand.scan_s)
    last_scan[key] = (end - hand.scan_s, end)
    return end + hand.join_s


def _scan_end(t: float, scan_from: float, scan_s: float) -> float:
    """End of the first scan, of the back-to-back scans a station runs from ``scan_from``, that ends at or after ``t``."""
    if t <= scan_from + scan_s:
        return scan_from + scan_s
    return scan_from + math.ceil((t - scan_from) / scan_s - _EPS) * scan_s


@dataclass(frozen=True)
class Association:
    """One association of ``station`` with ``access_point``.

    Attributes
    ----------
    t_start_s : float
        When the handover started: when the station left its previous access point's range (a
        handover), or when it came into this one's after being out of every range.
    t_associated_s : float
        When the wireless hop started carrying traffic (handover end).
    t_end_s : float
        When the station left the range, or the end of the run.
    """

    station: str
    access_point: str
    t_start_s: float
    t_associated_s: float
    t_end_s: float


@dataclass(frozen=True)
class AssociationTimeline:
    """All associations of a run, and the radio events that produced them.

    ``events`` are dicts in the result's event shape:
    ``{"t_s", "kind", "node", "access_point"}`` with ``kind`` one of
    ``handover_start``, ``association``, ``disassociation``,
    ``association_abandoned``.
    """

    associations: list[Association]
    events: list[dict]
    #: every node's trajectory (local frame metres), by node id
    trajectories: dict[str, list[Leg]]


def range_windows(station: list[Leg], ap: list[Leg], range_m: float) -> list[tuple[float, float]]:
    """When a station is within ``range_m`` (slant range) of an access point, both given as trajectories.

    A static access point is a fixed centre; a moving one is handled through the relative
    trajectory (:func:`subflow.space.mobility.relative_legs`): both exact roots of quadratics.
    """
    if len(ap) == 1 and (ap[0].x0_m, ap[0].y0_m, ap[0].z0_m) == (ap[0].x1_m, ap[0].y1_m, ap[0].z1_m):
        return in_range_intervals(station, (ap[0].x0_m, ap[0].y0_m, ap[0].z0_m), range_m)
    return in_range_intervals(relative_legs(station, ap), (0.0, 0.0, 0.0), range_m)


def radio_budget(scenario: Scenario, tx: NodeRadio, rx: NodeRadio | None, tx_height_m: float,
                 rx_height_m: float) -> LinkBudget:
    """The link budget of a hop from radio ``tx`` (whose frequency, PHY and width apply) to ``rx``.

    The transmit power is the smaller of the two radios' (the weaker direction of the hop), the
    gains are both antennas' (0 dBi for a node without a radio), the path loss and noise floor are
    ``scenario.radio.propagation``'s; heights (two-ray) are the nodes' altitudes plus the antenna heights.
    SNR maps to an MCS by ``scenario.radio.rate_selection`` (:class:`subflow.radio.propagation.LinkBudget`), over the
    propagation's noise floor or, when it names none, the method's own
    (:func:`subflow.radio.propagation.default_noise_floor_dbm`).
    """
    prop = scenario.radio.propagation
    method = scenario.radio.rate_selection
    power = tx.tx_power_dbm if rx is None else min(tx.tx_power_dbm, rx.tx_power_dbm)
    loss = PathLoss(
        model=prop.model, frequency_mhz=tx.frequency_mhz, exponent=prop.exponent,
        reference_distance_m=prop.reference_distance_m, reference_loss_db=prop.reference_loss_db,
        system_loss_db=prop.system_loss_db,
        tx_height_m=max(tx_height_m, 0.0) + tx.antenna_height_m,
        rx_height_m=max(rx_height_m, 0.0) + (rx.antenna_height_m if rx is not None else 1.0),
    )
    return LinkBudget(
        tx_power_dbm=power, tx_gain_dbi=tx.antenna_gain_dbi,
        rx_gain_dbi=0.0 if rx is None else rx.antenna_gain_dbi, phy=tx.phy,
        channel_width_mhz=tx.channel_width_mhz, path_loss=loss,
        noise_floor_dbm=default_noise_floor_dbm(method) if prop.noise_floor_dbm is None else prop.noise_floor_dbm,
        method=method,
    )


def hop_budget(scenario: Scenario, ap: AccessPointNode, client, trajectories: dict[str, list[Leg]]) -> LinkBudget | None:
    """The link budget of the hop between access point ``ap`` and ``client`` (a station or an access
    point using ``ap`` as its uplink); None when ``ap`` has no radio (range_m and the rate table apply)."""
    if ap.radio is None:
        return None
    return radio_budget(scenario, ap.radio, getattr(client, "radio", None),
                        trajectories[ap.id][0].z0_m, trajectories[client.id][0].z0_m)


def hop_range_m(budget: LinkBudget | None, ap: AccessPointNode) -> float:
    """Association range of a hop, metres: ``range_m``, capped by the radio range when there is a radio."""
    return ap.range_m if budget is None else min(ap.range_m, budget.range_m())


def hop_rate_steps(budget: LinkBudget | None, ap: AccessPointNode) -> list[tuple[float, float]] | None:
    """Air rate against distance of a hop as ``(distance_m, rate_mbps)`` steps: the explicit
    ``rate_table`` (an override), else the radio's MCS steps, else None (flat ``wireless_bandwidth_mbps``)."""
    if ap.rate_table:
        return [(st.distance_m, st.bandwidth_mbps) for st in ap.rate_table]
    return None if budget is None else budget.rate_steps()


def clients(scenario: Scenario) -> list[tuple[object, list[AccessPointNode]]]:
    """Every node that associates, with the access points it may associate with: each station with
    every access point, each access point with an ``uplink`` with that access point only."""
    aps = [n for n in scenario.nodes if isinstance(n, AccessPointNode)]
    by_id = {ap.id: ap for ap in aps}
    out: list[tuple[object, list[AccessPointNode]]] = [(n, aps) for n in scenario.nodes if isinstance(n, StationNode)]
    out += [(ap, [by_id[ap.uplink]]) for ap in aps if ap.uplink is not None]
    return out


def _client_windows(scenario: Scenario, candidates, trajectories: dict[str, list[Leg]]
                    ) -> dict[str, dict[str, list[tuple[float, float]]]]:
    """Per client and access point it may join, when the client is within the hop's association range."""
    return {
        st.id: {
            ap.id: range_windows(trajectories[st.id], trajectories[ap.id],
                                 hop_range_m(hop_budget(scenario, ap, st, trajectories), ap))
            for ap in aps_of
        }
        for st, aps_of in candidates
    }


def association_timeline(scenario: Scenario) -> AssociationTimeline:
    """Compute when each station is associated with which access point.

    Parameters
    ----------
    scenario : Scenario
        A validated scenario; its nodes' mobility (stations and access points move),
        access points' ``range_m``, ``beacon_interval_ms`` and ``association_delay_s``,
        ``radio.handover`` (:func:`handover_timing`) and ``radio.association_policy``
        (``ssf`` nearest first, ``llf`` least loaded first) are used.

    Returns
    -------
    AssociationTimeline
        Associations sorted by station then time, events sorted by time, and the
        trajectory of every node (local frame metres for a geographic scenario).

    Notes
    -----
    Stations decide in time order, so under ``llf`` the load an access point
    shows at time t counts the stations associated or associating with it at t.
    A station that lost its access point decides when it detects the loss, among
    the access points in range then; its handover starts (``handover_start``,
    :attr:`Association.t_start_s`) when it left the range, so the whole outage
    reads as the handover.
    """
    scenario = to_local(scenario)
    duration = scenario.run.duration_s
    policy = scenario.radio.association_policy
    associations: list[Association] = []
    events: list[dict] = []
    trajectories: dict[str, list[Leg]] = {
        n.id: trajectory(n, duration, scenario.run.seed) for n in scenario.nodes
    }
    candidates = clients(scenario)
    windows = _client_windows(scenario, candidates, trajectories)
    allowed = {st.id: aps_of for st, aps_of in candidates}
    # next decision time per (station, network) radio; process the earliest first
    pending: dict[tuple[str, str], float] = {
        (st.id, net): 0.0 for st, aps_of in candidates for net in sorted({ap.network for ap in aps_of})
    }
    settings = scenario.radio.handover
    timing = {ap.id: handover_timing(ap, settings) for _, aps_of in candidates for ap in aps_of}
    #: per radio: when it left its last access point's range, while that handover is pending
    lost_at: dict[tuple[str, str], float] = {}
    #: per radio: the start of its back-to-back scans (the run's start, or the loss's detection)
    scan_from: dict[tuple[str, str], float] = dict.fromkeys(pending, 0.0)
    #: per radio: the window (s) of its last scan; the run starts after the scan that found the first access point
    last_scan: dict[tuple[str, str], tuple[float, float]] = {}
    while pending:
        key = min(pending, key=lambda k: (pending[k], k))
        sid, net = key
        t = pending.pop(key)
        if t >= duration - _EPS:
            continue
        aps = allowed[sid]
        in_range = []
        for ap in aps:
            if ap.network != net:
                continue
            for t0, t1 in windows[sid][ap.id]:
                if t0 <= t + _EPS and t < t1 - _EPS:
                    in_range.append((ap, t1))
                    break
        if not in_range:
            nxt = [t0 for ap in aps if ap.network == net for t0, _ in windows[sid][ap.id] if t0 > t + _EPS]
            if nxt:
                pending[key] = min(nxt)
            lost_at.pop(key, None)  # the outage is out of range, not a handover
            continue
        x, y, z = position3_at(trajectories[sid], t)

        def distance(ap: AccessPointNode) -> float:
            ax, ay, az = position3_at(trajectories[ap.id], t)
            return math.sqrt((ax - x) ** 2 + (ay - y) ** 2 + (az - z) ** 2)

        def load(ap: AccessPointNode) -> int:
            return sum(
                1 for a in associations
                if a.access_point == ap.id and a.t_start_s <= t + _EPS and t < a.t_end_s - _EPS
            )

        if policy == "llf":
            ap, t_exit = min(in_range, key=lambda c: (load(c[0]), distance(c[0]), c[0].id))
        else:
            ap, t_exit = min(in_range, key=lambda c: (distance(c[0]), c[0].id))
        if t <= _EPS:
            t_joined = 0.0  # associated when the run starts
            last_scan[key] = (0.0, timing[ap.id].scan_s)
        elif ap.association_delay_s is not None:
            t_joined = t + ap.association_delay_s
        else:
            t_joined = _join_time(t, key, ap, timing[ap.id], scan_from, last_scan, windows[sid][ap.id], settings)
        t_start = lost_at.pop(key, t)
        t_exit = min(t_exit, duration)
        if t > _EPS:
            events.append({"t_s": t_start, "kind": "handover_start", "node": sid, "access_point": ap.id})
        if t_joined < t_exit:
            associations.append(Association(sid, ap.id, t_start, t_joined, t_exit))
            events.append({"t_s": t_joined, "kind": "association", "node": sid, "access_point": ap.id})
            pending[key] = t_exit
            if t_exit < duration - _EPS:
                events.append({"t_s": t_exit, "kind": "disassociation", "node": sid, "access_point": ap.id})
                lost_at[key] = t_exit
                if ap.association_delay_s is None:  # the station looks for another after it notices the loss
                    pending[key] = scan_from[key] = t_exit + timing[ap.id].detection_s
        else:
            events.append(
                {"t_s": t_exit, "kind": "association_abandoned", "node": sid, "access_point": ap.id}
            )
            pending[key] = t_exit
    associations.sort(key=lambda a: (a.station, a.t_start_s))
    events.sort(key=lambda e: (e["t_s"], e["node"]))
    return AssociationTimeline(associations, events, trajectories)
