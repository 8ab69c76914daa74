"""CORE session XML: import of hand-written CORE files, refusals naming the element, export → import round trips,
names from users escaped (parsed back with defusedxml).

The fixtures are small hand-written documents in the schema CORE 9.0 writes (``daemon/core/xml/corexml.py``,
``CoreXmlWriter``: ``<devices>``/``<networks>`` with ``<position x y lat lon alt>``, ``<link node1 node2>``
with ``<iface1>``/``<iface2>`` and ``<options delay bandwidth loss dup jitter buffer>``,
``<mobility_configuration model="basic_range">``, ``<session_origin lat lon alt scale>``), laid out like
the session files of CORE's tutorials (``package/share/tutorials/tutorial3/scenario.xml``).
"""

from __future__ import annotations

import json
import math

import defusedxml.ElementTree as safe_et
import pytest

from subflow.errors import ExportRefused, ImportFailed
from subflow.io.core_xml import read_core_xml, write_core_xml
from subflow.io.formats import detect, import_file
from tests.conftest import load_example
from tests.unit.io.test_topology_imports import BILLION_LAUGHS

#: CORE 9.0 schema: two routers, a PC, a switch and a wireless LAN (basic_range) with two mdr members
GEO_SESSION = b"""<?xml version='1.0' encoding='UTF-8'?>
<scenario name="/tmp/harbour.xml">
  <networks>
    <network id="3" name="wlan3" icon="" canvas="1" model="basic_range" type="WIRELESS_LAN">
      <position x="294.0" y="149.0" lat="47.57781203554751" lon="-122.12836264834701" alt="2.0"/>
    </network>
    <network id="6" name="sw6" icon="" canvas="1" type="SWITCH">
      <position x="500.0" y="400.0" lat="47.5755" lon="-122.1256" alt="2.0"/>
    </network>
  </networks>
  <devices>
    <device id="1" name="n1" icon="" canvas="1" type="mdr" class="" image="">
      <position x="208.0" y="211.0" lat="47.57724845903762" lon="-122.12952147506353" alt="2.0"/>
      <services><service name="zebra"/><service name="OSPFv3MDR"/><service name="IPForward"/></services>
    </device>
    <device id="2" name="n2" icon="" canvas="1" type="mdr" class="" image="">
      <position x="393.0" y="223.0" lat="47.57713937901246" lon="-122.1270286501501" alt="2.0"/>
    </device>
    <device id="4" name="r4" icon="" canvas="1" type="router" class="" image="">
      <position x="600.0" y="300.0" lat="47.5764" lon="-122.1243" alt="2.0"/>
    </device>
    <device id="5" name="pc5" icon="" canvas="1" type="PC" class="" image="">
      <position x="700.0" y="450.0" lat="47.5750" lon="-122.1230" alt="2.0"/>
    </device>
  </devices>
  <links>
    <link node1="1" node2="3">
      <iface1 id="0" name="eth0" mac="00:00:00:aa:00:00" ip4="10.0.0.1" ip4_mask="32"/>
    </link>
    <link node1="2" node2="3">
      <iface1 id="0" name="eth0" mac="00:00:00:aa:00:01" ip4="10.0.0.2" ip4_mask="32"/>
    </link>
    <link node1="2" node2="4">
      <iface1 id="1" name="eth1" ip4="10.0.1.1" ip4_mask="24"/>
      <iface2 id="0" name="eth0" ip4="10.0.1.2" ip4_mask="24"/>
      <options delay="20000" bandwidth="10000000" loss="1.5" dup="0" jitter="3000" buffer="50" unidirectional="0"/>
    </link>
    <link node1="4" node2="6">
      <iface1 id="1" name="eth1" ip4="10.0.2.1" ip4_mask="24"/>
      <options delay="500" bandwidth="100000000" loss="0.0" dup="0" jitter="0"/>
    </link>
    <link node1="5" node2="6">
      <iface1 id="0" name="eth0" ip4="10.0.2.2" ip4_mask="24"/>
    </link>
  </links>
  <mobility_configurations>
    <mobility_configuration node="3" model="basic_range">
      <configuration name="range" value="275"/>
      <configuration name="bandwidth" value="54000000"/>
      <configuration name="jitter" value="0"/>
      <configuration name="delay" value="5000"/>
      <configuration name="error" value="2.0"/>
      <configuration name="promiscuous" value="0"/>
    </mobility_configuration>
  </mobility_configurations>
  <session_origin lat="47.579166412353516" lon="-122.13232421875" alt="2.0" scale="150.0"/>
  <session_options><configuration name="controlnet" value=""/></session_options>
</scenario>
"""

