"""Geography: the local projected frame, geodesic distances, geographic scenarios.

References for the published values:
GeographicLib (C. F. F. Karney), documentation of the JavaScript/Python ports, "Examples":
Wellington, NZ (41.32S, 174.81E) to Salamanca, Spain (40.96N, 5.50W): 19959679.267 m;
20000 km at azimuth 225° from Perth (32.06S, 115.74E): (32.11195529, −63.95925278).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from pyproj import Proj

from subflow.errors import ScenarioInvalid
from subflow.scenario.document import load_scenario
from subflow.scenario.geodesy import (
    NAUTICAL_MILE_M,
    centroid,
    destination,
    frame_of,
    geodesic_distance_m,
    local_frame,
)
from subflow.space.mobility import to_local


@pytest.mark.parametrize("origin", [(51.0, 1.5), (58.0, 10.0), (-41.3, 174.8), (0.0, 179.9)])
def test_projection_round_trips_against_pyprojs_own_inverse(origin):
    frame = local_frame(*origin)
    rng = np.random.default_rng(7)
    lat = origin[0] + rng.uniform(-1.5, 1.5, 200)
    lon = origin[1] + rng.uniform(-1.5, 1.5, 200)
    lon = (lon + 180.0) % 360.0 - 180.0
    x, y = frame.forward(lat, lon)
    # an independent inverse: a separately built pyproj.Proj of the same definition
    proj = Proj(f"+proj=aeqd +lat_0={origin[0]} +lon_0={origin[1]} +datum=WGS84 +units=m")
    lon2, lat2 = proj(x, y, inverse=True)
    assert np.max(np.abs(lat2 - lat)) < 1e-9
    assert np.max(np.abs(((lon2 - lon) + 180) % 360 - 180)) < 1e-9
    # and our own inverse
    lat3, lon3 = frame.inverse(x, y)
    assert np.max(np.abs(lat3 - lat)) < 1e-9


def test_the_frame_keeps_distances_from_the_origin_and_points_north():
    frame = local_frame(51.0, 1.5)
    lat, lon = destination(51.0, 1.5, 0.0, 25_000.0)  # 25 km due north along the geodesic
    x, y = frame.forward(lat, lon)
    assert x == pytest.approx(0.0, abs=1e-6) and y == pytest.approx(25_000.0, abs=1e-3)
    lat, lon = destination(51.0, 1.5, 90.0, 40_000.0)
    x, y = frame.forward(lat, lon)
    assert math.hypot(x, y) == pytest.approx(40_000.0, abs=1e-3)  # azimuthal equidistant: exact radially
    assert x > 39_000.0


def test_geodesic_distance_of_a_published_city_pair():
    d = geodesic_distance_m(-41.32, 174.81, 40.96, -5.50)  # Wellington → Salamanca
    assert d == pytest.approx(19_959_679.267, rel=0.005)
    assert d == pytest.approx(19_959_679.267, abs=0.01)  # same algorithm (Karney 2013): to the millimetre


def test_geodesic_direct_problem_of_a_published_example():
    lat, lon = destination(-32.06, 115.74, 225.0, 20_000e3)  # 20000 km SW of Perth
    assert (lat, lon) == pytest.approx((32.11195529, -63.95925278), abs=1e-7)


def test_nautical_mile():
    assert NAUTICAL_MILE_M == 1852.0
    # one minute of latitude is about a nautical mile (1842.9 m at the equator … 1861.6 m at the poles)
    assert 1840 < geodesic_distance_m(50.0, 0.0, 50.0 + 1 / 60, 0.0) < 1862


def test_centroid_straddling_the_antimeridian():
    lat, lon = centroid([10.0, 12.0], [179.0, -179.0])
    assert lat == pytest.approx(11.0) and abs(lon) == pytest.approx(180.0)


def _geo_doc(**extra) -> dict:
    doc = {
        "name": "geo",
        "nodes": [
            {"id": "shore", "kind": "host", "position": {"lat_deg": 51.12, "lon_deg": 1.32}},
            {"id": "ap", "kind": "access_point", "range_m": 5000, "position": {"lat_deg": 51.05, "lon_deg": 1.45}},
            {"id": "ship", "kind": "station", "position": {"lat_deg": 51.00, "lon_deg": 1.40}},
        ],
        "links": [{"id": "l", "src": "ap", "dst": "shore", "bandwidth_mbps": 10}],
        "run": {"duration_s": 10},
    }
    doc.update(extra)
    return doc


def test_a_geographic_scenario_is_projected_around_the_centroid_or_the_given_origin():
    sc = load_scenario(_geo_doc())
    frame = frame_of(sc)
    assert (frame.origin_lat_deg, frame.origin_lon_deg) == pytest.approx(((51.12 + 51.05 + 51.0) / 3, (1.32 + 1.45 + 1.4) / 3))
    local = to_local(sc)
    ap, ship = local.node("ap").position, local.node("ship").position
    assert math.hypot(ap.x_m - ship.x_m, ap.y_m - ship.y_m) == pytest.approx(
        geodesic_distance_m(51.05, 1.45, 51.0, 1.40), rel=1e-4)
    sc2 = load_scenario(_geo_doc(geo={"origin_lat_deg": 51.0, "origin_lon_deg": 1.40}))
    assert to_local(sc2).node("ship").position.x_m == pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize("field, value", [("lat_deg", 95.0), ("lon_deg", 200.0), ("lat_deg", -90.5)])
def test_latitude_and_longitude_out_of_range_name_the_field(field, value):
    doc = _geo_doc()
    doc["nodes"][2]["position"][field] = value
    with pytest.raises(ScenarioInvalid) as exc:
        load_scenario(doc)
    locs = [e["loc"] for e in exc.value.errors]
    assert ["nodes", 2, "station", "position", field] in locs


def test_mixing_planar_and_geographic_points_is_refused_naming_the_point():
    doc = _geo_doc()
    doc["nodes"][2]["mobility"] = {"model": "linear", "start": {"lat_deg": 51.0, "lon_deg": 1.4},
                                   "end": {"x_m": 100, "y_m": 0}, "speed_mps": 5}
    with pytest.raises(ScenarioInvalid) as exc:
        load_scenario(doc)
    assert exc.value.errors[0]["loc"] == ["nodes", 2, "mobility", "end"]
    assert "all planar or all geographic" in exc.value.errors[0]["msg"]


def test_a_position_with_both_pairs_or_half_a_pair_is_refused():
    for pos in ({"x_m": 1, "lat_deg": 50, "lon_deg": 1}, {"lat_deg": 50}):
        doc = _geo_doc()
        doc["nodes"][0]["position"] = pos
        with pytest.raises(ScenarioInvalid) as exc:
            load_scenario(doc)
        assert exc.value.errors[0]["loc"][:4] == ["nodes", 0, "host", "position"]


def test_version_1_documents_load_unchanged(naval_direct):
    assert naval_direct["schema_version"] == 1
    sc = load_scenario(naval_direct)
    assert sc.schema_version == 1 and not sc.is_geo
    assert sc.node("ship").position.x_m == 1000.0 and sc.node("ship").position.lat_deg is None
    assert load_scenario({"name": "x", "nodes": [{"id": "a", "kind": "host"}]}).schema_version == 2


def test_a_geo_origin_on_a_planar_scenario_is_refused():
    with pytest.raises(ScenarioInvalid) as exc:
        load_scenario({"name": "p", "nodes": [{"id": "a", "kind": "host"}],
                       "geo": {"origin_lat_deg": 51, "origin_lon_deg": 1}})
    assert exc.value.errors[0]["loc"] == ["geo"]
