"""The ``fluid`` engine returns physically possible numbers on every shape users meet.

Every run here is checked by :mod:`tests.unit.fluid_validator`, written from the plan and
output contracts alone (it imports nothing of the engine): samples finite and non-negative,
a subflow within the narrowest hop of its path, the subflows crossing a link within its
capacity, a flow the sum of its subflows, a demand and a finite transfer not exceeded, the
summary finite. Each bound carries only the stated tolerance for interval edges (what the
queues on the paths can hold), so a steady 2× overshoot fails it, and 10^96 or NaN fails it
by far. A run that raises :class:`subflow.errors.EngineInvariantViolated` fails the test
(the engine's own check fired: a defect).

Three parts:

* regressions: the networks that gave 10^96 Mbit/s, NaN samples and an OverflowError in the
  summary (Topology Zoo Kdl and Cogentco with many random flows, built as
  ``benchmarks/engine.py`` builds them), at shorter durations;
* property-based runs (hypothesis, fixed seed: ``derandomize``) over chains, parking lots,
  stars, trees, random meshes, Topology Zoo graphs and wireless access networks with moving
  stations; 1-500 flows; zero-delay and 300 ms links; link failures; every strategy; every
  kernel;
* the two kernels agree on the plans both run.

The Topology Zoo files live in ``../shared/data`` (``$SUBFLOW_SHARED_DIR/data``), outside the
repository for their licence; the tests that need them skip, saying so, when they are absent.
"""

from __future__ import annotations

import functools
import json
import math
import random

import pytest
from hypothesis import HealthCheck, Phase, event, given, note, settings
from hypothesis import strategies as st

from subflow.comparison.compare import compare
from subflow.errors import ScenarioInvalid
from subflow.io.imports import import_scenario
from subflow.results.document import EngineOutput, FlowSeries, SubflowSeries
from subflow.runplan.document import RunPlan
from subflow.runplan.resolve import resolve_plan
from subflow.runplan.strategies import STRATEGIES
from subflow_engines.fluid import run, vectorised
from subflow_testbeds.loads import random_bulk_flows

from tests.unit.fluid_validator import FRAME_OVERHEAD_BYTES, assert_valid, violations
from tests.unit.planning_helpers import ZOO, data_file

# ----------------------------------------------------------------------------- scenarios


@functools.lru_cache(maxsize=None)
def _zoo_json(name: str) -> str:
    path = data_file(ZOO / f"{name}.graphml")
    doc = import_scenario(path.read_bytes(), source=f"{name}.graphml").scenario.model_dump(mode="json")
    return json.dumps(doc)


def zoo(name: str) -> dict:
    """A fresh copy of the imported Topology Zoo graph ``name`` (skips when the data are absent)."""
    return json.loads(_zoo_json(name))


def _link(rng: random.Random, i: int, a: str, b: str, delays: str) -> dict:
    delay = {"zero": 0.0, "long": 300.0, "normal": rng.choice([1.0, 5.0, 20.0]),
             "mixed": rng.choice([0.0, 2.0, 20.0, 300.0])}[delays]
    return {"id": f"l{i}", "src": a, "dst": b, "bandwidth_mbps": rng.choice([1, 5, 10, 50, 100, 1000]),
            "delay_ms": delay, "queue_packets": rng.choice([5, 20, 100, 1000])}