#: CORE 9.0 schema without a geographic reference point's lat/lon (a planar canvas, 100 px = 150 m)
PLANAR_SESSION = b"""<?xml version='1.0' encoding='UTF-8'?>
<scenario name="lab">
  <devices>
    <device id="1" name="a" type="router" class="" image=""><position x="200.0" y="100.0"/></device>
    <device id="2" name="b" type="PC" class="" image=""><position x="400.0" y="300.0"/></device>
  </devices>
  <links>
    <link node1="1" node2="2">
      <iface1 id="0" name="eth0"/><iface2 id="0" name="eth0"/>
      <options delay="250000" bandwidth="2048000" loss="0.1" jitter="0"/>
    </link>
  </links>
  <session_origin scale="150.0"/>
</scenario>
"""


def _by_id(sc):
    return {n.id: n for n in sc.nodes}


def test_geographic_session_values_checked_by_hand():
    res = read_core_xml(GEO_SESSION, "harbour.xml")
    sc = res.scenario
    assert res.format == "core-xml" and detect(GEO_SESSION) == "core-xml"
    nodes = _by_id(sc)
    assert sc.name == "harbour"
    # members of the wireless LAN are stations (mdr: relays); the LAN is an access point
    assert nodes["n1"].kind == "station" and nodes["n1"].relay
    assert nodes["n2"].kind == "station"
    assert nodes["r4"].kind == "router" and nodes["pc5"].kind == "host" and nodes["sw6"].kind == "switch"
    ap = nodes["wlan3"]
    assert ap.kind == "access_point"
    assert ap.range_m == pytest.approx(275 * 150 / 100)  # 412.5 m: 275 canvas units at 100 px = 150 m
    assert ap.wireless_bandwidth_mbps == pytest.approx(54.0)
    assert ap.wireless_delay_ms == pytest.approx(5.0)  # 5000 µs
    assert ap.wireless_loss == pytest.approx(0.02)  # 2 %
    # geography: the positions' lat/lon, the session origin as the local frame's origin
    assert sc.is_geo and sc.geo.origin_lat_deg == pytest.approx(47.579166412353516)
    assert sc.geo.origin_lon_deg == pytest.approx(-122.13232421875)
    assert nodes["n1"].position.lat_deg == pytest.approx(47.57724845903762)
    assert nodes["n1"].position.alt_m == pytest.approx(2.0)
    links = {frozenset((ln.src, ln.dst)): ln for ln in sc.links}
    assert len(links) == 3  # the two LAN memberships are not links
    w = links[frozenset(("n2", "r4"))]
    assert w.bandwidth_mbps == pytest.approx(10.0)  # 10 000 000 bit/s
    assert w.delay_ms == pytest.approx(20.0)  # 20 000 µs
    assert w.loss == pytest.approx(0.015)  # 1.5 %
    assert w.jitter_ms == pytest.approx(3.0)  # 3000 µs
    assert w.queue_packets == 50
    assert links[frozenset(("r4", "sw6"))].delay_ms == pytest.approx(0.5)
    unlimited = links[frozenset(("pc5", "sw6"))]
    assert unlimited.bandwidth_mbps == 1000.0 and any("unlimited" in n for n in res.notes)
    assert any("access point" in n for n in res.notes)


def test_planar_session_scale_and_canvas_y_axis():
    sc = read_core_xml(PLANAR_SESSION, "lab.xml").scenario
    a, b = _by_id(sc)["a"], _by_id(sc)["b"]
    assert not sc.is_geo
    assert (a.position.x_m, a.position.y_m) == pytest.approx((300.0, -150.0))  # 200 px, 100 px down at 1.5 m/px
    assert (b.position.x_m, b.position.y_m) == pytest.approx((600.0, -450.0))
    (ln,) = sc.links
    assert ln.bandwidth_mbps == pytest.approx(2.048) and ln.delay_ms == pytest.approx(250.0)
    assert ln.loss == pytest.approx(0.001)


def _session(networks: str = "", devices: str = "", links: str = "", extra: str = "") -> bytes:
    return (f"<?xml version='1.0' encoding='UTF-8'?><scenario><networks>{networks}</networks><devices>"
            '<device id="1" name="a" type="router"><position x="0" y="0"/></device>'
            '<device id="2" name="b" type="router"><position x="10" y="0"/></device>'
            f"{devices}</devices><links>{links}</links>{extra}</scenario>").encode()


