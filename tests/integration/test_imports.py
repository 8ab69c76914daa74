"""POST /api/imports: Topology Zoo GraphML and SNDlib files become stored scenarios."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"


def _need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} not found (reference data lives beside the repository, not in it)")
    return path


def test_import_graphml_and_sndlib(pg_stack):
    geant = _need(SHARED / "topology-zoo" / "Geant2012.graphml")
    name = f"it-{uuid.uuid4().hex[:8]}-geant"
    r = pg_stack.api.post("/imports", files={"file": (geant.name, geant.read_bytes(), "application/xml")},
                          data={"name": name})
    assert r.status_code == 201, r.text
    doc = r.json()["scenario"]
    assert doc["name"] == name and len(doc["nodes"]) == 40 and len(doc["links"]) == 61
    assert pg_stack.api.get(f"/scenarios/{r.json()['id']}").status_code == 200
    abilene = _need(SHARED / "sndlib" / "abilene.txt")
    r = pg_stack.api.post("/imports", files={"file": (abilene.name, abilene.read_bytes(), "text/plain")},
                          data={"name": f"it-{uuid.uuid4().hex[:8]}-abilene"})
    assert r.status_code == 201, r.text
    doc = r.json()["scenario"]
    assert len(doc["nodes"]) == 12 and len(doc["flows"]) == 132


def test_unreadable_imports_are_422_and_store_nothing(pg_stack):
    before = pg_stack.api.get("/scenarios").json()["count"]
    r = pg_stack.api.post("/imports", files={"file": ("x.graphml", b"<graphml><broken", "application/xml")})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "file"]
    r = pg_stack.api.post("/imports", files={"file": ("x.txt", b"not a topology at all", "text/plain")})
    assert r.status_code == 422
    assert pg_stack.api.get("/scenarios").json()["count"] == before


def test_xml_with_entities_is_422_and_stores_nothing(pg_stack, tmp_path):
    from tests.unit.io.test_topology_imports import BILLION_LAUGHS, _external_entity

    before = pg_stack.api.get("/scenarios").json()["count"]
    r = pg_stack.api.post("/imports", files={"file": ("lol.graphml", BILLION_LAUGHS, "application/xml")})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "file"]
    assert "refused" in r.json()["detail"][0]["msg"]
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    r = pg_stack.api.post("/imports", files={"file": ("xxe.graphml", _external_entity(secret), "application/xml")})
    assert r.status_code == 422 and "TOP-SECRET" not in r.text
    assert pg_stack.api.get("/scenarios").json()["count"] == before


def test_import_over_the_upload_bound_is_413_naming_it(pg_stack):
    before = pg_stack.api.get("/scenarios").json()["count"]
    big = b"<graphml>" + b" " * (20 * 1024 * 1024)  # MAX_UPLOAD_BYTES default: 20 MiB
    r = pg_stack.api.post("/imports", files={"file": ("big.graphml", big, "application/xml")})
    assert r.status_code == 413 and "MAX_UPLOAD_BYTES" in r.json()["detail"]
    r = pg_stack.api.post("/imports", files={"file": ("huge.graphml", big + b" " * (1024 * 1024), "application/xml")})
    assert r.status_code == 413 and "MAX_UPLOAD_BYTES" in r.json()["detail"]
    assert pg_stack.api.get("/scenarios").json()["count"] == before
