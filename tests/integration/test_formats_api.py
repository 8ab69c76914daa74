"""File formats over REST: ``GET /api/formats``, exports of every format, imports of CORE session XML and ns-2
traces (detected and named), refusals translated to 422 naming the field or element."""

from __future__ import annotations

import uuid

import defusedxml.ElementTree as safe_et
import pytest
import yaml

from tests.unit.io.test_core_xml import GEO_SESSION
from tests.unit.io.test_ns2_import import BONNMOTION_STYLE

pytestmark = pytest.mark.integration


def test_formats_are_listed_with_their_directions(pg_stack):
    r = pg_stack.api.get("/formats")
    assert r.status_code == 200, r.text
    by_name = {f["name"]: f for f in r.json()}
    assert by_name["core-xml"]["directions"] == ["import", "export"]
    assert by_name["containerlab"]["directions"] == ["export"]
    assert by_name["ns2"]["extension"] == ".ns_movements" and by_name["core-xml"]["media_type"] == "application/xml"


def test_exports_in_every_format_and_back(pg_stack, example):
    doc = example()
    sid = pg_stack.api.post("/scenarios", json=doc).json()["id"]
    r = pg_stack.api.get(f"/scenarios/{sid}/export", params={"format": "core-xml"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/xml")
    assert r.headers["content-disposition"].endswith('.xml"')
    root = safe_et.fromstring(r.content)
    assert {d.get("name") for d in root.iter("device")} == {"ship", "sta1", "sta2"}
    # the CORE file comes back as the same topology, its format named or detected
    name = f"it-{uuid.uuid4().hex[:8]}-core"
    back = pg_stack.api.post("/imports", params={"format": "core-xml"},
                             files={"file": ("s.xml", r.content, "application/xml")}, data={"name": name})
    assert back.status_code == 201, back.text
    again = back.json()["scenario"]
    assert again["name"] == name
    assert {(ln["src"], ln["dst"], ln["bandwidth_mbps"], ln["delay_ms"]) for ln in again["links"]} == {
        (ln["src"], ln["dst"], ln["bandwidth_mbps"], ln.get("delay_ms", 0.0)) for ln in doc["links"]}
    r = pg_stack.api.get(f"/scenarios/{sid}/export", params={"format": "containerlab"})
    assert r.status_code == 200 and r.headers["content-disposition"].endswith('.clab.yml"')
    lab = yaml.safe_load(r.text)
    assert set(lab["topology"]["nodes"]) == {"ship", "satcom"} and "# left out: station sta1 (Wi-Fi)" in r.text
    r = pg_stack.api.get(f"/scenarios/{sid}/export", params={"format": "graphml"})
    assert r.status_code == 200 and "bandwidth_mbps" in r.text
    assert pg_stack.api.get(f"/scenarios/{sid}/export", params={"format": "sndlib"}).status_code == 422


def test_core_and_ns2_imports_and_refusals(pg_stack):
    r = pg_stack.api.post("/imports", files={"file": ("harbour.xml", GEO_SESSION, "application/xml")},
                          data={"name": f"it-{uuid.uuid4().hex[:8]}-harbour"})
    assert r.status_code == 201, r.text
    nodes = {n["id"]: n for n in r.json()["scenario"]["nodes"]}
    assert nodes["wlan3"]["kind"] == "access_point" and nodes["wlan3"]["range_m"] == pytest.approx(412.5)
    r = pg_stack.api.post("/imports", files={"file": ("walk.ns", BONNMOTION_STYLE.encode(), "text/plain")},
                          data={"name": f"it-{uuid.uuid4().hex[:8]}-walk"})
    assert r.status_code == 201, r.text
    last = r.json()["scenario"]["nodes"][1]["mobility"]["points"][-1]
    assert (last["t_s"], last["x_m"], last["y_m"], last["alt_m"]) == (17.0, 50.0, 50.0, 1.5)
    before = pg_stack.api.get("/scenarios").json()["count"]
    emane = GEO_SESSION.replace(b'type="SWITCH"', b'type="EMANE" model="emane_rfpipe"')
    r = pg_stack.api.post("/imports", files={"file": ("emane.xml", emane, "application/xml")})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "file"]
    assert '<network id="6" name="sw6" type="EMANE" model="emane_rfpipe">' in r.json()["detail"][0]["msg"]
    r = pg_stack.api.post("/imports", params={"format": "ns2"},
                          files={"file": ("harbour.xml", GEO_SESSION, "application/xml")})
    assert r.status_code == 422 and "line 1" in r.json()["detail"][0]["msg"]
    assert pg_stack.api.post("/imports", params={"format": "pdf"},
                             files={"file": ("x", b"x", "text/plain")}).status_code == 422
    assert pg_stack.api.get("/scenarios").json()["count"] == before


def test_export_refusal_names_the_field(pg_stack, example):
    doc = example("naval-leo")
    r = pg_stack.api.post("/scenarios", json=doc)
    assert r.status_code == 201, r.text
    r = pg_stack.api.get(f"/scenarios/{r.json()['id']}/export", params={"format": "core-xml"})
    assert r.status_code == 422
    detail = r.json()["detail"][0]
    assert detail["type"] == "export_refused" and detail["loc"][:2] == ["scenario", "nodes"]
    assert detail["loc"][-1] == "ephemeris" and "core-xml" in detail["msg"]
