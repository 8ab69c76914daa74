"""Exports of a scenario for other tools: a standalone Mininet-WiFi script and an ns-2 mobility trace.

The ``mininet-wifi`` engine of the emulator agent runs these scripts where Mininet-WiFi
is installed; the API's export endpoint hands them to users for their own testbeds.

Mininet-WiFi (Fontes et al., "Mininet-WiFi: Emulating software-defined wireless
networks", CNSM 2015; https://github.com/intrig-unicamp/mininet-wifi) needs the
``mac80211_hwsim`` kernel module, ``hostapd`` and its Python package ``mn_wifi``.
:func:`available` detects them; where they are missing (as on the project's CI
machines) the engine is listed as unavailable and :func:`generate_script` still
produces the script, so users can run a scenario on their own testbed (``sudo
python3 script.py``).

Translation (names are generated, never taken from the scenario: Mininet interface
names ``<node>-eth<k>`` must fit 15 characters):

* hosts -> ``h<k>``; switches, routers and satellites -> Linux routers ``r<k>``
  (hosts with ``ip_forward``); access points -> OVS APs ``ap<k>`` (``failMode='standalone'``,
  an L2 segment with the hosts wired to them); stations -> ``sta<k>``.
* wired links -> ``TCLink`` with ``bw`` (Mbit/s), ``delay``, ``jitter``, ``loss`` (percent)
  and ``max_queue_size`` (packets); one /24 per link ``10.<1+j//256>.<j%256>.0/24``,
  the AP segment ``k`` is ``10.200.<k>.0/24``.
* routes: static, minimum-hop per destination subnet (BFS over nodes and segments, ties by
  generated name), plus per-interface policy tables on multi-homed hosts and stations.
* radio: ``setPropagationModel(model='logDistance', exp=...)``, per-AP ``range``,
  ``startMobility(time=0, ac_method=<radio.association_policy>)``. Air delay/loss: netem on
  the stations' ``wlan0``. Mininet-WiFi associates in its own time: the scenario's
  ``association_delay_s`` is not imposed (stated in the script's header).
* mobility: every model of every wireless node (stations and access points, e.g. a loitering
  UAV) is replayed from the domain library's trajectory (:func:`subflow.space.mobility.trajectory`):
  one ``mobility(node, 'start'/'stop', ...)`` pair per straight leg (``x,y,z`` with the altitude),
  so the testbed follows exactly the planned path; with ``random_models="native"`` random walks
  of stations use ``setMobilityModel(..., seed=)`` instead. Wired nodes (hosts, switches, routers)
  have no position in Mininet; their planned motion is carried as data (``WIRED_MOTION``:
  corners ``(t_s, x_m, y_m, z_m)``), as it changes nothing on a wired link.
* geography: a geographic scenario is written in its local projected frame
  (:func:`subflow.space.mobility.to_local`, metres east/north of the origin).
* scheduled ``link_events`` -> ``configLinkStatus`` at their times.
* text from users: nothing the user wrote (scenario name, description, labels, ids) is
  pasted into code or a shell command. The script carries it as data only: ``SCENARIO``
  is a JSON document inside one Python string literal made by :func:`repr` (so no
  character of it can end the literal), parsed with ``json.loads``; comments hold only
  identifiers checked against :data:`_PLAIN` (anything else is written with :func:`repr`,
  which never produces a line break); iperf3 output files are named by port number; the
  ns-2 trace keeps only a fixed set of characters in its comments.
* traffic: one ``iperf3 -s -1 -J`` per flow at the destination, ``iperf3 -c ... -J`` at the
  source at ``start_s`` (``mptcpize run`` and ``ip mptcp endpoint`` for MPTCP strategies); the
  script prints every iperf3 JSON between ``SUBFLOW-RESULT`` markers, which the agent's
  ``mininet-wifi`` engine turns into the engine output.
"""

from __future__ import annotations

import json
import math
import re
from collections import deque
from typing import Any

