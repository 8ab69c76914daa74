"""Packet-level 802.11 reference figures from ns-3, stored in docs/validation/wifi_ns3_reference.json.

ns-3 (https://www.nsnam.org, PyPI package ``ns3``, cppyy bindings, ``from ns import ns``) runs in a venv of its own,
never in the service's ``.venv``::

    python3 -m venv .venv-ns3 && .venv-ns3/bin/pip install ns3==3.44.post0
    make ns3-reference                     # or: nice -n 19 .venv-ns3/bin/python scripts/ns3_wifi_reference.py
    .venv-ns3/bin/python scripts/ns3_wifi_reference.py --jobs 2 [--only distance|anomaly|handover] [--force]

``make validation`` runs ``make ns3-reference`` first when the venv exists; ``NS3_VENV=/path/to/venv`` overrides its
path (the figures stored were made with one in /work/venv-ns3). Cells already in the JSON with the same parameters are kept
(``--force`` runs them again; a cell stored with other seeds, window or geometry runs again); each finished cell is written at once, so an interrupted run resumes. The first
``from ns import ns`` in a process JIT-compiles the bindings (about 20 s), so every worker imports once and runs many
cells.

Setup, common to all cells (units in the names):

- YansWifiChannel, ConstantSpeedPropagationDelayModel, LogDistancePropagationLossModel with exponent 3, reference
  distance 1 m and reference loss 46.6777 dB (Subflow's ``propagation`` defaults; ns-3's own default too).
- YansWifiPhy: 20 dBm transmit power at the access point and the stations, every other attribute at ns-3's default
  (noise figure 7 dB, TableBasedErrorRateModel, ThresholdPreambleDetectionModel: preamble detected at SNR >= 4 dB and
  RSSI >= -82 dBm, so no frame is received beyond about 70.5 m on this path loss), one antenna, one spatial stream,
  long guard interval, default A-MPDU (65,535 bytes) and A-MSDU off for HT/VHT.
- 802.11g: ERP-OFDM, 2.4 GHz channel 1, 20 MHz. 802.11n: HT, 5 GHz channel 36, 20 MHz. 802.11ac: VHT, 5 GHz channel
  42, 80 MHz.
- Rate control: IdealWifiManager, or Minstrel (MinstrelWifiManager for g, MinstrelHtWifiManager for n and ac).
- ConstantPositionMobilityModel. The access point runs BulkSend (TCP NewReno, MSS 1448 bytes, 4 MiB send and receive
  buffers, delayed ACK at ns-3's default of 2 segments) to a PacketSink on each station from 0.5 s; goodput is the
  sink's received application bytes over the window stated in the cell (``window_s``) in Mbit/s (10^6 bit/s).
- Random streams fixed per cell: RngSeedManager seed 1, run = the seed, WifiHelper.AssignStreams from 100 and
  InternetStackHelper.AssignStreams from 1000, so a cell gives the same figures whichever process or order runs it.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import fcntl
import json
import math
import multiprocessing as mp
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "validation" / "wifi_ns3_reference.json"

NS3_PIP = "ns3==3.44.post0"
SEEDS = (1, 2, 3)
#: Seeds per standard where three are too dear on a shared 2-core machine (802.11ac moves ~6x g's packets).
SEEDS_BY_STANDARD = {"ac": (1,)}
#: Path loss (log distance): exponent, reference distance (m), reference loss (dB).
EXPONENT, REF_DISTANCE_M, REF_LOSS_DB = 3.0, 1.0, 46.6777
TX_POWER_DBM = 20.0
MSS_BYTES = 1448
TCP_BUFFER_BYTES = 4 << 20
#: Station distances (m) from the access point for the goodput-vs-distance cells.
DISTANCES_M = (1, 10, 20, 30, 40, 50, 55, 60, 65, 68, 70, 72)
STANDARDS = {
    # name: (ns-3 standard, ChannelSettings {number, width MHz, band, primary20}, highest PHY rate in Mbit/s)
    "g": ("WIFI_STANDARD_80211g", "{1, 20, BAND_2_4GHZ, 0}", 54.0),
    "n": ("WIFI_STANDARD_80211n", "{36, 20, BAND_5GHZ, 0}", 65.0),  # HtMcs7, 1 stream, 800 ns GI
    "ac": ("WIFI_STANDARD_80211ac", "{42, 80, BAND_5GHZ, 0}", 390.0),  # VhtMcs9, 1 stream, 800 ns GI
}
MANAGERS = {
    "ideal": {"g": "ns3::IdealWifiManager", "n": "ns3::IdealWifiManager", "ac": "ns3::IdealWifiManager"},
    "minstrel": {"g": "ns3::MinstrelWifiManager", "n": "ns3::MinstrelHtWifiManager",
                 "ac": "ns3::MinstrelHtWifiManager"},
}
#: Steady-state window (s): start, end (the run ends at the window's end).
WINDOW_S = {"g": (1.5, 4.5), "n": (1.5, 4.5), "ac": (1.5, 4.5)}
#: Performance-anomaly cells: station distances (m), all on one side of the access point so stations hear each other,
#: and their window (s): longer, as TCP flows sharing the access point's queue take seconds to settle.
ANOMALY = {2: (5.0, 65.0), 4: (5.0, 5.0, 65.0, 65.0)}
ANOMALY_WINDOW_S = (1.5, 11.5)


def _ns():
    from ns import ns  # noqa: PLC0415 (ns-3 is imported in the ns-3 venv's workers only)
    return ns


_CONFIGURED = False


def _defaults(ns, min_rto_s: float = 0.2) -> None:
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue("ns3::TcpNewReno"))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(MSS_BYTES))
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(TCP_BUFFER_BYTES))
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(TCP_BUFFER_BYTES))
    ns.Config.SetDefault("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(min_rto_s)))


def _wifi(ns, standard: str, manager: str):
    """WifiHelper, YansWifiPhyHelper on a fresh channel, for ``standard`` and rate ``manager``."""
    std, settings, _ = STANDARDS[standard]
    ch = ns.YansWifiChannelHelper()
    ch.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel")
    ch.AddPropagationLoss("ns3::LogDistancePropagationLossModel", "Exponent", ns.DoubleValue(EXPONENT),
                          "ReferenceDistance", ns.DoubleValue(REF_DISTANCE_M),
                          "ReferenceLoss", ns.DoubleValue(REF_LOSS_DB))
    phy = ns.YansWifiPhyHelper()
    phy.SetChannel(ch.Create())
    phy.Set("TxPowerStart", ns.DoubleValue(TX_POWER_DBM))
    phy.Set("TxPowerEnd", ns.DoubleValue(TX_POWER_DBM))
    phy.Set("ChannelSettings", ns.StringValue(settings))
    wifi = ns.WifiHelper()
    wifi.SetStandard(getattr(ns, std))
    wifi.SetRemoteStationManager(MANAGERS[manager][standard])
    return wifi, phy


def _sink(ns, app):
    return ns.DynamicCast[ns.PacketSink](app)


def run_cell(standard: str, manager: str, distances_m: tuple[float, ...], seed: int, window_s: tuple[float, float],
             min_rto_s: float = 0.2) -> list[float]:
    """One access point at the origin, a station at each of ``distances_m`` (m, on the +x axis, 1 m apart in y), bulk
    TCP from the access point to every station; returns each station's goodput (Mbit/s) over ``window_s`` (s)."""
    ns = _ns()
    _defaults(ns, min_rto_s)
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(seed)
    ap = ns.NodeContainer()
    ap.Create(1)
    stas = ns.NodeContainer()
    stas.Create(len(distances_m))
    wifi, phy = _wifi(ns, standard, manager)
    mac = ns.WifiMacHelper()
    ssid = ns.Ssid("subflow")
    mac.SetType("ns3::StaWifiMac", "Ssid", ns.SsidValue(ssid))
    sta_devs = wifi.Install(phy, mac, stas)
    mac.SetType("ns3::ApWifiMac", "Ssid", ns.SsidValue(ssid))
    ap_devs = wifi.Install(phy, mac, ap)
    pos = ns.CreateObject[ns.ListPositionAllocator]()
    pos.Add(ns.Vector(0.0, 0.0, 0.0))
    for i, d in enumerate(distances_m):
        pos.Add(ns.Vector(float(d), float(i), 0.0))
    mob = ns.MobilityHelper()
    mob.SetPositionAllocator(pos)
    mob.SetMobilityModel("ns3::ConstantPositionMobilityModel")
    mob.Install(ap)
    mob.Install(stas)
    stack = ns.InternetStackHelper()
    stack.Install(ap)
    stack.Install(stas)
    devs = ns.NetDeviceContainer()
    devs.Add(ap_devs)
    devs.Add(sta_devs)
    wifi.AssignStreams(devs, 100)
    nodes = ns.NodeContainer()
    nodes.Add(ap)
    nodes.Add(stas)
    stack.AssignStreams(nodes, 1000)
    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.1.0.0"), ns.Ipv4Mask("255.255.0.0"))
    addr.Assign(ap_devs)
    sta_ifs = addr.Assign(sta_devs)
    sinks = []
    for i in range(len(distances_m)):
        port = 5000 + i
        sh = ns.PacketSinkHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
        sapp = sh.Install(stas.Get(i))
        sapp.Start(ns.Seconds(0.0))
        sinks.append(_sink(ns, sapp.Get(0)))
        bh = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(sta_ifs.GetAddress(i), port).ConvertTo())
        bh.SetAttribute("MaxBytes", ns.UintegerValue(0))
        bapp = bh.Install(ap.Get(0))
        bapp.Start(ns.Seconds(0.5))
    t0, t1 = window_s
    ns.Simulator.Stop(ns.Seconds(t0))
    ns.Simulator.Run()
    rx0 = [s.GetTotalRx() for s in sinks]
    ns.Simulator.Stop(ns.Seconds(t1 - t0))
    ns.Simulator.Run()
    rx1 = [s.GetTotalRx() for s in sinks]
    ns.Simulator.Destroy()
    return [(b - a) * 8.0 / (t1 - t0) / 1e6 for a, b in zip(rx0, rx1)]


