"""GraphML imports keep geography: Latitude/Longitude become geographic positions; nodes without
coordinates are laid out inside the extent of the placed nodes, never at the origin."""

from __future__ import annotations

import pytest

from subflow.io.imports import import_scenario, read_graphml
from subflow.scenario.geodesy import frame_of
from subflow.space.mobility import to_local

from tests.unit.planning_helpers import ZOO, data_file


@pytest.mark.parametrize("name", ["Kdl", "Geant2012", "Dfn"])
def test_zoo_import_keeps_coordinates_and_lays_out_the_rest_inside_the_extent(name):
    path = data_file(ZOO / f"{name}.graphml")
    topo = read_graphml(path.read_bytes(), str(path))
    missing = [n for n in topo.nodes if n not in topo.coords]
    assert missing  # these files have nodes without coordinates
    sc = import_scenario(path.read_bytes(), str(path)).scenario
    assert sc.is_geo and sc.schema_version == 2
    for n in sc.nodes:
        if n.id in topo.coords:
            assert (n.position.lat_deg, n.position.lon_deg) == topo.coords[n.id]
    # extent of the placed nodes (local frame of the scenario, and in degrees)
    local = to_local(sc)
    placed = [local.node(n).position for n in topo.coords]
    xs, ys = [p.x_m for p in placed], [p.y_m for p in placed]
    lats = [c[0] for c in topo.coords.values()]
    lons = [c[1] for c in topo.coords.values()]
    for n in missing:
        p = local.node(n).position
        assert min(xs) - 1.0 <= p.x_m <= max(xs) + 1.0 and min(ys) - 1.0 <= p.y_m <= max(ys) + 1.0
        g = sc.node(n).position
        assert (g.lat_deg, g.lon_deg) != (0.0, 0.0)
        assert min(lats) - 1.0 <= g.lat_deg <= max(lats) + 1.0 and min(lons) - 2.0 <= g.lon_deg <= max(lons) + 2.0
    # the laid-out nodes do not pile up on one point
    assert len({(sc.node(n).position.lat_deg, sc.node(n).position.lon_deg) for n in missing}) == len(missing)
    assert frame_of(sc) is not None


def test_graphml_without_any_coordinates_is_laid_out_on_the_plane():
    text = """<?xml version="1.0"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
 <key id="bw" for="edge" attr.name="bandwidth_mbps" attr.type="double"/>
 <graph edgedefault="undirected">
  <node id="a"/><node id="b"/><node id="c"/>
  <edge source="a" target="b"><data key="bw">10</data></edge>
  <edge source="b" target="c"><data key="bw">10</data></edge>
 </graph>
</graphml>"""
    sc = import_scenario(text.encode(), "plain.graphml").scenario
    assert not sc.is_geo
    pts = {(n.position.x_m, n.position.y_m) for n in sc.nodes}
    assert len(pts) == 3 and (0.0, 0.0) not in pts
