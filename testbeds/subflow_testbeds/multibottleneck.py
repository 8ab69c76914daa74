"""Multi-bottleneck testbeds: the fluid engine against kernel TCP where flows share several bottlenecks.

Two scenarios, each a scenario document that both engines run unchanged
(``resolve_plan(doc, "sptcp", "fluid" | "linux")``):

* :func:`parking_lot`: three bottlenecks in a row, one long flow across all three and one
  short flow per bottleneck (the classic topology of max-min and TCP fairness studies [1]_);
* :func:`mesh`: 14 nodes (8 routers, 6 hosts), 12 flows over four bottlenecks, one flow
  across three of them, three across two; redundant links make cycles that the minimum-hop
  routes do not take.

The kernel side is the ``linux`` engine (real TCP in network namespaces), run three times per
testbed by ``scripts/validation.py --kernel-multibottleneck`` and stored in
``docs/validation/multibottleneck_kernel.json`` (:data:`KERNEL_JSON`); the fluid side is
recomputed by whoever compares (``make validation``, ``tests/linux/test_multibottleneck.py``).
This module holds what they share: the builders, the bottleneck definitions, the per-flow and
per-bottleneck means, and the comparison.

Design, for the kernel's sake. Where the host has no netem, every delayed link direction is an
NFQUEUE delay line, a Python process in the receiving namespace that handles each packet and adds
about 1 ms of latency per traversal, more under load. A first design (15 and 20 Mbit/s bottlenecks,
delay on both hosts' access links) took 60 CPU seconds of a 52 s parking-lot run and 90–107 of a
72 s mesh run on the project's two cores, and the parking lot's long flow read 2.26 Mbit/s (median)
in one batch of three runs and 2.77 in the next, with the machine busier; the present one takes
24–27 and 61–66 CPU seconds. So:
rates are moderate (bottlenecks 10–15 Mbit/s, access links 100 Mbit/s); propagation delay sits on
access links of sending hosts only (core links and the links of hosts that only receive have
``delay_ms`` 0), so most packets cross the delay line once per direction whatever the number of
core hops; RTTs are 20–50 ms; every bottleneck's drop-tail queue is about one bandwidth-delay
product at 40 ms (:func:`bdp_packets`).
All flows cross each bottleneck in the same direction, so a bottleneck is one direction of a link
(the plan's resource ``"<link>:<src>><dst>"``). NewReno (the linux engine runs Linux ``reno``, its
namespaces' default pinned to Reno too), bulk flows for the whole run, mean goodput over
[:data:`WARMUP_S`, ``duration_s``) (slow start excluded).

References
----------
.. [1] S. Floyd, "Connections with multiple congested gateways in packet-switched networks
   part 1: one-way traffic", ACM SIGCOMM CCR 21(5), 1991 (the long flow across several
   bottlenecks against one short flow per bottleneck).
"""

from __future__ import annotations

import hashlib
import json
import statistics
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: repository root (this file is testbeds/subflow_testbeds/multibottleneck.py)
ROOT = Path(__file__).resolve().parents[2]
#: the stored kernel runs, one entry per testbed (see :func:`kernel_entry` for the fields)
KERNEL_JSON = ROOT / "docs" / "validation" / "multibottleneck_kernel.json"

#: the first seconds of every run, excluded from the means (slow start and its overshoot), s
WARMUP_S = 5.0
#: per-flow target: fluid mean goodput within ±20 % of the kernel's median
FLOW_TOLERANCE = 0.20
#: per-bottleneck target: the sum over the flows crossing it within ±10 % of the kernel's
BOTTLENECK_TOLERANCE = 0.10
#: kernel runs per testbed (the reference is their median)
KERNEL_RUNS = 3
#: seeds of the fluid engine's figure (the mean over them): which flow loses a packet when a queue
#: overflows is drawn (seeded), and the parking lot's long flow reads 1.43 and 1.27 Mbit/s over
#: [5, 40) s with seeds 1 and 2
FLUID_SEEDS = tuple(range(1, 11))
#: rate of the hosts' access links, Mbit/s (never the bottleneck)
ACCESS_MBPS = 100.0
#: drop-tail queue of the access links, packets (never fills at these rates)
ACCESS_QUEUE_PACKETS = 1000
#: Ethernet frame of a full segment on the wire as HTB counts it: MSS 1448 + 66 bytes of headers
FRAME_BYTES = 1514
#: RTT at which the bottleneck queues hold one bandwidth-delay product, ms
QUEUE_RTT_MS = 40.0


