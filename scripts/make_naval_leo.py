"""Write examples/naval-leo.json: two ships, a UAV relay, a Walker LEO constellation and a GEO satellite.

Usage: ``python scripts/make_naval_leo.py [--tles examples/tles/walker-53-48-6-1.tle]``
(the TLEs come from ``scripts/make_walker_tles.py``).

The ships sail the Dover Strait lanes (linear motion, 12 and 14 kn) for 15 minutes
from ``START_UTC``; each is a SATCOM terminal of the GEO satellite at 5°E and of the
LEO constellation (Walker delta 53°:48/6/1 at 1200 km), and reaches the shore host
through a UAV relay access point loitering mid-strait when in its range. The shore
host's LEO gateway (teleport, one antenna per visible satellite) is linked to it. Only the satellites that
some terminal sees above the 10° mask during the run are put in the scenario (the
script computes that with :func:`subflow.space.satcom.satcom_timeline` on the whole
constellation), so the document stays small.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from subflow.scenario.document import load_scenario
from subflow.space.satcom import satcom_timeline

START_UTC = "2026-06-01T12:00:00Z"
DURATION_S = 900.0


def tles(path: Path) -> list[tuple[str, str, str]]:
    lines = [ln.rstrip("\n") for ln in path.read_text().splitlines() if ln.strip()]
    return [(lines[i], lines[i + 1], lines[i + 2]) for i in range(0, len(lines), 3)]


def document(constellation: list[tuple[str, str, str]]) -> dict:
    sats = []
    for name, l1, l2 in constellation:
        sid = name.lower()
        sats.append({"id": sid, "kind": "satellite", "label": f"{name} (Walker 53:48/6/1, 1200 km)", "orbit": "leo",
                     "constellation": "walker", "position": {"lat_deg": 51.0, "lon_deg": 1.5, "alt_m": 1200000},
                     "ephemeris": {"model": "tle", "line1": l1, "line2": l2}})
    nodes = [
        {"id": "shore", "kind": "host", "label": "Shore station (Dover)",
         "position": {"lat_deg": 51.129, "lon_deg": 1.34}},
        {"id": "teleport", "kind": "router", "label": "SATCOM gateway (teleport, Dover): GEO and LEO",
         "position": {"lat_deg": 51.14, "lon_deg": 1.30}},
        {"id": "geosat", "kind": "satellite", "label": "GEO SATCOM (5\u00b0E)", "orbit": "geo",
         "position": {"lat_deg": 0.0, "lon_deg": 5.0, "alt_m": 35786000},
         "ephemeris": {"model": "geostationary", "lon_deg": 5.0}},
        {"id": "uav", "kind": "access_point", "label": "UAV relay",
         "position": {"lat_deg": 51.057, "lon_deg": 1.52, "alt_m": 1500}, "range_m": 6000,
         "association_delay_s": 2.0, "wireless_bandwidth_mbps": 20, "wireless_delay_ms": 2,
         "mobility": {"model": "loiter", "center": {"lat_deg": 51.03, "lon_deg": 1.52}, "radius_m": 3000,
                      "speed_mps": 35, "alt_m": 1500, "pattern": "circle", "clockwise": True}},
        {"id": "ship1", "kind": "station", "label": "Ship 1 (12 kn, south-west lane)",
         "position": {"lat_deg": 51.085, "lon_deg": 1.6},
         "mobility": {"model": "linear", "start": {"lat_deg": 51.085, "lon_deg": 1.6},
                      "end": {"lat_deg": 51.03, "lon_deg": 1.52}, "speed_mps": 6.17}},
        {"id": "ship2", "kind": "station", "label": "Ship 2 (14 kn, north-east lane)",
         "position": {"lat_deg": 50.98, "lon_deg": 1.40},
         "mobility": {"model": "linear", "start": {"lat_deg": 50.98, "lon_deg": 1.40},
                      "end": {"lat_deg": 51.04, "lon_deg": 1.50}, "speed_mps": 7.2}},
        *sats,
    ]
    links = [
        {"id": "ship1-geo", "src": "ship1", "dst": "geosat", "bandwidth_mbps": 2, "queue_packets": 500},
        {"id": "ship2-geo", "src": "ship2", "dst": "geosat", "bandwidth_mbps": 2, "queue_packets": 500},
        {"id": "geo-gw", "src": "geosat", "dst": "teleport", "bandwidth_mbps": 50, "queue_packets": 1000},
        {"id": "uav-shore", "src": "uav", "dst": "shore", "bandwidth_mbps": 10, "delay_ms": 1, "queue_packets": 200},
        {"id": "teleport-shore", "src": "teleport", "dst": "shore", "bandwidth_mbps": 100, "delay_ms": 1,
         "queue_packets": 1000},
    ]
    for s in sats:
        for ship in ("ship1", "ship2"):
            links.append({"id": f"{ship}-{s['id']}", "src": ship, "dst": s["id"], "bandwidth_mbps": 3,
                          "queue_packets": 200})
        links.append({"id": f"{s['id']}-gw", "src": s["id"], "dst": "teleport", "bandwidth_mbps": 50,
                      "queue_packets": 500})
    return {
        "schema_version": 2,
        "name": "naval-leo",
        "description": (
            "SATCOM from orbits in the Dover Strait. Two ships (stations, 12 and 14 kn) reach the shore "
            "host at Dover over a GEO satellite at 5\u00b0E (slant-range delay, about 128 ms per leg), over a Walker "
            "delta LEO constellation (53\u00b0:48/6/1 at 1200 km; TLEs made with sgp4 by scripts/make_walker_tles.py "
            "in examples/tles/) and, when within 6 km, over a UAV relay access point loitering at 1500 m mid-strait. "
            "Each ship uses one LEO satellite at a time (highest elevation above a 10\u00b0 mask), so its LEO link hands "
            "over as satellites pass and its delay varies with the slant range; the satellites' "
            "gateway is a teleport next to the shore host, tracking every visible satellite (GEO and LEO). Only the satellites seen during the 15-minute run are listed "
            "(scripts/make_naval_leo.py). Each ship sends 4 Mbit/s to the shore."),
        "geo": {"origin_lat_deg": 51.03, "origin_lon_deg": 1.52},
        "nodes": nodes,
        "links": links,
        "flows": [{"id": "f1", "src": "ship1", "dst": "shore", "rate_mbps": 4},
                  {"id": "f2", "src": "ship2", "dst": "shore", "rate_mbps": 4}],
        "run": {"duration_s": DURATION_S, "interval_s": 1, "seed": 1},
        "satcom": {"start_utc": START_UTC, "elevation_mask_deg": 10, "handover_policy": "highest_elevation",
                   "gateways": ["teleport"]},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tles", type=Path, default=Path("examples/tles/walker-53-48-6-1.tle"))
    ap.add_argument("--out", type=Path, default=Path("examples/naval-leo.json"))
    args = ap.parse_args(argv)
    constellation = tles(args.tles)
    full = load_scenario(document(constellation))
    tl = satcom_timeline(full)
    used = {u.satellite for term in ("ship1", "ship2") for u in tl.uses.get(term, [])}
    kept = [c for c in constellation if c[0].lower() in used]
    doc = document(kept)
    load_scenario(doc)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {args.out}: {len(kept)} of {len(constellation)} satellites ({', '.join(sorted(used))})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
