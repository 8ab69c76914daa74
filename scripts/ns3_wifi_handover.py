"""ns-3 handover cells of the 802.11 reference (run by scripts/ns3_wifi_reference.py, in the ns-3 venv).

A station moves at constant speed past two access points with the same SSID on the same channel; TCP bulk data comes
from a server behind both. ns-3's StaWifiMac does not roam on signal strength: it stays with its access point until it
misses ``MaxMissedBeacons`` beacons in a row (ns-3 default 10, beacon interval 102.4 ms), then scans (ns-3 default:
passive, on its current channel, ``WaitBeaconTimeout`` 120 ms), associates with the best access point heard
(WifiDefaultAssocManager, highest SNR) and the server's TCP resumes at its next retransmission timeout. Hence both access
points share one channel, so the result does not depend on how ns-3 scans other channels. The measured figures bear
these timings out: the station, at 10 m/s, leaves AP1's cell (-82 dBm) at 6.0 s, is unassociated at 6.98 s and
associated with AP2 at 7.10 s.

Topology: server --CSMA (1 Gbit/s, 1 µs: ns-3's CSMA bus stays busy for the propagation delay after each frame, so
a longer delay caps the backbone's frame rate)-- AP1, AP2. Each access point bridges its CSMA and Wi-Fi devices
(BridgeNetDevice with learning off, so each frame from the server reaches both access points; ApWifiMac forwards only
to associated stations, so the station's current access point carries it: what the layer-2 update frame that hostapd
sends on association achieves in a real distribution system). When the station associates with an access point, the
other one records it as disassociated (``WifiRemoteStationManager::RecordDisassociated``), as an 802.11 reassociation
tells the previous access point through the distribution system; ns-3 has no such message, and without it the previous
access point keeps sending the station's frames, with retries, on the shared channel. Association is polled every 10 ms.
Server and station share one IP subnet.

Geometry (m): AP1 at x = 0, AP2 at x = ``spacing_m``, both at y = 0; the station at y = 1 moves along +x from x = 10 (t = 0) at
``speed_mps`` until x = ``spacing_m`` + 50 (AP2's cell; ns-3's preamble detection threshold of -82 dBm ends a cell at
about 70.5 m on this path loss). Bulk TCP from the server from 0.5 s; goodput binned every 100 ms from 1.5 s to the end.
Outage: seconds of 100 ms bins with no byte delivered; the handover gap: the longest run of such bins.
"""

from __future__ import annotations

import statistics
import time

from ns3_wifi_reference import SEEDS, _defaults, _ns, _wifi

SPACINGS_M = (80, 100, 120, 140, 160)
HANDOVER_SEEDS = SEEDS
HANDOVER_MANAGERS = ("ideal", "minstrel")
START_X_M = 10.0
SPEED_MPS = 10.0
MIN_RTOS_S = (1.0, 0.2)
BIN_S = 0.1
START_S = 1.5
PAST_AP2_M = 50.0


def cells() -> list[dict]:
    """The handover cells: 802.11g, Ideal and Minstrel, each AP spacing and minimum RTO."""
    out = []
    for mgr in HANDOVER_MANAGERS:
        for rto in MIN_RTOS_S:
            for s in SPACINGS_M:
                out.append({"kind": "handover", "standard": "g", "manager": mgr, "min_rto_s": rto,
                            "spacing_m": float(s), "speed_mps": SPEED_MPS, "distances_m": [float(s)],
                            "start_x_m": START_X_M,
                            "window_s": [START_S, (s + PAST_AP2_M - START_X_M) / SPEED_MPS],
                            "seeds": list(HANDOVER_SEEDS)})
    return out


