"""One access point, one station, bulk TCP downlink: the ns-3 802.11 reference rebuilt for the fluid engine.

The scenario is that of ``scripts/ns3_wifi_reference.py`` (stored figures in
``docs/validation/wifi_ns3_reference.json``): log-distance path loss with exponent 3 and 46.6777 dB
at 1 m (ns-3's ``LogDistancePropagationLossModel`` defaults, Friis at 1 m and 5.15 GHz), 20 dBm at
both ends, one spatial stream, 800 ns guard interval; 802.11g on channel 1 (2412 MHz, 20 MHz),
802.11n on channel 36 (5180 MHz, 20 MHz), 802.11ac on channel 42 (5210 MHz, 80 MHz); bulk TCP with
MSS 1448 bytes from the access point to the station, started at 0.5 s, goodput over 1.5-4.5 s.

What is matched to ns-3's defaults: the noise floor of the ``error_rate`` and ``nist`` selections is thermal noise
plus ns-3's 7 dB ``RxNoiseFigure`` (-93.99 dBm at 20 MHz); ns-3's preamble detection drops every frame
received below -82 dBm (``ThresholdPreambleDetectionModel::MinimumRssi``), which on this path loss
is 69.8 m: the access point's ``range_m`` is set there, so that the station beyond it never associates.
The ``min_sensitivity`` selection keeps its own noise floor (-90.99 dBm, the 10 dB noise figure behind
the standard's sensitivity tables), since its thresholds are the standard's absolute sensitivities.
"""

from __future__ import annotations

import math

#: ns-3 channel of each standard in the reference: (frequency MHz, width MHz)
NS3_CHANNELS: dict[str, tuple[float, int]] = {"g": (2412.0, 20), "n": (5180.0, 20), "ac": (5210.0, 80)}
#: LogDistancePropagationLossModel: exponent, reference distance (m), loss at it (dB)
PATH_LOSS_EXPONENT, REFERENCE_DISTANCE_M, REFERENCE_LOSS_DB = 3.0, 1.0, 46.6777
TX_POWER_DBM = 20.0
MSS_BYTES = 1448
#: ns-3's default receiver noise figure (YansWifiPhy ``RxNoiseFigure``), dB
NS3_NOISE_FIGURE_DB = 7.0
#: ns-3's ThresholdPreambleDetectionModel ``MinimumRssi``: no frame below it is received, dBm
NS3_MIN_RSSI_DBM = -82.0
#: the application start and the goodput window of the stored distance cells, s
APP_START_S = 0.5
WINDOW_S = (1.5, 4.5)


def ns3_cutoff_range_m(min_rssi_dbm: float = NS3_MIN_RSSI_DBM, tx_power_dbm: float = TX_POWER_DBM) -> float:
    """Distance at which the received power falls to ``min_rssi_dbm`` on the reference path loss, metres.

    Parameters
    ----------
    min_rssi_dbm : float
        Weakest received power a frame is detected at, dBm (ns-3: -82 dBm).
    tx_power_dbm : float
        Transmit power, dBm.

    Returns
    -------
    float
        d with tx − 46.6777 − 30·log10(d / 1 m) = min_rssi, metres (69.8 m for the defaults).
    """
    excess_db = tx_power_dbm - REFERENCE_LOSS_DB - min_rssi_dbm
    return REFERENCE_DISTANCE_M * 10.0 ** (excess_db / (10.0 * PATH_LOSS_EXPONENT))


