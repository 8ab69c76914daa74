"""Topology Zoo / user GraphML and SNDlib native imports, with their stated conventions."""

from __future__ import annotations


import numpy as np
import pyproj
import pytest

from subflow.errors import ImportFailed, LinkInvalid
from subflow.io.imports import (
    DEFAULT_CAPACITY_MBPS,
    DEFAULT_DELAY_MS,
    detect_format,
    fiber_delay_ms,
    great_circle_km,
    import_scenario,
    load_network,
    read_graphml,
    read_sndlib,
)
from subflow.planning.network import Network
from subflow.scenario.document import load_scenario

from tests.unit.planning_helpers import SNDLIB, ZOO, data_file

# ../shared/data/sndlib/README.md: links, demands, total demand
SNDLIB_FACTS = {"abilene": (12, 15, 132, 3_000_002), "nobel-us": (14, 21, 91, 5420), "germany50": (50, 88, 662, 2365)}


@pytest.mark.parametrize("name", list(SNDLIB_FACTS))
def test_sndlib_native_counts_and_capacity_convention(name):
    path = data_file(SNDLIB / f"{name}.txt")
    topo = read_sndlib(path.read_text(), path.name)
    nodes, links, demands, total = SNDLIB_FACTS[name]
    assert len(topo.nodes) == nodes and len(topo.links) == links and len(topo.demands) == demands
    assert sum(d.demand_mbps for d in topo.demands) == pytest.approx(total)
    net = topo.network()
    assert net.m == 2 * links  # every link: two opposite arcs, each with the full capacity
    caps = sorted(set(net.capacity_mbps.tolist()))
    expected = {"abilene": [2480.0, 9920.0], "nobel-us": [20.0], "germany50": [40.0]}[name]
    assert caps == expected  # abilene: pre-installed; the others: first module
    for lid, a, b, d, p, c in topo.links:
        lat1, lon1 = topo.coords[a]
        lat2, lon2 = topo.coords[b]
        # WGS84 geodesic (pyproj's Geod, the library itself) at 2/3 c, recomputed here
        km = pyproj.Geod(ellps="WGS84").inv(lon1, lat1, lon2, lat2)[2] / 1000.0
        assert d == pytest.approx(km / 199_861.638 * 1000, rel=1e-6) and p == 0.0


SNDLIB_TEXT = """?SNDlib native format; type: network; version: 1.0
# network tiny
NODES (
  A ( 0.0 0.0 )
  B ( 1.0 0.0 )
  C ( 1.0 1.0 )
)
LINKS (
  L1 ( A B ) 0.00 0.00 0.00 0.00 ( 40.00 1.00 80.00 2.00 )
  L2 ( A B ) 10.00 0.00 0.00 0.00 ( 40.00 1.00 )
  L3 ( B C ) 0.00 0.00 0.00 0.00 ( )
)
DEMANDS (
  D1 ( A C ) 1 5.00 UNLIMITED
)
"""


def test_sndlib_parallel_links_and_zero_capacity():
    topo = read_sndlib(SNDLIB_TEXT, "tiny.txt")
    net = topo.network()
    ab = sorted(net.capacity_mbps[(net.src == 0) & (net.dst == 1)].tolist())
    assert ab == [10.0, 40.0]  # listed twice: parallel arcs; pre-installed wins over the module
    assert net.capacity_mbps[net.link.index("L3")] == 0.0
    assert any("L3" in n for n in topo.notes)
    from subflow.planning.fdm import allocate_fdm

    with pytest.raises(LinkInvalid, match="'L3'"):
        allocate_fdm(net)
    with pytest.raises(ImportFailed, match="'L3'"):
        import_scenario(SNDLIB_TEXT, "tiny.txt")


def test_sndlib_errors_name_the_line():
    bad = SNDLIB_TEXT.replace("L3 ( B C )", "L3 ( B Z )")
    with pytest.raises(ImportFailed, match=r"line 11: link 'L3' refers to unknown node 'Z'"):
        read_sndlib(bad, "bad.txt")
    with pytest.raises(ImportFailed, match="not an SNDlib native"):
        read_sndlib("NODES (\n)\n", "x.txt")
    with pytest.raises(ImportFailed, match="SNDlib XML"):
        detect_format('<?xml version="1.0"?><network xmlns="http://sndlib.zib.de/network">', "x.xml")


