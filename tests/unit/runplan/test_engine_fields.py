"""No scenario field is silently ignored: every engine declares every field of the schema,
and a run that sets a field its engine does not honour is refused naming the field."""

from __future__ import annotations

import copy

import pytest
from fastapi.testclient import TestClient

from subflow.errors import EngineCannotRun, ScenarioInvalid
from subflow.runplan.capabilities import (
    FLOW_KIND_FIELDS, Describes, Honours, Refuses, check_fields, flow_kind_fields, queueing_fields, schema_fields,
    undeclared,
)
from subflow.runplan.resolve import resolve_plan
from subflow.scenario.document import Scenario, load_scenario
from subflow_agent.app import app, settings
from subflow_engines import ENGINES, all_engines, fluid, linux, mininet_wifi, run_plan

DECLARATIONS = {"fluid": fluid.FIELDS, "linux": linux.FIELDS, "mininet-wifi": mininet_wifi.FIELDS}


def _walk_schema() -> set[str]:
    """Every property of the scenario JSON Schema, found by following $ref/anyOf/oneOf/items
    from the root (independently of subflow.runplan.capabilities.schema_fields, which reads $defs)."""
    schema = Scenario.model_json_schema()
    defs = schema["$defs"]
    seen: set[str] = set()
    out: set[str] = set()

    def visit(node, owner: str) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if ref:
                name = ref.rsplit("/", 1)[-1]
                if name not in seen:
                    seen.add(name)
                    visit(defs[name], name)
                return
            for prop, sub in node.get("properties", {}).items():
                out.add(f"{owner}.{prop}")
                visit(sub, owner)
            for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
                for sub in node.get(key, []):
                    visit(sub, owner)
            for key in ("items", "additionalProperties"):
                if isinstance(node.get(key), dict):
                    visit(node[key], owner)
            if "discriminator" in node:
                for ref_ in node["discriminator"].get("mapping", {}).values():
                    visit({"$ref": ref_}, owner)

    visit(schema, "Scenario")
    return out


def test_the_schema_walk_reaches_every_definition():
    walked = _walk_schema()
    assert walked == schema_fields()
    assert {"Link.jitter_ms", "AccessPointNode.rate_table", "Waypoint.t_s", "TransportSettings.rbuf_bytes"} <= walked


@pytest.mark.parametrize("engine", sorted(DECLARATIONS))
def test_every_engine_declares_every_schema_field(engine):
    missing, stale = undeclared(DECLARATIONS[engine])
    assert not missing, f"engine {engine}: no declaration for {sorted(missing)}"
    assert not stale, f"engine {engine}: declarations of fields the schema lacks: {sorted(stale)}"
    for name, decl in DECLARATIONS[engine].items():
        assert isinstance(decl, (Honours, Refuses, Describes)), name
        assert (getattr(decl, "how", None) or getattr(decl, "reason", None) or getattr(decl, "what", "")).strip(), name


def test_every_registered_engine_has_its_declaration():
    assert ENGINES["fluid"].fields is fluid.FIELDS


def test_a_field_without_a_declaration_is_refused_by_its_path(naval_direct):
    partial = {k: v for k, v in fluid.FIELDS.items() if k != "Link.jitter_ms"}
    with pytest.raises(EngineCannotRun, match=r"^links\[0\]\.jitter_ms: engine fluid does not declare"):
        check_fields(naval_direct, partial, "fluid")


def test_a_refused_field_is_refused_only_when_set(naval_direct):
    check_fields(naval_direct, mininet_wifi.FIELDS | {"AccessPointNode.association_delay_s": Honours("t")}, "m")
    doc = copy.deepcopy(naval_direct)
    doc["flows"][1]["size_bytes"] = 1_000_000
    with pytest.raises(EngineCannotRun) as exc:
        check_fields(doc, mininet_wifi.FIELDS | {"AccessPointNode.association_delay_s": Honours("t")}, "mininet-wifi")
    assert str(exc.value).startswith("flows[1].size_bytes=1000000: engine mininet-wifi does not honour it")


def test_the_linux_engine_refuses_a_rate_table_by_its_path(naval_direct):
    naval_direct["nodes"][2]["rate_table"] = [{"distance_m": 100, "bandwidth_mbps": 10}]
    with pytest.raises(EngineCannotRun, match=r"^nodes\[2\]\.rate_table=.*not supported by the linux engine"):
        check_fields(naval_direct, linux.FIELDS, "linux")


