"""Markdown tables of the stored ns-3 802.11 reference (docs/validation/wifi_ns3_reference.json).

No ns-3 here: scripts/validation.py appends :func:`section` to docs/validation/README.md, and
``python3 scripts/ns3_wifi_tables.py`` prints it. With ``subflow`` importable (PYTHONPATH=lib:engines),
the section also holds the fluid engine's goodput of the same distance cells and its outage and goodput in
the handover cells (:mod:`subflow_testbeds.wifi`, a few seconds of fluid runs) against ns-3's Ideal manager.
"""

from __future__ import annotations

import json
from pathlib import Path

REF = Path(__file__).resolve().parents[1] / "docs" / "validation" / "wifi_ns3_reference.json"
HEADING = "## 802.11 reference (ns-3)"
#: fluid / ns-3 Ideal goodput the comparison aims for
TARGET = (0.85, 1.15)


def _ratio(fluid: float, ns3: float) -> str:
    if ns3 == 0:
        return "– (both 0)" if fluid == 0 else "∞"
    r = fluid / ns3
    mark = "" if TARGET[0] <= r <= TARGET[1] else " ✗"
    return f"{r:.2f}{mark}"


def comparison(ref: dict) -> list[str]:
    """Lines of the fluid-against-ns-3 table (goodput vs distance, one station); [] without ``subflow``."""
    try:
        from subflow_testbeds.wifi import fluid_goodput_mbps
    except ImportError:
        return []
    cells = ref["cells"]
    methods = ("error_rate", "nist", "min_sensitivity")
    out = ["### Fluid engine against ns-3: goodput vs distance", ""]
    out.append(
        "The same cell in Subflow (`subflow_testbeds.wifi.single_station_scenario`): one access point with a "
        "`radio`, one station at the distance, the same log-distance path loss, 20 dBm, PHY, channel and width, "
        "MSS 1448 B, bulk TCP downlink from 0.5 s, goodput over 1.5–4.5 s, one column per `radio.rate_selection` "
        "(docs/radio.md): `error_rate` (the default: soft-decision Viterbi bound, decoded BER ≤ 10⁻⁶), `nist` "
        "(ns-3's NIST model, hard decisions, 10 % PER) and `min_sensitivity` (the standard's sensitivities). The "
        "error-rate selections' noise floor is ns-3's (thermal + 7 dB, −93.99 dBm at 20 MHz); `min_sensitivity` "
        "keeps the standard's absolute sensitivities. ns-3's −82 dBm preamble detection threshold is the access "
        "point's `range_m` (69.8 m), so all are 0 at 70 and 72 m. Ratio: fluid / ns-3 Ideal; ✗ outside "
        f"{TARGET[0]:.2f}–{TARGET[1]:.2f}. Mbit/s.")
    out.append("")
    misses: dict[str, list[str]] = {m: [] for m in methods}
    worst = {m: [] for m in methods}
    for std in ("g", "n", "ac"):
        dist = sorted({c["distances_m"][0] for c in cells.values()
                       if c["kind"] == "distance" and c["standard"] == std})
        out.append(f"802.11{std}:")
        out.append("")
        out.append("| distance (m) | ns-3 Ideal | ns-3 Minstrel | fluid error_rate | ratio | fluid nist | ratio "
                   "| fluid min_sensitivity | ratio |")
        out.append("|---|---|---|---|---|---|---|---|---|")
        for d in dist:
            ideal = cells[f"distance/{std}/ideal/{d:g}"]["median_mbps"][0]
            mins = cells.get(f"distance/{std}/minstrel/{d:g}")
            row = [f"{d:g}", f"{ideal:.2f}", f"{mins['median_mbps'][0]:.2f}" if mins else "–"]
            for method in methods:
                g = fluid_goodput_mbps(std, d, method)
                row += [f"{g:.2f}", _ratio(g, ideal)]
                if ideal > 0:
                    worst[method].append(g / ideal)
                    if not TARGET[0] <= g / ideal <= TARGET[1]:
                        misses[method].append(f"{std} {d:g} m")
            out.append("| " + " | ".join(row) + " |")
        out.append("")
    span = {m: f"{min(worst[m]):.2f}–{max(worst[m]):.2f}" for m in methods if worst[m]}
    out.append(
        f"Reading. `error_rate` is within {span.get('error_rate', '–')} of ns-3 Ideal in every cell where ns-3 "
        "delivers (outside the target: " + (", ".join(misses["error_rate"]) or "none") + "). "
        "Where the engine and ns-3 pick the top MCS (g, n up to 30 m; ac up to 10 m) the airtime model alone is "
        "compared: 0.95 for g (ns-3 carries 25.3 Mbit/s at 54 Mbit/s, the engine's DCF airtime 23.9; the 5 % was "
        "not traced), 1.04 for n, 1.08 for ac, where the engine aggregates up to 64 MPDUs per A-MPDU (the "
        "BlockAck window) and ns-3's default `BE_MaxAmpduSize` of 65,535 bytes would allow about 42 (likely, not "
        "traced in ns-3). At mid range the MCS choice is compared: inverting ns-3's goodput through the engine's "
        "airtime, ns-3's Ideal manager (its `BerThreshold` of 10⁻⁶ on ns-3's TableBasedErrorRateModel, AWGN "
        "link-level PER tables) and the engine's `error_rate` (the same 10⁻⁶ on the soft-decision bound) pick "
        "the same MCS at every distance but g at 40 m (SNR 19.25 dB: 54 against 48 Mbit/s; the engine's 54 "
        "needs 19.75 dB), hence 0.90 there. `nist` (" + span.get("nist", "–") + ") runs one MCS slower at mid "
        "range — its hard-decision bound needs about 3 dB more SNR per MCS — outside the target at "
        + (", ".join(misses["nist"]) or "none") + ". `min_sensitivity` (" + span.get("min_sensitivity", "–")
        + ") is further off by design (the standard's sensitivities assume a 10 dB noise figure and 10 % PER of "
        "1000-byte PSDUs, several MCS below what ns-3 reaches), and for 802.11ac at 80 MHz its slowest MCS needs "
        "−76 dBm, so the station is out of range from 50 m where ns-3 still delivers 70 Mbit/s (ratio 0).")
    out.append("")
    return out


