"""Write the AIS-like tracks of examples/naval-geo.json (examples/tracks/*.csv) — reproducible, no randomness.

Two ships in the Dover Strait traffic separation scheme: ``ship1`` (MMSI 235000001) in the
south-west-bound lane, ``ship2`` (MMSI 227000002) in the north-east-bound lane, one AIS fix every
30 s for 30 minutes, positions by the WGS84 forward geodesic problem (pyproj.Geod) from each
fix's course over ground (COG) and speed over ground (SOG, knots). Then::

    subflow track import examples/tracks/ship1-ais.csv --scenario examples/naval-geo.json --node ship1 --format ais-csv
    subflow track import examples/tracks/ship2-ais.csv --scenario examples/naval-geo.json --node ship2 --format ais-csv
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from pyproj import Geod

KNOT_MPS = 1852.0 / 3600.0
T0 = datetime(2024, 5, 1, 10, 0, tzinfo=timezone.utc)
SHIPS = {
    # mmsi, start (lat, lon), [(from t_s, COG deg, SOG kn)]
    "ship1": (235000001, (51.0850, 1.6000), [(0, 225.0, 12.0), (900, 215.0, 12.0)]),
    "ship2": (227000002, (50.9750, 1.4300), [(0, 45.0, 14.0), (600, 50.0, 14.0)]),
}


def main() -> None:
    geod = Geod(ellps="WGS84")
    out_dir = Path(__file__).resolve().parents[1] / "examples" / "tracks"
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, (mmsi, (lat, lon), plan) in SHIPS.items():
        rows = ["MMSI,time,lat,lon,SOG,COG"]
        for k in range(0, 61):
            t = 30 * k
            cog, sog = next((c, s) for t0, c, s in reversed(plan) if t >= t0)
            rows.append(f"{mmsi},{(T0 + timedelta(seconds=t)).strftime('%Y-%m-%dT%H:%M:%SZ')},"
                        f"{lat:.6f},{lon:.6f},{sog:.1f},{cog:.1f}")
            lon, lat, _ = geod.fwd(lon, lat, cog, sog * KNOT_MPS * 30)
        (out_dir / f"{name}-ais.csv").write_text("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