WIRED_CAPTURE = {
    "name": "capture", "nodes": [{"id": "a", "kind": "host"}, {"id": "b", "kind": "host"}],
    "links": [{"id": "a-b", "src": "a", "dst": "b", "bandwidth_mbps": 10}],
    "flows": [{"id": "f", "src": "a", "dst": "b"}], "run": {"duration_s": 5}, "capture": ["a-b"],
}


@pytest.mark.parametrize("engine", ["fluid", "mininet-wifi"])
def test_engines_without_packets_refuse_a_capture_naming_the_field(engine):
    """Only the linux engine records packets; the others refuse ``capture`` through the registry (the path of
    the agent and the CLI) before anything runs, naming the field."""
    plan = resolve_plan(WIRED_CAPTURE, "sptcp", engine)
    with pytest.raises(EngineCannotRun, match=rf"^capture=\['a-b'\]: engine {engine} does not honour it "
                                              r"\(.*packet capture needs the linux engine"):
        all_engines()[engine].check(plan)  # mininet-wifi: whether or not this host has it
    if engine == "fluid":
        with pytest.raises(EngineCannotRun, match=r"^capture="):
            run_plan(plan)
    check_fields(WIRED_CAPTURE, linux.FIELDS, "linux")  # the linux engine honours it
    without = {k: v for k, v in WIRED_CAPTURE.items() if k != "capture"}
    all_engines()[engine].check(resolve_plan(without, "sptcp", engine))


def test_a_capture_names_links_of_the_scenario_once():
    doc = copy.deepcopy(WIRED_CAPTURE)
    doc["capture"] = ["a-b", "nope", "a-b"]
    with pytest.raises(ScenarioInvalid) as exc:
        load_scenario(doc)
    assert [(e["loc"], e["msg"]) for e in exc.value.errors] == [
        (["capture", 1], "unknown link 'nope'"), (["capture", 2], "link 'a-b' is listed twice")]


def _with_jitter(doc: dict, jitter_ms: float) -> dict:
    doc = copy.deepcopy(doc)
    for link in doc["links"]:
        link["jitter_ms"] = jitter_ms
    return doc


def test_fluid_honours_jitter_it_changes_the_timelines(naval_direct):
    """jitter_ms 200 on every link changes the fluid engine's throughput timelines and its RTO events."""
    plain = run_plan(resolve_plan(naval_direct, "sptcp"))
    jittery = run_plan(resolve_plan(_with_jitter(naval_direct, 200.0), "sptcp"))
    a = [f.throughput_mbps for f in plain.flows]
    b = [f.throughput_mbps for f in jittery.flows]
    assert a != b
    rto = lambda out: sorted(e.rto_s for e in out.events if e.kind == "rto")  # noqa: E731
    # the RTT variance raises the retransmission timeout the handover waits for
    assert rto(jittery) and max(rto(jittery)) > max(rto(plain) or [0.0])


def test_the_agent_refuses_a_field_its_engine_does_not_honour_with_422(naval_direct, monkeypatch):
    partial = {k: v for k, v in fluid.FIELDS.items()}
    partial["Link.jitter_ms"] = Refuses("test declaration")
    monkeypatch.setitem(ENGINES, "fluid", ENGINES["fluid"].__class__(
        **{**ENGINES["fluid"].__dict__, "fields": partial}))
    plan = resolve_plan(_with_jitter(naval_direct, 5.0), "sptcp")
    client = TestClient(app)
    r = client.post("/runs", json=plan.model_dump(mode="json"),
                    headers={"Authorization": f"Bearer {settings.agent_token}"})
    assert r.status_code == 422
    assert r.json()["detail"][0]["msg"].startswith("links[0].jitter_ms=5: engine fluid does not honour it")
    caps = client.get("/capabilities", headers={"Authorization": f"Bearer {settings.agent_token}"}).json()
    fields = next(e for e in caps["engines"] if e["name"] == "fluid")["fields"]
    # fluid refuses only a mobility model on a satellite (it moves on its ephemeris) and packet capture besides the
    # test's declaration: it runs every flow kind (subflow_engines.fluid.cbr) in its DiffServ class
    # (subflow_engines.fluid.classes)
    kinds = {f: d.reason for f, d in {**flow_kind_fields(), **queueing_fields()}.items()
             if isinstance(fluid.FIELDS[f], Refuses)}
    assert kinds == {}
    assert fields["refuses"] == {"Link.jitter_ms": "test declaration",
                                 "SatelliteNode.mobility": fluid.FIELDS["SatelliteNode.mobility"].reason,
                                 "Scenario.capture": fluid.FIELDS["Scenario.capture"].reason, **kinds}