def run_handover(standard: str, manager: str, spacing_m: float, speed_mps: float, min_rto_s: float,
                 seed: int) -> dict:
    """One run; returns goodput per 100 ms bin (Mbit/s), the outage (s), the mean goodput (Mbit/s) and the
    association changes [(time s, access point index or -1 for none)], sampled every 10 ms."""
    ns = _ns()
    _defaults(ns, min_rto_s)
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(seed)
    end_s = (spacing_m + PAST_AP2_M - START_X_M) / speed_mps
    server = ns.NodeContainer()
    server.Create(1)
    aps = ns.NodeContainer()
    aps.Create(2)
    sta = ns.NodeContainer()
    sta.Create(1)

    csma = ns.CsmaHelper()
    csma.SetChannelAttribute("DataRate", ns.StringValue("1Gbps"))
    csma.SetChannelAttribute("Delay", ns.TimeValue(ns.MicroSeconds(1)))
    backbone = ns.NodeContainer()
    backbone.Add(server)
    backbone.Add(aps)
    csma_devs = csma.Install(backbone)

    wifi, phy = _wifi(ns, standard, manager)
    mac = ns.WifiMacHelper()
    ssid = ns.Ssid("subflow")
    mac.SetType("ns3::StaWifiMac", "Ssid", ns.SsidValue(ssid))
    sta_devs = wifi.Install(phy, mac, sta)
    mac.SetType("ns3::ApWifiMac", "Ssid", ns.SsidValue(ssid))
    ap_devs = wifi.Install(phy, mac, aps)

    bridge = ns.BridgeHelper()
    bridge.SetDeviceAttribute("EnableLearning", ns.BooleanValue(False))
    for i in range(2):
        ports = ns.NetDeviceContainer()
        ports.Add(csma_devs.Get(1 + i))
        ports.Add(ap_devs.Get(i))
        bridge.Install(aps.Get(i), ports)

    pos = ns.CreateObject[ns.ListPositionAllocator]()
    pos.Add(ns.Vector(0.0, 0.0, 0.0))
    pos.Add(ns.Vector(float(spacing_m), 0.0, 0.0))
    mob = ns.MobilityHelper()
    mob.SetPositionAllocator(pos)
    mob.SetMobilityModel("ns3::ConstantPositionMobilityModel")
    mob.Install(aps)
    spos = ns.CreateObject[ns.ListPositionAllocator]()
    spos.Add(ns.Vector(START_X_M, 1.0, 0.0))
    smob = ns.MobilityHelper()
    smob.SetPositionAllocator(spos)
    smob.SetMobilityModel("ns3::ConstantVelocityMobilityModel")
    smob.Install(sta)
    cv = sta.Get(0).GetObject[ns.ConstantVelocityMobilityModel]()
    cv.SetVelocity(ns.Vector(float(speed_mps), 0.0, 0.0))

    stack = ns.InternetStackHelper()
    stack.Install(server)
    stack.Install(sta)
    devs = ns.NetDeviceContainer()
    devs.Add(ap_devs)
    devs.Add(sta_devs)
    wifi.AssignStreams(devs, 100)
    nodes = ns.NodeContainer()
    nodes.Add(server)
    nodes.Add(sta)
    stack.AssignStreams(nodes, 1000)
    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.1.0.0"), ns.Ipv4Mask("255.255.0.0"))
    server_dev = ns.NetDeviceContainer()
    server_dev.Add(csma_devs.Get(0))
    addr.Assign(server_dev)
    sta_ifs = addr.Assign(sta_devs)

    port = 5000
    sh = ns.PacketSinkHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
    sapp = sh.Install(sta.Get(0))
    sapp.Start(ns.Seconds(0.0))
    sink = ns.DynamicCast[ns.PacketSink](sapp.Get(0))
    bh = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(sta_ifs.GetAddress(0), port).ConvertTo())
    bh.SetAttribute("MaxBytes", ns.UintegerValue(0))
    bapp = bh.Install(server.Get(0))
    bapp.Start(ns.Seconds(0.5))

    sta_mac = ns.DynamicCast[ns.StaWifiMac](ns.DynamicCast[ns.WifiNetDevice](sta_devs.Get(0)).GetMac())
    ap_macs = [ns.DynamicCast[ns.WifiNetDevice](ap_devs.Get(i)).GetMac() for i in range(2)]
    bins, assoc = _sample(ns, sink, sta_mac, ap_macs, end_s)
    ns.Simulator.Destroy()
    return {"bins_mbps": [round(b, 2) for b in bins], **_outage(bins),
            "mean_mbps": round(sum(bins) / len(bins), 3), "association": assoc}