def test_zoo_graphml_ids_capacity_and_distance_delay():
    g = read_graphml(data_file(ZOO / "Geant2012.graphml").read_bytes(), "Geant2012.graphml")
    assert len(g.nodes) == 40 and len(g.links) == 61
    net = g.network()
    assert net.m == 122
    # LinkSpeedRaw (bit/s) → Mbit/s where present (26 × 10 G, 6 × 1 G, 5 × 2.5 G, 2 × 155 M), else the default
    caps = sorted(c for (_, _, _, _, _, c) in g.links)
    assert caps.count(10000.0) == 26 and caps.count(2500.0) == 5 and caps.count(155.0) == 2
    assert caps.count(DEFAULT_CAPACITY_MBPS) == 22 + 6  # 22 without speed + 6 at 1 G
    # delay from coordinates at 2/3 c; default where a node has none (UA, MD, BY)
    for lid, a, b, d, p, c in g.links:
        if a in g.coords and b in g.coords:
            assert d == pytest.approx(fiber_delay_ms(great_circle_km(*g.coords[a], *g.coords[b])))
        else:
            assert d == DEFAULT_DELAY_MS
    res = import_scenario(data_file(ZOO / "Geant2012.graphml").read_bytes(), "Geant2012.graphml")
    sc = res.scenario
    assert [n.id for n in sc.nodes][:3] == ["n0", "n1", "n2"]  # Zoo ids are numbers → n<id>
    assert all(n.label for n in sc.nodes)
    assert "CC BY 4.0" in sc.description
    load_scenario(sc.model_dump(mode="json"))


def test_zoo_multigraph_parallel_edges_are_merged_in_scenarios():
    data = data_file(ZOO / "Cogentco.graphml").read_bytes()
    net = read_graphml(data, "Cogentco.graphml").network()
    assert net.m == 2 * 245  # the network keeps both parallel edges
    res = import_scenario(data, "Cogentco.graphml")
    assert len(res.scenario.links) == 243  # the scenario merges them (one link per node pair)
    assert any("parallel" in n for n in res.notes)


def test_kdl_imports():
    net = load_network(data_file(ZOO / "Kdl.graphml"))
    assert net.n == 754 and net.m == 2 * 899


GRAPHML = """<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="d" for="edge" attr.name="delay_ms" attr.type="double"/>
  <key id="p" for="edge" attr.name="loss" attr.type="double"/>
  <key id="b" for="edge" attr.name="bandwidth_mbps" attr.type="double"/>
  <graph id="G" edgedefault="undirected">
    <node id="ship"/><node id="uav"/><node id="gce"/>
    <edge id="e1" source="ship" target="uav"><data key="d">10</data><data key="p">0.01</data><data key="b">1</data></edge>
    <edge id="e2" source="uav" target="gce"><data key="d">2.5</data><data key="p">0.02</data><data key="b">54</data></edge>
  </graph>
</graphml>
"""


def test_user_graphml_with_measured_attributes():
    topo = read_graphml(GRAPHML, "own.graphml")
    net = topo.network()
    assert net.nodes == ["ship", "uav", "gce"]
    a = net.arcs_of_path(["ship", "uav", "gce"])
    assert net.delay_ms[a].tolist() == [10.0, 2.5]
    assert net.loss[a].tolist() == [0.01, 0.02]
    assert net.capacity_mbps[a].tolist() == [1.0, 54.0]
    res = import_scenario(GRAPHML, "own.graphml", name="tactical")
    assert res.scenario.name == "tactical" and res.format == "graphml"
    assert [(l.id, l.delay_ms, l.loss, l.bandwidth_mbps) for l in res.scenario.links] == [
        ("e1", 10.0, 0.01, 1.0), ("e2", 2.5, 0.02, 54.0)]


@pytest.mark.parametrize(
    "value, key, field",
    [("1.5", "p", "loss"), ("-3", "d", "delay_ms"), ("0", "b", "bandwidth_mbps"), ("abc", "d", "delay_ms")],
)
def test_user_graphml_invalid_values_name_the_link(value, key, field):
    bad = GRAPHML.replace('<data key="' + key + '">' + {"p": "0.02", "d": "2.5", "b": "54"}[key], f'<data key="{key}">{value}')
    if value == "abc":
        bad = bad.replace('attr.name="delay_ms" attr.type="double"', 'attr.name="delay_ms" attr.type="string"')
    with pytest.raises(LinkInvalid) as err:
        read_graphml(bad, "own.graphml")
    assert err.value.link == "e2" and err.value.field in (field, "capacity_mbps")


def test_unknown_formats_are_refused():
    with pytest.raises(ImportFailed, match="unknown format"):
        detect_format(b"hello", "x.bin")
    with pytest.raises(ImportFailed, match="GraphML"):
        read_graphml(b"<graphml><graph", "broken.graphml")
    assert detect_format(b'{"name": 1}') == "scenario"