from subflow.errors import EngineCannotRun, FieldNotHonoured
from subflow.runplan.document import RunPlan
from subflow.runplan.resolve import resolve_plan
from subflow.scenario.document import AccessPointNode, Scenario, StationNode, load_scenario
from subflow.space.mobility import effective_seed, to_local, trajectory

RESULT_BEGIN = "SUBFLOW-RESULT-BEGIN"
RESULT_END = "SUBFLOW-RESULT-END"
#: log-distance path-loss exponent used for the propagation model
PATH_LOSS_EXPONENT = 3.0
#: text written as-is into a comment of a generated file (scenario identifiers); anything else is repr()'d
_PLAIN = re.compile(r"[A-Za-z0-9_.-]{1,64}")
#: congestion controls the script may hand to ``iperf3 -C`` (scenario names -> Linux names)
_CC = {"newreno": "reno", "reno": "reno", "cubic": "cubic"}


def _comment(text: str) -> str:
    """``text`` for a ``#`` comment of the Python script: as-is when it is a plain identifier,
    else its :func:`repr` (a repr never contains a line break, so the comment cannot end early)."""
    return text if _PLAIN.fullmatch(text) else repr(text)


def _data(obj: Any) -> str:
    """A Python expression that evaluates to ``obj`` (JSON-compatible): ``json.loads(<literal>)``.

    The JSON text is ASCII (``ensure_ascii``) and enclosed by :func:`repr`, which escapes every
    quote and backslash it contains: whatever the strings in ``obj`` hold, the expression is
    one string literal and one call, and evaluates to data.
    """
    return f"json.loads({json.dumps(obj, ensure_ascii=True, sort_keys=True)!r})"


# --------------------------------------------------------------------------- naming and addressing


class _Names:
    def __init__(self, scenario: Scenario):
        self.of: dict[str, str] = {}
        counters: dict[str, int] = {}
        prefix = {"host": "h", "station": "sta", "access_point": "ap", "switch": "r", "router": "r", "satellite": "r"}
        for n in scenario.nodes:
            p = prefix[n.kind]
            counters[p] = counters.get(p, 0) + 1
            self.of[n.id] = f"{p}{counters[p]}"
        self.kind = {n.id: n.kind for n in scenario.nodes}


def _networks(scenario: Scenario) -> list[str]:
    """Radio networks (technologies) in order: a station has one ``wlan<k>`` per network."""
    return sorted({getattr(ap, "network", "wlan") for ap in scenario.nodes if isinstance(ap, AccessPointNode)})


def _topology(scenario: Scenario, names: _Names):
    """Segments (wired links, and one radio segment per network) with each member's
    (interface, address). Access points are L2 switches of their network's segment."""
    aps = {n.id: n for n in scenario.nodes if isinstance(n, AccessPointNode)}
    nets = _networks(scenario)
    segments: list[dict[str, Any]] = []
    intf_count: dict[str, int] = {}

    def intf(node: str) -> str:
        k = intf_count.get(node, 0)
        intf_count[node] = k + 1
        return f"{names.of[node]}-eth{k}"

    radio: dict[str, dict[str, Any]] = {}
    for k, net in enumerate(nets):
        radio[net] = {"id": f"radio:{net}", "subnet": f"10.200.{k}.0/24", "members": {}, "ap": True, "next": 1,
                      "k": k}
    for j, link in enumerate(scenario.links):
        ap_end = next((e for e in (link.src, link.dst) if e in aps), None)
        if ap_end is not None:
            other = link.dst if ap_end == link.src else link.src
            if other in aps:
                continue  # AP to AP: an L2 bridge inside the radio segment
            seg = radio[getattr(aps[ap_end], "network", "wlan")]
            if other not in seg["members"]:
                seg["members"][other] = (intf(other), f"10.200.{seg['k']}.{seg['next']}")
                seg["next"] += 1
            continue
        subnet = f"10.{1 + j // 256}.{j % 256}"
        segments.append({
            "id": link.id, "subnet": f"{subnet}.0/24", "ap": False,
            "members": {link.src: (intf(link.src), f"{subnet}.1"), link.dst: (intf(link.dst), f"{subnet}.2")},
        })
    stations = [n for n in scenario.nodes if isinstance(n, StationNode)]
    for net in nets:
        seg = radio[net]
        for m, st in enumerate(stations):
            seg["members"][st.id] = (f"{names.of[st.id]}-wlan{seg['k']}", f"10.200.{seg['k']}.{100 + m}")
        segments.append(seg)
    return segments