def bdp_packets(bandwidth_mbps: float, rtt_ms: float = QUEUE_RTT_MS) -> int:
    """Bandwidth-delay product in full frames (:data:`FRAME_BYTES`), rounded.

    >>> bdp_packets(15.0), bdp_packets(10.0), bdp_packets(20.0)
    (50, 33, 66)
    """
    return round(bandwidth_mbps * 1e6 * rtt_ms / 1000.0 / (FRAME_BYTES * 8))


@dataclass(frozen=True)
class Bottleneck:
    """One direction of a link that flows share.

    Attributes
    ----------
    link : str
        The scenario's ``links[].id``.
    src, dst : str
        Direction of the data (the flows' ACKs go the other way).
    flows : tuple of str
        Ids of the flows whose data crosses it (checked against the plan's routes by
        :func:`check_routes`).
    """

    link: str
    src: str
    dst: str
    flows: tuple[str, ...]

    @property
    def resource(self) -> str:
        """The plan's resource id of this direction, ``"<link>:<src>><dst>"``."""
        return f"{self.link}:{self.src}>{self.dst}"


def _host(nodes: list, links: list, host: str, router: str, delay_ms: float) -> None:
    nodes.append({"id": host, "kind": "host"})
    links.append({"id": f"{host}-{router}", "src": host, "dst": router, "bandwidth_mbps": ACCESS_MBPS,
                  "delay_ms": delay_ms, "queue_packets": ACCESS_QUEUE_PACKETS})


# ------------------------------------------------------------------------------------------- parking lot

#: the parking lot's bottleneck rate, Mbit/s
PARKING_LOT_MBPS = 10.0
#: base RTT of each flow, ms (propagation only: the sending host's access link has half of it one way)
PARKING_LOT_RTT_MS = {"long": 40.0, "short1": 20.0, "short2": 30.0, "short3": 40.0}
PARKING_LOT_DURATION_S = 40.0

PARKING_LOT_BOTTLENECKS = (
    Bottleneck("b1", "r0", "r1", ("long", "short1")),
    Bottleneck("b2", "r1", "r2", ("long", "short2")),
    Bottleneck("b3", "r2", "r3", ("long", "short3")),
)


def parking_lot(duration_s: float = PARKING_LOT_DURATION_S, bottleneck_mbps: float = PARKING_LOT_MBPS,
                queue_packets: int | None = None) -> dict[str, Any]:
    """Parking lot of three bottlenecks: routers ``r0``–``r1``–``r2``–``r3`` joined by links ``b1``,
    ``b2``, ``b3`` of ``bottleneck_mbps`` (no propagation delay); flow ``long`` from ``long-src``
    (on ``r0``) to ``long-dst`` (on ``r3``) crosses all three, flow ``short{k}`` from ``short{k}-src``
    (on ``r{k-1}``) to ``short{k}-dst`` (on ``r{k}``) crosses ``b{k}`` only.

    Every host has its own 100 Mbit/s access link; a sending host's carries half its flow's RTT
    (:data:`PARKING_LOT_RTT_MS`: 40 ms for the long flow, 20, 30, 40 ms for the short ones) one way,
    a receiving host's none.

    Parameters
    ----------
    duration_s : float
        Run length, s (bulk flows for the whole run).
    bottleneck_mbps : float
        Rate of ``b1``–``b3``, Mbit/s.
    queue_packets : int, optional
        Drop-tail queue of each bottleneck direction, packets; default one BDP at 40 ms
        (:func:`bdp_packets`, 33 at 10 Mbit/s).

    Returns
    -------
    dict
        Scenario document (4 routers, 8 hosts, 11 links, 4 flows; NewReno).
    """
    q = queue_packets if queue_packets is not None else bdp_packets(bottleneck_mbps)
    nodes: list[dict] = [{"id": f"r{k}", "kind": "router"} for k in range(4)]
    links: list[dict] = [{"id": f"b{k}", "src": f"r{k - 1}", "dst": f"r{k}", "bandwidth_mbps": bottleneck_mbps,
                          "delay_ms": 0.0, "queue_packets": q} for k in (1, 2, 3)]
    flows = []
    ends = {"long": ("r0", "r3"), "short1": ("r0", "r1"), "short2": ("r1", "r2"), "short3": ("r2", "r3")}
    for fid, (ra, rb) in ends.items():
        _host(nodes, links, f"{fid}-src", ra, PARKING_LOT_RTT_MS[fid] / 2.0)
        _host(nodes, links, f"{fid}-dst", rb, 0.0)
        flows.append({"id": fid, "src": f"{fid}-src", "dst": f"{fid}-dst"})
    return {
        "name": "parking-lot-3",
        "description": (f"Parking lot: three {bottleneck_mbps:g} Mbit/s bottlenecks in a row (queue {q} packets), "
                        "one long flow across all three (RTT 40 ms), one short flow per bottleneck (RTT 20, 30, "
                        "40 ms); delay on the senders' 100 Mbit/s access links only."),
        "nodes": nodes,
        "links": links,
        "flows": flows,
        "run": {"duration_s": duration_s, "interval_s": 1.0},
        "transport": {"congestion_control": "newreno"},
    }


