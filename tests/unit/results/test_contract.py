"""The typed contract: result document models, discriminated events, and the OpenAPI documents.

The version-1 fixtures in ``tests/unit/data`` were written by the code before the
result document had models (commit bae0be9), so they stand for documents already
stored in databases.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from sqlalchemy import create_engine
from sqlalchemy.orm import Session

from subflow.comparison.compare import compare
from subflow.results.document import EngineOutput, ResultDocument, parse_events
from subflow_engines import run_plan

from tests.conftest import EXAMPLES

DATA = Path(__file__).parents[1] / "data"

#: Strategies that between them produce every transport event kind of the fluid engine.
STRATEGIES = ["sptcp", "sptcp-zwa", "sptcp-spurious", "mptcp", "mptcp-fdm", "msctp-best", "cmt-pf"]

#: Every event kind of the contract (written out here, not read from the code under test).
EVENT_KINDS = {
    "handover_start", "association", "disassociation", "association_abandoned", "link_down", "link_up",
    "allocation_change", "subflow_up", "subflow_down", "route_change", "route_lost", "rto", "zwa_freeze",
    "zwa_resume", "zwa_too_late", "spurious_recovery", "flow_complete",
}


def _stored(name: str) -> dict[str, Any]:
    return json.loads((DATA / name).read_text())


def _assert_kept(old: Any, new: Any, path: str = "$") -> None:
    """Every field and value of ``old`` is in ``new`` (which may have more fields)."""
    if isinstance(old, dict):
        assert isinstance(new, dict), path
        for k, v in old.items():
            assert k in new, f"{path}.{k} lost"
            _assert_kept(v, new[k], f"{path}.{k}")
    elif isinstance(old, list):
        assert isinstance(new, list) and len(new) == len(old), path
        for i, (a, b) in enumerate(zip(old, new)):
            _assert_kept(a, b, f"{path}[{i}]")
    else:
        assert new == old, f"{path}: {old!r} became {new!r}"


# ----------------------------------------------------------------------------- every example's result


@functools.cache
def _example_result(example: str) -> ResultDocument:
    """The comparison of ``examples/<example>.json`` (computed once for the tests below)."""
    return compare(json.loads((EXAMPLES / f"{example}.json").read_text()), STRATEGIES, run_plan)


@pytest.mark.parametrize("example", sorted(p.stem for p in EXAMPLES.glob("*.json")))
def test_every_example_result_validates_and_round_trips(example):
    doc = _example_result(example)
    assert isinstance(doc, ResultDocument) and doc.version == 1
    assert list(doc.strategies) == STRATEGIES
    text = doc.model_dump_json()
    again = ResultDocument.model_validate_json(text)
    assert again == doc
    assert again.model_dump_json() == text
    # what the worker stores (a JSON column) validates the same way
    assert ResultDocument.model_validate(json.loads(text)) == doc


def test_the_examples_exercise_most_event_kinds():
    """Guards the round-trip test above against testing only a few kinds."""
    seen: set[str] = set()
    for path in sorted(EXAMPLES.glob("*.json")):
        doc = _example_result(path.stem)
        seen |= {e.kind for r in doc.strategies.values() for e in r.events}
    assert {"handover_start", "association", "subflow_up", "rto", "allocation_change"} <= seen
    assert seen <= EVENT_KINDS


# ----------------------------------------------------------------------------- stored documents (version 1)


@pytest.mark.parametrize("name", ["result-v1-sweep.json", "result-v1-repetitions.json"])
def test_a_stored_version_1_document_validates_and_keeps_every_field(name):
    raw = _stored(name)
    doc = ResultDocument.model_validate(raw)
    _assert_kept(raw, doc.model_dump(mode="json"))


def test_stored_sweep_and_repetitions_parts_are_typed():
    sweep = ResultDocument.model_validate(_stored("result-v1-sweep.json")).sweep
    assert sweep is not None and sweep.parameter == "nodes.uav.range_m" and sweep.values == [300, 400]
    assert [p.value for p in sweep.points] == [300, 400]
    assert sweep.points[0].strategies["sptcp"].runs == 1
    reps = ResultDocument.model_validate(_stored("result-v1-repetitions.json")).repetitions
    assert reps is not None and reps["sptcp"].runs == 2 and reps["sptcp"].ci95_mbps == 0.0


def test_a_document_from_before_retransmissions_and_completion_validates():
    """Fields added to version 1 later (16b2917) have defaults, so the oldest documents load."""
    raw = _stored("result-v1-repetitions.json")
    for r in raw["strategies"].values():
        r["summary"].pop("retransmissions")
        for f in r["summary"]["flows"]:
            f.pop("retransmissions")
            f.pop("completion_s")
        for f in r["flows"]:
            f.pop("completion_s", None)
            for sf in f["subflows"]:
                sf.pop("retransmissions")
    doc = ResultDocument.model_validate(raw)
    s = doc.strategies["sptcp"].summary
    assert s.retransmissions == 0 and s.flows[0].completion_s is None
    assert doc.strategies["sptcp"].flows[0].subflows[0].retransmissions is None


def test_a_stored_document_reads_back_through_the_api_schema():
    """A comparison row holding a version-1 document (SQLite, the embedded database) reads as
    ``ComparisonPublic`` with a typed result."""
    from subflow_backend import accounts, models
    from subflow_backend.schemas import ComparisonPublic

    raw = _stored("result-v1-sweep.json")
    engine = create_engine("sqlite://")
    models.Base.metadata.create_all(engine)
    with Session(engine) as session:
        project = accounts.default_project(session)
        sc = models.Scenario(project_id=project.id, name="s", description="", version=1, document=raw["scenario"])
        session.add(sc)
        session.flush()
        row = models.Comparison(
            scenario_id=sc.id, scenario_version=1, scenario_snapshot=raw["scenario"], strategies=list(raw["strategies"]),
            engine="fluid", seed=None, status="succeeded", progress=1.0, result=raw,
            sweep={"parameter": "nodes.uav.range_m", "values": [300, 400]}, units_total=2, units_done=2,
        )
        session.add(row)
        session.commit()
        public = ComparisonPublic.model_validate(session.get(models.Comparison, row.id))
    assert isinstance(public.result, ResultDocument)
    first = public.result.strategies["sptcp-zwa"].events[0]
    assert type(first).__name__ == "SubflowUp" and first.path == ["sta1", "satcom", "ship"]
    _assert_kept(raw, public.model_dump(mode="json")["result"])


# ----------------------------------------------------------------------------- discriminated events


def _rto(**extra: Any) -> dict[str, Any]:
    return {"t_s": 61.5, "kind": "rto", "node": "sta1", "flow": "f1", "subflow": "f1/tcp", "rto_s": 1.0,
            "resumed": False, **extra}


def test_an_event_is_parsed_into_the_model_of_its_kind():
    (ev,) = parse_events([_rto()])
    assert type(ev).__name__ == "Rto" and ev.rto_s == 1.0 and ev.resumed is False and ev.backoff is None


def test_an_unknown_event_kind_is_refused_naming_it():
    with pytest.raises(ValidationError) as info:
        parse_events([{"t_s": 1.0, "kind": "teleport", "node": "sta1"}])
    (err,) = info.value.errors()
    assert err["type"] == "union_tag_invalid" and err["loc"] == (0,)
    assert "'teleport'" in err["msg"] and "'route_change'" in err["msg"] and "kind" in err["msg"]


def test_an_event_with_a_field_its_kind_does_not_have_is_refused():
    with pytest.raises(ValidationError) as info:
        parse_events([_rto(rto_ms=1000)])
    (err,) = info.value.errors()
    assert err["loc"] == (0, "rto", "rto_ms") and err["type"] == "extra_forbidden"


def test_an_event_missing_a_field_or_with_a_wrong_type_is_refused():
    with pytest.raises(ValidationError) as info:
        parse_events([{"t_s": 2.0, "kind": "route_change", "node": "sta1", "flow": "f1", "subflow": "f1/tcp",
                       "path": ["sta1", "ship"]}])
    assert [(e["loc"], e["type"]) for e in info.value.errors()] == [((0, "route_change", "previous_path"), "missing")]
    with pytest.raises(ValidationError) as info:
        parse_events([_rto(t_s="soon")])
    assert [e["loc"] for e in info.value.errors()] == [(0, "rto", "t_s")]


def test_the_engine_boundary_validates_plain_event_dicts():
    """Engines may emit dicts; EngineOutput refuses a bad one, naming where it is."""
    ok = EngineOutput(engine="fluid", strategy="sptcp", flows=[], events=[_rto()])
    assert ok.events[0].kind == "rto"
    with pytest.raises(ValidationError) as info:
        EngineOutput(engine="fluid", strategy="sptcp", flows=[], events=[_rto(), {"t_s": 0, "kind": "nope", "node": "a"}])
    assert [e["loc"] for e in info.value.errors()] == [("events", 1)]


def test_a_result_document_with_a_field_it_does_not_have_is_refused():
    raw = _stored("result-v1-repetitions.json")
    bad = copy.deepcopy(raw)
    bad["strategies"]["sptcp"]["summary"]["flows"][0]["retransmisions"] = 3  # misspelt
    with pytest.raises(ValidationError) as info:
        ResultDocument.model_validate(bad)
    assert [e["loc"] for e in info.value.errors()] == [("strategies", "sptcp", "summary", "flows", 0, "retransmisions")]
    bad = copy.deepcopy(raw)
    bad["version"] = 2
    with pytest.raises(ValidationError):
        ResultDocument.model_validate(bad)


# ----------------------------------------------------------------------------- OpenAPI


def _resolve(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    return spec["components"]["schemas"][ref.rsplit("/", 1)[1]] if ref else schema


def test_the_openapi_document_exposes_the_typed_result():
    from subflow_backend.main import app

    spec = app.openapi()
    schemas = spec["components"]["schemas"]
    result = schemas["ComparisonPublic"]["properties"]["result"]
    assert {"$ref": "#/components/schemas/ResultDocument"} in result["anyOf"]
    doc = schemas["ResultDocument"]
    assert doc["properties"]["strategies"]["additionalProperties"] == {"$ref": "#/components/schemas/StrategyResult"}
    assert {"version", "scenario", "strategies", "sweep", "repetitions"} <= set(doc["properties"])
    events = schemas["StrategyResult"]["properties"]["events"]["items"]
    assert events["discriminator"]["propertyName"] == "kind"
    assert set(events["discriminator"]["mapping"]) == EVENT_KINDS
    assert {"retransmissions", "completion_s"} <= set(schemas["FlowSummary"]["properties"])
    assert schemas["SubflowSeries"]["properties"]["retransmissions"]["anyOf"][0]["type"] == "integer"
    assert "retransmissions" in schemas["Summary"]["properties"]
    timeline_events = schemas["TimelinePublic"]["properties"]["events"]["items"]
    assert set(timeline_events["discriminator"]["mapping"]) == {
        "handover_start", "association", "disassociation", "association_abandoned"}
    get = spec["paths"]["/api/scenarios/{scenario_id}/comparisons/{comparison_id}"]["get"]
    assert get["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ComparisonPublic"}


def _untyped_json_routes(spec: dict[str, Any], allowed: set[tuple[str, str]]) -> list[str]:
    """Routes whose success response is JSON without a schema, or a bare object."""
    out = []
    for path, methods in spec["paths"].items():
        for method, op in methods.items():
            if (method, path) in allowed:
                continue
            ok = next((r for code, r in op["responses"].items() if code.startswith("2")), None)
            if ok is None:
                out.append(f"{method} {path}: no success response")
                continue
            for media, content in ok.get("content", {}).items():
                schema = _resolve(spec, content.get("schema", {}))
                if not schema or (schema.get("type") == "object" and not schema.get("properties")):
                    out.append(f"{method} {path} ({media})")
    return out


def test_every_backend_route_declares_its_response_shape():
    from subflow_backend.main import app

    spec = app.openapi()
    # the scenario JSON Schema is itself a JSON Schema document; export is a file download
    allowed = {("get", "/api/scenarios/schema"), ("get", "/api/scenarios/{scenario_id}/export")}
    assert _untyped_json_routes(spec, allowed) == []
    sse = spec["paths"]["/api/scenarios/{scenario_id}/comparisons/{comparison_id}/events"]["get"]
    assert sse["responses"]["200"]["content"]["text/event-stream"]["schema"]["$ref"].endswith("/ComparisonProgress")


def test_every_agent_route_declares_its_response_shape():
    from subflow_agent.app import app

    spec = app.openapi()
    assert _untyped_json_routes(spec, set()) == []
    run = spec["components"]["schemas"]["RunPublic"]["properties"]["output"]
    assert {"$ref": "#/components/schemas/EngineOutput"} in run["anyOf"]