@pytest.mark.parametrize("doc, named", [
    (_session(networks='<network id="5" name="emane1" type="EMANE" model="emane_rfpipe"><position x="1" y="1"/>'
                       "</network>"),
     '<network id="5" name="emane1" type="EMANE" model="emane_rfpipe">: EMANE model'),
    (_session(networks='<network id="7" name="rj" type="RJ45"><position x="1" y="1"/></network>'),
     "<network id=\"7\" name=\"rj\" type=\"RJ45\">: network type 'RJ45'"),
    (_session(links='<link node1="1" node2="2"><options bandwidth="1000000" dup="5"/></link>'),
     "<options>: dup='5' cannot be carried"),
    (_session(links='<link node1="1" node2="2"><options bandwidth="1000000" loss="100"/></link>'),
     "loss=100 % must lie in [0, 100)"),
    (_session(links='<link node1="1" node2="9"/>'), "unknown node id '9'"),
    (_session(links='<link node1="1" node2="2"><options bandwidth="1000000" unidirectional="1"/></link>'
                    '<link node1="2" node2="1"><options bandwidth="2000000" unidirectional="1"/></link>'),
     "its other direction with other options cannot be carried"),
    (_session(extra='<emane_configurations><emane_configuration node="1" model="emane_ieee80211abg">'
                    "</emane_configuration></emane_configurations>"),
     '<emane_configuration node="1" model="emane_ieee80211abg">: EMANE'),
    (_session(networks='<network id="3" name="w" type="WIRELESS_LAN"><position x="1" y="1"/></network>',
              extra='<mobility_configurations><mobility_configuration node="3" model="basic_range">'
                    '<configuration name="jitter" value="100"/></mobility_configuration></mobility_configurations>'),
     "basic_range jitter=100 µs cannot be carried"),
    (b"<session/>", "<session> is not a CORE session"),
])
def test_what_a_scenario_cannot_carry_is_refused_naming_the_element(doc, named):
    with pytest.raises(ImportFailed) as err:
        read_core_xml(doc, "bad.xml")
    assert named in str(err.value)


def test_xml_with_entities_is_refused():
    with pytest.raises(ImportFailed, match="refused"):
        read_core_xml(BILLION_LAUGHS.replace(b"graphml", b"scenario"), "lol.xml")


def test_both_directions_with_the_same_options_are_one_link():
    doc = _session(links='<link node1="1" node2="2"><options bandwidth="1000000" delay="1000" unidirectional="1"/>'
                         '</link><link node1="2" node2="1"><options bandwidth="1000000" delay="1000" '
                         'unidirectional="1"/></link>')
    (ln,) = read_core_xml(doc).scenario.links
    assert ln.bandwidth_mbps == 1.0 and ln.delay_ms == 1.0


def _same_topology(a, b, geo: bool):
    na, nb = _by_id(a), _by_id(b)
    assert set(na) == set(nb)
    for nid, n in na.items():
        m = nb[nid]
        assert m.kind == n.kind, nid
        assert m.label == n.label
        if geo:
            assert (m.position.lat_deg, m.position.lon_deg) == pytest.approx((n.position.lat_deg, n.position.lon_deg))
        else:
            assert (m.position.x_m, m.position.y_m) == pytest.approx((n.position.x_m, n.position.y_m))
        assert m.position.alt_m == pytest.approx(n.position.alt_m)
        if n.kind == "access_point":
            for f in ("range_m", "wireless_bandwidth_mbps", "wireless_delay_ms", "wireless_loss"):
                assert getattr(m, f) == pytest.approx(getattr(n, f)), (nid, f)
        if n.kind == "station":
            assert m.relay == n.relay
    la = {frozenset((ln.src, ln.dst)): ln for ln in a.links}
    lb = {frozenset((ln.src, ln.dst)): ln for ln in b.links}
    assert set(la) == set(lb)
    for pair, ln in la.items():
        for f in ("bandwidth_mbps", "delay_ms", "loss", "jitter_ms", "queue_packets"):
            assert getattr(lb[pair], f) == pytest.approx(getattr(ln, f)), (pair, f)