def _routes(scenario: Scenario, segments: list[dict[str, Any]]) -> dict[str, list[tuple[str, str]]]:
    """Minimum-hop static routes ``node -> [(subnet, via)]`` (BFS over nodes and segments;
    stations never forward, ties go to the lower address)."""
    attached: dict[str, list[int]] = {}
    for i, seg in enumerate(segments):
        for node in seg["members"]:
            attached.setdefault(node, []).append(i)
    stations = {n.id for n in scenario.nodes if isinstance(n, StationNode)}
    out: dict[str, list[tuple[str, str]]] = {}
    for src in sorted(attached):
        first: dict[int, str | None] = {}
        seen_nodes = {src}
        q: deque[tuple[str, str | None]] = deque([(src, None)])
        while q:
            node, hop = q.popleft()
            if node != src and node in stations:
                continue  # a station is an end host, not a transit router
            for si in attached.get(node, []):
                if si in first:
                    continue
                first[si] = hop
                for other, (_intf, addr) in sorted(segments[si]["members"].items(), key=lambda kv: kv[1][1]):
                    if other in seen_nodes:
                        continue
                    seen_nodes.add(other)
                    q.append((other, hop if hop is not None else addr))
        out[src] = [(segments[si]["subnet"], hop) for si, hop in sorted(first.items()) if hop is not None]
    return out


def _gateways(segments: list[dict[str, Any]], stations: set[str]) -> dict[str, list[tuple[str, str, str]]]:
    """Per multi-homed node: (interface, address, gateway) for its per-interface policy table;
    the gateway is the first non-station member of the interface's segment."""
    per: dict[str, list[tuple[str, str, str]]] = {}
    for seg in segments:
        routers = [(a, n) for n, (_i, a) in seg["members"].items() if n not in stations]
        for node, (itf, addr) in seg["members"].items():
            gw = next((a for a, n in sorted(routers) if n != node), None)
            if gw is not None:
                per.setdefault(node, []).append((itf, addr, gw))
    return {n: sorted(v) for n, v in per.items() if len(v) > 1}


# --------------------------------------------------------------------------- script


def _legs_code(scenario: Scenario, names: _Names, random_models: str) -> list[str]:
    lines: list[str] = []
    duration = scenario.run.duration_s
    for st in (n for n in scenario.nodes if isinstance(n, (StationNode, AccessPointNode))):
        name = names.of[st.id]
        model = st.mobility.model
        if model == "static":
            continue
        if random_models == "native" and model == "random_walk" and isinstance(st, StationNode):
            b = st.mobility.bounds
            lines.append(
                f"    net.setMobilityModel(time=0, model='RandomWalk', max_x={b.x_max_m:g}, max_y={b.y_max_m:g}, "
                f"min_v={st.mobility.speed_min_mps:g}, max_v={st.mobility.speed_max_mps:g}, "
                f"seed={effective_seed(st.mobility.seed, scenario.run.seed)})  # {name}"
            )
            continue
        legs = [leg for leg in trajectory(st, duration, scenario.run.seed)
                if (leg.x0_m, leg.y0_m, leg.z0_m) != (leg.x1_m, leg.y1_m, leg.z1_m) and leg.t1_s > leg.t0_s]
        for leg in legs:
            lines.append(
                f"    net.mobility({name}, 'start', time={leg.t0_s:.3f}, "
                f"position='{leg.x0_m:.3f},{leg.y0_m:.3f},{_z(leg.z0_m)}')"
            )
            lines.append(
                f"    net.mobility({name}, 'stop', time={leg.t1_s:.3f}, "
                f"position='{leg.x1_m:.3f},{leg.y1_m:.3f},{_z(leg.z1_m)}')"
            )
    return lines