# ------------------------------------------------------------------------------------------------ mesh

#: one-way delay of each mesh host's access link, ms (a flow's base RTT is twice the sum of its
#: two hosts': 20–50 ms); h3 and h5 only receive, and their links have none (the delay line's load)
MESH_HOST_DELAY_MS = {"h1": 10.0, "h2": 10.0, "h3": 0.0, "h4": 10.0, "h5": 0.0, "h6": 15.0}
#: the router each mesh host hangs on
MESH_HOST_ROUTER = {"h1": "r1", "h2": "r2", "h3": "r3", "h4": "r4", "h5": "r5", "h6": "r6"}
#: core links of the mesh: (id, a, b, bandwidth_mbps); the four bottlenecks first, then the fast links
#: of the tree r1–r2, r2–{r3, r4}, r4–{r5, r6}, then the redundant ones (r1–r7–r6, r3–r8–r5), which
#: close cycles that no minimum-hop route of the flows takes
MESH_CORE = (
    ("B1", "r1", "r2", 15.0),
    ("B2", "r2", "r3", 10.0),
    ("B3", "r2", "r4", 15.0),
    ("B4", "r4", "r5", 10.0),
    ("r4-r6", "r4", "r6", 100.0),
    ("r1-r7", "r1", "r7", 100.0),
    ("r7-r6", "r7", "r6", 100.0),
    ("r3-r8", "r3", "r8", 100.0),
    ("r8-r5", "r8", "r5", 100.0),
)
#: the mesh's flows: id -> (src host, dst host)
MESH_FLOWS = {
    "f1": ("h1", "h2"), "f2": ("h1", "h3"), "f3": ("h1", "h4"), "f4": ("h1", "h5"),
    "f5": ("h2", "h3"), "f6": ("h2", "h3"), "f7": ("h2", "h4"), "f8": ("h2", "h5"),
    "f9": ("h4", "h5"), "f10": ("h6", "h5"), "f11": ("h2", "h6"), "f12": ("h6", "h3"),
}
MESH_DURATION_S = 60.0

MESH_BOTTLENECKS = (
    Bottleneck("B1", "r1", "r2", ("f1", "f2", "f3", "f4")),
    Bottleneck("B2", "r2", "r3", ("f2", "f5", "f6", "f12")),
    Bottleneck("B3", "r2", "r4", ("f3", "f4", "f7", "f8", "f11")),
    Bottleneck("B4", "r4", "r5", ("f4", "f8", "f9", "f10")),
)