def anomaly_comparison(ref: dict) -> list[str]:
    """Lines of the fluid-against-ns-3 anomaly table (stations at mixed distances); [] without ``subflow``."""
    try:
        from subflow_testbeds.wifi import fluid_anomaly_mbps
    except ImportError:
        return []
    cells = sorted((c for c in ref["cells"].values() if c["kind"] == "anomaly" and c["manager"] == "ideal"),
                   key=lambda c: (c["standard"], c["stations"]))
    if not cells:
        return []
    out = ["### Fluid engine against ns-3: the performance anomaly", ""]
    out.append(
        "The anomaly cells in Subflow (`subflow_testbeds.wifi.anomaly_scenario`): the distance cells' access point "
        "and radio, one station at each distance, bulk TCP from `h1` to each from 0.5 s, goodput over 1.5–11.5 s. "
        "Each station has its own queues at the access point and DCF gives every queue the same transmission "
        "opportunities (`subflow.runplan.air_cells`, docs/radio.md). Per station: ns-3 Ideal's median of seeds [range] "
        "and the engine; cell total: the sum; ratio fluid / ns-3 Ideal, ✗ outside "
        f"{TARGET[0]:.2f}–{TARGET[1]:.2f}. Mbit/s.")
    out.append("")
    out.append("| standard | stations (m) | per station: ns-3 Ideal | fluid | cell total: ns-3 Ideal | fluid | ratio |")
    out.append("|---|---|---|---|---|---|---|")
    for c in cells:
        fluid = fluid_anomaly_mbps(c["standard"], c["distances_m"])
        ds = ", ".join(f"{d:g}" for d in c["distances_m"])
        per = ", ".join(_fmt(c, i) for i in range(len(c["distances_m"])))
        total = sum(c["median_mbps"])
        out.append(f"| {c['standard']} | {ds} | {per} | {', '.join(f'{g:.2f}' for g in fluid)} | {total:.2f} | "
                   f"{sum(fluid):.2f} | {_ratio(sum(fluid), total)} |")
    out.append("")
    out.append(
        "Reading. The cell totals agree within the target: both carry about n/Σ(1/g_i), the slow station's "
        "airtime dragging the fast one down (Heusse et al.). Per station the engine gives every saturated queue the "
        "same goodput; ns-3's stations do not share that evenly, and not the same way from seed to seed (g with four "
        "stations: one near station got 0.08–8.12 Mbit/s across the seeds, TCP's own unfairness among flows that "
        "collide and back off). With 802.11n the near station got 1.5 times the far one's: a channel access "
        "carries an A-MPDU, and the far station's, at 26 Mbit/s, holds fewer MPDUs within the 5.484 ms PPDU limit "
        "than the near one's at 65 Mbit/s, so equal opportunities are not equal goodput; weighting each queue by "
        "its A-MPDU size (28 against 11 MPDUs) would overshoot to 2.5 times, and the engine keeps equal shares. "
        "The per-station figures are for information; `tests/unit/validation/test_wifi_vs_ns3.py` checks the totals.")
    out.append("")
    return out