def _z(z_m: float) -> str:
    """Altitude in a Mininet-WiFi position: ``0`` when on the surface, else metres with 3 decimals."""
    return "0" if z_m == 0 else f"{z_m:.3f}"


def _wired_motion(scenario: Scenario, names: _Names) -> dict[str, list[tuple[float, float, float, float]]]:
    """Corners ``(t_s, x_m, y_m, z_m)`` of every moving wired node (hosts, switches, routers, satellites)."""
    out: dict[str, list[tuple[float, float, float, float]]] = {}
    for n in scenario.nodes:
        if isinstance(n, (StationNode, AccessPointNode)) or n.mobility.model == "static":
            continue
        legs = trajectory(n, scenario.run.duration_s, scenario.run.seed)
        corners = [(g.t0_s, g.x0_m, g.y0_m, g.z0_m) for g in legs] + [
            (legs[-1].t1_s, legs[-1].x1_m, legs[-1].y1_m, legs[-1].z1_m)]
        out[names.of[n.id]] = [tuple(round(v, 3) for v in c) for c in corners]
    return out


def generate_script(plan: RunPlan, random_models: str = "legs") -> str:
    """A standalone Mininet-WiFi Python script for ``plan`` (its scenario and strategy).

    Parameters
    ----------
    plan : RunPlan
        From :func:`subflow.runplan.resolve.resolve_plan` (must carry ``scenario``).
    random_models : {"legs", "native"}
        Replay random mobility leg by leg (exactly the planned trajectory, default), or use
        Mininet-WiFi's own ``RandomWalk`` model with the scenario's seed.

    Returns
    -------
    str
        Python source; deterministic for a given plan.

    Raises
    ------
    EngineCannotRun
        Without ``plan.scenario``; :class:`~subflow.errors.FieldNotHonoured` when the scenario sets a
        field the script cannot carry (:func:`_refuse_unexported`: a satellite's ``ephemeris``, a node's
        ``radio`` or ``uplink``, or ``radio.adhoc_links``; ``subflow_engines.mininet_wifi.FIELDS``
        refuses them too).
    """
    if plan.scenario is None:
        raise EngineCannotRun("plan.scenario: the mininet-wifi engine needs the scenario document")
    _refuse_unexported(plan.scenario)
    sc = to_local(load_scenario(plan.scenario))
    names = _Names(sc)
    segments = _topology(sc, names)
    return "\n".join([
        *_script_header(sc, names),
        *_script_constants(plan, sc, names),
        *_script_topology(sc, names, random_models),
        *_script_addressing(sc, names, segments),
        *_script_schedule(plan, sc, names),
        _RUNTIME,
    ]) + "\n"


def _script_header(sc: Scenario, names: _Names) -> list[str]:
    """The script's docstring, the node-name key and its imports."""
    L = ["#!/usr/bin/env python3",
         '"""Mininet-WiFi script generated by Subflow (scenario and strategy: see SCENARIO below).',
         "",
         "Run as root where Mininet-WiFi is installed: sudo python3 <this file>",
         "Node names are generated (h<k>, r<k>, ap<k>, sta<k>); SCENARIO['nodes'] maps them to the",
         "scenario's ids. Not imposed by Mininet-WiFi: association_delay_s (real association timing applies).",
         '"""',
         "# Node names (scenario id -> Mininet name):"]
    L += [f"#   {_comment(n.id)} -> {names.of[n.id]} ({n.kind})" for n in sc.nodes]
    L += ["", "import json", "import sys", "import threading", "import time", "",
          "from mininet.log import setLogLevel", "from mininet.node import Controller",
          "from mn_wifi.link import wmediumd", "from mn_wifi.net import Mininet_wifi",
          "from mn_wifi.node import OVSKernelAP", "from mn_wifi.wmediumdConnector import interference",
          "from mininet.link import TCLink", ""]
    return L


