"""Flow kinds beyond bulk TCP in the scenario document: udp, voice and video sources and DiffServ classes.

The default stays a tcp flow marked BE, so every stored scenario and every example keeps validating and reads
back unchanged; bad input is refused naming the field."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from subflow.errors import ScenarioInvalid
from subflow.scenario.document import DSCP_CODEPOINTS, Flow, load_scenario, scenario_json_schema

ROOT = Path(__file__).resolve().parents[3]
BASE = {
    "name": "kinds", "nodes": [{"id": "a", "kind": "host"}, {"id": "b", "kind": "host"}],
    "links": [{"id": "a-b", "src": "a", "dst": "b", "bandwidth_mbps": 10}], "run": {"duration_s": 10},
}


def _with(**flow) -> dict:
    return {**copy.deepcopy(BASE), "flows": [{"id": "f", "src": "a", "dst": "b", **flow}]}


def _errors(doc: dict) -> list[tuple[list, str]]:
    with pytest.raises(ScenarioInvalid) as info:
        load_scenario(doc)
    return [(e["loc"], e["msg"]) for e in info.value.errors]


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*.json")), ids=lambda p: p.name)
def test_stored_scenarios_keep_validating_as_tcp_best_effort(path):
    """Examples whose flows name no kind (written before flow kinds) read as tcp best effort; one that names
    kinds (naval-voice) reads them back as stored."""
    doc = json.loads(path.read_text())
    sc = load_scenario(doc)
    stored_kinds = [f.get("kind", "tcp") for f in doc.get("flows", [])]
    assert [f.kind for f in sc.flows] == stored_kinds
    assert all(f.dscp == doc["flows"][i].get("dscp", "BE") for i, f in enumerate(sc.flows))
    assert all((f.udp, f.voice, f.video) == (None, None, None) for f in sc.flows if f.kind == "tcp")
    # the defaults are left out of a dump without defaults: a stored document reads back as it was
    for stored, flow in zip(doc.get("flows", []), sc.flows):
        assert set(flow.model_dump(exclude_defaults=True)) <= set(stored)


def test_each_kind_validates_with_its_settings():
    sc = load_scenario({**copy.deepcopy(BASE), "flows": [
        {"id": "u", "src": "a", "dst": "b", "kind": "udp", "rate_mbps": 2.0, "dscp": "AF41",
         "udp": {"pattern": "on_off", "periods": "pareto", "mean_on_s": 0.5, "mean_off_s": 1.5, "pareto_shape": 1.2}},
        {"id": "v", "src": "a", "dst": "b", "kind": "voice", "dscp": "EF"},
        {"id": "o", "src": "a", "dst": "b", "kind": "voice", "voice": {"codec": "opus", "opus_bitrate_kbps": 24}},
        {"id": "w", "src": "b", "dst": "a", "kind": "video", "dscp": "AF41",
         "video": {"bitrate_mbps": 3.5, "frame_rate_fps": 25, "gop_frames": 50}},
    ]})
    u, v, o, w = sc.flows
    assert (u.udp.pattern, u.udp.periods, u.udp.packet_bytes) == ("on_off", "pareto", 1200)
    assert v.voice is None and v.dscp == "EF"  # null settings: G.711 every 20 ms
    assert (o.voice.codec, o.voice.opus_bitrate_kbps, o.voice.packet_interval_ms) == ("opus", 24, 20.0)
    assert (w.video.bitrate_mbps, w.video.gop_frames) == (3.5, 50)
    assert load_scenario(sc.model_dump(mode="json")) == sc


@pytest.mark.parametrize(("flow", "loc", "words"), [
    ({"kind": "udp"}, ["flows", 0, "rate_mbps"], "udp flow sends at rate_mbps"),
    ({"kind": "voice", "rate_mbps": 1.0}, ["flows", 0, "rate_mbps"], "leave rate_mbps null"),
    ({"kind": "video"}, ["flows", 0, "video"], "needs its encoder"),
    ({"kind": "video", "video": {"bitrate_mbps": 1}, "rate_mbps": 1}, ["flows", 0, "rate_mbps"], "leave rate_mbps"),
    ({"voice": {"codec": "g711"}}, ["flows", 0, "voice"], "need kind 'voice'"),
    ({"kind": "udp", "rate_mbps": 1, "video": {"bitrate_mbps": 1}}, ["flows", 0, "video"], "need kind 'video'"),
    ({"kind": "udp", "rate_mbps": 1, "size_bytes": 1000}, ["flows", 0, "size_bytes"], "tcp flow's"),
    ({"kind": "sctp"}, ["flows", 0, "kind"], "'tcp', 'udp', 'voice' or 'video'"),
    ({"dscp": "AF44"}, ["flows", 0, "dscp"], "'EF'"),
    ({"kind": "voice", "voice": {"codec": "opus"}}, ["flows", 0, "voice"], "opus_bitrate_kbps is required"),
    ({"kind": "voice", "voice": {"codec": "g711", "opus_bitrate_kbps": 20}}, ["flows", 0, "voice"],
     "opus_bitrate_kbps"),
    ({"kind": "voice", "voice": {"codec": "g729a", "packet_interval_ms": 25}}, ["flows", 0, "voice"],
     "packet_interval_ms"),
    ({"kind": "voice", "voice": {"packet_interval_ms": 5}}, ["flows", 0, "voice", "packet_interval_ms"],
     "greater than or equal to 10"),
    ({"kind": "voice", "voice": {"codec": "amr"}}, ["flows", 0, "voice", "codec"], "'g711'"),
    ({"kind": "udp", "rate_mbps": 1, "udp": {"pareto_shape": 1.0}}, ["flows", 0, "udp", "pareto_shape"],
     "greater than 1"),
    ({"kind": "udp", "rate_mbps": 1, "udp": {"mean_on_s": 0}}, ["flows", 0, "udp", "mean_on_s"], "greater than 0"),
    ({"kind": "video", "video": {"bitrate_mbps": 1, "gop_frames": 0}}, ["flows", 0, "video", "gop_frames"],
     "greater than or equal to 1"),
    ({"kind": "udp", "rate_mbps": 1, "udp": {"burst": 3}}, ["flows", 0, "udp", "burst"], "extra"),
])
def test_bad_flow_kinds_are_refused_naming_the_field(flow, loc, words):
    errors = _errors(_with(**flow))
    matching = [msg for l, msg in errors if l[: len(loc)] == loc]
    assert matching, f"no error at {loc}; got {errors}"
    assert any(words.lower() in msg.lower() for msg in matching), matching


def test_the_schema_documents_kinds_and_classes():
    schema = scenario_json_schema()
    flow = schema["$defs"]["Flow"]["properties"]
    assert flow["kind"]["default"] == "tcp" and flow["dscp"]["default"] == "BE"
    assert set(flow["dscp"]["enum"]) == set(DSCP_CODEPOINTS)
    for name in ("UdpSource", "VoiceSource", "VideoSource"):
        assert all(p.get("description") for p in schema["$defs"][name]["properties"].values()), name


def test_dscp_code_points_by_their_rfcs():
    # EF 101110 (RFC 3246 §2.1); AFxy = 8x + 2y (RFC 2597 §6: AF11 001010 ... AF43 100110); CSx = 8x (RFC 2474)
    assert DSCP_CODEPOINTS["EF"] == 0b101110 and DSCP_CODEPOINTS["BE"] == 0
    for x in range(1, 5):
        for y in range(1, 4):
            assert DSCP_CODEPOINTS[f"AF{x}{y}"] == 8 * x + 2 * y
    assert [DSCP_CODEPOINTS[f"CS{x}"] for x in range(1, 8)] == [8 * x for x in range(1, 8)]


def test_a_flow_alone_keeps_the_tcp_defaults():
    f = Flow.model_validate({"id": "f", "src": "a", "dst": "b"})
    assert (f.kind, f.dscp, f.udp, f.voice, f.video) == ("tcp", "BE", None, None, None)


def _queueing(**q) -> dict:
    return {**copy.deepcopy(BASE), "queueing": q}


def test_queueing_defaults_to_fifo_and_dcf():
    s = load_scenario(copy.deepcopy(BASE))
    assert (s.queueing.discipline, s.queueing.classes, s.queueing.wifi) == ("fifo", None, "dcf")


@pytest.mark.parametrize(("q", "loc", "words"), [
    ({"discipline": "wfq"}, ["queueing", "discipline"], "fifo"),
    ({"discipline": "drr", "classes": [{"name": "v", "dscp": ["EF"]}, {"name": "b", "dscp": ["BE", "EF"]}]},
     ["queueing"], "EF is already in class 'v'"),
    ({"discipline": "drr", "classes": [{"name": "v", "dscp": ["EF"]}]}, ["queueing"], "must list BE"),
    ({"discipline": "strict_priority", "classes": [{"name": "v", "dscp": ["EF"]}, {"name": "b", "dscp": ["BE"]}]},
     ["queueing"], "its own priority"),
    ({"discipline": "drr", "classes": [{"name": "v", "dscp": ["EF"], "weight": 0}, {"name": "b", "dscp": ["BE"]}]},
     ["queueing", "classes", 0, "weight"], "greater than 0"),
    ({"wifi": "hcca"}, ["queueing", "wifi"], "dcf"),
])
def test_bad_queueing_is_refused_naming_the_field(q, loc, words):
    errors = _errors(_queueing(**q))
    matching = [msg for l, msg in errors if l[: len(loc)] == loc]
    assert matching, f"no error at {loc}; got {errors}"
    assert any(words.lower() in msg.lower() for msg in matching), matching


def test_default_classes_follow_rfc_8325():
    from subflow.scenario.document import DSCP_ACCESS_CATEGORY, QueueingSettings, traffic_class_of

    q = QueueingSettings(discipline="strict_priority")
    # RFC 8325 §4.3: EF and CS6 to AC_VO; AF4x, AF3x, CS5, CS4, CS3 to AC_VI; CS1 to AC_BK; the rest AC_BE
    assert traffic_class_of(q, "EF").name == "voice" and traffic_class_of(q, "CS6").name == "voice"
    assert {traffic_class_of(q, d).name for d in ("AF41", "AF33", "CS5", "CS4", "CS3")} == {"video"}
    assert traffic_class_of(q, "CS1").name == "background"
    assert {traffic_class_of(q, d).name for d in ("BE", "AF11", "AF21", "CS2", "CS7")} == {"best_effort"}
    assert set(DSCP_ACCESS_CATEGORY) == set(DSCP_CODEPOINTS)
    for d, ac in DSCP_ACCESS_CATEGORY.items():
        assert traffic_class_of(q, d).name == ac