def single_station_scenario(phy: str, distance_m: float, rate_selection: str = "error_rate", *,
                            duration_s: float = WINDOW_S[1], min_rssi_dbm: float | None = NS3_MIN_RSSI_DBM,
                            noise_figure_db: float = NS3_NOISE_FIGURE_DB) -> dict:
    """Scenario document of the ns-3 reference's distance cell: one access point, one station at ``distance_m``.

    Parameters
    ----------
    phy : {"g", "n", "ac"}
        802.11 standard; channel and width as in the ns-3 run (:data:`NS3_CHANNELS`).
    distance_m : float
        Station's distance from the access point, metres (> 0).
    rate_selection : {"error_rate", "nist", "min_sensitivity"}
        ``Scenario.radio.rate_selection`` (docs/radio.md).
    duration_s : float
        Run length, s (default: the end of the ns-3 goodput window, 4.5 s).
    min_rssi_dbm : float or None
        Received power below which the station is out of range, dBm (ns-3's preamble detection,
        -82 dBm); None leaves the range to the rate selection's slowest MCS.
    noise_figure_db : float
        Receiver noise figure of the error-rate selections' noise floor, dB (ns-3: 7).

    Returns
    -------
    dict
        A scenario document (``resolve_plan(doc, "sptcp")``): host ``h1`` wired at 10 Gbit/s to the
        access point ``ap1`` (the ns-3 BulkSend runs on the access point itself), station ``sta1``,
        flow ``f1`` from ``h1`` to ``sta1`` starting at 0.5 s, association at t = 0.

    Raises
    ------
    ValueError
        For an unknown ``phy`` or ``rate_selection``, or a distance ≤ 0.
    """
    from subflow.radio.error_rate import thermal_noise_floor_dbm

    if phy not in NS3_CHANNELS:
        raise ValueError(f"phy must be one of {sorted(NS3_CHANNELS)}, got {phy!r}")
    if rate_selection not in ("error_rate", "nist", "min_sensitivity"):
        raise ValueError(f"rate_selection must be 'error_rate', 'nist' or 'min_sensitivity', got {rate_selection!r}")
    if not distance_m > 0:
        raise ValueError(f"distance_m must be > 0, got {distance_m!r}")
    freq, width = NS3_CHANNELS[phy]
    radio = {"tx_power_dbm": TX_POWER_DBM, "frequency_mhz": freq, "phy": phy, "channel_width_mhz": width}
    range_m = 100_000.0 if min_rssi_dbm is None else ns3_cutoff_range_m(min_rssi_dbm)
    propagation = {"model": "log_distance", "exponent": PATH_LOSS_EXPONENT,
                   "reference_distance_m": REFERENCE_DISTANCE_M, "reference_loss_db": REFERENCE_LOSS_DB}
    if rate_selection != "min_sensitivity":
        propagation["noise_floor_dbm"] = round(thermal_noise_floor_dbm(20, noise_figure_db), 6)
    return {
        "name": f"ns3-wifi-{phy}-{distance_m:g}m",
        "nodes": [
            {"id": "h1", "kind": "host"},
            {"id": "ap1", "kind": "access_point", "position": {"x_m": 0, "y_m": 0}, "range_m": range_m,
             "association_delay_s": 0.0, "wireless_bandwidth_mbps": 10_000.0, "wireless_delay_ms": 0.0,
             "radio": radio},
            {"id": "sta1", "kind": "station", "position": {"x_m": float(distance_m), "y_m": 0}, "radio": radio},
        ],
        "links": [{"id": "l1", "src": "h1", "dst": "ap1", "bandwidth_mbps": 10_000, "delay_ms": 0.0}],
        "flows": [{"id": "f1", "src": "h1", "dst": "sta1", "start_s": APP_START_S}],
        "transport": {"mss_bytes": MSS_BYTES, "rto_form": "rfc6298"},
        "run": {"duration_s": duration_s, "interval_s": 0.5},
        "radio": {"propagation": propagation, "rate_selection": rate_selection},
    }


def fluid_goodput_mbps(phy: str, distance_m: float, rate_selection: str = "error_rate", *,
                       window_s: tuple[float, float] = WINDOW_S, kernel: str = "scalar", **scenario_kw) -> float:
    """Fluid engine's goodput of the single-station scenario over the ns-3 figure's window, Mbit/s.

    Parameters
    ----------
    phy, distance_m, rate_selection
        As :func:`single_station_scenario`.
    window_s : (float, float)
        Averaging window, s (the stored cells' 1.5-4.5 s: 1 s to 4 s after the application starts).
    kernel : str
        Fluid kernel (``subflow_engines.fluid.run``).
    **scenario_kw
        Passed to :func:`single_station_scenario` (``duration_s`` defaults to the window's end).

    Returns
    -------
    float
        Mean goodput of flow ``f1`` over the samples inside ``window_s``, Mbit/s (10^6 bit/s); 0 when
        the station is out of range.
    """
    from subflow.errors import Unreachable
    from subflow.runplan.resolve import resolve_plan
    from subflow_engines.fluid import run as fluid_run

    scenario_kw.setdefault("duration_s", window_s[1])
    doc = single_station_scenario(phy, distance_m, rate_selection, **scenario_kw)
    try:
        plan = resolve_plan(doc, "sptcp")
    except Unreachable:  # beyond range_m: never associated
        return 0.0
    out = fluid_run(plan, kernel=kernel)
    interval = doc["run"]["interval_s"]
    tp = out.flows[0].throughput_mbps
    picked = [v for k, v in enumerate(tp) if window_s[0] - 1e-9 <= k * interval < window_s[1] - 1e-9]
    return sum(picked) / len(picked) if picked else math.nan