@pytest.mark.parametrize("example", ["naval-direct-move", "naval-geo", "hsln-10node", "uav-backhaul-planning"])
def test_export_then_import_gives_the_same_topology(example):
    doc = load_example(example)
    original = import_file(json.dumps(doc).encode(), "x.json").scenario
    xml = write_core_xml(original)
    back = read_core_xml(xml.encode(), "x.xml").scenario
    _same_topology(original, back, original.is_geo)
    assert back.name == original.name
    # and a second trip changes nothing
    assert write_core_xml(back).split("<session_metadata>")[0] == xml.split("<session_metadata>")[0]


def test_link_parameters_survive_a_round_trip():
    doc = load_example("hsln-10node")
    doc["links"][0].update(delay_ms=12.345, loss=0.0375, jitter_ms=1.5, queue_packets=77, bandwidth_mbps=3.25)
    back = read_core_xml(write_core_xml(doc).encode()).scenario
    ends = {doc["links"][0]["src"], doc["links"][0]["dst"]}
    ln = next(x for x in back.links if {x.src, x.dst} == ends)
    assert (ln.bandwidth_mbps, ln.delay_ms, ln.jitter_ms, ln.queue_packets) == (3.25, 12.345, 1.5, 77)
    assert ln.loss == pytest.approx(0.0375, abs=1e-15)


@pytest.mark.parametrize("change, field", [
    (lambda d: d["links"].__setitem__(0, {**d["links"][0]}) or d.update(link_events=[
        {"t_s": 1.0, "link": d["links"][0]["id"], "state": "down"}]), "link_events"),
    (lambda d: d.update(radio={"adhoc_links": True}), "radio.adhoc_links"),
])
def test_export_refuses_what_core_cannot_carry_naming_the_field(change, field):
    doc = load_example("naval-direct-move")
    change(doc)
    with pytest.raises(ExportRefused) as err:
        write_core_xml(doc)
    assert str(err.value).startswith(field)


def test_export_refuses_orbits_naming_the_node():
    doc = load_example("naval-leo")
    with pytest.raises(ExportRefused) as err:
        write_core_xml(doc)
    assert err.value.loc[0] == "nodes" and err.value.loc[2] == "ephemeris"


INJECTION = "x\"/><device id=\"99\" name=\"evil\"/><!-- ]]> & ' \u00e9 <![CDATA[ \n"


def test_user_text_is_escaped_and_read_back_as_data():
    doc = load_example("naval-direct-move")
    doc["name"] = INJECTION.replace("\n", " ")
    for n in doc["nodes"]:
        n["label"] = INJECTION.replace("\n", " ")[:80]
    xml = write_core_xml(doc)
    root = safe_et.fromstring(xml.encode())  # an independent, safe parser
    assert root.get("name") == doc["name"]
    assert [d.get("name") for d in root.iter("device")] == ["ship", "sta1", "sta2"]
    labels = {c.get("name"): c.get("value") for c in root.iter("configuration")}
    assert labels["subflow.label.ship"] == doc["nodes"][0]["label"]
    back = read_core_xml(xml.encode()).scenario
    assert back.name == doc["name"] and _by_id(back)["ship"].label == doc["nodes"][0]["label"]
    assert "evil" not in _by_id(back)


def test_positions_in_metres_become_canvas_pixels():
    """1 pixel = 1 metre (scale 100), the canvas y axis pointing south."""
    root = safe_et.fromstring(write_core_xml(load_example("naval-direct-move")).encode())
    pos = {d.get("name"): d.find("position") for d in [*root.iter("device"), *root.iter("network")]}
    doc = load_example("naval-direct-move")
    ship = next(n for n in doc["nodes"] if n["id"] == "ship")["position"]
    assert float(pos["ship"].get("x")) == ship.get("x_m", 0.0)
    assert float(pos["ship"].get("y")) == -ship.get("y_m", 0.0) + 0.0
    assert root.find("session_origin").get("scale") == "100.0"
    assert not math.isnan(float(pos["uav"].get("x")))


@pytest.mark.parametrize("session", [GEO_SESSION, PLANAR_SESSION])
def test_a_core_file_imported_exported_and_imported_again_is_the_same(session):
    first = read_core_xml(session, "s.xml").scenario
    again = read_core_xml(write_core_xml(first).encode(), "again.xml").scenario
    _same_topology(first, again, first.is_geo)
    if first.is_geo:
        assert (again.geo.origin_lat_deg, again.geo.origin_lon_deg) == (first.geo.origin_lat_deg,
                                                                         first.geo.origin_lon_deg)
