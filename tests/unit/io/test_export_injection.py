"""No way in through the exports: text a user writes never becomes code or a shell command.

Every free-text field of a scenario (name, description, node labels) carries payloads that
would run ``touch pwned`` if pasted into the generated Mininet-WiFi script or a shell; every
identifier field (node, link, flow, network ids and references) is refused before anything
is generated. The generated script is

* compared with the script of the same scenario without the payload: its syntax tree is the
  same once string constants are blanked (the payload changed data, not code);
* executed for real, in a subprocess whose working directory is a fresh folder, against a
  *fake* ``mininet``/``mn_wifi`` package (the boundary we cannot reach on CI: Mininet-WiFi
  needs mac80211_hwsim and root) that records every call and shell command; the payload
  must come back intact as data, no recorded command may contain it, and no file appears.

The ns-2 trace (a Tcl script) keeps only a fixed set of characters in its comments.
"""

from __future__ import annotations

import ast
import copy
import re
from pathlib import Path

import pytest

from subflow.errors import ScenarioInvalid
from subflow.io.exports import generate_script, ns2_setdest, script_for
from subflow.runplan.document import FlowPlan
from subflow.runplan.resolve import resolve_plan

from tests.conftest import load_example
from tests.unit.io.fake_mininet_wifi import run_with_fake_mininet

PAYLOADS = [
    'x"""+__import__("os").system("touch pwned")+"""',
    "x'''+__import__('os').system('touch pwned')+'''",
    "x'+__import__('os').system('touch pwned')+'",
    'x\n__import__("os").system("touch pwned")\n#',
    "x\\\n__import__('os').system('touch pwned')",
    "x\r__import__('os').system('touch pwned')",
    "x\u2028__import__('os').system('touch pwned')\x0c",
    '$(touch pwned); `touch pwned`; "; touch pwned; #',
    "{*}[exec touch pwned] $::env(HOME) \\",
]

def _with_text(doc: dict, text: str) -> dict:
    """``doc`` with ``text`` in every free-text field: name, description, every node's label."""
    out = copy.deepcopy(doc)
    out["name"] = text
    out["description"] = text
    for n in out["nodes"]:
        n["label"] = text
    return out


def _shape(src: str) -> str:
    """The syntax tree of ``src`` with every string constant blanked."""
    tree = ast.parse(src)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            node.value = ""
    return ast.dump(tree)


def _run_with_fake_mininet(tmp_path: Path, script: str) -> dict:
    return run_with_fake_mininet(tmp_path, script)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_free_text_in_the_script_is_data(payload):
    doc = load_example("naval-direct-move")
    clean = script_for(_with_text(doc, "plain"), "mptcp")
    src = script_for(_with_text(doc, payload), "mptcp")
    assert _shape(src) == _shape(clean)  # same code, only string constants differ
    assert "touch pwned" not in "\n".join(ln for ln in src.splitlines() if not ln.lstrip().startswith("SCENARIO ="))


@pytest.mark.parametrize("payload", [PAYLOADS[0], PAYLOADS[3], PAYLOADS[7]])
def test_script_with_injections_runs_as_data_against_a_fake_mininet(tmp_path, payload):
    doc = _with_text(load_example("naval-direct-move"), payload)
    plan = resolve_plan(doc, "mptcp", "mininet-wifi")
    # a plan that skipped validation (as if posted by hand): the strategy is text too
    plan.strategy = payload
    result = _run_with_fake_mininet(tmp_path, generate_script(plan))
    assert result["scenario"]["name"] == payload and result["scenario"]["strategy"] == payload
    assert result["scenario"]["flows"] == ["f1", "f2"]
    commands = [c[2] for c in result["calls"] if c[0] == "cmd"]
    assert len(commands) > 10
    for c in commands:
        assert "pwned" not in c and "$(" not in c and "`" not in c
    iperf = [c for c in commands if "iperf3" in c]
    assert len(iperf) == 4  # a server and a client per flow, output files named by port
    files = r"/tmp/subflow-fake-\w+/520[12]-(server|client)"
    assert all(re.search(rf"> {files}\.json 2> {files}\.err &$", c) for c in iperf)
    added = {c[1] for c in result["calls"] if c[0] in ("addHost", "addStation", "addAccessPoint")}
    assert added == {"h1", "r1", "ap1", "sta1", "sta2"}


def test_a_flow_id_that_skipped_validation_stays_data(tmp_path):
    plan = resolve_plan(load_example("naval-direct-move"), "sptcp", "mininet-wifi")
    # FlowPlan refuses it when validated; model_construct is how a bypass would look
    plan.flows[0] = FlowPlan.model_construct(**{**dict(plan.flows[0]), "id": PAYLOADS[7]})
    src = generate_script(plan)
    result = _run_with_fake_mininet(tmp_path, src)
    assert result["scenario"]["flows"][0] == PAYLOADS[7]
    assert not any("pwned" in c[2] for c in result["calls"] if c[0] == "cmd")


@pytest.mark.parametrize(
    "where",
    [
        ("nodes", 0, "id"), ("nodes", 2, "network"), ("links", 0, "id"), ("links", 0, "src"),
        ("flows", 0, "id"), ("flows", 0, "dst"),
    ],
)
@pytest.mark.parametrize("payload", [PAYLOADS[0], PAYLOADS[3], PAYLOADS[7], "ok\n"])
def test_identifiers_with_code_are_refused(where, payload):
    doc = load_example("naval-direct-move")
    part, index, field = where
    doc[part][index][field] = payload
    with pytest.raises(ScenarioInvalid) as err:
        script_for(doc, "sptcp")
    assert any(e["loc"][:2] == [part, index] and e["loc"][-1] == field for e in err.value.errors), err.value.errors
    with pytest.raises(ScenarioInvalid):
        ns2_setdest(doc)


def test_plan_flow_ids_are_identifiers():
    plan = resolve_plan(load_example("naval-direct-move"), "sptcp", "fluid")
    body = plan.model_dump(mode="json")
    body["flows"][0]["id"] = "../../etc/x"
    with pytest.raises(ValueError, match="flows.0.id"):
        type(plan).model_validate(body)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_ns2_trace_comments_keep_only_plain_characters(payload):
    doc = _with_text(load_example("naval-direct-move"), payload)
    trace = ns2_setdest(doc)
    lines = trace.split("\n")
    assert lines[-1] == "" and len(lines) == len(ns2_setdest(_with_text(doc, "plain")).split("\n"))
    for ln in lines[:-1]:
        if ln.startswith("#"):
            assert re.fullmatch(r"#[A-Za-z0-9 _.,:;()+=@/'-]*", ln), ln
        else:
            assert re.fullmatch(r'\$node_\(\d+\) set [XYZ]_ -?[0-9.]+|\$ns_ at [0-9.]+ "\$node_\(\d+\) setdest '
                                r'-?[0-9.]+ -?[0-9.]+ [0-9.]+"', ln), ln