# ---------------------------------------------------------------------------------------------------------------------
# Cells and storage


def _cells(only: str | None) -> list[dict]:
    cells: list[dict] = []
    if only in (None, "anomaly"):
        for std in ("g", "n"):
            for mgr in MANAGERS:
                for n, ds in ANOMALY.items():
                    cells.append({"kind": "anomaly", "standard": std, "manager": mgr, "stations": n,
                                  "distances_m": list(ds), "window_s": list(ANOMALY_WINDOW_S)})
    if only in (None, "distance"):
        for std in STANDARDS:
            for mgr in MANAGERS:
                for d in DISTANCES_M:
                    cells.append({"kind": "distance", "standard": std, "manager": mgr, "distances_m": [float(d)],
                                  "window_s": list(WINDOW_S[std])})
    for c in cells:
        c["seeds"] = list(SEEDS_BY_STANDARD.get(c["standard"], SEEDS))
    return cells


def cell_key(cell: dict) -> str:
    """Stable identifier of a cell, e.g. ``distance/g/ideal/10``, ``anomaly/n/minstrel/5-5-65-65`` or
    ``handover/g/ideal/100/rto0.2`` (AP spacing 100 m, minimum RTO 0.2 s)."""
    ds = "-".join(f"{d:g}" for d in cell["distances_m"])
    rto = f"/rto{cell['min_rto_s']:g}" if "min_rto_s" in cell else ""
    return f"{cell['kind']}/{cell['standard']}/{cell['manager']}/{ds}{rto}"


