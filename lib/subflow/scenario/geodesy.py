"""Geography: the local projected frame of a geographic scenario, and geodesic distances.

(A whole scenario is moved into its local frame by :func:`subflow.space.mobility.to_local`.)

A geographic scenario places nodes by WGS84 latitude/longitude. Engines, the
association timeline and the exports work in x/y metres of a *local frame*: the
azimuthal equidistant projection (``+proj=aeqd``) centred on the scenario's
origin (``Scenario.geo``, else the centroid of the node positions), x east and
y north. Distances and bearings from the origin are exact in that projection;
over a sea area of a few hundred kilometres the distortion of other distances is
below 0.1 % (Snyder 1987, §25). All geodesy is done by pyproj (PROJ); nothing
here is hand-written geodesy.

References
----------
.. [1] J. P. Snyder, "Map Projections — A Working Manual", USGS Professional Paper
   1395, 1987, §25 (azimuthal equidistant projection).
.. [2] C. F. F. Karney, "Algorithms for geodesics", J. Geodesy 87, 43–55, 2013
   (the geodesic solver behind ``pyproj.Geod``).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np
from pyproj import Geod, Transformer

if TYPE_CHECKING:  # the functions below read a scenario's attributes; geo imports no other module of subflow
    from subflow.scenario.document import Scenario

#: the WGS84 ellipsoid (geodesic distances)
WGS84 = Geod(ellps="WGS84")
#: metres in one international nautical mile
NAUTICAL_MILE_M = 1852.0


class LocalFrame:
    """The local frame centred on (``origin_lat_deg``, ``origin_lon_deg``): x east, y north, metres.

    :meth:`forward` maps WGS84 degrees to metres and :meth:`inverse` back, both
    through one pyproj :class:`~pyproj.Transformer` (``+proj=aeqd +datum=WGS84``).
    """

    def __init__(self, origin_lat_deg: float, origin_lon_deg: float):
        self.origin_lat_deg = float(origin_lat_deg)
        self.origin_lon_deg = float(origin_lon_deg)
        self.proj = (f"+proj=aeqd +lat_0={self.origin_lat_deg!r} +lon_0={self.origin_lon_deg!r} "
                     "+datum=WGS84 +units=m +no_defs")
        self._fwd = Transformer.from_crs("EPSG:4326", self.proj, always_xy=True)
        self._inv = Transformer.from_crs(self.proj, "EPSG:4326", always_xy=True)

    def forward(self, lat_deg: Any, lon_deg: Any) -> tuple[Any, Any]:
        """WGS84 (lat_deg, lon_deg) → local (x_m, y_m); scalars or numpy arrays."""
        return self._fwd.transform(lon_deg, lat_deg, errcheck=True)

    def inverse(self, x_m: Any, y_m: Any) -> tuple[Any, Any]:
        """Local (x_m, y_m) → WGS84 (lat_deg, lon_deg); scalars or numpy arrays."""
        lon, lat = self._inv.transform(x_m, y_m, errcheck=True)
        return lat, lon


@lru_cache(maxsize=64)
def local_frame(origin_lat_deg: float, origin_lon_deg: float) -> LocalFrame:
    """The (cached) :class:`LocalFrame` of an origin in WGS84 degrees."""
    return LocalFrame(origin_lat_deg, origin_lon_deg)


def centroid(lats_deg: list[float], lons_deg: list[float]) -> tuple[float, float]:
    """Centre of a set of positions: the mean latitude and the circular mean longitude, degrees.

    The circular mean keeps a set straddling the antimeridian (179°, −179°) centred on 180°.
    """
    lat = float(np.mean(lats_deg))
    rad = np.radians(lons_deg)
    lon = math.degrees(math.atan2(float(np.mean(np.sin(rad))), float(np.mean(np.cos(rad)))))
    return lat, lon


def origin_of(scenario: Scenario) -> tuple[float, float] | None:
    """Origin (lat_deg, lon_deg) of a geographic scenario's local frame; None for a planar scenario.

    ``scenario.geo`` when set, else the :func:`centroid` of the nodes' positions.
    """
    if not scenario.is_geo:
        return None
    if scenario.geo is not None:
        return scenario.geo.origin_lat_deg, scenario.geo.origin_lon_deg
    return centroid([n.position.lat_deg for n in scenario.nodes], [n.position.lon_deg for n in scenario.nodes])


def frame_of(scenario: Scenario) -> LocalFrame | None:
    """The :class:`LocalFrame` of a geographic scenario, None for a planar one."""
    origin = origin_of(scenario)
    return None if origin is None else local_frame(*origin)


def local_xy(scenario: Scenario, point: Any) -> tuple[float, float]:
    """A point (Position, Waypoint) in the scenario's local frame, metres: planar points as they are."""
    if not point.is_geo:
        return float(point.x_m), float(point.y_m)
    frame = frame_of(scenario)
    x, y = frame.forward(point.lat_deg, point.lon_deg)
    return float(x), float(y)


def geo_corners(frame: LocalFrame, legs: list[Any]) -> list[tuple[float, float, float, float]]:
    """A trajectory's corners (start of each leg, end of the last) as ``(t_s, lat_deg, lon_deg, alt_m)``,
    through the frame's inverse projection (one vectorised pyproj call)."""
    c = [(g.t0_s, g.x0_m, g.y0_m, g.z0_m) for g in legs]
    if legs:
        g = legs[-1]
        c.append((g.t1_s, g.x1_m, g.y1_m, g.z1_m))
    lat, lon = frame.inverse(np.array([p[1] for p in c]), np.array([p[2] for p in c]))
    return [(p[0], float(a), float(o), p[3]) for p, a, o in zip(c, np.atleast_1d(lat), np.atleast_1d(lon))]


def geodesic_distance_m(lat1_deg: float, lon1_deg: float, lat2_deg: float, lon2_deg: float) -> float:
    """Length of the WGS84 geodesic between two points, metres (pyproj.Geod, Karney 2013 [2]_)."""
    _, _, d = WGS84.inv(lon1_deg, lat1_deg, lon2_deg, lat2_deg)
    return float(d)


def destination(lat_deg: float, lon_deg: float, bearing_deg: float, distance_m: float) -> tuple[float, float]:
    """The point ``distance_m`` along the geodesic leaving (lat, lon) at ``bearing_deg``: (lat_deg, lon_deg)."""
    lon2, lat2, _ = WGS84.fwd(lon_deg, lat_deg, bearing_deg, distance_m)
    return float(lat2), float(lon2)