def mesh(duration_s: float = MESH_DURATION_S) -> dict[str, Any]:
    """A 14-node mesh (routers ``r1``–``r8``, hosts ``h1``–``h6``) with 12 bulk flows over four
    bottlenecks.

    Core (:data:`MESH_CORE`, no propagation delay): bottlenecks ``B1`` r1–r2 (15 Mbit/s), ``B2``
    r2–r3 (10), ``B3`` r2–r4 (15), ``B4`` r4–r5 (10); 100 Mbit/s links r4–r6 and the redundant
    paths r1–r7–r6 and r3–r8–r5. Host ``h{k}`` hangs on ``r{k}`` by a 100 Mbit/s access link with
    :data:`MESH_HOST_DELAY_MS` one way. Flows (:data:`MESH_FLOWS`, minimum-hop routes): ``f4``
    (h1→h5) crosses B1, B3 and B4; ``f2``, ``f3`` and ``f8`` two; the others one (``f12``, h6→h3 on
    r6–r4–r2–r3, crosses B3's link against its flows' data, with their ACKs); ``f5`` and ``f6`` share
    their hosts.
    Base RTTs 20–50 ms. Queues one BDP at 40 ms (33 packets at 10 Mbit/s, 50 at 15).

    Parameters
    ----------
    duration_s : float
        Run length, s.

    Returns
    -------
    dict
        Scenario document (14 nodes, 15 links, 12 flows; NewReno).
    """
    nodes: list[dict] = [{"id": f"r{k}", "kind": "router"} for k in range(1, 9)]
    links: list[dict] = []
    for lid, a, b, rate in MESH_CORE:
        links.append({"id": lid, "src": a, "dst": b, "bandwidth_mbps": rate, "delay_ms": 0.0,
                      "queue_packets": bdp_packets(rate)})
    for h, r in MESH_HOST_ROUTER.items():
        _host(nodes, links, h, r, MESH_HOST_DELAY_MS[h])
    return {
        "name": "mesh-14",
        "description": ("14-node mesh, 12 NewReno flows over four bottlenecks (10 and 15 Mbit/s, queues one BDP "
                        "at 40 ms), one flow across three of them, three across two; delay on the senders' 100 "
                        "Mbit/s access links only (RTT 20–50 ms)."),
        "nodes": nodes,
        "links": links,
        "flows": [{"id": fid, "src": s, "dst": d} for fid, (s, d) in MESH_FLOWS.items()],
        "run": {"duration_s": duration_s, "interval_s": 1.0},
        "transport": {"congestion_control": "newreno"},
    }


def with_extra_rtt(doc: Mapping[str, Any], flow_id: str, extra_rtt_ms: float) -> dict[str, Any]:
    """``doc`` with flow ``flow_id`` moved onto a sender host of its own, ``<src>-x``, on the same
    router as its sender, whose access link adds ``extra_rtt_ms / 2`` to the original's one-way delay:
    the same network with that flow's base RTT ``extra_rtt_ms`` longer and nothing else changed.

    A what-if: a delay given as propagation that is not queueing (a longer path, or a queue that one
    engine has and the other lacks), with the flow's routes and every other flow unchanged; with
    ``extra_rtt_ms`` 0 it gives the flow a sender host, and so access link, of its own.

    Parameters
    ----------
    doc : mapping
        Scenario document whose flow's sender is a host with one access link.
    flow_id : str
    extra_rtt_ms : float
        Added round-trip time, ms (≥ 0).

    Returns
    -------
    dict
        A new scenario document.
    """
    out = json.loads(json.dumps(doc))
    flow = next(f for f in out["flows"] if f["id"] == flow_id)
    src = flow["src"]
    access = next(link for link in out["links"] if src in (link["src"], link["dst"]))
    router = access["dst"] if access["src"] == src else access["src"]
    host = f"{src}-x"
    out["nodes"].append({"id": host, "kind": "host"})
    out["links"].append({**access, "id": f"{host}-{router}", "src": host, "dst": router,
                         "delay_ms": access.get("delay_ms", 0.0) + extra_rtt_ms / 2.0})
    flow["src"] = host
    return out


def base_rtt_ms(doc: Mapping[str, Any], flow_id: str, plan_flow: Any) -> float:
    """Base (propagation) RTT of a flow, ms: twice the sum of ``delay_ms`` over the links of its
    route (``plan_flow``: the flow's :class:`~subflow.runplan.document.FlowPlan`; its first subflow's route)."""
    delays = {link["id"]: link.get("delay_ms", 0.0) for link in doc["links"]}
    resources = plan_flow.segments[0].subflows[0].resources
    return 2.0 * sum(delays[r.partition(":")[0]] for r in resources)


# ------------------------------------------------------------------------------------------- testbeds


@dataclass(frozen=True)
class Testbed:
    """A scenario builder with its bottlenecks; ``key`` names it in :data:`KERNEL_JSON`."""

    __test__ = False  # not a pytest class

    key: str
    title: str
    build: Callable[[], dict[str, Any]]
    bottlenecks: tuple[Bottleneck, ...]
    strategy: str = "sptcp"
    warmup_s: float = WARMUP_S

    def scenario(self) -> dict[str, Any]:
        """The scenario document (a fresh dict)."""
        return self.build()


