"""Parametrised scenarios of the papers' experiments.

Each builder returns a scenario document (a dict) so it can be stored,
edited in the UI, swept, or run from the CLI like any other scenario.
"""

from __future__ import annotations

from typing import Any


def spurious_timeout_handover(
    disconnection_s: float, link_delay_ms: float, window_bytes: int, duration_s: float = 60.0
) -> dict[str, Any]:
    """Singh & Pandey 2021 (sdn-spurious-timeout §3.5, Fig. 4, Table 2), reduced.

    A correspondent node ``cn`` sends a bulk TCP flow to a mobile node ``mn``
    over three 100 Mbit/s wired hops of ``link_delay_ms`` each; ``mn`` walks
    from AP-1 to AP-2, whose 100 m ranges are 100 m apart, at the speed that
    leaves it disconnected for ``disconnection_s`` seconds (including a 0.5 s
    association delay). ``window_bytes`` is the receive window (the paper's
    30/60/90 kB). Disassociation happens at t = 20 s + the time to reach the
    edge of AP-1's range.

    Parameters
    ----------
    disconnection_s : float
        Seconds without any association (> 0.5).
    link_delay_ms : float
        One-way delay of each wired hop (the paper: 20–80 ms).
    window_bytes : int
        Receive window in bytes.
    """
    if disconnection_s <= 0.5:
        raise ValueError("disconnection_s must exceed the 0.5 s association delay")
    speed = 100.0 / (disconnection_s - 0.5)
    ap = {"kind": "access_point", "range_m": 100, "association_delay_s": 0.5, "wireless_bandwidth_mbps": 54}
    wired = {"bandwidth_mbps": 100, "delay_ms": link_delay_ms}
    return {
        "name": f"spurious-d{disconnection_s:g}-l{link_delay_ms:g}-w{window_bytes}",
        "description": "sdn-spurious-timeout testbed (Singh & Pandey 2021, §3.5), reduced to one mobile node.",
        "nodes": [
            {"id": "cn", "kind": "host"},
            {"id": "s1", "kind": "switch"},
            {"id": "s2", "kind": "switch"},
            {"id": "s3", "kind": "switch"},
            {"id": "ap1", **ap, "position": {"x_m": 0, "y_m": 0}},
            {"id": "ap2", **ap, "position": {"x_m": 300, "y_m": 0}},
            {"id": "mn", "kind": "station", "position": {"x_m": 50, "y_m": 0},
             "mobility": {"model": "linear", "start": {"x_m": 50, "y_m": 0}, "end": {"x_m": 300, "y_m": 0},
                          "speed_mps": speed, "start_s": 20}},
        ],
        "links": [
            {"id": "l1", "src": "cn", "dst": "s1", **wired},
            {"id": "l2", "src": "s1", "dst": "s2", **wired},
            {"id": "l3", "src": "s2", "dst": "ap1", **wired},
            {"id": "l4", "src": "s1", "dst": "s3", **wired},
            {"id": "l5", "src": "s3", "dst": "ap2", **wired},
        ],
        "flows": [{"id": "f", "src": "cn", "dst": "mn"}],
        "run": {"duration_s": duration_s, "interval_s": 0.1},
        "transport": {"rbuf_bytes": window_bytes, "congestion_control": "reno"},
    }