def wired(shape: str, size: int, rng: random.Random, delays: str) -> tuple[list[dict], list[tuple[str, str]], list[str]]:
    """Nodes, links as (a, b) pairs and the endpoints flows may use, of a wired ``shape``."""
    if shape == "chain":
        nodes = [f"n{i}" for i in range(size + 1)]
        pairs = [(nodes[i], nodes[i + 1]) for i in range(size)]
        ends = nodes
    elif shape == "parking_lot":  # a backbone r0..rk, one host per router
        routers = [f"r{i}" for i in range(size + 1)]
        hosts = [f"h{i}" for i in range(size + 1)]
        nodes = routers + hosts
        pairs = [(routers[i], routers[i + 1]) for i in range(size)] + list(zip(hosts, routers))
        ends = hosts
    elif shape == "star":
        hosts = [f"h{i}" for i in range(size + 1)]
        nodes = ["c"] + hosts
        pairs = [(h, "c") for h in hosts]
        ends = hosts
    elif shape == "tree":
        nodes = [f"n{i}" for i in range(size + 2)]
        pairs = [(nodes[i], nodes[rng.randrange(i)]) for i in range(1, len(nodes))]
        ends = nodes
    elif shape == "mesh":  # a ring plus random chords: connected, with shared bottlenecks
        n = size + 3
        nodes = [f"n{i}" for i in range(n)]
        seen: set[frozenset[int]] = set()
        pairs = []
        for i in range(n):
            for j in ((i + 1) % n, rng.randrange(n)):
                if i != j and frozenset((i, j)) not in seen:
                    seen.add(frozenset((i, j)))
                    pairs.append((nodes[i], nodes[j]))
        ends = nodes
    else:
        raise ValueError(shape)
    # hosts do not forward: the ends of parking lots and stars are hosts, every other node a router
    kinds = {n: ("host" if shape in ("parking_lot", "star") and n.startswith("h") else "router") for n in nodes}
    if shape == "star":
        kinds["c"] = "switch"
    node_docs = [{"id": n, "kind": kinds[n]} for n in nodes]
    links = [_link(rng, i, a, b, delays) for i, (a, b) in enumerate(pairs)]
    return node_docs, links, ends


def wireless(size: int, rng: random.Random, delays: str, satcom: int, duration_s: float) -> tuple[list[dict], list[dict], list[str]]:
    """Access points along a wired backbone, stations crossing all of them within the run
    (handovers, and gaps without coverage when the ranges do not overlap); with ``satcom`` > 0
    every station also has a 250 ms link to a chain of ``satcom`` switches to the server
    (multi-homed, as in ``naval-direct-move``)."""
    k = 2 + size % 3
    spacing = 300.0
    reach = spacing * rng.choice([0.4, 0.6])  # < half the spacing: gaps; else overlap
    nodes = [{"id": "srv", "kind": "host"}] + [{"id": f"r{i}", "kind": "router"} for i in range(k)]
    pairs = [("srv", "r0")] + [(f"r{i}", f"r{i + 1}") for i in range(k - 1)]
    for i in range(k):
        nodes.append({"id": f"ap{i}", "kind": "access_point", "position": {"x_m": i * spacing, "y_m": 0.0},
                      "range_m": reach, "association_delay_s": rng.choice([0.0, 0.3, 1.0]),
                      "wireless_bandwidth_mbps": rng.choice([11, 54]), "wireless_delay_ms": rng.choice([0.0, 1.0]),
                      "queue_packets": rng.choice([20, 100])})
        pairs.append((f"ap{i}", f"r{i}"))
    span = (k - 1) * spacing + 2 * reach
    stations = [f"s{j}" for j in range(1 + size % 6)]
    for j, s in enumerate(stations):
        y = 10.0 * j
        nodes.append({"id": s, "kind": "station", "position": {"x_m": -reach, "y_m": y},
                      "mobility": {"model": "linear", "start": {"x_m": -reach, "y_m": y},
                                   "end": {"x_m": (k - 1) * spacing + reach, "y_m": y},
                                   "speed_mps": span / duration_s * rng.choice([0.8, 1.0, 1.5])}})
    links = [_link(rng, i, a, b, delays) for i, (a, b) in enumerate(pairs)]
    if satcom:  # station - sat - gw1 - ... - gw<satcom - 1> - srv
        hops = ["sat"] + [f"gw{i}" for i in range(1, satcom)] + ["srv"]
        nodes.extend({"id": n, "kind": "switch"} for n in hops[:-1])
        for i, (a, b) in enumerate(zip(hops, hops[1:])):
            links.append({"id": f"sat-gw{i}", "src": a, "dst": b, "bandwidth_mbps": 50, "delay_ms": 1.0,
                          "queue_packets": 1000})
        for j, s in enumerate(stations):
            links.append({"id": f"sat-{s}", "src": s, "dst": "sat", "bandwidth_mbps": rng.choice([1, 5]),
                          "delay_ms": 250.0, "queue_packets": rng.choice([100, 1000])})
    return nodes, links, stations + ["srv"]


