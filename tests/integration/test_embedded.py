"""The embedded defaults (SQLite file + filesystem broker, no PostgreSQL/Redis) through the same task."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

import pytest

from subflow.comparison.compare import compare
from subflow_engines import run_plan

from tests.integration.conftest import PYTHON, ROOT
from tests.integration.test_comparisons import STRATEGIES, assert_naval_shape, first_difference

pytestmark = pytest.mark.integration


def test_embedded_comparison_end_to_end(embedded_stack, example, wait_comparison):
    data = Path(embedded_stack.env["SUBFLOW_DATA_DIR"])
    assert "DATABASE_URL" not in embedded_stack.env and "CELERY_BROKER_URL" not in embedded_stack.env
    api = embedded_stack.api
    doc = example("naval-direct-move")
    sid = api.post("/scenarios", json=doc).json()["id"]

    r = api.post(f"/scenarios/{sid}/comparisons", json={"strategies": STRATEGIES})
    assert r.status_code == 202, r.text
    cid = r.json()["id"]
    done, seen = wait_comparison(embedded_stack, sid, cid)
    assert done["status"] == "succeeded", f"{done['error']}\n{embedded_stack.logs()}"
    assert done["progress"] == 1.0 and seen == sorted(seen)
    assert_naval_shape(done["result"])
    expected = compare(doc, STRATEGIES, runner=run_plan, engine="fluid").model_dump(mode="json")
    assert done["result"] == expected, first_difference(done["result"], expected)

    # it really went through the SQLite file and the filesystem broker
    db = data / "subflow.db"
    assert (data / "broker" / "queue").is_dir()
    with sqlite3.connect(db) as conn:
        status, stored = conn.execute("SELECT status, result FROM comparison WHERE id = ?", (cid,)).fetchone()
    assert status == "succeeded" and json.loads(stored) == done["result"]

    # foreign keys are on in SQLite: deleting the scenario deletes its comparisons
    assert api.delete(f"/scenarios/{sid}").status_code == 204
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM comparison WHERE scenario_id = ?", (sid,)).fetchone() == (0,)


def test_seed_is_idempotent(embedded_stack, example, tmp_path):
    doc = example()
    (tmp_path / "one.json").write_text(json.dumps(doc))
    cmd = [PYTHON, "-m", "subflow_backend.seed", str(tmp_path)]
    first = subprocess.run(cmd, env=embedded_stack.env, cwd=ROOT, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    assert f"created scenario {doc['name']!r}" in first.stdout
    second = subprocess.run(cmd, env=embedded_stack.env, cwd=ROOT, capture_output=True, text=True)
    assert second.returncode == 0 and f"skipped {doc['name']!r}" in second.stdout
    names = [s["name"] for s in embedded_stack.api.get("/scenarios", params={"limit": 1000}).json()["data"]]
    assert names.count(doc["name"]) == 1


def test_frontend_served_as_spa(embedded_stack):
    import httpx

    with httpx.Client(base_url=embedded_stack.base_url) as web:
        index = web.get("/")
        assert index.status_code == 200 and "<div id=root>" in index.text
        deep = web.get("/scenarios/123/compare")
        assert deep.status_code == 200 and deep.text == index.text
        js = web.get("/assets/app.js")
        assert js.status_code == 200 and "subflow" in js.text
        missing = web.get("/api/does-not-exist")
        assert missing.status_code == 404 and missing.json() == {"detail": "Not Found"}
        assert web.get("/docs").status_code == 200
        assert web.get("/openapi.json").json()["info"]["title"] == "Subflow"