TESTBEDS: dict[str, Testbed] = {
    "parking-lot": Testbed("parking-lot", "Parking lot (3 bottlenecks, 4 flows)", parking_lot,
                           PARKING_LOT_BOTTLENECKS),
    "mesh": Testbed("mesh", "Mesh (14 nodes, 4 bottlenecks, 12 flows)", mesh, MESH_BOTTLENECKS),
}


def scenario_digest(doc: Mapping[str, Any]) -> str:
    """SHA-256 (hex, first 16 digits) of the scenario document's canonical JSON without its
    ``description``: stored with the kernel runs, so figures of a scenario that has since changed
    are recognised as stale (a reworded description does not make them so)."""
    body = {k: v for k, v in doc.items() if k != "description"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:16]


def check_routes(plan: Any, bottlenecks: Iterable[Bottleneck]) -> list[str]:
    """Differences between the declared bottleneck membership and the plan's routes.

    Parameters
    ----------
    plan : RunPlan
        ``resolve_plan(doc, strategy, engine)``.
    bottlenecks : iterable of Bottleneck

    Returns
    -------
    list of str
        One line per bottleneck whose crossing flows differ from its ``flows`` (empty: they agree).
    """
    crossing: dict[str, set[str]] = {}
    for fp in plan.flows:
        for seg in fp.segments:
            for sub in seg.subflows:
                for r in sub.resources:
                    crossing.setdefault(r, set()).add(fp.id)
    out = []
    for b in bottlenecks:
        got = crossing.get(b.resource, set())
        if got != set(b.flows):
            out.append(f"{b.resource}: routes cross it with {sorted(got)}, declared {sorted(b.flows)}")
    return out


def flow_means(output: Any, warmup_s: float = WARMUP_S) -> dict[str, float]:
    """Mean goodput of each flow over [``warmup_s``, end), Mbit/s.

    Parameters
    ----------
    output : EngineOutput
        Of either engine (``flows[].t_s``: interval starts, s; ``flows[].throughput_mbps``).
    warmup_s : float
        Intervals starting before this are excluded, s.

    Returns
    -------
    dict
        Flow id -> mean goodput, Mbit/s.
    """
    out = {}
    for f in output.flows:
        vals = [v for t, v in zip(f.t_s, f.throughput_mbps) if t >= warmup_s - 1e-9]
        out[f.id] = sum(vals) / len(vals) if vals else 0.0
    return out


def bottleneck_sums(means: Mapping[str, float], bottlenecks: Iterable[Bottleneck]) -> dict[str, float]:
    """Aggregate goodput of each bottleneck: the sum of the means of the flows crossing it, Mbit/s.

    >>> bottleneck_sums({"a": 1.0, "b": 2.5, "c": 4.0}, [Bottleneck("l", "x", "y", ("a", "b"))])
    {'l': 3.5}
    """
    return {b.link: sum(means[f] for f in b.flows) for b in bottlenecks}


def fluid_means(testbed: Testbed, seeds: Iterable[int] = FLUID_SEEDS) -> dict[str, float]:
    """Mean goodput per flow of the fluid engine on ``testbed``, Mbit/s: the mean over ``seeds`` of each
    run's mean over [``warmup_s``, end)."""
    from subflow.runplan.resolve import resolve_plan
    from subflow_engines.fluid import run as fluid_run

    doc = testbed.scenario()
    acc: dict[str, list[float]] = {}
    for seed in seeds:
        plan = resolve_plan({**doc, "run": {**doc["run"], "seed": seed}}, testbed.strategy, "fluid")
        for fid, v in flow_means(fluid_run(plan), testbed.warmup_s).items():
            acc.setdefault(fid, []).append(v)
    return {fid: statistics.mean(v) for fid, v in acc.items()}


#: seeds of the fluid engine's mean RTTs (:func:`fluid_mean_rtts_ms`; they vary by about 1 % between seeds)
RTT_SEEDS = (1, 2, 3)