#: goodput window of the stored anomaly cells, s
ANOMALY_WINDOW_S = (1.5, 11.5)


def anomaly_scenario(phy: str, distances_m: list[float], rate_selection: str = "error_rate") -> dict:
    """Scenario document of the ns-3 reference's anomaly cell: one access point, a station at each distance.

    As :func:`single_station_scenario` (the same radio, path loss, noise floor and range), with stations
    ``sta1`` … ``staN`` at ``distances_m`` (spread around the access point; only the distance matters) and
    one bulk TCP flow ``fK`` from ``h1`` to each from 0.5 s, run to the end of :data:`ANOMALY_WINDOW_S`.

    Raises
    ------
    ValueError
        As :func:`single_station_scenario`, or for an empty ``distances_m``.
    """
    if not distances_m:
        raise ValueError("distances_m must name at least one station")
    doc = single_station_scenario(phy, float(distances_m[0]), rate_selection, duration_s=ANOMALY_WINDOW_S[1])
    h1, ap, sta = doc["nodes"]
    stations, flows = [], []
    for k, d in enumerate(distances_m, start=1):
        angle = 2.0 * math.pi * (k - 1) / len(distances_m)
        stations.append({**sta, "id": f"sta{k}",
                         "position": {"x_m": float(d) * math.cos(angle), "y_m": float(d) * math.sin(angle)}})
        flows.append({"id": f"f{k}", "src": "h1", "dst": f"sta{k}", "start_s": APP_START_S})
    return {**doc, "name": f"ns3-wifi-anomaly-{phy}-{'-'.join(f'{d:g}' for d in distances_m)}",
            "nodes": [h1, ap, *stations], "flows": flows}


def fluid_anomaly_mbps(phy: str, distances_m: list[float], rate_selection: str = "error_rate", *,
                       kernel: str = "scalar") -> list[float]:
    """The fluid engine's goodput of each station of :func:`anomaly_scenario` over :data:`ANOMALY_WINDOW_S`,
    Mbit/s, in the order of ``distances_m``."""
    from subflow.runplan.resolve import resolve_plan
    from subflow_engines.fluid import run as fluid_run

    doc = anomaly_scenario(phy, distances_m, rate_selection)
    out = fluid_run(resolve_plan(doc, "sptcp"), kernel=kernel)
    interval = doc["run"]["interval_s"]
    lo, hi = ANOMALY_WINDOW_S
    means = []
    for f in out.flows:
        picked = [v for k, v in enumerate(f.throughput_mbps) if lo - 1e-9 <= k * interval < hi - 1e-9]
        means.append(sum(picked) / len(picked))
    return means


#: the stored handover cells (scripts/ns3_wifi_handover.py): the station's start, speed and track
HANDOVER_START_X_M, HANDOVER_SPEED_MPS, HANDOVER_BEYOND_M = 10.0, 10.0, 50.0
#: goodput bins of the handover cells, s
HANDOVER_BIN_S = 0.1