@pytest.mark.parametrize(("engine", "flow", "field"), [
    *(("mininet-wifi", flow, field) for flow, field in [
        ({"kind": "voice", "voice": {"codec": "g729a", "silence_suppression": True}}, "kind='voice'"),
        ({"kind": "udp", "rate_mbps": 1.0}, "kind='udp'"),
        ({"kind": "video", "video": {"bitrate_mbps": 2.0}}, "kind='video'"),
        ({"dscp": "EF"}, "dscp='EF'")]),
])
def test_engines_refuse_flows_beyond_what_they_run_naming_the_field(engine, flow, field):
    """mininet-wifi runs no udp, voice or video sources or priority classes (fluid and linux run them all): it
    refuses them by the field's path, through the registry (the agent's and the CLI's path) before anything runs;
    a tcp flow marked BE still runs."""
    doc = {**WIRED_CAPTURE, "capture": []}
    doc["flows"] = [{"id": "f", "src": "a", "dst": "b", **flow}]
    with pytest.raises(EngineCannotRun, match=rf"^flows\[0\]\.{field}: engine {engine} does not honour it \("):
        all_engines()[engine].check(resolve_plan(doc, "sptcp", engine))
    plain = {**doc, "flows": [{"id": "f", "src": "a", "dst": "b", "kind": "tcp", "dscp": "BE"}]}
    all_engines()[engine].check(resolve_plan(plain, "sptcp", engine))


@pytest.mark.parametrize("flow", [
    {"kind": "voice", "voice": {"codec": "g729a", "silence_suppression": True, "playout_delay_ms": 60}},
    {"kind": "udp", "rate_mbps": 1.0, "udp": {"pattern": "on_off", "periods": "pareto", "pareto_shape": 2.5}},
    {"kind": "video", "video": {"bitrate_mbps": 2.0, "gop_frames": 12, "playout_delay_ms": 100}},
])
@pytest.mark.parametrize("engine", ["fluid", "linux"])
def test_fluid_and_linux_run_on_off_voice_and_video_sources(flow, engine):
    """Both engines honour every field of the three sources (linux sends the fluid engine's schedule,
    subflow_engines.linux.schedule): the registry's check passes; only EDCA stays refused by linux (below)."""
    doc = {**WIRED_CAPTURE, "capture": [], "flows": [{"id": "f", "src": "a", "dst": "b", **flow}]}
    all_engines()[engine].check(resolve_plan(doc, "sptcp", engine))
    assert not any(isinstance(all_engines()[engine].fields[f], Refuses) for f in FLOW_KIND_FIELDS)


def test_the_flow_kind_fields_are_the_schemas():
    """The declared list covers exactly the schema's fields of the three sources and Flow's new fields."""
    fields = schema_fields()
    sources = {f for f in fields if f.split(".")[0] in ("UdpSource", "VoiceSource", "VideoSource")}
    assert sources | {"Flow.kind", "Flow.udp", "Flow.voice", "Flow.video"} == set(FLOW_KIND_FIELDS)


def test_the_linux_engine_runs_cbr_udp_and_voice_in_priority_classes_but_not_edca():
    """linux honours cbr udp and voice flows, their DSCP and queues by class (strict_priority, drr); it has no
    802.11 MAC, so EDCA is refused naming queueing.wifi."""
    doc = {**WIRED_CAPTURE, "capture": [], "queueing": {"discipline": "strict_priority"}}
    doc["flows"] = [{"id": "f", "src": "a", "dst": "b"},
                    {"id": "v", "src": "a", "dst": "b", "kind": "voice", "dscp": "EF"},
                    {"id": "u", "src": "a", "dst": "b", "kind": "udp", "rate_mbps": 1.0, "dscp": "AF41"}]
    all_engines()["linux"].check(resolve_plan(doc, "sptcp", "linux"))
    all_engines()["linux"].check(resolve_plan({**doc, "queueing": {"discipline": "drr"}}, "sptcp", "linux"))
    with pytest.raises(EngineCannotRun, match=r"^queueing\.wifi='edca': engine linux does not honour it \(.*802\.11"):
        all_engines()["linux"].check(resolve_plan({**doc, "queueing": {"wifi": "edca"}}, "sptcp", "linux"))