def cmt_handover(
    bw_ratio: float, t_dwell_s: float, rbuf_bytes: int | None, t1_s: float = 2.0, tail_s: float = 30.0,
    goodput_fraction: float = 1.0,
) -> tuple[dict[str, Any], dict[str, float]]:
    """Budzisz et al. (msctp-cmt-handover §IV, Table I, Fig. 1) handover scenario.

    A correspondent node sends a file to a mobile node that is covered by the
    fast RAN #1 (WLAN, ``bw_ratio``·384 kbit/s, 15 ms) until ``t1_s + t_dwell_s``
    and by the slow RAN #2 (UMTS, 384 kbit/s, 80 ms) from ``t1_s`` on; each
    wired part is 100 Mbit/s, 5 ms. The file size L is what the analysis
    needs to outlast the overlap: L = t1·bw1 + t_dwell·(bw1 + bw2) + tail·bw2.

    ``goodput_fraction`` (payload share of a frame, e.g.
    ``subflow_engines.fluid.goodput_fraction(1448)``) evaluates Eqs. (3)–(5) at the
    goodput the radio links deliver, bw·fraction, instead of their nominal rates; the
    scenario (and L) is the same either way.

    Returns
    -------
    (dict, dict)
        The scenario, and the analytical transfer times of Eqs. (3)–(5):
        ``{"cmt": T_cmt_th, "msctp_worst": ..., "msctp_best": ..., "size_bits": L}``.
    """
    bw2 = 0.384e6
    bw1 = bw_ratio * bw2
    v = 10.0
    x_leave1 = v * (t1_s + t_dwell_s)
    size_bits = t1_s * bw1 + t_dwell_s * (bw1 + bw2) + tail_s * bw2
    size_bytes = int(size_bits / 8)
    size_bits = size_bytes * 8.0
    doc = {
        "name": f"cmt-r{bw_ratio:g}-d{t_dwell_s:g}",
        "description": "msctp-cmt-handover scenario (Budzisz et al., Table I): WLAN to UMTS handover.",
        "nodes": [
            {"id": "cn", "kind": "host"},
            {"id": "r1", "kind": "router"},
            {"id": "r2", "kind": "router"},
            {"id": "wlan", "kind": "access_point", "network": "wlan", "position": {"x_m": -1000, "y_m": 0},
             "range_m": 1000 + x_leave1, "association_delay_s": 0, "wireless_bandwidth_mbps": bw1 / 1e6,
             "wireless_delay_ms": 15, "queue_packets": 50},
            {"id": "umts", "kind": "access_point", "network": "umts",
             "position": {"x_m": v * t1_s + 100_000, "y_m": 0}, "range_m": 100_000, "association_delay_s": 0,
             "wireless_bandwidth_mbps": bw2 / 1e6, "wireless_delay_ms": 80, "queue_packets": 50},
            {"id": "mn", "kind": "station",
             "mobility": {"model": "linear", "start": {"x_m": 0, "y_m": 0}, "end": {"x_m": 1e6, "y_m": 0},
                          "speed_mps": v}},
        ],
        "links": [
            {"id": "a", "src": "cn", "dst": "r1", "bandwidth_mbps": 100, "delay_ms": 5},
            {"id": "b", "src": "r1", "dst": "wlan", "bandwidth_mbps": 100, "delay_ms": 0},
            {"id": "c", "src": "cn", "dst": "r2", "bandwidth_mbps": 100, "delay_ms": 5},
            {"id": "d", "src": "r2", "dst": "umts", "bandwidth_mbps": 100, "delay_ms": 0},
        ],
        "flows": [{"id": "f", "src": "cn", "dst": "mn", "size_bytes": size_bytes}],
        "run": {"duration_s": 1.5 * (t1_s + size_bits / bw2), "interval_s": 1},
        "transport": {"min_rto_s": 0.05, "rbuf_bytes": rbuf_bytes},
    }
    if not 0.0 < goodput_fraction <= 1.0:
        raise ValueError("goodput_fraction must be in (0, 1]")
    tail = size_bits / (bw2 * goodput_fraction)
    times = {
        "cmt": t1_s + tail - (t1_s + t_dwell_s) * bw_ratio,  # Eq. (3)
        "msctp_worst": t1_s + tail - t1_s * bw_ratio,  # Eq. (4)
        "msctp_best": t1_s + t_dwell_s + tail - (t1_s + t_dwell_s) * bw_ratio,  # Eq. (5)
        "size_bits": size_bits,
    }
    return doc, times


def with_satcom_residual_loss(scenario: dict[str, Any], loss: float = 1e-3) -> dict[str, Any]:
    """sd-mptcp Scenario I or II (Zhao et al., MILCOM 2018, §VI) in the regime the paper measured.

    The paper states capacities and delays only, yet its stations average
    0.37–0.49 Mbit/s (Figs. 6, 9) against a 3 Mbit/s demand and a 50 Mbit/s
    SATCOM backhaul: the SATCOM path was lossy or window-limited, not the
    demand. This copy of ``scenario`` gives every station's link to the SATCOM
    switch a random residual ``loss`` (fraction of packets, default 1e-3), so
    the stations are capacity-limited and their throughput depends on how the
    shared 1 Mbit/s UAV backhaul is split — which is where Linux's MPTCP scheduler and the FDM
    controller differ. A link qualifies when one endpoint is a station and the
    other's id contains ``satcom``; the switch-to-ship hop stays lossless.

    Raises
    ------
    ValueError
        If ``loss`` is not in [0, 1) or no station link reaches a SATCOM switch.
    """
    if not 0.0 <= loss < 1.0:
        raise ValueError("loss must be a fraction in [0, 1)")
    doc = {**scenario, "links": [dict(link) for link in scenario.get("links", [])]}
    kinds = {n["id"]: n.get("kind") for n in scenario.get("nodes", [])}
    touched = 0
    for link in doc["links"]:
        ends = (link["src"], link["dst"])
        if any("satcom" in e for e in ends) and any(kinds.get(e) == "station" for e in ends):
            link["loss"] = loss
            touched += 1
    if not touched:
        raise ValueError("no station link reaches a SATCOM switch")
    doc["name"] = f"{scenario.get('name', 'scenario')}-satcom-loss-{loss:g}"
    return doc