#: the shapes drawn; Topology Zoo graphs only where the shared data are (else said in the test output)
SHAPES = ["chain", "parking_lot", "star", "tree", "mesh", "wireless"] + (["zoo"] if (ZOO / "Kdl.graphml").exists() else [])


@st.composite
def cases(draw, strategies=tuple(STRATEGIES), vector_only: bool = False) -> dict:
    """A scenario document plus the strategy and kernel to run it with; with ``vector_only``,
    only features the vectorised kernel has (NewReno, no jitter)."""
    shape = draw(st.sampled_from(SHAPES))
    strategy = draw(st.sampled_from(strategies))
    spec = STRATEGIES[strategy]
    cc = "newreno" if vector_only else draw(st.sampled_from(["newreno", "newreno", "cubic", "reno"]))
    delays = draw(st.sampled_from(["normal", "zero", "long", "mixed"]))
    jitter = not vector_only and draw(st.booleans()) and draw(st.booleans())
    # features only the scalar kernel has keep a run to tens of flows (it is ~50x slower)
    scalar_only = (cc != "newreno" or jitter or (not spec.multipath and spec.handover != "bare")
                   or spec.coupling == "olia")
    if scalar_only:
        n_flows = draw(st.integers(1, 30))
    else:
        n_flows = draw(st.one_of(st.integers(1, 8), st.integers(9, 60), st.sampled_from([120, 250, 500])))
    duration = draw(st.sampled_from([3.0, 4.5, 6.0, 10.0]))
    if n_flows > 200:
        duration = 3.0
    interval = draw(st.sampled_from([0.5, 1.0, 1.0, 2.0]))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = random.Random(seed)
    cut = draw(st.booleans())
    if shape == "zoo":
        name = draw(st.sampled_from(["Abilene", "Geant2012", "Dfn", "GtsCe", "Cogentco", "Kdl"]))
        doc = zoo(name)
        vary = draw(st.booleans())
        for link in doc["links"]:
            if delays != "normal":
                link["delay_ms"] = _link(rng, 0, "", "", delays)["delay_ms"]
            if vary:
                link["bandwidth_mbps"] = rng.choice([10, 100, 1000])
        nodes, ends = doc["nodes"], [n["id"] for n in doc["nodes"]]
        links = doc["links"]
    elif shape == "wireless":
        nodes, links, ends = wireless(draw(st.integers(0, 20)), rng, delays, draw(st.sampled_from([0, 1, 6])), duration)
        doc = {}
    else:
        nodes, links, ends = wired(shape, draw(st.integers(1, 12)), rng, delays)
        doc = {}
    if jitter:
        for link in links:
            link["jitter_ms"] = rng.choice([0.0, 1.0, 5.0])
    if draw(st.booleans()):
        for link in links:
            link["loss"] = rng.choice([0.0, 0.0, 0.001, 0.02])
    flows = []
    for i in range(n_flows):
        if shape == "wireless":  # stations to the server, some the other way
            a, b = rng.choice(ends[:-1]), "srv"
            if rng.random() < 0.3:
                a, b = b, a
        else:
            a, b = rng.sample(ends, 2)
        f = {"id": f"f{i}", "src": a, "dst": b, "start_s": rng.choice([0.0, 0.0, duration / 3])}
        if rng.random() < 0.3:
            f["rate_mbps"] = rng.choice([0.5, 2.0, 20.0])
        if rng.random() < 0.2:
            f["size_bytes"] = rng.choice([10_000, 300_000, 5_000_000])
        if rng.random() < 0.15:
            f["stop_s"] = duration * 0.8
        flows.append(f)
    doc.update({"name": f"{shape}-{n_flows}", "nodes": nodes, "links": links, "flows": flows,
                "run": {"duration_s": duration, "interval_s": interval, "seed": seed % 1000},
                "transport": {"congestion_control": cc, "mss_bytes": draw(st.sampled_from([1448, 1448, 536, 8948]))}})
    doc.pop("link_events", None)
    if cut and shape != "wireless" and links:
        down = rng.choice(links)["id"]
        doc["link_events"] = [{"t_s": round(duration * 0.3, 3), "link": down, "state": "down"},
                              {"t_s": round(duration * 0.6, 3), "link": down, "state": "up"}]
    kernel = draw(st.sampled_from(["auto", "scalar", "vector"]))
    if kernel == "scalar" and n_flows > 40:
        kernel = "auto"
    return {"doc": doc, "strategy": strategy, "kernel": kernel, "shape": shape}