def _script_constants(plan: RunPlan, sc: Scenario, names: _Names) -> list[str]:
    """SCENARIO (the scenario's own text as data), the run's constants."""
    meta = {
        "name": sc.name,
        "strategy": plan.strategy,
        "nodes": {names.of[n.id]: {"id": n.id, "kind": n.kind} for n in sc.nodes},
        "flows": [fp.id for fp in plan.flows],
    }
    return ["# The scenario's own text, as data (JSON in one string literal): name, strategy, generated",
            "# node name -> scenario node, flow ids in FLOWS order.",
            f"SCENARIO = {_data(meta)}",
            f"DURATION_S = {sc.run.duration_s:g}",
            f"INTERVAL_S = {sc.run.interval_s:g}",
            f"MULTIPATH = {any(fp.multipath for fp in plan.flows)}",
            f"CONGESTION_CONTROL = {_CC[sc.transport.congestion_control]!r}",
            f"RESULT_BEGIN, RESULT_END = {RESULT_BEGIN!r}, {RESULT_END!r}",
            "", ""]


def _script_topology(sc: Scenario, names: _Names, random_models: str) -> list[str]:
    """``topology()``: the nodes, the wired links (TCLink) and the mobility, then the build."""
    aps = [n for n in sc.nodes if isinstance(n, AccessPointNode)]
    stations = [n for n in sc.nodes if isinstance(n, StationNode)]
    nets = _networks(sc)
    L = ["def topology():",
         "    net = Mininet_wifi(controller=Controller, accessPoint=OVSKernelAP, link=wmediumd,",
         "                       wmediumd_mode=interference)",
         "    net.addController('c0')"]
    for n in sc.nodes:
        if not isinstance(n, (AccessPointNode, StationNode)):
            L.append(f"    {names.of[n.id]} = net.addHost({names.of[n.id]!r}, ip=None)  # {_comment(n.id)} ({n.kind})")
    for k, ap in enumerate(aps):
        nm = names.of[ap.id]
        L.append(f"    {nm} = net.addAccessPoint({nm!r}, ssid={nm + '-ssid'!r}, mode='g', channel='{1 + 5 * (k % 3)}', "
                 f"position='{ap.position.x_m:g},{ap.position.y_m:g},{ap.position.alt_m:g}', range={ap.range_m:g}, "
                 f"failMode='standalone')"
                 f"  # {_comment(ap.id)}")
    for st in stations:
        nm = names.of[st.id]
        L.append(f"    {nm} = net.addStation({nm!r}, ip=None, wlans={max(1, len(nets))}, "
                 f"position='{st.position.x_m:g},{st.position.y_m:g},{st.position.alt_m:g}')  # {_comment(st.id)}")
    L.append(f"    net.setPropagationModel(model='logDistance', exp={PATH_LOSS_EXPONENT:g})")
    L.append("    net.configureWifiNodes()")
    for link in sc.links:
        a, b = names.of[link.src], names.of[link.dst]
        params = [f"bw={link.bandwidth_mbps:g}", f"delay='{link.delay_ms:g}ms'",
                  f"max_queue_size={link.queue_packets}"]
        if link.loss > 0:
            params.append(f"loss={link.loss * 100:g}")
        if link.jitter_ms > 0:
            params.append(f"jitter='{link.jitter_ms:g}ms'")
        L.append(f"    net.addLink({a}, {b}, cls=TCLink, {', '.join(params)})  # {_comment(link.id)}")
    policy = getattr(sc, "radio", None)
    ac = policy.association_policy if policy is not None else "ssf"
    L += ["", f"    net.startMobility(time=0, ac_method={ac!r})"]
    L += _legs_code(sc, names, random_models)
    L += [f"    net.stopMobility(time={sc.run.duration_s:g})", "    net.build()", "    for ap in net.aps:",
          "        ap.start([])", "    return net", "", ""]
    return L


