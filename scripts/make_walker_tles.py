"""Write the TLEs of a Walker delta constellation i:T/P/F (examples/tles/walker-*.tle).

Usage::

    python scripts/make_walker_tles.py [--planes 6] [--per-plane 8] [--phasing 1] \\
        [--inclination-deg 53] [--altitude-km 1200] [--epoch 2026-06-01T12:00:00] \\
        [--out examples/tles/walker-53-48-6-1.tle]

Walker delta pattern (J. G. Walker, "Satellite constellations", J. British
Interplanetary Society 37, 559–572, 1984): T = planes × per-plane satellites on
circular orbits of one inclination; plane p has its ascending node at
RAAN = 360°·p/P and satellite s of plane p has mean anomaly
M = 360°·s/S + 360°·F·p/T. Each orbit is initialised with the ``sgp4`` package
(``Satrec.sgp4init``, WGS72 constants as TLEs are) and written as a TLE by
``sgp4.exporter.export_tle``, so the lines carry valid checksums. Mean motion from
Kepler's third law, n = √(μ/a³), a = 6378.137 km + altitude (μ = 398,600.8 km³/s², WGS72).
"""

from __future__ import annotations

import argparse
import math
from datetime import datetime, timezone
from pathlib import Path

from sgp4.api import WGS72, Satrec
from sgp4.exporter import export_tle

MU_KM3_S2 = 398_600.8  # WGS72, the constants of SGP4 and of TLEs
EARTH_RADIUS_KM = 6378.135  # WGS72 equatorial radius


def walker(planes: int, per_plane: int, phasing: int, inclination_deg: float, altitude_km: float,
           epoch: datetime, first_number: int = 90001) -> list[tuple[str, str, str]]:
    """``(name, line1, line2)`` for every satellite of the Walker delta pattern."""
    total = planes * per_plane
    a = EARTH_RADIUS_KM + altitude_km
    n_rad_min = math.sqrt(MU_KM3_S2 / a**3) * 60.0
    epoch_days = (epoch - datetime(1949, 12, 31, tzinfo=timezone.utc)).total_seconds() / 86400.0
    out = []
    for p in range(planes):
        for s in range(per_plane):
            raan = 2 * math.pi * p / planes
            m = 2 * math.pi * s / per_plane + 2 * math.pi * phasing * p / total
            sat = Satrec()
            sat.sgp4init(WGS72, "i", first_number + p * per_plane + s, epoch_days, 0.0, 0.0, 0.0, 0.0,
                         0.0, math.radians(inclination_deg), m % (2 * math.pi), n_rad_min, raan)
            line1, line2 = export_tle(sat)
            out.append((f"LEO-P{p + 1}S{s + 1}", line1, line2))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--planes", type=int, default=6)
    ap.add_argument("--per-plane", type=int, default=8)
    ap.add_argument("--phasing", type=int, default=1)
    ap.add_argument("--inclination-deg", type=float, default=53.0)
    ap.add_argument("--altitude-km", type=float, default=1200.0)
    ap.add_argument("--epoch", default="2026-06-01T12:00:00")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    epoch = datetime.fromisoformat(args.epoch).replace(tzinfo=timezone.utc)
    sats = walker(args.planes, args.per_plane, args.phasing, args.inclination_deg, args.altitude_km, epoch)
    total = args.planes * args.per_plane
    out = args.out or Path("examples/tles") / (
        f"walker-{args.inclination_deg:g}-{total}-{args.planes}-{args.phasing}.tle")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(f"{name}\n{l1}\n{l2}\n" for name, l1, l2 in sats))
    print(f"wrote {len(sats)} TLEs to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