def fluid_mean_rtts_ms(testbed: Testbed, seeds: Iterable[int] = RTT_SEEDS) -> dict[str, float]:
    """Mean RTT per flow of the fluid engine on ``testbed``, ms: base RTT plus the queueing delay of the
    path and of the ACKs' reverse resources that the engine's congestion control uses in each step
    (``rtt`` of each open subflow of the scalar kernel, which agrees with the vectorised one on
    single-path plans), averaged over the steps in [``warmup_s``, end) and then over ``seeds``; the
    counterpart of iperf3's mean RTT of the kernel's runs."""
    from subflow.runplan.resolve import resolve_plan
    from subflow_engines.fluid.scalar import ScalarSimulator

    doc = testbed.scenario()
    per_seed: dict[str, list[float]] = {}
    for seed in seeds:
        sums: dict[str, list[float]] = {}

        class Probe(ScalarSimulator):
            def step(self, step: int, t: float, b: int) -> None:
                super().step(step, t, b)
                if t >= testbed.warmup_s:
                    for conn in self.conns:
                        for sub in conn.subs.values():
                            if sub.phase == "open":
                                acc = sums.setdefault(conn.plan.id, [0.0, 0.0])
                                acc[0] += sub.rtt
                                acc[1] += 1.0

        plan = resolve_plan({**doc, "run": {**doc["run"], "seed": seed}}, testbed.strategy, "fluid")
        Probe(plan).run()
        for fid, (total, n) in sums.items():
            per_seed.setdefault(fid, []).append(1e3 * total / n)
    return {fid: statistics.mean(v) for fid, v in per_seed.items()}


def reno_loss_rate(goodput_mbps: float, rtt_ms: float, mss_bytes: int = 1448) -> float:
    """Loss events per packet that NewReno's square-root law gives a flow of ``goodput_mbps`` at a mean
    RTT of ``rtt_ms``: p = 8/(3W²), W = goodput·RTT/MSS its mean window in packets (Mathis, Semke,
    Mahdavi, Ott, "The macroscopic behavior of the TCP congestion avoidance algorithm", ACM CCR 27(3),
    1997, with the constant of periodic halving). A reading of the windows, for comparing flows on a
    shared bottleneck; not a model of fast recovery or timeouts.

    >>> round(reno_loss_rate(1.4476, 80.0), 4)  # W = 10 packets
    0.0267
    """
    w = goodput_mbps * 1e6 * rtt_ms * 1e-3 / (mss_bytes * 8)
    return 8.0 / (3.0 * w * w)


# ------------------------------------------------------------------------------------------- comparison


@dataclass(frozen=True)
class Row:
    """One line of a comparison: a flow or a bottleneck.

    ``kernel_runs``: the kernel's figure in each run (Mbit/s); ``kernel``: their median; ``fluid``:
    the fluid engine's; ``ratio``: fluid / kernel (None when the kernel's median is 0);
    ``within``: ratio within 1 ± ``tolerance``.
    """

    name: str
    kernel_runs: tuple[float, ...]
    kernel: float
    fluid: float
    tolerance: float
    flows: tuple[str, ...] = ()

    @property
    def ratio(self) -> float | None:
        return self.fluid / self.kernel if self.kernel > 0 else None

    @property
    def within(self) -> bool:
        r = self.ratio
        return r is not None and abs(r - 1.0) <= self.tolerance + 1e-12

    @property
    def spread(self) -> float:
        """Half the kernel runs' range relative to their median (0.05: ±5 %)."""
        return (max(self.kernel_runs) - min(self.kernel_runs)) / 2.0 / self.kernel if self.kernel > 0 else 0.0


@dataclass(frozen=True)
class Comparison:
    """Per-flow and per-bottleneck rows of one testbed."""

    testbed: str
    flows: list[Row] = field(default_factory=list)
    bottlenecks: list[Row] = field(default_factory=list)

    @property
    def misses(self) -> list[Row]:
        return [r for r in self.flows + self.bottlenecks if not r.within]

    def report(self) -> str:
        """One line per row: name, kernel runs, median, fluid, ratio, and ``MISS`` outside the target."""
        lines = [f"{self.testbed}:"]
        for r in self.flows + self.bottlenecks:
            ratio = f"{r.ratio:.2f}" if r.ratio is not None else "-"
            lines.append(f"  {r.name}: kernel {', '.join(f'{v:.2f}' for v in r.kernel_runs)} (median {r.kernel:.2f}) "
                         f"fluid {r.fluid:.2f} Mbit/s, ratio {ratio} (±{r.tolerance:.0%})"
                         + ("" if r.within else " MISS"))
        return "\n".join(lines)