def _script_addressing(sc: Scenario, names: _Names, segments: list[dict]) -> list[str]:
    """ADDRESSES, ROUTES (minimum-hop static routes), POLICY (per-interface tables) and AIR (netem of the air)."""
    aps = [n for n in sc.nodes if isinstance(n, AccessPointNode)]
    stations = [n for n in sc.nodes if isinstance(n, StationNode)]
    nets = _networks(sc)
    routes = _routes(sc, segments)
    gateways = _gateways(segments, {st.id for st in stations})
    L = ["ADDRESSES = [  # (node, interface, address/prefix); a station has one wlan<k> per radio network"]
    for seg in segments:
        for node, (itf, addr) in sorted(seg["members"].items(), key=lambda kv: kv[1]):
            L.append(f"    ({names.of[node]!r}, {itf!r}, '{addr}/24'),")
    L += ["]", "ROUTES = {  # node -> [(subnet, via)]: minimum-hop static routes"]
    for node, rs in sorted(routes.items(), key=lambda kv: names.of[kv[0]]):
        if rs:
            L.append(f"    {names.of[node]!r}: {rs!r},")
    L += ["}", "POLICY = {  # multi-homed node -> [(interface, address, gateway)]: one routing table per interface"]
    for node, entries in sorted(gateways.items(), key=lambda kv: names.of[kv[0]]):
        L.append(f"    {names.of[node]!r}: {entries!r},")
    L += ["}", "AIR = {  # station wlan interface -> netem (delay ms, loss %) of its network's air"]
    for st in stations:
        for k, net in enumerate(nets):
            ap = next(a for a in aps if getattr(a, "network", "wlan") == net)
            if ap.wireless_delay_ms > 0 or ap.wireless_loss > 0:
                L.append(f"    '{names.of[st.id]}-wlan{k}': ({ap.wireless_delay_ms:g}, {ap.wireless_loss * 100:g}),")
    L.append("}")
    return L


def _script_schedule(plan: RunPlan, sc: Scenario, names: _Names) -> list[str]:
    """LINK_EVENTS, FLOWS (iperf3 per flow) and the planned motion of wired nodes."""
    L = ["LINK_EVENTS = [  # (t_s, node a, node b, 'up'|'down')"]
    ends = {link.id: (names.of[link.src], names.of[link.dst]) for link in sc.links}
    for ev in sorted(getattr(sc, "link_events", []) or [], key=lambda e: e.t_s):
        a, b = ends[ev.link]
        L.append(f"    ({ev.t_s:g}, {a!r}, {b!r}, {ev.state!r}),  # {_comment(ev.link)}")
    L += ["]", "FLOWS = [  # index in SCENARIO['flows'], src, dst, port, rate (bit/s or None), start_s, seconds"]
    for i, fp in enumerate(plan.flows):
        rate = None if fp.rate_mbps is None else int(fp.rate_mbps * 1e6)
        secs = max(1, int(round(fp.stop_s - fp.start_s)))
        L.append(f"    ({i}, {names.of[fp.src]!r}, {names.of[fp.dst]!r}, {5201 + i}, {rate!r}, {fp.start_s:g}, {secs}),"
                 f"  # {_comment(fp.id)}")
    L.append("]")
    wired = _wired_motion(sc, names)
    if wired:
        L += ["# Planned motion of wired nodes (no position in Mininet; nothing on a wired link depends on it):",
              "# node -> corners (t_s, x_m, y_m, z_m) of its piecewise-linear path.",
              f"WIRED_MOTION = {_data(wired)}"]
    L.append("")
    return L


