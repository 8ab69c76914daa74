"""Write examples/naval-leo-isl.json: a ship in the mid-Atlantic reaches a shore station at Lisbon through two
LEO satellites and the inter-satellite link between them.

Usage: ``python scripts/make_naval_leo_isl.py [--out examples/naval-leo-isl.json]``

Two satellites share one circular orbit (53°, 550 km, RAAN 25.79°), 35° apart in mean anomaly: leo-a
leads, leo-b trails. The elements were chosen (a grid search, then Nelder-Mead, on the sub-satellite
point computed by skyfield) so that at t = 450 s of the run, from ``START_UTC``, leo-a is overhead Lisbon
on an ascending pass; the ship is then under leo-b, about 3,900 km south-west. A terminal sees a
satellite at 550 km above a 10° mask within about 15° of its sub-satellite point, so the ship and the
shore never see the same satellite at once (35° apart): while the ship sees leo-b and the shore sees
leo-a (about 8 minutes in the middle of the 15-minute run) the flow's only route is
ship → leo-b → leo-a → shore, over the ISL; before and after there is none. Each orbit is initialised with
``sgp4`` (``Satrec.sgp4init``, WGS72 constants as TLEs are) and written by ``sgp4.exporter.export_tle``
(valid checksums), as ``scripts/make_walker_tles.py`` does.
"""

from __future__ import annotations

import argparse
import json
import math
from datetime import datetime, timezone
from pathlib import Path

from sgp4.api import WGS72, Satrec
from sgp4.exporter import export_tle

from subflow.scenario.document import load_scenario
from subflow.space.satcom import isl_timeline

START_UTC = "2026-06-01T12:00:00Z"
DURATION_S = 900.0
MU_KM3_S2 = 398_600.8  # WGS72
EARTH_RADIUS_KM = 6378.135  # WGS72 equatorial radius
ALTITUDE_KM = 550.0
INCLINATION_DEG = 53.0
RAAN_DEG = 25.79
#: mean anomalies at the epoch: leo-a leads leo-b by 35°
MEAN_ANOMALY_DEG = {"leo-a": 23.09, "leo-b": 23.09 - 35.0}


def tle(number: int, mean_anomaly_deg: float, epoch: datetime) -> tuple[str, str]:
    """The TLE lines of a circular orbit of the shell, mean anomaly ``mean_anomaly_deg`` at ``epoch``."""
    a = EARTH_RADIUS_KM + ALTITUDE_KM
    n_rad_min = math.sqrt(MU_KM3_S2 / a**3) * 60.0
    epoch_days = (epoch - datetime(1949, 12, 31, tzinfo=timezone.utc)).total_seconds() / 86400.0
    sat = Satrec()
    sat.sgp4init(WGS72, "i", number, epoch_days, 0.0, 0.0, 0.0, 0.0, 0.0, math.radians(INCLINATION_DEG),
                 math.radians(mean_anomaly_deg) % (2 * math.pi), n_rad_min, math.radians(RAAN_DEG))
    return export_tle(sat)


def document() -> dict:
    epoch = datetime.fromisoformat(START_UTC.replace("Z", "+00:00"))
    sats = []
    for k, (sid, m) in enumerate(MEAN_ANOMALY_DEG.items()):
        line1, line2 = tle(95001 + k, m, epoch)
        sats.append({"id": sid, "kind": "satellite", "label": f"{sid.upper()} (53°, 550 km, {'leading' if k == 0 else 'trailing'})",
                     "orbit": "leo", "position": {"lat_deg": 30.0, "lon_deg": -20.0, "alt_m": 550000},
                     "ephemeris": {"model": "tle", "line1": line1, "line2": line2}})
    nodes = [
        {"id": "shore", "kind": "host", "label": "Shore station (Lisbon)",
         "position": {"lat_deg": 38.70, "lon_deg": -9.20}},
        {"id": "ship", "kind": "station", "label": "Ship (12 kn, mid-Atlantic)",
         "position": {"lat_deg": 12.95, "lon_deg": -36.20},
         "mobility": {"model": "linear", "start": {"lat_deg": 12.95, "lon_deg": -36.20},
                      "end": {"lat_deg": 13.05, "lon_deg": -36.10}, "speed_mps": 6.17}},
        *sats,
    ]
    links = [
        {"id": f"{t}-{s['id']}", "src": t, "dst": s["id"], "bandwidth_mbps": 20, "queue_packets": 200}
        for t in ("ship", "shore") for s in sats
    ]
    links.append({"id": "isl-ab", "src": "leo-a", "dst": "leo-b", "bandwidth_mbps": 100, "queue_packets": 500})
    return {
        "schema_version": 2,
        "name": "naval-leo-isl",
        "description": (
            "An inter-satellite link carries a ship's traffic to shore. A ship in the mid-Atlantic (13\u00b0N "
            "36\u00b0W) sends 8 Mbit/s to a shore station at Lisbon, about 3,900 km away, over two LEO satellites "
            "on one orbit (53\u00b0, 550 km, 35\u00b0 apart; TLEs made with sgp4 by scripts/make_naval_leo_isl.py). "
            "The two ends never see the same satellite (10\u00b0 mask), so the only route is ship \u2192 leo-b "
            "\u2192 leo-a \u2192 shore over the ISL (delay = range / c, up while the line of sight clears the Earth "
            "and 80 km of atmosphere), while both satellites are in view: about 8 minutes in the middle of the "
            "15-minute run."),
        "geo": {"origin_lat_deg": 26.0, "origin_lon_deg": -22.0},
        "nodes": nodes,
        "links": links,
        "flows": [{"id": "f1", "src": "ship", "dst": "shore", "rate_mbps": 8}],
        "run": {"duration_s": DURATION_S, "interval_s": 1, "seed": 1},
        "satcom": {"start_utc": START_UTC, "elevation_mask_deg": 10, "handover_policy": "highest_elevation",
                   "isl_grazing_altitude_km": 80},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("examples/naval-leo-isl.json"))
    args = ap.parse_args(argv)
    doc = document()
    isl = isl_timeline(load_scenario(doc))["isl-ab"]
    args.out.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {args.out}: ISL range {isl.range_km.min():.0f}-{isl.range_km.max():.0f} km, "
          f"up {isl.up}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