def _plan(doc: dict, strategy: str) -> RunPlan | None:
    """The plan, or None (reported as a hypothesis event, never silently) when the scenario
    cannot carry the strategy."""
    try:
        return resolve_plan(doc, strategy)
    except ScenarioInvalid as exc:
        event(f"{strategy}: scenario error {type(exc).__name__}")
        note(f"resolve_plan refused {strategy}: {exc}")
        return None


SETTINGS = dict(deadline=None, database=None, derandomize=True, phases=[Phase.explicit, Phase.generate],
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# ----------------------------------------------------------------------------- the validator itself


def _chain_plan(**flow_extra) -> RunPlan:
    """Two 10 Mbit/s hops of 100-packet queues, two flows end to end, 4 samples of 1 s."""
    doc = {"name": "v", "nodes": [{"id": x, "kind": k} for x, k in zip("abc", ("host", "router", "host"))],
           "links": [{"id": "ab", "src": "a", "dst": "b", "bandwidth_mbps": 10, "delay_ms": 5, "queue_packets": 100},
                     {"id": "bc", "src": "b", "dst": "c", "bandwidth_mbps": 10, "delay_ms": 5, "queue_packets": 100}],
           "flows": [{"id": "f0", "src": "a", "dst": "c", **flow_extra}, {"id": "f1", "src": "a", "dst": "c"}],
           "run": {"duration_s": 4, "interval_s": 1}}
    return resolve_plan(doc, "sptcp")


def _output(plan: RunPlan, rates: dict[str, list[float]], size: dict | None = None) -> EngineOutput:
    """A hand-written engine output: one subflow per flow at ``rates`` Mbit/s."""
    flows = []
    for fp in plan.flows:
        sid = fp.segments[0].subflows[0].id
        r = rates[fp.id]
        t = [float(k) for k in range(len(r))]
        flows.append(FlowSeries(id=fp.id, src=fp.src, dst=fp.dst, t_s=t, throughput_mbps=r,
                                subflows=[SubflowSeries(id=sid, path=["a", "b", "c"], t_s=t, throughput_mbps=r,
                                                        cwnd_packets=[10.0] * len(r))], **(size or {})))
    return EngineOutput(engine="fluid", strategy="sptcp", flows=flows, events=[])


def test_the_validator_accepts_what_a_link_can_carry_and_flags_the_reported_defects():
    """Hand-written outputs on a 10 Mbit/s chain (goodput 10·1448/1514 = 9.564 Mbit/s; a
    100-packet queue holds 1.158 Mbit, so the edge tolerance of one hop is about 1.2 Mbit/s
    over a 1 s sample, plus one 10 ms step of capacity): the capacity split in two passes;
    a 2× overshoot of one flow, two flows at 9 Mbit/s each on the shared link, 3.9e96 and NaN
    samples, a flow that is not the sum of its subflows and a transfer delivering twice its
    size each fail, naming what."""
    plan = _chain_plan()
    assert 10 * 1448 / (1448 + FRAME_OVERHEAD_BYTES) == pytest.approx(9.5641, abs=1e-4)
    assert violations(plan, _output(plan, {"f0": [4.7, 4.7, 4.7, 4.7], "f1": [4.7, 4.7, 4.7, 4.7]})) == []
    assert violations(plan, _output(plan, {"f0": [9.5, 9.5, 9.5, 9.5], "f1": [0.0] * 4})) == []

    double = violations(plan, _output(plan, {"f0": [19.1] * 4, "f1": [0.0] * 4}))
    assert any("narrowest hop" in v for v in double)
    shared = violations(plan, _output(plan, {"f0": [9.0] * 4, "f1": [9.0] * 4}))
    assert any("2 subflows deliver 18" in v for v in shared)
    assert not any("narrowest hop" in v for v in shared)
    huge = violations(plan, _output(plan, {"f0": [1.0, 3.9e96, 1.0, 1.0], "f1": [0.0] * 4}))
    assert any("t=1s" in v and "narrowest hop" in v for v in huge)
    nan = _output(plan, {"f0": [1.0] * 4, "f1": [0.0] * 4})  # the output models refuse NaN: set it after
    nan.flows[0].throughput_mbps[1] = nan.flows[0].subflows[0].throughput_mbps[1] = math.nan
    assert any("t=1s" in v and "not finite" in v for v in violations(plan, nan))

    out = _output(plan, {"f0": [2.0] * 4, "f1": [0.0] * 4})
    out.flows[0].throughput_mbps[2] = 3.0
    assert any("sum of its subflows" in v for v in violations(plan, out))

    finite = _chain_plan(size_bytes=1_000_000)  # 8 Mbit: two samples of 8 Mbit/s is 2 MB
    assert any("delivered 2000000 bytes" in v for v in violations(finite, _output(finite, {"f0": [8.0, 8.0, 0, 0], "f1": [0.0] * 4})))
    assert violations(finite, _output(finite, {"f0": [8.0, 0, 0, 0], "f1": [0.0] * 4})) == []

# ----------------------------------------------------------------------------- regressions


@pytest.mark.parametrize("flows", [8, 12, 20, 200])
def test_kdl_with_many_random_flows_gives_physical_goodput(flows):
    """Kdl (754 nodes, 1 and 2 Gbit/s links) with the benchmark's random flows, 10 s: every
    sample is finite (8-20 flows gave NaN), no flow exceeds the fastest link's goodput,
    2000·1448/1514 = 1912.8 Mbit/s (200 flows reported up to 3.9e96 Mbit/s), and the validator
    passes."""
    doc = random_bulk_flows(zoo("Kdl"), flows, 10.0)
    assert {link["bandwidth_mbps"] for link in doc["links"]} == {1000.0, 2000.0}
    plan = resolve_plan(doc, "sptcp")
    out = run(plan)
    assert len(out.flows) == flows
    for f in out.flows:
        assert all(math.isfinite(v) and 0 <= v <= 1912.82 for v in f.throughput_mbps), f.id
    assert sum(sum(f.throughput_mbps) for f in out.flows) > 0
    assert_valid(plan, out)


def test_cogentco_with_120_random_flows_has_no_null_samples():
    """Cogentco (197 nodes), 120 benchmark flows for 10 s (102 flows were null before): every
    flow has finite samples, carries traffic in some sample, and the validator passes."""
    doc = random_bulk_flows(zoo("Cogentco"), 120, 10.0)
    plan = resolve_plan(doc, "sptcp")
    out = run(plan)
    dumped = out.model_dump(mode="json")
    assert all(v is not None for f in dumped["flows"] for v in f["throughput_mbps"])
    assert all(max(f.throughput_mbps) > 0 for f in out.flows)
    assert_valid(plan, out)


def test_kdl_with_1000_flows_summarises_through_compare():
    """Kdl with 1000 benchmark flows for 5 s through :func:`subflow.comparison.compare.compare` (the
    summary raised OverflowError before): the result document's summary is finite, each
    flow's mean lies between its min and max and below the fastest link's goodput (1912.8), and
    the output passes the validator against the plan compare resolved."""
    doc = random_bulk_flows(zoo("Kdl"), 1000, 5.0)
    result = compare(doc, ["sptcp"], runner=run).strategies["sptcp"]
    s = result.summary
    for x in (s.mean_mbps, s.std_mbps, s.min_mbps, s.zero_s, s.jain_index):
        assert math.isfinite(x)
    assert len(s.flows) == 1000
    for fs in s.flows:
        assert math.isfinite(fs.std_mbps) and fs.min_mbps <= fs.mean_mbps <= fs.max_mbps <= 1912.82, fs.id
    assert 1 / 1000 <= s.jain_index <= 1
    assert_valid(resolve_plan(doc, "sptcp"), result)


def test_a_finite_transfer_delivers_no_more_than_its_size():
    """One 300 000-byte transfer over a 100 Mbit/s then a 10 Mbit/s hop (5 ms each, 100-packet
    queues), sampled every 50 ms: the goodput summed over the run, times the sample length, is
    at most the file (plus one 1448-byte segment), on both kernels, and nothing arrives after
    the transfer completed. (The engine delivered 444 800 bytes: the full 100-packet queue of
    the 10 Mbit/s hop, 144 800 bytes, kept arriving for 150 ms after ``completion_s``.)"""
    doc = {"name": "file", "nodes": [{"id": "a", "kind": "host"}, {"id": "r", "kind": "router"},
                                     {"id": "b", "kind": "host"}],
           "links": [{"id": "l1", "src": "a", "dst": "r", "bandwidth_mbps": 100, "delay_ms": 5, "queue_packets": 100},
                     {"id": "l2", "src": "r", "dst": "b", "bandwidth_mbps": 10, "delay_ms": 5, "queue_packets": 100}],
           "flows": [{"id": "f", "src": "a", "dst": "b", "size_bytes": 300_000}],
           "run": {"duration_s": 1.0, "interval_s": 0.05}}
    plan = resolve_plan(doc, "sptcp")
    for kernel in ("scalar", "vector"):
        f = run(plan, kernel=kernel).flows[0]
        assert f.completion_s is not None, kernel
        delivered = sum(v * 1e6 * 0.05 / 8 for v in f.throughput_mbps)
        assert delivered <= 300_000 + 1448, (kernel, delivered)
        after = [v for t, v in zip(f.t_s, f.throughput_mbps) if t >= f.completion_s + 0.05]
        assert all(v == 0 for v in after), (kernel, f.completion_s, after)

# ----------------------------------------------------------------------------- properties


@settings(max_examples=40, **SETTINGS)
@given(case=cases())
def test_every_shape_strategy_and_kernel_gives_physical_numbers(case):
    """Random networks (chains, parking lots, stars, trees, meshes, Topology Zoo graphs,
    access points with moving stations), 1-500 flows with demands, finite transfers, late
    starts and early stops, zero-delay, 300 ms and jittery links, random loss, link failures
    and recoveries, every strategy, NewReno/Reno/CUBIC and every kernel: the engine does not
    raise (EngineInvariantViolated included) and the independent validator passes."""
    doc, strategy, kernel = case["doc"], case["strategy"], case["kernel"]
    plan = _plan(doc, strategy)
    if plan is None:
        return
    if kernel == "vector" and not vectorised.supports(plan):
        event("vector kernel requested for a plan it does not support: auto")
        kernel = "auto"
    event(f"kernel {kernel}")
    event(f"shape {case['shape']}")
    n = len(doc["flows"])
    event("flows " + ("1-8" if n <= 8 else "9-60" if n <= 60 else "120-500"))
    note(f"{doc['name']} {strategy} kernel={kernel} run={doc['run']} transport={doc['transport']}")
    assert_valid(plan, run(plan, kernel=kernel))


SINGLE_PATH_VECTOR = ("sptcp", "sptcp-delay", "sptcp-tcpbp", "sctp-failover", "mptcp-uncoupled", "cmt-pf")


@settings(max_examples=25, **SETTINGS)
@given(case=cases(strategies=SINGLE_PATH_VECTOR, vector_only=True))
def test_kernels_agree_on_plans_both_run(case):
    """Single-path strategies with the bare handover and uncoupled multipath (strategies
    listed in ``SINGLE_PATH_VECTOR``) on plans the vectorised kernel supports: both kernels
    give the same samples (flow and subflow goodput, cwnd) to rel 1e-9 or abs 1e-6 (the
    output's rounding), the same completion times and the same events (kind, flow, time to
    1 ms); both outputs pass the validator. The cases use only NewReno and no jitter; plans
    too large for the scalar kernel are counted as hypothesis events."""
    doc, strategy = case["doc"], case["strategy"]
    plan = _plan(doc, strategy)
    if plan is None:
        return
    if not vectorised.supports(plan):
        event("not supported by the vectorised kernel: compared nothing")
        return
    if sum(len(s.subflows) for f in plan.flows for s in f.segments[:1]) > 60:
        event("more than 60 subflows: too slow on the scalar kernel, compared nothing")
        return
    event("compared")
    a, b = run(plan, kernel="scalar"), run(plan, kernel="vector")
    assert_valid(plan, a)
    assert_valid(plan, b)
    for fa, fb in zip(a.flows, b.flows, strict=True):
        assert fa.id == fb.id
        assert fa.throughput_mbps == pytest.approx(fb.throughput_mbps, rel=1e-9, abs=1e-6), fa.id
        assert fa.completion_s == fb.completion_s, fa.id
        assert [s.id for s in fa.subflows] == [s.id for s in fb.subflows]
        for sa, sb in zip(fa.subflows, fb.subflows):
            assert sa.throughput_mbps == pytest.approx(sb.throughput_mbps, rel=1e-9, abs=1e-6), sa.id
            assert sa.cwnd_packets == pytest.approx(sb.cwnd_packets, rel=1e-9, abs=1e-6), sa.id
    kinds = lambda out: sorted((round(e.t_s, 3), e.kind, getattr(e, "flow", "")) for e in out.events)  # noqa: E731
    assert kinds(a) == kinds(b)


def _handover_network(delay_ms: float, cut: bool) -> dict:
    """Three access points 300 m apart (ranges 200 m: gaps between them), two stations
    crossing them in 8 s, multi-homed over a 250 ms link and 6 switches (longer than the
    access paths, so single-path strategies use it only in the gaps), a 1 Mbit/s wired
    bottleneck and, with ``cut``, a backbone link down from 3 s to 5 s."""
    rng = random.Random(7)
    nodes, links, _ = wireless(1, rng, "normal", 6, 8.0)
    for n in nodes:
        if n.get("kind") == "access_point":
            n["range_m"] = 200.0
    for link in links:
        if not link["id"].startswith("sat-"):
            link["delay_ms"] = delay_ms
    links[0]["bandwidth_mbps"] = 1.0
    doc = {"name": "handover", "nodes": nodes, "links": links,
           "flows": [{"id": "up", "src": "s0", "dst": "srv"}, {"id": "down", "src": "srv", "dst": "s1", "rate_mbps": 2.0},
                     {"id": "file", "src": "s1", "dst": "srv", "size_bytes": 400_000, "start_s": 1.0}],
           "run": {"duration_s": 8.0, "interval_s": 0.5, "seed": 3}}
    if cut:
        doc["link_events"] = [{"t_s": 3.0, "link": "l1", "state": "down"}, {"t_s": 5.0, "link": "l1", "state": "up"}]
    return doc


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_every_strategy_through_handovers_and_failures_is_physical(strategy):
    """Every strategy, on both kernels where the plan allows the vectorised one, through
    handovers between access points, a multi-homed 250 ms path, a zero-delay variant and a
    backbone failure: the engine does not raise and the validator passes; the plan really has
    more than one segment (the paths change) and the network carries traffic."""
    for delay_ms, cut in ((5.0, False), (0.0, True)):
        plan = resolve_plan(_handover_network(delay_ms, cut), strategy)
        assert max(len(f.segments) for f in plan.flows) > 1
        kernels = ["scalar", "vector"] if vectorised.supports(plan) else ["scalar"]
        for kernel in kernels:
            out = run(plan, kernel=kernel)
            assert_valid(plan, out)
            assert sum(sum(f.throughput_mbps) for f in out.flows) > 0, kernel
