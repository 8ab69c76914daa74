"""ns-2 mobility import: hand-written traces with values checked by hand, the round trip with Subflow's own
export (:func:`subflow.io.exports.ns2_setdest`), refusals naming the line.

The traces follow the grammar of the ns manual §16.2.1 (``$node_(i) set X_``, ``$ns_ at t "$node_(i)
setdest x y speed"``) as BonnMotion's ``NSFile`` writes it, with the ``$god_`` lines ns-2's ``setdest``
tool adds.
"""

from __future__ import annotations

import json
import re

import pytest

from subflow.errors import ImportFailed
from subflow.io.exports import ns2_setdest
from subflow.io.formats import detect, import_file
from subflow.io.ns2 import apply_ns2_mobility, read_ns2_mobility
from subflow.scenario.document import load_scenario
from subflow.space.mobility import trajectory
from tests.conftest import load_example

BONNMOTION_STYLE = """\
$node_(0) set X_ 10.0
$node_(0) set Y_ 20.0
$node_(0) set Z_ 0.0
$node_(1) set X_ 0.0
$node_(1) set Y_ 0.0
$node_(1) set Z_ 1.5
$god_ set-dist 0 1 1
$ns_ at 1.0 "$node_(0) setdest 40.0 60.0 5.0"
$ns_ at 2.0 "$node_(1) setdest 100.0 0.0 10.0"
$ns_ at 7.0 "$node_(1) setdest 50.0 50.0 5.0"
$ns_ at 30.0 "$node_(0) setdest 40.0 60.0 0.0"
$ns_ at 3.0 "$god_ set-dist 0 1 2"
"""


def _points(node):
    return [(p.t_s, p.x_m, p.y_m) for p in node.mobility.points]


def test_setdest_semantics_checked_by_hand():
    res = read_ns2_mobility(BONNMOTION_STYLE, "walk.ns_movements")
    assert detect(BONNMOTION_STYLE) == "ns2"
    n0, n1 = res.scenario.nodes
    assert (n0.id, n0.kind, n1.id) == ("n0", "station", "n1")
    assert (n0.position.x_m, n0.position.y_m) == (10.0, 20.0)
    # node 0: waits at (10, 20) until t = 1, then 50 m at 5 m/s: arrives at t = 11; a speed of 0 at t = 30 keeps it
    assert _points(n0) == [(0.0, 10.0, 20.0), (1.0, 10.0, 20.0), (11.0, 40.0, 60.0), (30.0, 40.0, 60.0)]
    # node 1: from (0, 0) at t = 2 towards (100, 0) at 10 m/s; at t = 7 it is at (50, 0) and turns to (50, 50)
    # at 5 m/s: 50 m, arriving at t = 17
    assert _points(n1) == [(0.0, 0.0, 0.0), (2.0, 0.0, 0.0), (7.0, 50.0, 0.0), (17.0, 50.0, 50.0)]
    assert n1.position.alt_m == 1.5 and all(p.alt_m == 1.5 for p in n1.mobility.points)
    assert res.scenario.run.duration_s == 100.0


@pytest.mark.parametrize("text, named", [
    ('$node_(0) set X_ 1\n$node_(0) set Y_ 1\n$ns_ at 1 "$node_(0) move 2 2 1"\n', "line 3"),
    ("$node_(0) set X_ 1\nputs [exec rm -rf /]\n", "line 2"),
    ('$node_(0) set X_ nan\n', "line 1"),
    ('$node_(0) set X_ 1\n$ns_ at 1 "$node_(0) setdest 2 2 1"\n', "line 2: $node_(0) moves but has no initial"),
    ('$node_(0) set X_ 1\n$node_(0) set Y_ 1\n$ns_ at -1 "$node_(0) setdest 2 2 1"\n', "line 3"),
])
def test_what_is_not_understood_is_refused_naming_the_line(text, named):
    with pytest.raises(ImportFailed) as err:
        read_ns2_mobility(text, "bad.ns")
    assert named in str(err.value)