def handover_scenario(spacing_m: float, min_rto_s: float, phy: str = "g") -> dict:
    """Scenario document of the ns-3 reference's handover cell: a station passes two access points.

    As ``scripts/ns3_wifi_handover.py``: AP1 at x = 0 and AP2 at x = ``spacing_m`` (y = 0), both with the
    ns-3 cell's radio and range (:func:`single_station_scenario`'s, 69.8 m), no ``association_delay_s``
    (the handover timing follows from the default ``radio.handover``, ns-3's: 10 missed beacons,
    passive scan of one channel for 120 ms); the station at y = 1 m moves along +x from x = 10 m at
    10 m/s to 50 m beyond AP2; host ``h1`` behind both access points on 1 Gbit/s links sends bulk
    NewReno TCP (MSS 1448 B) from 0.5 s, its RTO in ns-3's form (``transport.rto_form`` ``"rfc6298"``:
    max(min_rto_s, SRTT + 4·RTTVAR), ``TcpSocketBase``); samples every 100 ms.

    Parameters
    ----------
    spacing_m : float
        Distance between the access points, metres (> 0).
    min_rto_s : float
        TCP's minimum retransmission timeout, s (the cells: 1 and 0.2).
    phy : {"g", "n", "ac"}

    Returns
    -------
    dict
        A scenario document (``resolve_plan(doc, "sptcp")``) of ``(spacing_m + 40) / 10`` s.
    """
    doc = single_station_scenario(phy, 1.0)
    end_x = spacing_m + HANDOVER_BEYOND_M
    duration = (end_x - HANDOVER_START_X_M) / HANDOVER_SPEED_MPS
    ap1 = {k: v for k, v in doc["nodes"][1].items() if k != "association_delay_s"}
    ap2 = {**ap1, "id": "ap2", "position": {"x_m": float(spacing_m), "y_m": 0.0}}
    sta = {**doc["nodes"][2], "position": {"x_m": HANDOVER_START_X_M, "y_m": 1.0},
           "mobility": {"model": "linear", "start": {"x_m": HANDOVER_START_X_M, "y_m": 1.0},
                        "end": {"x_m": end_x, "y_m": 1.0}, "speed_mps": HANDOVER_SPEED_MPS}}
    return {
        **doc,
        "name": f"ns3-wifi-handover-{phy}-{spacing_m:g}m-rto{min_rto_s:g}",
        "nodes": [{"id": "h1", "kind": "host"}, {"id": "sw", "kind": "switch"}, ap1, ap2, sta],
        "links": [{"id": "l0", "src": "h1", "dst": "sw", "bandwidth_mbps": 1000.0, "delay_ms": 0.001},
                  {"id": "l1", "src": "sw", "dst": "ap1", "bandwidth_mbps": 1000.0, "delay_ms": 0.0},
                  {"id": "l2", "src": "sw", "dst": "ap2", "bandwidth_mbps": 1000.0, "delay_ms": 0.0}],
        "transport": {"mss_bytes": MSS_BYTES, "min_rto_s": min_rto_s, "congestion_control": "newreno",
                      "rto_form": "rfc6298"},
        # ns-3's StaWifiMac joins an access point its last scan heard without scanning again, however old
        "radio": {**doc["radio"], "handover": {"scan_results_max_age_s": 86_400.0}},
        "run": {"duration_s": duration, "interval_s": HANDOVER_BIN_S},
    }


def fluid_handover(spacing_m: float, min_rto_s: float, phy: str = "g", *, kernel: str = "scalar") -> dict:
    """The fluid engine's figures of the handover cell (:func:`handover_scenario`), as the ns-3 cells store them.

    Returns
    -------
    dict
        ``outage_s``: seconds of 100 ms bins with no goodput from 1.5 s to the end; ``longest_gap_s`` and
        ``gap_start_s``: the longest run of such bins and its start (s); ``mean_mbps``: mean goodput
        over the same window (Mbit/s); ``left_s`` / ``joined_s``: when the station left AP1's range and
        when its hop through AP2 opened (s, from the plan's events).
    """
    from subflow.radio.association import association_timeline
    from subflow.runplan.resolve import resolve_plan
    from subflow.scenario.document import load_scenario
    from subflow_engines.fluid import run as fluid_run

    doc = handover_scenario(spacing_m, min_rto_s, phy)
    plan = resolve_plan(doc, "sptcp")
    out = fluid_run(plan, kernel=kernel)
    tp = out.flows[0].throughput_mbps
    first = int(round(WINDOW_S[0] / HANDOVER_BIN_S))
    window = tp[first:]
    best, best_at, run, run_at = 0, None, 0, None
    for k, v in enumerate(window):
        if v <= 0.0:
            run_at = k if run == 0 else run_at
            run += 1
            if run > best:
                best, best_at = run, run_at
        else:
            run = 0
    events = association_timeline(load_scenario(doc)).events
    left = next((e["t_s"] for e in events if e["kind"] == "disassociation" and e["access_point"] == "ap1"), None)
    joined = next((e["t_s"] for e in events if e["kind"] == "association" and e["access_point"] == "ap2"), None)
    return {"outage_s": round(sum(1 for v in window if v <= 0.0) * HANDOVER_BIN_S, 6),
            "longest_gap_s": round(best * HANDOVER_BIN_S, 6),
            "gap_start_s": None if best_at is None else round((first + best_at) * HANDOVER_BIN_S, 6),
            "mean_mbps": sum(window) / len(window), "left_s": left, "joined_s": joined}
