"""containerlab and GraphML exports, and the format registry: values checked against the scenario, parsed back
with independent parsers (PyYAML's safe_load, defusedxml, networkx through Subflow's GraphML import)."""

from __future__ import annotations

import json

import defusedxml.ElementTree as safe_et
import pytest
import yaml

from subflow.errors import ImportFailed
from subflow.io.containerlab import DEFAULT_IMAGE, containerlab_topology, graphml_document
from subflow.io.formats import REGISTRY, detect, all_formats, export_scenario, get_format, import_file, names
from subflow.io.imports import read_graphml
from subflow.scenario.document import load_scenario
from tests.conftest import load_example


def _wired_doc() -> dict:
    doc = load_example("hsln-10node")
    doc["links"][0].update(delay_ms=20.0, jitter_ms=2.0, loss=0.01, bandwidth_mbps=10.0, queue_packets=100)
    return doc


def test_containerlab_nodes_links_and_netem_impairments():
    doc = _wired_doc()
    text = containerlab_topology(doc)
    lab = yaml.safe_load(text)
    sc = load_scenario(doc)
    assert set(lab["topology"]["nodes"]) == {n.id for n in sc.nodes}
    assert all(n["kind"] == "linux" and n["image"] == DEFAULT_IMAGE for n in lab["topology"]["nodes"].values())
    assert len(lab["topology"]["links"]) == len(sc.links)
    first = sc.links[0]
    a_end, b_end = lab["topology"]["links"][0]["endpoints"]
    assert a_end.split(":")[0] == first.src and b_end.split(":")[0] == first.dst
    netem = "delay 20ms 2ms loss 1% rate 10000kbit limit 100"  # 10 Mbit/s = 10 000 kbit/s, 1 % loss
    for end in (a_end, b_end):
        node, dev = end.split(":")
        assert f"tc qdisc replace dev {dev} root netem {netem}" in lab["topology"]["nodes"][node]["exec"]
    assert (f"containerlab tools netem set -n clab-{lab['name']}-{first.src} -i {a_end.split(':')[1]} "
            "--delay 20ms --jitter 2ms --loss 1 --rate 10000") in text
    # every interface of a node is used once
    ends = [e for link in lab["topology"]["links"] for e in link["endpoints"]]
    assert len(ends) == len(set(ends))


def test_containerlab_leaves_out_wifi_and_orbits_and_names_them():
    text = containerlab_topology(load_example("naval-leo"))
    lab = yaml.safe_load(text)
    left = [line for line in text.splitlines() if line.startswith("# left out:")]
    sc = load_scenario(load_example("naval-leo"))
    for n in sc.nodes:
        if n.kind in ("station", "access_point") or getattr(n, "ephemeris", None) is not None:
            assert n.id not in lab["topology"]["nodes"]
            assert any(f" {n.id} (" in line for line in left), n.id
    assert any("flow(s)" in line for line in left)


INJECTION = "x\n  evil: {kind: bridge}\n# ]]> \" ' & <tag> : - [a, b]"


def test_user_text_in_yaml_is_data():
    doc = _wired_doc()
    doc["name"] = INJECTION.replace("\n", " ")
    for n in doc["nodes"]:
        n["label"] = INJECTION[:80]
    text = containerlab_topology(doc)
    lab = yaml.safe_load(text)
    assert "evil" not in lab["topology"]["nodes"] and set(lab) == {"name", "topology"}
    assert all(n["labels"]["subflow.label"] == INJECTION[:80] for n in lab["topology"]["nodes"].values())
    assert all(c.isalnum() or c in "_-" for c in lab["name"])


def test_graphml_round_trip_through_the_graphml_import():
    doc = _wired_doc()
    doc["nodes"][0]["label"] = INJECTION[:80]
    sc = load_scenario(doc)
    text = graphml_document(sc)
    safe_et.fromstring(text.encode())  # well-formed, no DTD
    topo = read_graphml(text.encode(), "x.graphml")
    assert sorted(topo.nodes) == sorted(n.id for n in sc.nodes)
    assert topo.labels[sc.nodes[0].id] == INJECTION[:80]
    back = {(a, b): (lid, d, p, c) for lid, a, b, d, p, c in topo.links}
    for ln in sc.links:
        lid, d, p, c = back[(ln.src, ln.dst)]
        assert (lid, d, p, c) == (ln.id, ln.delay_ms, ln.loss, ln.bandwidth_mbps)
    res = import_file(text.encode(), "x.graphml", format="graphml")
    assert {ln.id for ln in res.scenario.links} == {ln.id for ln in sc.links}


def test_graphml_attributes_carry_units_and_geography():
    text = graphml_document(load_example("naval-geo"))
    keys = {k.get("attr.name") for k in safe_et.fromstring(text.encode()).iter("{http://graphml.graphdrawing.org/xmlns}key")}
    assert {"bandwidth_mbps", "delay_ms", "loss", "jitter_ms", "queue_packets", "lat_deg", "lon_deg", "alt_m",
            "kind"} <= keys
    res = import_file(text.encode(), "geo.graphml")
    assert res.scenario.is_geo


def test_registry_lists_every_format_once_with_its_directions():
    infos = {f.name: f for f in all_formats()}
    assert set(names("import")) == {"json", "graphml", "sndlib", "core-xml", "ns2"}
    assert set(names("export")) == {"json", "graphml", "core-xml", "ns2", "containerlab", "mininet-wifi"}
    assert infos["containerlab"].directions == ["export"] and infos["core-xml"].directions == ["import", "export"]
    assert all(f.extension.startswith(".") and "/" in f.media_type for f in infos.values())
    assert list(REGISTRY) == [f.name for f in all_formats()]
    with pytest.raises(ImportFailed, match="unknown import format 'containerlab'"):
        get_format("containerlab", "import")
    with pytest.raises(ValueError, match="unknown export format"):
        export_scenario(load_example("hsln-10node"), "pdf")


def test_detection_and_a_format_named_against_the_content():
    assert detect(b'{"name": "x"}') == "json"
    assert detect(b"<?xml version='1.0'?>\n<scenario><devices/></scenario>") == "core-xml"
    assert detect(b"# a trace\n$node_(0) set X_ 1.0\n") == "ns2"
    with pytest.raises(ImportFailed, match="not graphml"):
        import_file(json.dumps(load_example("hsln-10node")).encode(), "x", format="graphml")
    sc = import_file(json.dumps(load_example("hsln-10node")).encode(), "x.json", "renamed", format="json").scenario
    assert sc.name == "renamed"


@pytest.mark.parametrize("fmt", ["json", "graphml", "core-xml", "ns2", "containerlab", "mininet-wifi"])
def test_every_export_of_an_example(fmt):
    text = export_scenario(load_example("naval-direct-move"), fmt, "sptcp")
    assert text.strip()


def test_a_scenario_without_wired_links_has_no_links_list():
    """containerlab's schema (``schemas/clab.schema.json``): ``links`` has at least one item, ``exec`` too."""
    doc = load_example("naval-direct-move")
    doc["links"] = [ln for ln in doc["links"] if "sta" in ln["src"] + ln["dst"]]
    lab = yaml.safe_load(containerlab_topology(doc))
    assert "links" not in lab["topology"]
    assert all("exec" not in n or n["exec"] for n in lab["topology"]["nodes"].values())
