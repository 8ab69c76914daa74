"""The planning commands (routes, allocate, import): same numbers as the library, clear errors.

``planning_app`` is tested on its own; ``subflow_cli.main`` registers its
commands at the top level.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from subflow.io.imports import load_network
from subflow.planning.fdm import allocate_fdm
from subflow.planning.network import Network
from subflow.planning.shortest_paths import compute_routes
from subflow_cli.planning import planning_app

from tests.conftest import EXAMPLES, load_example
from tests.unit.planning_helpers import SNDLIB, ZOO, data_file

runner = CliRunner()
HSLN = str(EXAMPLES / "hsln-10node.json")


def test_routes_json_is_the_library_document():
    out = runner.invoke(planning_app, ["routes", HSLN, "--metric", "tcpbp", "--k", "2", "--pairs", "s1:s10,s2:s6", "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    net = Network.from_scenario(load_example("hsln-10node"))
    library = json.loads(compute_routes(net, "tcpbp", 2, [("s1", "s10"), ("s2", "s6")]).model_dump_json())
    # a scenario's routes are those of its network over the run; hsln-10node's is fixed: one window, all of it
    assert {key: doc[key] for key in library} == library
    assert doc["t_s"] is None and [(w["t_start_s"], w["t_end_s"]) for w in doc["windows"]] == [(0.0, doc["duration_s"])]
    assert doc["windows"][0]["routes"] == doc["routes"]
    assert doc["routes"][0]["paths"][0]["nodes"] == ["s1", "s3", "s4", "s10"]
    assert doc["greedy_differs"][0]["src"] == "s2"


def test_routes_all_pairs_table():
    out = runner.invoke(planning_app, ["routes", HSLN, "--metric", "hop"])
    assert out.exit_code == 0, out.output
    assert "s1 → s5 → s10" in out.stdout


def test_routes_on_graphml_and_sndlib_files():
    out = runner.invoke(planning_app, ["routes", str(data_file(ZOO / "Abilene.graphml")), "--metric", "delay",
                                       "--pairs", "n0:n10", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["routes"][0]["reachable"] is True
    out = runner.invoke(planning_app, ["routes", str(data_file(SNDLIB / "abilene.txt")), "--metric", "hop",
                                       "--pairs", "ATLAM5:SNVAng", "--json"])
    assert out.exit_code == 0, out.output


def test_allocate_json_is_the_library_document():
    path = data_file(SNDLIB / "nobel-us.txt")
    out = runner.invoke(planning_app, ["allocate", str(path), "--method", "fdm", "--demand-scale", "0.02", "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    lib = allocate_fdm(load_network(path), demand_scale=0.02)
    assert doc["sum_flow_over_residual"] == pytest.approx(lib.sum_flow_over_residual, rel=1e-12)
    assert doc["gamma"] == pytest.approx(5420 * 0.02)
    assert doc["tempered"] == 1.0 and doc["method"] == "fdm"
    assert len(doc["demands"]) == 91 and len(doc["links"]) == 42


def test_allocate_table(tmp_path):
    out = runner.invoke(planning_app, ["allocate", str(data_file(SNDLIB / "abilene.txt")), "--demand-scale", "0.008"])
    assert out.exit_code == 0, out.output
    assert "FDM" in out.stdout and "busiest links" in out.stdout


def test_import_writes_a_valid_scenario(tmp_path):
    dest = tmp_path / "geant.json"
    out = runner.invoke(planning_app, ["import", str(data_file(ZOO / "Geant2012.graphml")), "-o", str(dest)])
    assert out.exit_code == 0, out.output
    assert "40 nodes, 61 links" in out.stdout
    from subflow.scenario.document import load_scenario

    sc = load_scenario(json.loads(dest.read_text()))
    assert len(sc.links) == 61
    again = runner.invoke(planning_app, ["routes", str(dest), "--metric", "tcpbp", "--pairs", "n0:n1", "--json"])
    assert again.exit_code == 0, again.output


@pytest.mark.parametrize(
    "args, words",
    [
        (["routes", HSLN, "--metric", "latency"], "unknown metric"),
        (["routes", HSLN, "--pairs", "s1:nowhere"], "unknown node 'nowhere'"),
        (["routes", HSLN, "--k", "0"], "--k"),
        (["routes", "missing.json"], "missing.json"),
        (["allocate", HSLN], "no demands"),
        (["allocate", HSLN, "--method", "lp"], "unknown method"),
    ],
)
def test_bad_input_exits_2_with_a_message(args, words):
    out = runner.invoke(planning_app, args)
    assert out.exit_code == 2
    assert words in out.output


def test_invalid_link_values_are_named(tmp_path):
    doc = load_example("hsln-10node")
    doc["links"][3]["loss"] = 1.5
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    out = runner.invoke(planning_app, ["routes", str(bad)])
    assert out.exit_code == 2 and "links.3.loss" in out.output
    graphml = tmp_path / "bad.graphml"
    graphml.write_text(
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><key id="d" for="edge" attr.name="delay_ms" '
        'attr.type="double"/><graph edgedefault="undirected"><node id="a"/><node id="b"/>'
        '<edge id="uplink" source="a" target="b"><data key="d">-4</data></edge></graph></graphml>'
    )
    out = runner.invoke(planning_app, ["routes", str(graphml)])
    assert out.exit_code == 2 and "'uplink'" in out.output and "delay" in out.output
    zero = tmp_path / "zero.txt"
    zero.write_text(
        "?SNDlib native format; type: network; version: 1.0\nNODES (\n A ( 0 0 )\n B ( 1 1 )\n)\n"
        "LINKS (\n L9 ( A B ) 0.00 0.00 0.00 0.00 ( )\n)\nDEMANDS (\n D ( A B ) 1 5.00 UNLIMITED\n)\n"
    )
    out = runner.invoke(planning_app, ["allocate", str(zero)])
    assert out.exit_code == 2 and "'L9'" in out.output and "zero capacity" in out.output


def test_main_app_registration_line_works():
    import typer

    from subflow_cli.main import app

    combined = typer.Typer()
    combined.registered_commands += app.registered_commands + planning_app.registered_commands
    out = runner.invoke(combined, ["routes", HSLN, "--metric", "delay", "--pairs", "s1:s10", "--json"])
    assert out.exit_code == 0, out.output
    out = runner.invoke(combined, ["strategies"])
    assert out.exit_code == 0


def test_routes_summary_counts_links_and_keeps_the_costliest():
    out = runner.invoke(planning_app, ["routes", HSLN, "--metric", "hop", "--summary", "3", "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    assert doc["pairs_total"] == 90 and doc["truncated"] and len(doc["routes"]) == 3
    full = json.loads(runner.invoke(planning_app, ["routes", HSLN, "--metric", "hop", "--json"]).stdout)
    assert [r["paths"][0]["cost"] for r in doc["routes"]] == sorted((r["paths"][0]["cost"] for r in full["routes"]),
                                                                    reverse=True)[:3]
    assert sum(u["routes"] for u in doc["link_use"]) == sum(r["paths"][0]["hops"] for r in full["routes"])
    table = runner.invoke(planning_app, ["routes", HSLN, "--metric", "hop", "--summary", "3"])
    assert table.exit_code == 0 and "Busiest links" in table.output
    bad = runner.invoke(planning_app, ["routes", HSLN, "--summary", "2", "--k", "2"])
    assert bad.exit_code != 0 and "summary_limit" in bad.output and "k must be 1" in bad.output


def test_routes_and_allocation_at_a_time_on_a_scenario():
    """``--at`` routes on the network then (naval-leo: the UAV path while the ship is in its range, a LEO one
    otherwise); the table says which time it shows and lists the windows of the whole run; a time after the run
    is refused naming ``t_s``."""
    leo = str(EXAMPLES / "naval-leo.json")
    at = json.loads(runner.invoke(planning_app, ["routes", leo, "--metric", "delay", "--pairs", "ship1:shore",
                                                 "--at", "100", "--json"]).stdout)
    assert at["t_s"] == 100.0 and at["routes"][0]["paths"][0]["nodes"] == ["ship1", "uav", "shore"]
    later = json.loads(runner.invoke(planning_app, ["routes", leo, "--metric", "delay", "--pairs", "ship1:shore",
                                                    "--at", "300", "--json"]).stdout)
    assert later["routes"][0]["paths"][0]["nodes"][1].startswith("leo-")
    table = runner.invoke(planning_app, ["routes", leo, "--metric", "delay", "--pairs", "ship1:shore"])
    assert table.exit_code == 0 and "at the run's start" in table.output and "Over the run" in table.output
    late = runner.invoke(planning_app, ["routes", leo, "--pairs", "ship1:shore", "--at", "901"])
    assert late.exit_code == 2 and "t_s" in late.output and "after the run's end" in late.output
    alloc = runner.invoke(planning_app, ["allocate", str(EXAMPLES / "uav-backhaul-planning.json"),
                                         "--at", "5"])
    assert alloc.exit_code == 0 and "at t = 5 s" in alloc.output and "propagation delay included" in alloc.output