def _worker_init() -> None:
    try:
        os.nice(19 - os.nice(0))
    except OSError:
        pass
    _ns()


def _run(cell: dict) -> dict:
    t = time.monotonic()
    seeds = cell.get("seeds", list(SEEDS))
    per_seed = [run_cell(cell["standard"], cell["manager"], tuple(cell["distances_m"]), seed, tuple(cell["window_s"]))
                for seed in seeds]
    out = dict(cell)
    out["seeds"] = list(seeds)
    out["goodput_mbps"] = [[round(g, 3) for g in run] for run in per_seed]  # [seed][station]
    out["median_mbps"] = [round(statistics.median(run[i] for run in per_seed), 3) for i in range(len(cell["distances_m"]))]
    out["wall_s"] = round(time.monotonic() - t, 1)
    return out


def _parameters() -> dict:
    return {
        "propagation": {"model": "LogDistancePropagationLossModel", "exponent": EXPONENT,
                        "reference_distance_m": REF_DISTANCE_M, "reference_loss_db": REF_LOSS_DB,
                        "delay": "ConstantSpeedPropagationDelayModel"},
        "phy": {"model": "YansWifiPhy", "tx_power_dbm": TX_POWER_DBM, "rx_noise_figure_db": 7.0,
                "error_rate_model": "TableBasedErrorRateModel", "preamble_detection": "ThresholdPreambleDetectionModel",
                "preamble_min_snr_db": 4.0, "preamble_min_rssi_dbm": -82.0, "spatial_streams": 1,
                "guard_interval_ns": 800},
        "standards": {k: {"ns3": v[0], "channel_settings": v[1], "max_phy_rate_mbps": v[2]}
                      for k, v in STANDARDS.items()},
        "managers": MANAGERS,
        "tcp": {"congestion_control": "TcpNewReno", "mss_bytes": MSS_BYTES, "buffer_bytes": TCP_BUFFER_BYTES,
                "min_rto_s": 0.2, "app": "BulkSend from the access point (start 0.5 s) to a PacketSink per station"},
        "rng": {"seed": 1, "runs": list(SEEDS),
                "runs_by_standard": {k: list(v) for k, v in SEEDS_BY_STANDARD.items()},
                "wifi_streams_from": 100, "internet_streams_from": 1000},
        "goodput": "PacketSink application bytes over window_s, Mbit/s (10^6 bit/s)",
    }