def compare(kernel_runs: list[Mapping[str, float]], fluid: Mapping[str, float],
            bottlenecks: Iterable[Bottleneck], flow_tolerance: float = FLOW_TOLERANCE,
            bottleneck_tolerance: float = BOTTLENECK_TOLERANCE, testbed: str = "") -> Comparison:
    """The fluid engine's means against the kernel's runs.

    Parameters
    ----------
    kernel_runs : list of mapping
        One mapping per kernel run: flow id -> mean goodput, Mbit/s.
    fluid : mapping
        Flow id -> the fluid engine's mean goodput, Mbit/s.
    bottlenecks : iterable of Bottleneck
    flow_tolerance, bottleneck_tolerance : float
        Allowed relative deviation of fluid from the kernel's median (0.2: ±20 %).
    testbed : str
        Name for the report.

    Returns
    -------
    Comparison
        A row per flow of ``fluid`` (kernel median over runs) and per bottleneck: its kernel figure is the median
        over runs of the run's sum over the bottleneck's flows; the fluid figure is the sum of the
        fluid means.

    Examples
    --------
    >>> c = compare([{"a": 1.0, "b": 3.0}, {"a": 1.2, "b": 2.8}, {"a": 0.8, "b": 3.1}],
    ...             {"a": 1.1, "b": 3.0}, [Bottleneck("l", "x", "y", ("a", "b"))])
    >>> [(r.name, r.kernel, round(r.ratio, 3), r.within) for r in c.flows + c.bottlenecks]
    [('a', 1.0, 1.1, True), ('b', 3.0, 1.0, True), ('l', 4.0, 1.025, True)]
    """
    bottlenecks = list(bottlenecks)
    rows = []
    for fid in fluid:  # the engine's (the scenario's) order
        runs = tuple(run[fid] for run in kernel_runs)
        rows.append(Row(fid, runs, statistics.median(runs), fluid[fid], flow_tolerance))
    brows = []
    fluid_sums = bottleneck_sums(fluid, bottlenecks)
    run_sums = [bottleneck_sums(run, bottlenecks) for run in kernel_runs]
    for b in bottlenecks:
        runs = tuple(s[b.link] for s in run_sums)
        brows.append(Row(b.link, runs, statistics.median(runs), fluid_sums[b.link], bottleneck_tolerance, b.flows))
    return Comparison(testbed, rows, brows)


def load_kernel(path: Path = KERNEL_JSON) -> dict[str, Any]:
    """The stored kernel figures (``{}`` when the file does not exist)."""
    return json.loads(path.read_text()) if path.exists() else {}


def kernel_runs(entry: Mapping[str, Any]) -> list[dict[str, float]]:
    """Per-run flow means (flow id -> Mbit/s) of a stored entry of :data:`KERNEL_JSON`."""
    return [dict(run["flows_mbps"]) for run in entry["runs"]]


def compare_stored(testbed: Testbed, store: Mapping[str, Any] | None = None,
                   fluid: Mapping[str, float] | None = None) -> Comparison | None:
    """The fluid engine (recomputed now unless ``fluid`` is given) against ``testbed``'s stored kernel
    runs; None when none are stored."""
    store = load_kernel() if store is None else store
    entry = store.get(testbed.key)
    if not entry:
        return None
    return compare(kernel_runs(entry), fluid if fluid is not None else fluid_means(testbed), testbed.bottlenecks,
                   testbed=testbed.key)


# ------------------------------------------------------------------------------------------- kernel runs


def _loadavg() -> list[float]:
    with open("/proc/loadavg") as fh:
        return [float(x) for x in fh.read().split()[:3]]


def engine_commit() -> dict[str, Any]:
    """The repository's commit (``git rev-parse HEAD``), the last commit that touched the linux engine
    (``engines/subflow_engines/linux``) and whether that directory has uncommitted changes."""
    import subprocess

    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                                  timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    linux_dir = "engines/subflow_engines/linux"
    return {"head": git("rev-parse", "HEAD") or None,
            "linux_engine": git("log", "-1", "--format=%H", "--", linux_dir) or None,
            "linux_engine_dirty": bool(git("status", "--porcelain", "--", linux_dir))}