_RUNTIME = '''
def configure(net):
    for node, intf, cidr in ADDRESSES:
        n = net.get(node)
        n.cmd(f"ip addr flush dev {intf}")
        n.cmd(f"ip addr add {cidr} dev {intf}")
    for n in net.hosts + net.stations:
        n.cmd("sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 net.mptcp.enabled=1")
    for node, routes in ROUTES.items():
        n = net.get(node)
        for subnet, via in routes:
            n.cmd(f"ip route replace {subnet} via {via}")
    for intf, (delay, loss) in AIR.items():
        node = intf.split("-")[0]
        net.get(node).cmd(f"tc qdisc replace dev {intf} root netem delay {delay}ms loss {loss}%")
    for node, entries in POLICY.items():
        n = net.get(node)
        for k, (intf, addr, gw) in enumerate(entries):
            table = 100 + k
            n.cmd(f"ip rule add from {addr} table {table}")
            n.cmd(f"ip route replace default via {gw} dev {intf} table {table}")
            if MULTIPATH:
                n.cmd(f"ip mptcp endpoint add {addr} dev {intf} subflow")
    if MULTIPATH:
        for n in net.hosts + net.stations:
            n.cmd("ip mptcp limits set subflows 8 add_addr_accepted 8")


def link_events(net, t0):
    for t_s, a, b, state in LINK_EVENTS:
        time.sleep(max(0.0, t0 + t_s - time.time()))
        net.configLinkStatus(a, b, state)


def traffic(net):
    wrap = "mptcpize run " if MULTIPATH else ""
    dst_addr = {}
    for node, intf, cidr in ADDRESSES:
        dst_addr.setdefault(node, cidr.split("/")[0])
    for _i, src, dst, port, rate, start, secs in FLOWS:
        net.get(dst).cmd(f"{wrap}iperf3 -4 -s -1 -J -p {port} > /tmp/subflow-{port}-server.json 2>&1 &")
    time.sleep(1.0)
    t0 = time.time()
    threading.Thread(target=link_events, args=(net, t0), daemon=True).start()
    launched = {}
    for i, src, dst, port, rate, start, secs in sorted(FLOWS, key=lambda f: f[5]):
        time.sleep(max(0.0, t0 + start - time.time()))
        pace = f" -b {rate} -l 16384" if rate else ""
        net.get(src).cmd(f"{wrap}iperf3 -4 -c {dst_addr[dst]} -p {port} -t {secs} -i {INTERVAL_S} -J "
                         f"-C {CONGESTION_CONTROL}{pace} > /tmp/subflow-{port}-client.json 2>&1 &")
        launched[SCENARIO["flows"][i]] = time.time() - t0
    time.sleep(max(0.0, t0 + DURATION_S + 5.0 - time.time()))
    out = {"launched_s": launched, "flows": {}}
    for i, _src, _dst, port, *_ in FLOWS:
        fid = SCENARIO["flows"][i]
        out["flows"][fid] = {}
        for role in ("client", "server"):
            try:
                with open(f"/tmp/subflow-{port}-{role}.json") as fh:
                    out["flows"][fid][role] = fh.read()
            except OSError as exc:
                out["flows"][fid][role] = json.dumps({"error": str(exc)})
    print(RESULT_BEGIN)
    print(json.dumps(out))
    print(RESULT_END)
    sys.stdout.flush()


if __name__ == "__main__":
    setLogLevel("warning")
    net = topology()
    try:
        configure(net)
        traffic(net)
    finally:
        net.stop()'''


#: characters kept in a comment of the ns-2 (Tcl) trace; every other one becomes ``_`` (no backslash,
#: which would continue a Tcl comment on the next line, no line break, brace, bracket, ``$`` or quote)
_TCL_COMMENT_DROP = re.compile(r"[^A-Za-z0-9 _.,:;()+=@/-]")


def _tcl_comment(text: str) -> str:
    return _TCL_COMMENT_DROP.sub("_", text)