def _sample(ns, sink, sta_mac, ap_macs: list, end_s: float) -> tuple[list[float], list[list[float]]]:
    """Run the simulation from START_S to ``end_s`` in 10 ms steps: goodput per BIN_S bin (Mbit/s) and the
    association changes [(time s, access point index, -1 for none)]. An access point the station left is
    told so (``RecordDisassociated``), as a real one learns it from the station's next association."""
    ap_addrs = [str(m.GetAddress()) for m in ap_macs]
    sta_addr = sta_mac.GetAddress()

    def which_ap() -> int:
        if not sta_mac.IsAssociated():
            return -1
        bssid = str(sta_mac.GetBssid(0))
        return ap_addrs.index(bssid) if bssid in ap_addrs else -2

    per_bin = 10
    step = BIN_S / per_bin
    assoc: list[list[float]] = []
    last = None
    ns.Simulator.Stop(ns.Seconds(START_S))
    ns.Simulator.Run()
    rx = sink.GetTotalRx()
    bins: list[float] = []
    acc = 0
    n_steps = round((end_s - START_S) / step)
    for k in range(n_steps):
        ns.Simulator.Stop(ns.Seconds(step))
        ns.Simulator.Run()
        t = START_S + (k + 1) * step
        now = sink.GetTotalRx()
        acc += now - rx
        rx = now
        cur = which_ap()
        if cur != last:
            assoc.append([round(t, 2), cur])
            last = cur
            if cur >= 0:
                for j, m in enumerate(ap_macs):
                    if j != cur:
                        m.GetWifiRemoteStationManager(0).RecordDisassociated(sta_addr)
        if k % per_bin == per_bin - 1:
            bins.append(acc * 8.0 / BIN_S / 1e6)
            acc = 0
    return bins, assoc


def _outage(bins: list[float]) -> dict:
    """Seconds of bins with no goodput, and the longest run of them and where it starts (s)."""
    zero = [b <= 0.0 for b in bins]
    longest = run = 0
    gap_start = None
    best_start = None
    for i, z in enumerate(zero):
        if z:
            if run == 0:
                gap_start = i
            run += 1
            if run > longest:
                longest, best_start = run, gap_start
        else:
            run = 0
    return {
        "outage_s": round(sum(zero) * BIN_S, 1),
        "longest_gap_s": round(longest * BIN_S, 1),
        "gap_start_s": None if best_start is None else round(START_S + best_start * BIN_S, 1),
    }


def run(cell: dict) -> dict:
    """All seeds of one handover cell, with medians."""
    t = time.monotonic()
    seeds = cell.get("seeds", list(SEEDS))
    runs = [run_handover(cell["standard"], cell["manager"], cell["spacing_m"], cell["speed_mps"], cell["min_rto_s"], s)
            for s in seeds]
    out = dict(cell)
    out["seeds"] = list(seeds)
    out["outage_s"] = [r["outage_s"] for r in runs]
    out["longest_gap_s"] = [r["longest_gap_s"] for r in runs]
    out["gap_start_s"] = [r["gap_start_s"] for r in runs]
    out["goodput_mbps"] = [[r["mean_mbps"]] for r in runs]
    out["median_mbps"] = [round(statistics.median(r["mean_mbps"] for r in runs), 3)]
    out["median_outage_s"] = round(statistics.median(out["outage_s"]), 2)
    out["association"] = [r["association"] for r in runs]
    out["bins_mbps_seed1"] = runs[0]["bins_mbps"]
    out["wall_s"] = round(time.monotonic() - t, 1)
    return out