def handover_comparison(ref: dict) -> list[str]:
    """Lines of the fluid-against-ns-3 handover table; [] without ``subflow`` or without handover cells."""
    try:
        from subflow_testbeds.wifi import fluid_handover
    except ImportError:
        return []
    cells = ref["cells"]
    keys = sorted({(c["min_rto_s"], c["spacing_m"]) for c in cells.values()
                   if c["kind"] == "handover" and c["standard"] == "g"}, key=lambda k: (-k[0], k[1]))
    if not keys:
        return []
    out = ["### Fluid engine against ns-3: handover", ""]
    out.append(
        "The same cell in Subflow (`subflow_testbeds.wifi.handover_scenario`): two access points with the distance "
        "cells' radio and range, no `association_delay_s`, so the handover timing follows from the default "
        "`radio.handover` (ns-3's: 10 missed beacons of 102.4 ms, a passive scan of one channel for 120 ms; "
        "`subflow.radio.association.handover_timing`, docs/radio.md), the station's track, 100 ms bins and goodput "
        "window as the ns-3 cell's. *left / joined* (s): ns-3 (seed 1) declared AP1 lost and joined AP2; the "
        "engine's station left AP1's range and its hop through AP2 opened. "
        "Outage and mean goodput: the medians of ns-3's seeds; ratio fluid / ns-3 Ideal, ✗ outside "
        f"{TARGET[0]:.2f}–{TARGET[1]:.2f}.")
    out.append("")
    out.append("| min RTO (s) | spacing (m) | left / joined: ns-3 Ideal | fluid | outage (s): ns-3 Ideal | "
               "Minstrel | fluid | ratio | mean goodput (Mbit/s): ns-3 Ideal | Minstrel | fluid | ratio |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for rto, spacing in keys:
        ideal = cells[f"handover/g/ideal/{spacing:g}/rto{rto:g}"]
        mins = cells.get(f"handover/g/minstrel/{spacing:g}/rto{rto:g}")
        f = fluid_handover(spacing, rto)
        a = ideal["association"][0]
        left = next((t for t, ap in a if ap == -1), None)
        joined = next((t for t, ap in a if ap == 1), None)
        fl = "–" if f["left_s"] is None else f"{f['left_s']:.2f}"
        fj = "–" if f["joined_s"] is None else f"{f['joined_s']:.2f}"
        o_ideal = ideal["median_outage_s"]
        o_min = f"{mins['median_outage_s']:.1f}" if mins else "–"
        g_min = f"{mins['median_mbps'][0]:.2f}" if mins else "–"
        out.append(f"| {rto:g} | {spacing:g} | {'–' if left is None else left} / {joined} | {fl} / {fj} | "
                   f"{o_ideal:.1f} | {o_min} | {f['outage_s']:.1f} | {_ratio(f['outage_s'], o_ideal)} | "
                   f"{ideal['median_mbps'][0]:.2f} | {g_min} | {f['mean_mbps']:.2f} | "
                   f"{_ratio(f['mean_mbps'], ideal['median_mbps'][0])} |")
    out.append("")
    out.append(
        "Reading. The engine's station leaves AP1's range at 5.98 s and its hop through AP2 opens at 7.08 s "
        "(0.97 s of beacon-loss detection, the mean of (10 − U)·102.4 ms, then the scan's 120 ms and 1 ms of "
        "authentication and association at 6 Mbit/s); ns-3's station lost its last frame at about 6.0 s (its "
        "goodput gap starts there), declared AP1 lost at 6.98 and joined AP2 at 7.10 (Ideal; Minstrel 7.00 "
        "and 7.12). At 160 m AP2 is out of range when the first scan ends, and both keep scanning: the engine "
        "joins at the end of the first scan after the station comes into range (8.04 s), ns-3 at 8.18–8.20. "
        "The engine's TCP here computes its RTO in ns-3's form (`transport.rto_form` `rfc6298`: "
        "max(minRto, srtt + 4·rttvar), ns-3's `TcpSocketBase::EstimateRtt`); in Linux's form, srtt + "
        "max(4·rttvar, rto_min), the 0.2 s cells' outage was 1.8 s against ns-3's 1.3 (the timer fired at "
        "6.25, 6.78 and 7.84 s instead of about 6.18, 6.58 and 7.38 s, the last one after AP2 is joined). "
        "With a 1 s minimum RTO the outage is set by TCP's backoff (the timer fires before AP2 is joined, so "
        "the next try is 2 s later). At 80 m the two cells overlap, and ns-3 joined AP2 at 6.98 s, the instant "
        "it declared AP1 lost, without scanning: ns-3's `WifiDefaultAssocManager::DoStartScanning` reuses the "
        "access points left in its list by the previous scan, and the list still held AP2 from the station's "
        "first scan at t = 0–0.12 s (the station, 70 m from AP2 at t = 0, came within its 69.8 m range 0.02 s "
        "later; after a scan only the chosen access point leaves the list), while beacons from other access "
        "points are not recorded while associated (`StaWifiMac::ReceiveBeacon`). The engine's cells reuse scan "
        "results as ns-3 does (`radio.handover.scan_results_max_age_s` 86,400 s: a station joins an access "
        "point its last scan heard without scanning again), so its station too joins at the detection (6.96 s) "
        "before its 1 s timer fires, and the flow resumes after 0.9 s of outage, as in two of ns-3's three "
        "seeds; without the reuse it joined 0.12 s later, just after its timer fired, and waited 2 s more "
        "(2.9 s, as ns-3's third seed did: a race between the timer and the join that a tenth of a second "
        "decides). Real stations bound the age: wpa_supplicant reuses results up to 5 s old.")
    out.append("")
    return out


def _fmt(c: dict, i: int = 0) -> str:
    med = c["median_mbps"][i]
    runs = [r[i] for r in c["goodput_mbps"]]
    if len(runs) > 1 and max(runs) - min(runs) >= 0.01:
        return f"{med:.2f} [{min(runs):.2f}–{max(runs):.2f}]"
    return f"{med:.2f}"


def section(ref: dict | None = None) -> str:
    """The README section: setup, goodput vs distance, the anomaly, handover, wall times, how to regenerate."""
    if ref is None:
        if not REF.exists():
            return ""
        ref = json.loads(REF.read_text())
    cells = ref["cells"]
    p = ref["parameters"]
    out = [HEADING, ""]
    out.append(
        f"Packet-level reference for the Wi-Fi hop, from ns-3 {ref['ns3_version']} (PyPI `ns3`, cppyy bindings), "
        "stored in `wifi_ns3_reference.json` by `scripts/ns3_wifi_reference.py` (docstring: every parameter). "
        "One access point, stations at fixed distances; YansWifiChannel with log-distance path loss (exponent "
        f"{p['propagation']['exponent']:g}, {p['propagation']['reference_loss_db']} dB at 1 m), "
        f"{p['phy']['tx_power_dbm']:g} dBm at both ends, ns-3's default PHY otherwise (noise figure 7 dB, "
        "TableBasedErrorRateModel, preamble detection at SNR ≥ 4 dB and RSSI ≥ −82 dBm: no frame is received beyond "
        "about 70.5 m on this path loss, hence the cliff). 802.11g ERP-OFDM 2.4 GHz 20 MHz; 802.11n HT 5 GHz 20 MHz; "
        "802.11ac VHT 5 GHz 80 MHz; one spatial stream, 800 ns guard interval, default A-MPDU. Bulk TCP "
        "(NewReno, MSS 1448 B, 4 MiB buffers, minimum RTO 0.2 s) from the access point to each station's "
        "PacketSink; goodput in Mbit/s over the window 1.5–4.5 s (anomaly: 1.5–11.5 s); median of seeds 1–3 "
        "with their range in brackets (802.11ac: seed 1 only). Minstrel is MinstrelWifiManager for g and "
        "MinstrelHtWifiManager for n and ac.")
    out.append("")
    cols = [(s, m) for s in ("g", "n", "ac") for m in ("ideal", "minstrel")]
    dist = sorted({c["distances_m"][0] for c in cells.values() if c["kind"] == "distance"})
    out.append("Goodput vs distance (Mbit/s):")
    out.append("")
    out.append("| distance (m) | " + " | ".join(f"{s} {m}" for s, m in cols) + " |")
    out.append("|---|" + "---|" * len(cols))
    for d in dist:
        row = []
        for s, m in cols:
            c = cells.get(f"distance/{s}/{m}/{d:g}")
            row.append(_fmt(c) if c else "–")
        out.append(f"| {d:g} | " + " | ".join(row) + " |")
    out.append("")
    out += comparison(ref)
    anomaly = sorted((c for c in cells.values() if c["kind"] == "anomaly"),
                     key=lambda c: (c["standard"], c["manager"], c["stations"]))
    if anomaly:
        out.append("Performance anomaly (Heusse et al., INFOCOM 2003): stations at mixed distances, bulk TCP to each; "
                   "per-station goodput (Mbit/s), and each distance's goodput alone from the table above:")
        out.append("")
        out.append("| standard | manager | stations (m) | per station | cell total | alone (near / far) |")
        out.append("|---|---|---|---|---|---|")
        for c in anomaly:
            per = ", ".join(_fmt(c, i) for i in range(len(c["distances_m"])))
            ds = ", ".join(f"{d:g}" for d in c["distances_m"])
            near = cells.get(f"distance/{c['standard']}/{c['manager']}/{min(c['distances_m']):g}")
            far = cells.get(f"distance/{c['standard']}/{c['manager']}/{max(c['distances_m']):g}")
            alone = "–"
            if near is None:
                near = cells.get(f"distance/{c['standard']}/{c['manager']}/1")
            if near and far:
                alone = f"{near['median_mbps'][0]:.2f} / {far['median_mbps'][0]:.2f}"
            out.append(f"| {c['standard']} | {c['manager']} | {ds} | {per} | {sum(c['median_mbps']):.2f} | {alone} |")
        out.append("")
        out.append("(*alone, near*: the 1 m cell when the near distance is not in the sweep.)")
        out.append("")
        out += anomaly_comparison(ref)
    handover = sorted((c for c in cells.values() if c["kind"] == "handover"),
                      key=lambda c: (c["standard"], c["manager"], c["min_rto_s"], c["spacing_m"]))
    if handover:
        c0 = handover[0]
        out.append(
            f"Handover: 802.11{c0['standard']}, a station at {c0['speed_mps']:g} m/s from x = {c0['start_x_m']:g} m "
            "past AP1 (x = 0) and AP2 (x = spacing) to 50 m beyond AP2; same SSID and channel, server behind both "
            "access points on a bridged 1 Gbit/s CSMA backbone (`scripts/ns3_wifi_handover.py`). ns-3 leaves an "
            "access point only after 10 missed beacons (1.02 s), then scans passively for 120 ms and associates "
            "with the strongest; TCP resumes at its next retransmission timeout. Outage: 100 ms bins with no "
            "byte delivered, from 1.5 s to the end; *gap*: the longest such run and when it starts; *left / "
            "joined*: the time the station lost AP1 and associated with AP2 (s; –: no unassociated 10 ms sample "
            "between them, AP2 being heard at once).")
        out.append("")
        out.append("| manager | min RTO (s) | spacing (m) | run (s) | outage (s) | gap (s) at | mean goodput (Mbit/s) "
                   "| left / joined (s) | seeds |")
        out.append("|---|---|---|---|---|---|---|---|---|")
        for c in handover:
            gaps = ", ".join(f"{g:.1f} at {s:.1f}" for g, s in zip(c["longest_gap_s"], c["gap_start_s"]) if s is not None)
            assoc = []
            for a in c["association"]:
                left = next((t for t, ap in a if ap == -1), None)
                joined = next((t for t, ap in a if ap == 1), None)
                assoc.append(f"{'–' if left is None else left} / {joined}")
            out.append(f"| {c['manager']} | {c['min_rto_s']:g} | {c['spacing_m']:g} | "
                       f"{c['window_s'][1]:g} | {', '.join(f'{o:.1f}' for o in c['outage_s'])} | {gaps} | "
                       f"{_fmt(c)} | {'; '.join(assoc)} | {len(c['seeds'])} |")
        out.append("")
    out += handover_comparison(ref)
    walls: dict[str, float] = {}
    for key, c in cells.items():
        group = "/".join(key.split("/")[:2])
        walls[group] = walls.get(group, 0.0) + c["wall_s"]
    out.append("Wall time of the stored run (all seeds, s, on a shared 2-core machine at nice 19): "
               + ", ".join(f"{k} {v:.0f}" for k, v in sorted(walls.items())) + ".")
    out.append("")
    out.append("Regenerate: `python3 -m venv .venv-ns3 && .venv-ns3/bin/pip install ns3==3.44.post0`, then "
               "`make ns3-reference` (only the cells missing from the JSON; `FORCE=--force` runs all; "
               "`NS3_VENV=...` for another venv); `make validation` does it first when the venv exists. "
               "`tests/unit/validation/test_wifi_ns3_reference.py` checks the stored figures without ns-3.")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(section(), end="")