def test_scenario_files_load_as_networks(tmp_path):
    from tests.conftest import EXAMPLES

    net = load_network(EXAMPLES / "hsln-10node.json")
    assert isinstance(net, Network) and net.n == 10 and net.m == 42
    assert np.all(net.capacity_mbps == 1000.0)
    with pytest.raises(ImportFailed, match="No such file"):
        load_network(tmp_path / "missing.json")


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE graphml [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="d0" for="graph" attr.name="label" attr.type="string"/>
  <graph edgedefault="undirected"><data key="d0">&lol9;</data>
    <node id="a"/><node id="b"/><edge source="a" target="b"/>
  </graph>
</graphml>
"""


def _external_entity(path) -> bytes:
    return f"""<?xml version="1.0"?>
<!DOCTYPE graphml [<!ENTITY secret SYSTEM "file://{path}">]>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="d0" for="node" attr.name="label" attr.type="string"/>
  <graph edgedefault="undirected">
    <node id="a"><data key="d0">&secret;</data></node><node id="b"/><edge source="a" target="b"/>
  </graph>
</graphml>
""".encode()


def test_billion_laughs_is_refused_before_any_expansion():
    with pytest.raises(ImportFailed, match="DTD, entities or external references is refused"):
        read_graphml(BILLION_LAUGHS, "lol.graphml")
    with pytest.raises(ImportFailed, match="refused"):
        import_scenario(BILLION_LAUGHS, "lol.graphml")


def test_external_entities_are_refused_and_never_read(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    with pytest.raises(ImportFailed, match="refused") as err:
        import_scenario(_external_entity(secret), "xxe.graphml")
    assert "TOP-SECRET" not in str(err.value)


def test_a_plain_doctype_is_refused_too():
    doc = b'<?xml version="1.0"?><!DOCTYPE graphml><graphml xmlns="http://graphml.graphdrawing.org/xmlns">' \
          b'<graph edgedefault="undirected"><node id="a"/><node id="b"/><edge source="a" target="b"/></graph></graphml>'
    with pytest.raises(ImportFailed, match="DTDForbidden"):
        read_graphml(doc, "dtd.graphml")
    assert len(read_graphml(doc.replace(b"<!DOCTYPE graphml>", b""), "ok.graphml").links) == 1


ZOO_LIKE = """<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="lat" for="node" attr.name="Latitude" attr.type="double"/>
  <key id="lon" for="node" attr.name="Longitude" attr.type="double"/>
  <key id="s" for="edge" attr.name="LinkSpeedRaw" attr.type="double"/>
  <graph id="G" edgedefault="undirected">
    <node id="a"><data key="lat">52.5</data><data key="lon">13.4</data></node>
    <node id="b"><data key="lat">48.1</data><data key="lon">11.6</data></node>
    <edge id="e1" source="a" target="b"><data key="s">1000000000</data></edge>
  </graph>
</graphml>
"""


def test_zoo_like_graphml_reads_coordinates_and_link_speed():
    topo = read_graphml(ZOO_LIKE, "zoo.graphml")
    assert topo.coords == {"a": (52.5, 13.4), "b": (48.1, 11.6)}
    assert topo.links[0][5] == 1000.0  # 1e9 bit/s


@pytest.mark.parametrize("value, shown", [("NaN", "nan"), ("INF", "inf"), ("-Infinity", "-inf"), ("1e400", "inf"),
                                          ("90.5", "90.5")])
def test_graphml_bad_latitude_is_refused_naming_node_and_value(value, shown):
    bad = ZOO_LIKE.replace('<data key="lat">48.1</data>', f'<data key="lat">{value}</data>')
    with pytest.raises(ImportFailed) as err:
        read_graphml(bad, "zoo.graphml")
    assert str(err.value) == f"zoo.graphml: node 'b': Latitude = {shown} is not a finite number of degrees in [-90, 90]"


@pytest.mark.parametrize("value", ["NaN", "-1", "0"])
def test_graphml_bad_link_speed_is_refused_naming_edge_and_value(value):
    bad = ZOO_LIKE.replace('<data key="s">1000000000</data>', f'<data key="s">{value}</data>')
    with pytest.raises(ImportFailed) as err:
        read_graphml(bad, "zoo.graphml")
    shown = {"NaN": "nan", "-1": "-1.0", "0": "0.0"}[value]  # networkx reads the double
    assert str(err.value) == f"zoo.graphml: edge 'e1' (a>b): LinkSpeedRaw = {shown} is not a bit rate > 0 (bit/s)"


@pytest.mark.parametrize("coords, named", [("nan 0.0", "longitude = 'nan'"), ("1.0 inf", "latitude = 'inf'"),
                                           ("200.0 0.0", "longitude = '200.0'"), ("0.0 -91", "latitude = '-91'")])
def test_sndlib_bad_coordinates_name_the_line_node_and_value(coords, named):
    bad = SNDLIB_TEXT.replace("B ( 1.0 0.0 )", f"B ( {coords} )")
    with pytest.raises(ImportFailed) as err:
        read_sndlib(bad, "tiny.txt")
    assert str(err.value).startswith("tiny.txt: line 5: node 'B': " + named), str(err.value)
    assert "delay_ms" not in str(err.value)