def ns2_setdest(scenario: Scenario | dict, run_seed: int | None = None) -> str:
    """The planned trajectories of every node, all kinds, as an ns-2 ``setdest`` mobility trace.

    Stations first (``i`` = station index in the scenario), then every other
    node in scenario order: one ``$node_(i) set X_/Y_/Z_`` initial position each (``Z_`` the
    altitude), then ``$ns_ at t "$node_(i) setdest x y speed"`` at the start of every straight leg
    (horizontal speed in m/s; ns-2's setdest is planar), from :func:`subflow.space.mobility.trajectory`.
    A geographic scenario is written in its local frame (:func:`subflow.space.mobility.to_local`, metres).
    """
    sc = to_local(load_scenario(scenario))
    seed = sc.run.seed if run_seed is None else run_seed
    lines = [f"# ns-2 setdest trace generated by Subflow: scenario '{_tcl_comment(sc.name)}' (every node)"]
    ordered = [n for n in sc.nodes if isinstance(n, StationNode)] + [
        n for n in sc.nodes if not isinstance(n, StationNode)]
    for i, st in enumerate(ordered):
        legs = trajectory(st, sc.run.duration_s, seed)
        x0, y0, z0 = (legs[0].x0_m, legs[0].y0_m, legs[0].z0_m) if legs else (
            st.position.x_m, st.position.y_m, st.position.alt_m)
        lines.append(f"# node_({i}) = {_tcl_comment(st.id)} ({st.kind})")
        lines.append(f"$node_({i}) set X_ {x0:.6f}")
        lines.append(f"$node_({i}) set Y_ {y0:.6f}")
        lines.append(f"$node_({i}) set Z_ {z0:.6f}")
        for leg in legs:
            span = leg.t1_s - leg.t0_s
            dist = math.hypot(leg.x1_m - leg.x0_m, leg.y1_m - leg.y0_m)
            if span <= 0 or dist <= 0:
                continue
            lines.append(f'$ns_ at {leg.t0_s:.6f} "$node_({i}) setdest {leg.x1_m:.6f} {leg.y1_m:.6f} {dist / span:.6f}"')
    return "\n".join(lines) + "\n"


#: node fields the script cannot carry, and why (``subflow_engines.mininet_wifi.FIELDS`` refuses them too)
_UNEXPORTED_NODE_FIELDS = {
    "ephemeris": "TCLink delays are fixed and links never go down: orbits are not exported",
    "radio": "radio from propagation is not mapped to Mininet-WiFi's txpower/propagationModel yet",
    "uplink": "wireless backhaul between access points is not exported yet",
}
#: scenario ``radio`` settings the script cannot carry (their values other than the default); the
#: propagation model matters only with a node ``radio``, refused above
_UNEXPORTED_RADIO = {"adhoc_links": False}


def _refuse_unexported(doc: dict) -> None:
    """Raise :class:`~subflow.errors.FieldNotHonoured` naming the first field of ``doc`` the script
    would silently drop: a satellite's orbit, a node's radio or uplink, or ad-hoc links."""
    for i, n in enumerate(doc.get("nodes", [])):
        for name, why in _UNEXPORTED_NODE_FIELDS.items():
            if n.get(name) is not None:
                raise FieldNotHonoured(f"nodes[{i}].{name}: engine mininet-wifi does not honour it ({why})",
                                       "mininet-wifi", ["nodes", i, name])
    radio = doc.get("radio") or {}
    for name, default in _UNEXPORTED_RADIO.items():
        if radio.get(name, default) != default:
            raise FieldNotHonoured(f"radio.{name}: engine mininet-wifi does not honour it (not exported yet)",
                                   "mininet-wifi", ["radio", name])


def script_for(scenario: Scenario | dict, strategy: str, random_models: str = "legs") -> str:
    """Convenience for the export endpoint: resolve the plan, then :func:`generate_script`."""
    return generate_script(resolve_plan(scenario, strategy, "mininet-wifi"), random_models=random_models)