def _cpu_busy_s() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot, from /proc/stat (all cores)."""
    import os

    with open("/proc/stat") as fh:
        vals = [int(x) for x in fh.readline().split()[1:]]
    hz = os.sysconf("SC_CLK_TCK")
    idle = vals[3] + (vals[4] if len(vals) > 4 else 0)  # idle + iowait
    return (sum(vals) - idle) / hz, sum(vals) / hz


def kernel_run(testbed: Testbed, load_every_s: float = 2.0) -> dict[str, Any]:
    """One run of ``testbed`` on the linux engine (root, real time: ``duration_s`` plus set-up).

    Returns
    -------
    dict
        ``flows_mbps``: flow id -> mean goodput over [``warmup_s``, end), Mbit/s;
        ``mean_rtt_ms``/``min_rtt_ms``: flow id -> iperf3's (sender's) mean and minimum RTT over the
        run, ms (None where iperf3 gave none); ``loadavg_before``/``loadavg_after``: /proc/loadavg
        (1, 5, 15 min); ``loadavg_1min_during``: mean and max of the 1-minute load average sampled
        every ``load_every_s`` s during the run; ``cpu_s``: CPU seconds over the run, ``machine`` (all
        cores busy, /proc/stat), ``run`` (this process and the processes the run started and reaped:
        delay lines, iperf3, ip/tc) and ``wall`` (the run's wall clock; the machine has ``cores``), so
        ``machine − run`` is what other work took meanwhile; ``setup_s``; ``congestion_control``;
        ``kernel``; ``delay_mechanism``; ``delay_line_late_p90_us``: over the run's NFQUEUE delay
        line queues, the largest 90th percentile of how late their verdicts completed (µs; above
        :data:`subflow_engines.linux.delayline.STALLED_P90_US` the host stalled them), None without
        delay lines; ``at`` (UTC).
    """
    import os
    import resource
    import threading
    import time

    from subflow.runplan.resolve import resolve_plan
    from subflow_engines import linux
    from subflow_engines.linux.delayline import late_p90_us

    plan = resolve_plan(testbed.scenario(), testbed.strategy, "linux")
    samples: list[float] = []
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(load_every_s):
            samples.append(_loadavg()[0])

    def own_cpu() -> float:
        ru = [resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
        return sum(r.ru_utime + r.ru_stime for r in ru)

    before = _loadavg()
    busy0, own0, wall0 = _cpu_busy_s()[0], own_cpu(), time.monotonic()
    th = threading.Thread(target=sample, daemon=True)
    th.start()
    try:
        out = linux.run(plan)
    finally:
        stop.set()
        th.join()
    cpu = {"machine": round(_cpu_busy_s()[0] - busy0, 1), "run": round(own_cpu() - own0, 1),
           "wall": round(time.monotonic() - wall0, 1), "cores": os.cpu_count()}
    mean_rtt, min_rtt = {}, {}
    for f in out.flows:
        client = (f.iperf3 or {}).get("client", {})
        mean_rtt[f.id] = client.get("mean_rtt_ms")
        min_rtt[f.id] = client.get("min_rtt_ms")
    info = out.linux or {}
    return {
        "flows_mbps": {k: round(v, 4) for k, v in flow_means(out, testbed.warmup_s).items()},
        "mean_rtt_ms": mean_rtt,
        "min_rtt_ms": min_rtt,
        "loadavg_before": before,
        "loadavg_after": _loadavg(),
        "loadavg_1min_during": {"mean": round(statistics.mean(samples), 2) if samples else None,
                                "max": max(samples) if samples else None},
        "cpu_s": cpu,
        "setup_s": info.get("setup_s"),
        "congestion_control": info.get("congestion_control"),
        "kernel": info.get("kernel"),
        "delay_mechanism": info.get("delay_mechanism"),
        "delay_line_late_p90_us": late_p90_us(info.get("delay_lines", [])),
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def kernel_entry(testbed: Testbed, runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The stored record of ``testbed``'s kernel runs in :data:`KERNEL_JSON`: ``runs`` (each as
    :func:`kernel_run` returns it), ``scenario_digest`` (:func:`scenario_digest` of the scenario they
    ran), ``duration_s``, ``warmup_s``, ``strategy`` and ``commit`` (:func:`engine_commit`)."""
    doc = testbed.scenario()
    return {"runs": runs, "scenario_digest": scenario_digest(doc), "duration_s": doc["run"]["duration_s"],
            "warmup_s": testbed.warmup_s, "strategy": testbed.strategy, "commit": engine_commit()}