@pytest.mark.parametrize("example", ["naval-direct-move", "naval-random-walk", "uav-relay-chain"])
def test_export_then_import_gives_the_same_trajectories(example):
    sc = load_scenario(load_example(example))
    trace = ns2_setdest(sc)
    back = read_ns2_mobility(trace, "x.ns_movements").scenario
    # ids and (wired) kinds come back from the export's comments
    ordered = [n for n in sc.nodes if n.kind == "station"] + [n for n in sc.nodes if n.kind != "station"]
    assert [n.id for n in back.nodes] == [n.id for n in ordered]
    for orig, new in zip(ordered, back.nodes):
        if orig.kind not in ("access_point", "satellite"):
            assert new.kind == orig.kind
        for t in [0.0, 3.3, 17.0, 42.5, sc.run.duration_s / 2, sc.run.duration_s]:
            assert _where(new, t, back.run.duration_s) == pytest.approx(_where(orig, t, sc.run.duration_s), abs=1e-3)  # the trace prints 6 decimals
    # and writing the imported scenario again gives each node the same statements (the order of nodes may change:
    # access points come back as stations, which the export writes first)
    again, first = _statements(ns2_setdest(back)), _statements(trace)
    assert again.keys() == first.keys()
    for nid, lines in first.items():
        assert [t for t, _ in again[nid]] == [t for t, _ in lines], nid
        for (_, a), (_, b) in zip(again[nid], lines):
            assert a == pytest.approx(b, abs=1e-5), nid  # speeds from rounded times and places differ in the 6th decimal


def _statements(trace: str) -> dict[str, list[tuple[str, list[float]]]]:
    """Node id -> its statements as (text with the node's number and the values blanked, values)."""
    out: dict[str, list[tuple[str, list[float]]]] = {}
    current = None
    for line in trace.splitlines()[1:]:
        if line.startswith("# node_("):
            current = line.split("= ", 1)[1].split(" (")[0]
            out[current] = []
        else:
            text = re.sub(r"\$node_\(\d+\)", "$node_(*)", line)
            out[current].append((re.sub(r"-?\d+\.\d+", "#", text), [float(v) for v in re.findall(r"-?\d+\.\d+", text)]))
    return out


def _where(node, t, duration):
    for leg in trajectory(node, duration):
        if leg.t0_s <= t <= leg.t1_s:
            f = 0.0 if leg.t1_s == leg.t0_s else (t - leg.t0_s) / (leg.t1_s - leg.t0_s)
            return (leg.x0_m + f * (leg.x1_m - leg.x0_m), leg.y0_m + f * (leg.y1_m - leg.y0_m))
    legs = trajectory(node, duration)
    return (legs[-1].x1_m, legs[-1].y1_m) if legs else (node.position.x_m, node.position.y_m)


def test_a_trace_moves_the_nodes_of_a_scenario():
    doc = load_example("naval-direct-move")
    trace = '# node_(0) = sta1 (station)\n$node_(0) set X_ 5.0\n$node_(0) set Y_ 6.0\n' \
            '$ns_ at 2.0 "$node_(0) setdest 5.0 106.0 10.0"\n'
    sc = apply_ns2_mobility(doc, trace)
    sta1 = sc.node("sta1")
    assert (sta1.position.x_m, sta1.position.y_m) == (5.0, 6.0)
    assert _points(sta1) == [(0.0, 5.0, 6.0), (2.0, 5.0, 6.0), (12.0, 5.0, 106.0)]
    assert sc.node("sta2").mobility == load_scenario(doc).node("sta2").mobility
    with pytest.raises(ImportFailed, match="nobody"):
        apply_ns2_mobility(doc, trace.replace("sta1", "nobody"))


def test_import_through_the_registry_names_the_scenario():
    res = import_file(BONNMOTION_STYLE.encode(), "walk.ns_movements", "my walk")
    assert res.scenario.name == "my walk" and res.format == "ns2"
    json.dumps(res.scenario.model_dump(mode="json"))


def test_long_or_endless_input_is_refused_quickly():
    import time

    start = time.perf_counter()
    with pytest.raises(ImportFailed, match="line 1"):
        read_ns2_mobility("$node_(0) set X_ " + "1" * 200_000 + "x\n")
    with pytest.raises(ImportFailed, match="line 1"):
        read_ns2_mobility("$node_(" + "9" * 5000 + ") set X_ 1.0\n")
    with pytest.raises(ImportFailed, match="line 3"):
        read_ns2_mobility('$node_(0) set X_ 0\n$node_(0) set Y_ 0\n$ns_ at 1 "$node_(0) setdest 1e308 0 1e-308"\n')
    assert time.perf_counter() - start < 2.0
