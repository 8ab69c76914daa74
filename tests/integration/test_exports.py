"""Scenario exports over REST: JSON round trip, Mininet-WiFi script, ns-2 trace."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration


def test_exports(pg_stack, example):
    doc = example()
    sid = pg_stack.api.post("/scenarios", json=doc).json()["id"]
    r = pg_stack.api.get(f"/scenarios/{sid}/export", params={"format": "json"})
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    again = r.json()
    assert again["name"] == doc["name"] and len(again["links"]) == len(doc["links"])
    r = pg_stack.api.get(f"/scenarios/{sid}/export", params={"format": "mininet-wifi", "strategy": "mptcp"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/x-python")
    script = r.text
    compile(script, "exported.py", "exec")  # a valid standalone Python program
    assert "mn_wifi" in script and "mptcpize" in script and "setPropagationModel" in script
    r = pg_stack.api.get(f"/scenarios/{sid}/export", params={"format": "ns2"})
    assert r.status_code == 200 and "setdest" in r.text
    assert pg_stack.api.get(f"/scenarios/{sid}/export", params={"format": "pdf"}).status_code == 422
    r = pg_stack.api.get(f"/scenarios/{sid}/export", params={"format": "mininet-wifi", "strategy": "warp"})
    assert r.status_code == 422
    assert pg_stack.api.get("/scenarios/nope/export").status_code == 404


INJECTION = 'x"""+__import__("os").system("touch pwned")+"""'


def test_export_of_a_scenario_named_with_code_carries_the_name_as_data(pg_stack, example, tmp_path):
    """The issue's payload as name, description and labels: the exported script runs no command."""
    import ast
    import json

    doc = example()
    clean_name = doc["name"]
    doc.update(name=f"{INJECTION} {clean_name[-8:]}", description=INJECTION)
    for n in doc["nodes"]:
        n["label"] = INJECTION[:80]
    r = pg_stack.api.post("/scenarios", json=doc)
    assert r.status_code == 201, r.text
    sid = r.json()["id"]
    r = pg_stack.api.get(f"/scenarios/{sid}/export", params={"format": "mininet-wifi", "strategy": "sptcp"})
    assert r.status_code == 200
    assert "/" not in r.headers["content-disposition"].split("filename=")[1]
    tree = ast.parse(r.text)
    # the only place the name appears is the SCENARIO data literal, which evaluates to the name itself
    (assign,) = [s for s in tree.body if isinstance(s, ast.Assign) and getattr(s.targets[0], "id", "") == "SCENARIO"]
    call = assign.value
    assert isinstance(call, ast.Call) and ast.unparse(call.func) == "json.loads"
    assert json.loads(call.args[0].value)["name"] == doc["name"]
    body_lines = [ln for ln in r.text.splitlines() if not ln.startswith("SCENARIO = ")]
    assert not any("pwned" in ln for ln in body_lines)
    # run its module level (constants, the data literal, function definitions) with no Mininet at all:
    # the payload must not run (imports of mininet are replaced by empty stand-ins)
    module = "\n".join(ln for ln in r.text.splitlines() if not ln.startswith(("from mininet", "from mn_wifi")))
    code = compile(module.replace('if __name__ == "__main__":', "if False:"), "exported.py", "exec")
    import os

    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        namespace: dict = {"__name__": "exported"}
        exec(code, namespace)  # noqa: S102 - the point of the test: executing it does nothing
    finally:
        os.chdir(cwd)
    assert namespace["SCENARIO"]["name"] == doc["name"] and list(tmp_path.iterdir()) == []
    r = pg_stack.api.get(f"/scenarios/{sid}/export", params={"format": "ns2"})
    assert r.status_code == 200 and '"' not in r.text.splitlines()[0] and "pwned" in r.text.splitlines()[0]