def _load() -> dict:
    if OUT.exists():
        return json.loads(OUT.read_text())
    return {}


def _save(doc: dict) -> None:
    OUT.write_text(json.dumps(doc, sort_keys=True, separators=(",", ":"), indent=None) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--only", choices=("distance", "anomaly", "handover"))
    ap.add_argument("--force", action="store_true")
    args = ap.parse_args(argv)

    from importlib.metadata import version  # noqa: PLC0415
    lock = open(OUT.with_suffix(".lock"), "w")  # noqa: SIM115 (held for the whole run)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        print("another run holds the lock: it writes the same file", file=sys.stderr)
        return 1
    doc = _load()
    params = _parameters()
    def same(a: dict | None, b: dict) -> bool:
        return a is not None and {k: v for k, v in a.items() if k != "rng"} == {k: v for k, v in b.items() if k != "rng"}

    if doc.get("cells") and not same(doc.get("parameters"), params):
        print("parameters changed: every cell runs again", file=sys.stderr)
        doc["cells"] = {}
    doc["parameters"] = params
    doc["ns3_version"] = version("ns3")
    doc["python"] = sys.version.split()[0]
    cells = doc.setdefault("cells", {})
    def stale(c: dict) -> bool:  # missing, or stored with other seeds, window, geometry...
        old = cells.get(cell_key(c))
        return args.force or old is None or any(old.get(k) != v for k, v in c.items())

    todo = [c for c in _cells(args.only) if stale(c)]
    if args.only in (None, "handover") and (Path(__file__).parent / "ns3_wifi_handover.py").exists():
        import ns3_wifi_handover  # noqa: PLC0415
        todo += [c for c in ns3_wifi_handover.cells() if stale(c)]
    order = {"handover": 0, "anomaly": 1, "distance": 2}
    todo.sort(key=lambda c: (c["standard"] == "ac", c["manager"] != "ideal" and c["kind"] == "handover",
                             order[c["kind"]]))
    print(f"{len(todo)} cells to run", file=sys.stderr)
    started = time.monotonic()
    if not todo:
        return 0
    ctx = mp.get_context("spawn")
    with ctx.Pool(args.jobs, initializer=_worker_init) as pool:
        for res in pool.imap_unordered(_dispatch, todo):
            res["date"] = _dt.date.today().isoformat()
            cells[cell_key(res)] = res
            _save(doc)
            print(f"{cell_key(res)}: {res['median_mbps']} Mbit/s, {res['wall_s']} s", file=sys.stderr, flush=True)
    print(f"done in {time.monotonic() - started:.0f} s", file=sys.stderr)
    _save(doc)
    return 0


def _dispatch(cell: dict) -> dict:
    if cell["kind"] == "handover":
        import ns3_wifi_handover  # noqa: PLC0415
        return ns3_wifi_handover.run(cell)
    return _run(cell)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    raise SystemExit(main())
