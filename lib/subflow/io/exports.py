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
names ``<node>-eth<k>`` must fit 15 characters; ``k`` follows Mininet-WiFi's port numbering,
:func:`first_wired_port`: a station's wlans hold its first ports, an access point's ``wlan1`` port 1,
its uplinks' 4-address interfaces the next ones):

* hosts -> ``h<k>``; switches, routers and satellites -> Linux routers ``r<k>``
  (hosts with ``ip_forward``); access points -> OVS APs ``ap<k>`` (``failMode='standalone'``,
  an L2 segment with the hosts wired to them); stations -> ``sta<k>``. A scenario without
  stations and access points creates no radio: no ``wmediumd``, no ``configureWifiNodes``.
* access point uplinks -> ``net.addLink(<uplink>, <ap>, cls=_4address)`` under ``Mininet_wifi(config4addr=True)``
  (``mn_wifi/link.py``: ``_4address``; ``examples/4address.py``): the access point's 4-address client
  ``<ap>.wds0`` on its own radio, ``<uplink>-wlan1.sta<w>`` at the uplink, both bridged by Open vSwitch into
  the network's radio segment (an L2 join, like a wired link between access points). They take ports
  (:func:`uplink_links`), so the wired interfaces after them are numbered from there. The client is
  joined once at the build (``iw connect``), where the scenario's uplink follows range over time (stated
  in the script); an uplink on another channel, PHY or network is refused (:func:`_refuse_backhaul`).
* ``radio.adhoc_links`` -> every station with a radio gets one wlan more than the access point networks
  (``wlans=``) and joins one IBSS on it: ``net.addLink(<sta>, cls=adhoc, intf='<sta>-wlan<N>', ssid=,
  mode=, channel=, ht_cap=)`` (``mn_wifi/link.py``: ``adhoc``; ``examples/adhoc.py``) on the first ad-hoc
  station's channel, with HT20 for ``n`` and ``ac`` (``iw`` has no VHT for an IBSS); the ad-hoc segment
  ``10.201.0.0/24`` carries the plan's ``adhoc:<a>~<b>`` hops (routes via the peer's ad-hoc address).
* wired links -> ``TCLink`` with ``bw`` (Mbit/s), ``delay``, ``jitter``, ``loss`` (percent)
  and ``max_queue_size`` (packets); one /24 per link ``10.<1+j//256>.<j%256>.0/24``,
  the AP segment ``k`` is ``10.200.<k>.0/24``. Open vSwitch resets the qdisc of every port it
  adds and Mininet-WiFi's ``OVSAP.TCReapply`` (``mn_wifi/node.py``) reapplies only wireless
  interfaces, so the script reapplies the access points' wired shaping after they start, as
  Mininet's own ``OVSSwitch.TCReapply`` (``mininet/node.py``) does for switches.
* routes: the plan's subflow paths over time, by the ``linux`` engine's rules (:class:`_Routing`):
  per-address policy tables, replaced at every plan boundary on the script's clock; MPTCP
  endpoints added and deleted as the plan's subflows come and go (the script plays mptcpd).
  Association timing is Mininet-WiFi's: routes and endpoints out of a wlan wait until
  Mininet-WiFi reports it associated, endpoints also until the wlan has its carrier (the 802.11
  association done: the kernel's path manager tries a subflow once), and the plan's association
  delays are not imposed.
* radio: ``Mininet_wifi(ac_method=<radio.association_policy>)``. Without any node ``radio``: per-AP
  ``range`` (Mininet-WiFi then sets the transmit power that reaches it) under
  ``setPropagationModel(model='logDistance', exp=3)``. With one: each radio's ``txpower`` (dBm),
  ``antennaGain`` (dBi), ``antennaHeight`` (m), an access point's ``channel`` and ``mode`` (its PHY)
  and no ``range`` (Mininet-WiFi derives it from the model), stations without a radio at
  :class:`~subflow.scenario.document.NodeRadio`'s defaults, and the scenario's propagation as
  ``setPropagationModel(model='friis'|'logDistance', exp=, sL=)`` (``sL`` linear); what Mininet-WiFi
  cannot take is refused naming the field (:func:`_refuse_radio`). Air delay/loss: netem on the
  stations' ``wlan0``. The scenario's ``association_delay_s`` is not imposed (stated in the script's
  header).
* mobility: every model of every wireless node (stations and access points, e.g. a loitering
  UAV) is replayed from the domain library's trajectory (:func:`subflow.space.mobility.trajectory`)
  by the script itself: ``setPosition`` every :data:`MOTION_TICK_S` on the run's clock (the clock
  of the flows and routes), which makes Mininet-WiFi recompute positions in wmediumd and
  associations (``mn_wifi/node.py``: ``Node_wifi.setPosition`` -> ``configLinks``). Mininet-WiFi's
  own tracked mobility cannot carry the plan: it keeps one ``mobility(node, 'start'/'stop')`` pair
  per node (``mn_wifi/mobility.py``: ``ConfigMobility`` overwrites ``startTime``/``initPos``), needs
  whole-second times (``Tracked.create_coord``: ``range((endTime - startTime) * 10)``) and starts
  its clock at ``build()``, seconds before the flows. With ``random_models="native"`` random walks
  of stations use ``setMobilityModel(..., seed=)`` instead. Wired nodes (hosts, switches, routers)
  have no position in Mininet; their planned motion is carried as data (``WIRED_MOTION``:
  corners ``(t_s, x_m, y_m, z_m)``), as it changes nothing on a wired link.
* geography: a geographic scenario is written in its local projected frame
  (:func:`subflow.space.mobility.to_local`, metres east/north of the origin).
* scheduled ``link_events`` -> ``configLinkStatus`` at their times.
* packets: every interface carries one segment per skb (``gso_max_segs 1``, as the ``linux`` engine's
  interfaces): with GSO, netem drops a 64 KB burst as one loss and a queue limit counts bursts, so a
  loss-limited TCP ran 48 % faster on Mininet-WiFi than on the kernel and the engine (hsln-10node).
* text from users: nothing the user wrote (scenario name, description, labels, ids) is
  pasted into code or a shell command. The script carries it as data only: ``SCENARIO``
  is a JSON document inside one Python string literal made by :func:`repr` (so no
  character of it can end the literal), parsed with ``json.loads``; comments hold only
  identifiers checked against :data:`_PLAIN` (anything else is written with :func:`repr`,
  which never produces a line break); iperf3 output files are named by port number in a
  fresh directory (``tempfile.mkdtemp``); the ns-2 trace keeps only a fixed set of characters
  in its comments.
* traffic: one ``iperf3 -s -1 -J`` per flow at the destination, ``iperf3 -c ... -B ... -J`` at the
  source at ``start_s`` (``mptcpize run`` for MPTCP strategies); after the run the script ends
  the measurement as the ``linux`` engine does (:mod:`subflow.runplan.finish`: a client still running
  its grace after the flow's end gets SIGINT, on which iperf3 prints its report, then SIGKILL; the
  servers likewise; the interrupted ones are listed in ``interrupted``), then prints every iperf3 JSON, how far its clock fell behind
  real time (``clock_lag_s``: moves, routes and flow starts applied that late), when its clock started
  (``t0_epoch_s``, Unix time, to align what is recorded beside the script) (and the tail of each
  iperf3 process's standard error, kept apart from its JSON) between ``SUBFLOW-RESULT`` markers, which the agent's ``mininet-wifi`` engine turns into the engine
  output (or an error naming the flow).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from subflow.errors import EngineCannotRun, FieldNotHonoured
from subflow.runplan import finish as finish_rule
from subflow.runplan import ratecap
from subflow.runplan.document import RunPlan
from subflow.runplan.resolve import resolve_plan
from subflow.scenario.document import AccessPointNode, NodeRadio, Scenario, StationNode, load_scenario
from subflow.space.mobility import effective_seed, to_local, trajectory

RESULT_BEGIN = "SUBFLOW-RESULT-BEGIN"
RESULT_END = "SUBFLOW-RESULT-END"
#: log-distance path-loss exponent used for the propagation model
PATH_LOSS_EXPONENT = 3.0
#: seconds between two steps of the script's clock: positions of moving nodes (Mininet-WiFi's own
#: tracked mobility also steps every 0.1 s: ``mn_wifi/mobility.py``, ``Tracked.run``), routes, MPTCP
#: endpoints, link events and flow starts
MOTION_TICK_S = 0.1
#: characters of each iperf3 process's standard error the script sends back (its tail), for the engine's errors
STDERR_KEPT = 2000
#: iperf3's default port: flow ``i`` of the scenario listens on ``IPERF3_BASE_PORT + i`` (FLOWS, RATE_CAPS)
IPERF3_BASE_PORT = 5201
#: first policy routing table of the script (one table per subflow address)
TABLE_BASE = 100
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


def _has_radios(scenario: Scenario) -> bool:
    """True when the scenario has a station or an access point (Mininet-WiFi must create radios)."""
    return any(isinstance(n, (StationNode, AccessPointNode)) for n in scenario.nodes)


def first_wired_port(kind: str, n_station_wlans: int) -> int:
    """Port number of the first wired interface ``<node>-eth<port>`` Mininet-WiFi gives a node.

    Mininet numbers a node's interfaces from its class's ``portBase`` and gives each new link
    ``max(ports) + 1`` (``mininet/node.py``: ``Node.newPort``; ``mininet/link.py``:
    ``Link.intfName`` = ``<node>-eth<port>``). The generated script creates the radios
    (``configureWifiNodes``) before any wired link, so the radios hold the first ports:

    * a station (``mn_wifi/node.py``: ``Node_wifi.portBase = 0``) has ``<sta>-wlan<k>`` on port ``k``
      (``mn_wifi/link.py``: ``managed`` calls ``addWIntf(port=wlan)``): its first wired port is its
      number of wlans;
    * an access point (``AP.portBase = 1``) has ``<ap>-wlan1`` on port 1 (``mn_wifi/net.py``:
      ``configMasterIntf`` → ``TCWirelessLink`` with ``newPort()``): its first wired port is 2;
    * hosts (and the routers made of hosts) are Mininet's ``Host`` (``portBase = 0``): port 0.

    Parameters
    ----------
    kind : str
        Scenario node kind.
    n_station_wlans : int
        Wlan interfaces of every station of the script (``wlans=`` of ``addStation``).

    Returns
    -------
    int
        The port number.
    """
    if kind == "station":
        return n_station_wlans
    if kind == "access_point":
        return 2
    return 0


#: the ad-hoc (IBSS) network of the stations: one L2 segment, its subnet and its SSID
ADHOC_SUBNET = "10.201.0"
ADHOC_SSID = "adhoc-ssid"
#: Linux's longest interface name (IFNAMSIZ - 1)
_IFNAME_MAX = 15


def _adhoc_stations(scenario: Scenario) -> list[StationNode]:
    """Stations in the ad-hoc network: with ``radio.adhoc_links``, every station with a radio."""
    radio = getattr(scenario, "radio", None)
    if radio is None or not radio.adhoc_links:
        return []
    return [n for n in scenario.nodes if isinstance(n, StationNode) and getattr(n, "radio", None) is not None]


def station_wlans(scenario: Scenario) -> dict[str, int]:
    """``wlans=`` of each station: one per radio network (at least one), and one more for a station in
    the ad-hoc network, whose last wlan ``<sta>-wlan<len(networks)>`` joins the IBSS."""
    n_nets = len(_networks(scenario))
    adhoc = {st.id for st in _adhoc_stations(scenario)}
    return {n.id: (n_nets + 1 if n.id in adhoc else max(1, n_nets))
            for n in scenario.nodes if isinstance(n, StationNode)}


def uplink_links(scenario: Scenario, names: "_Names") -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The access points' uplinks as Mininet-WiFi's 4-address links, and each access point's next port.

    ``net.addLink(<uplink>, <ap>, cls=_4address)`` (``mn_wifi/link.py``: ``_4address.__init__``) makes
    ``<ap>.wds<c>`` on the client (``c`` counts its 4-address clients from 0: an access point has one
    uplink, so ``wds0``) and ``<uplink>-wlan1.sta<w>`` on the uplink (``w`` counts its clients from 1).
    Both interfaces take the port ``newPort()`` of the *uplink* gives (``params1`` and ``params2`` are one
    dict, the second assignment wins), which on the client may exceed its own next port. The links are
    added root first (an access point's own uplink before the uplinks made to it), so that port is never
    one the client already holds (``addWIntf`` would replace that interface); wired links come after them.

    Returns
    -------
    links : list of dict
        ``up``, ``client`` (scenario ids), ``up_intf``, ``client_intf``, ``port``, in the script's order.
    next_port : dict
        Access point id -> the port its first wired link takes (:func:`first_wired_port` without uplinks).
    """
    aps = {n.id: n for n in scenario.nodes if isinstance(n, AccessPointNode)}
    ports = {ap: {1} for ap in aps}  # <ap>-wlan1 on port 1 (AP.portBase, configMasterIntf)
    clients_of: dict[str, int] = {}
    depth: dict[str, int] = {}

    def level(ap: str) -> int:
        if ap not in depth:
            up = aps[ap].uplink
            depth[ap] = 0 if up is None else 1 + level(up)
        return depth[ap]

    order = sorted((ap for ap in aps if aps[ap].uplink is not None), key=lambda a: (level(a), list(aps).index(a)))
    links = []
    for ap in order:
        up = aps[ap].uplink
        port = max(ports[up]) + 1
        clients_of[up] = clients_of.get(up, 0) + 1
        ports[up].add(port)
        ports[ap].add(port)
        links.append({"up": up, "client": ap, "port": port, "client_intf": f"{names.of[ap]}.wds0",
                      "up_intf": f"{names.of[up]}-wlan1.sta{clients_of[up]}"})
    return links, {ap: max(p) + 1 for ap, p in ports.items()}


def _node_address(index: int) -> str:
    """The /32 address of the ``index``-th node on its loopback (``10.255.0.0/16``), which a
    single-path connection keeps while its route changes interface."""
    return f"10.255.{index // 250}.{1 + index % 250}"


def _topology(scenario: Scenario, names: _Names):
    """Wired interface names, segments and adjacency.

    Returns
    -------
    segments : list of dict
        Wired links, one radio segment per network and the stations' ad-hoc segment (``adhoc``: their
        IBSS wlans), each with its members' (interface, address). Access points are L2 switches of their
        network's segment, joined by their uplinks (4-address links) as by a wired link between them.
    ends : dict
        Link id -> (interface at ``src``, interface at ``dst``), named by :func:`first_wired_port`.
    """
    aps = {n.id: n for n in scenario.nodes if isinstance(n, AccessPointNode)}
    nets = _networks(scenario)
    wlans = station_wlans(scenario)
    next_port: dict[str, int] = dict(uplink_links(scenario, names)[1])

    def intf(node: str) -> str:
        k = next_port.get(node, first_wired_port(names.kind[node], wlans.get(node, 1)))
        next_port[node] = k + 1
        return f"{names.of[node]}-eth{k}"

    ends = {link.id: (intf(link.src), intf(link.dst)) for link in scenario.links}
    segments: list[dict[str, Any]] = []
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
                seg["members"][other] = (ends[link.id][0 if other == link.src else 1],
                                         f"10.200.{seg['k']}.{seg['next']}")
                seg["next"] += 1
            continue
        subnet = f"10.{1 + j // 256}.{j % 256}"
        segments.append({
            "id": link.id, "subnet": f"{subnet}.0/24", "ap": False,
            "members": {link.src: (ends[link.id][0], f"{subnet}.1"), link.dst: (ends[link.id][1], f"{subnet}.2")},
        })
    stations = [n for n in scenario.nodes if isinstance(n, StationNode)]
    for net in nets:
        seg = radio[net]
        for m, st in enumerate(stations):
            seg["members"][st.id] = (f"{names.of[st.id]}-wlan{seg['k']}", f"10.200.{seg['k']}.{100 + m}")
        segments.append(seg)
    adhoc = _adhoc_stations(scenario)
    if adhoc:
        segments.append({"id": "adhoc", "subnet": f"{ADHOC_SUBNET}.0/24", "ap": False, "members": {
            st.id: (f"{names.of[st.id]}-wlan{len(nets)}", f"{ADHOC_SUBNET}.{1 + m}") for m, st in enumerate(adhoc)}})
    return segments, ends


# --------------------------------------------------------------------------- routes over time


class _Routing:
    """The plan's subflow paths as policy routes and MPTCP endpoints of the script, per plan boundary.

    Association timing is Mininet-WiFi's own (``association_delay_s`` is not imposed): a segment that
    starts when the plan completes an association (its ``association`` event) starts instead at the
    matching ``handover_start``, and the script installs a station's routes and MPTCP endpoints on a
    wlan once Mininet-WiFi reports that wlan associated (``mn_wifi/link.py``: ``associatedTo``, set by
    ``associate_infra``, cleared by ``disconnect``).

    The same rules as the ``linux`` engine (:mod:`subflow_engines.linux.routing`): each subflow has an
    address pair ``(S, D)`` (``single``: the end nodes' loopback addresses, so a route change moves the
    same connection; ``src``: ``S`` is the client's address on the first hop, an MPTCP ``subflow``
    endpoint; ``dst``: ``D`` is the server's address on the last hop, a ``signal`` endpoint); at node
    ``n_j`` of a path the route to ``D`` via ``n_{j+1}`` lives in table ``T(S)`` and the route to ``S``
    via ``n_{j-1}`` in ``T(D)``, each table selected by ``ip rule from <addr>``. Access points are L2:
    a hop across one (or a bridge of them) joins its two neighbours over the network's radio segment.
    """

    def __init__(self, plan: RunPlan, sc: Scenario, names: _Names, segments: list[dict[str, Any]]):
        self.plan, self.sc, self.names = plan, sc, names
        self.aps = {n.id: n for n in sc.nodes if isinstance(n, AccessPointNode)}
        self.node_addr = {n.id: _node_address(i) for i, n in enumerate(sc.nodes) if n.id not in self.aps}
        self.seg_of = {seg["id"]: seg for seg in segments}
        self.addr_table: dict[str, int] = {}
        self.segments = {fp.id: _unimposed_association(fp, plan.events) for fp in plan.flows}
        self.flows: list[dict[str, Any]] = []
        for i, fp in enumerate(plan.flows):
            self.flows.append(self._address(i, fp))

    # -- hops
    def _hops(self, i: int, nodes: list[str], resources: list[str]) -> list[tuple[str, str, str]]:
        """L3 hops ``(a, b, segment id)`` of a plan path: access points removed, the hop across them
        (and their uplinks) on their network's radio segment, an ad-hoc hop (resource ``adhoc:<a>~<b>``)
        on the stations' ad-hoc segment, a wired hop on the link its resource names."""
        hops: list[tuple[str, str, str]] = []
        prev, via_ap = nodes[0], None
        for node in nodes[1:]:
            if node in self.aps:
                if via_ap is None:
                    via_ap = node
                continue
            if via_ap is not None:
                seg = f"radio:{getattr(self.aps[via_ap], 'network', 'wlan')}"
            elif any(r.startswith("adhoc:") and set(r[len("adhoc:"):].split("~")) == {prev, node}
                     for r in resources):
                seg = "adhoc"
            else:
                rid = next((r for r in resources if r.endswith(f":{prev}>{node}")), None)
                seg = rid.rsplit(":", 1)[0] if rid else next(
                    (ln.id for ln in self.sc.links if {ln.src, ln.dst} == {prev, node}), "")
            members = self.seg_of.get(seg, {}).get("members", {})
            if prev not in members or node not in members:
                raise EngineCannotRun(f"flows[{i}]: the plan's hop {prev} -> {node} crosses no segment of the "
                                      "generated Mininet-WiFi topology")
            hops.append((prev, node, seg))
            prev, via_ap = node, None
        return hops

    def _member(self, node: str, seg: str) -> tuple[str, str]:
        return self.seg_of[seg]["members"][node]

    def _address(self, i: int, fp) -> dict[str, Any]:
        for end in ("src", "dst"):
            if getattr(fp, end) in self.aps:
                raise FieldNotHonoured(f"flows[{i}].{end}={getattr(fp, end)}: engine mininet-wifi does not honour it "
                                       "(an access point is an Open vSwitch L2 switch in the script: it has no "
                                       "address to end a flow)", "mininet-wifi", ["flows", i, end])
        paths = [(sp, self._hops(i, sp.nodes, sp.resources)) for seg in self.segments[fp.id]
                 for sp in seg.subflows if len(sp.nodes) > 1]
        if not paths:
            raise EngineCannotRun(f"flows[{i}] ({fp.id}): no subflow path in the plan")
        firsts = {hs[0][1:] for _sp, hs in paths}  # (next node, segment) of the first hop
        lasts = {(hs[-1][0], hs[-1][2]) for _sp, hs in paths}  # (previous node, segment) of the last hop
        mode = "single"
        if fp.multipath and len(firsts) > 1:
            mode = "src"
        elif fp.multipath and len(lasts) > 1:
            mode = "dst"
        keys: dict[str, tuple[str, str]] = {}
        endpoint: dict[str, tuple[str, str, str]] = {}  # subflow -> (node, address, device)
        for sp, hs in paths:
            s, d = self.node_addr[fp.src], self.node_addr[fp.dst]
            if mode == "src":
                dev, s = self._member(fp.src, hs[0][2])
                endpoint.setdefault(sp.id, (fp.src, s, dev))
            elif mode == "dst":
                dev, d = self._member(fp.dst, hs[-1][2])
                endpoint.setdefault(sp.id, (fp.dst, d, dev))
            if keys.setdefault(sp.id, (s, d)) != (s, d):
                raise EngineCannotRun(f"flows[{i}] ({fp.id}): subflow {sp.id} changes interface during the run; "
                                      "the mininet-wifi script maps a subflow to one interface")
            for a in (s, d):
                self.addr_table.setdefault(a, TABLE_BASE + len(self.addr_table))
        bind, connect = keys[paths[0][0].id]
        if mode != "src":
            bind = self.node_addr[fp.src]
        return {"index": i, "plan": fp, "mode": mode, "keys": keys, "endpoint": endpoint,
                "bind": bind, "connect": connect}

    # -- states
    def _routes(self, fl: dict[str, Any], sp) -> list[tuple[str, int, str, str, str]]:
        s, d = fl["keys"][sp.id]
        out = []
        for a, b, seg in self._hops(fl["index"], sp.nodes, sp.resources):
            (dev_a, addr_a), (dev_b, addr_b) = self._member(a, seg), self._member(b, seg)
            out.append((a, self.addr_table[s], d, addr_b, dev_a))
            out.append((b, self.addr_table[d], s, addr_a, dev_b))
        return out

    def boundaries(self) -> list[float]:
        """Times (s) at which a flow's segment starts or ends, in ``[0, duration)``, with 0."""
        ts = {0.0}
        for segs in self.segments.values():
            for seg in segs:
                ts.update((seg.t_start_s, seg.t_end_s))
        return sorted(t for t in ts if 0.0 <= t < self.plan.duration_s - 1e-9)

    def state(self, t_s: float) -> tuple[list, list]:
        """Routes ``(node, table, address, via, device)`` and MPTCP endpoints ``(node, address, id, device,
        flag)`` the plan wants at ``t_s``, in generated node names.

        Raises
        ------
        EngineCannotRun
            When two active subflows need two next hops towards one address in one table of a node.
        """
        routes: dict[tuple[str, int, str], tuple[str, int, str, str, str]] = {}
        endpoints: dict[tuple[str, str], tuple[str, str, int, str, str]] = {}
        for fl in self.flows:
            fp = fl["plan"]
            seg = next((g for g in self.segments[fp.id] if g.t_start_s <= t_s + 1e-9 and t_s < g.t_end_s - 1e-9),
                       None)
            if seg is None:
                continue
            for sp in seg.subflows:
                if len(sp.nodes) < 2:
                    continue
                for r in self._routes(fl, sp):
                    other = routes.setdefault(r[:3], r)
                    if other != r:
                        raise EngineCannotRun(
                            f"flows[{fl['index']}] ({fp.id}): at t={t_s:g} s node {r[0]} would need two next hops "
                            "towards one address in one table; the mininet-wifi script cannot route these subflows")
                if fl["mode"] in ("src", "dst"):
                    node, addr, dev = fl["endpoint"][sp.id]
                    if fl["mode"] == "dst" and addr == fl["connect"]:
                        continue  # the initial subflow's address is not announced
                    flag = "subflow" if fl["mode"] == "src" else "signal"
                    endpoints[(node, addr)] = (node, addr, self.addr_table[addr] - TABLE_BASE + 1, dev, flag)
        n = self.names.of
        return (sorted((n[a], t, d, via, dev) for a, t, d, via, dev in routes.values()),
                sorted((n[a], addr, eid, dev, flag) for a, addr, eid, dev, flag in endpoints.values()))

    def rules(self) -> dict[str, list[tuple[str, int]]]:
        """``ip rule from <address> lookup <table>`` per node: every node that holds a route of that table
        at some boundary."""
        by_table = {t: a for a, t in self.addr_table.items()}
        need: dict[str, set[tuple[str, int]]] = {}
        for t in self.boundaries():
            for node, table, *_ in self.state(t)[0]:
                need.setdefault(node, set()).add((by_table[table], table))
        return {node: sorted(v, key=lambda x: x[1]) for node, v in sorted(need.items())}


def _unimposed_association(fp, events: list[dict]) -> list:
    """``fp``'s segments with each planned association delay removed: a segment starting at an
    ``association`` event of the flow's source or destination starts at that association's
    ``handover_start`` instead (the segments before it end there)."""
    segs = list(fp.segments)
    started: dict[tuple[str, str], float] = {}
    for ev in sorted(events, key=lambda e: e.get("t_s", 0.0)):
        key = (ev.get("node"), ev.get("access_point"))
        if ev.get("kind") == "handover_start":
            started[key] = float(ev["t_s"])
        elif ev.get("kind") == "association" and key in started and key[0] in (fp.src, fp.dst):
            t_h, t_a = started.pop(key), float(ev["t_s"])
            out = []
            for g in segs:
                if abs(g.t_start_s - t_a) < 1e-6:
                    g = g.model_copy(update={"t_start_s": t_h})
                elif g.t_start_s >= t_h - 1e-9 and g.t_end_s <= t_a + 1e-6:
                    continue  # the planned gap: Mininet-WiFi's association takes its place
                elif g.t_end_s > t_h + 1e-9 and abs(g.t_end_s - t_a) < 1e-6:
                    g = g.model_copy(update={"t_end_s": t_h})
                out.append(g)
            segs = out
    return segs


# --------------------------------------------------------------------------- motion


def _motion(scenario: Scenario, names: _Names, random_models: str) -> dict[str, list[tuple[float, ...]]]:
    """Corners ``(t_s, x_m, y_m, z_m)`` of the planned path of every moving wireless node (stations and
    access points), from :func:`subflow.space.mobility.trajectory`; a native random walk is left to
    Mininet-WiFi (``random_models="native"``)."""
    out: dict[str, list[tuple[float, ...]]] = {}
    for n in scenario.nodes:
        if not isinstance(n, (StationNode, AccessPointNode)) or n.mobility.model == "static":
            continue
        if _native_walk(n, random_models):
            continue
        legs = trajectory(n, scenario.run.duration_s, scenario.run.seed)
        corners = [(g.t0_s, g.x0_m, g.y0_m, g.z0_m) for g in legs] + [
            (legs[-1].t1_s, legs[-1].x1_m, legs[-1].y1_m, legs[-1].z1_m)]
        kept: list[tuple[float, ...]] = []
        for c in corners:
            c = tuple(round(v, 3) for v in c)
            if not kept or c[0] > kept[-1][0]:
                kept.append(c)
        if any(c[1:] != kept[0][1:] for c in kept):
            out[names.of[n.id]] = kept
    return out


def _native_walk(node, random_models: str) -> bool:
    return random_models == "native" and isinstance(node, StationNode) and node.mobility.model == "random_walk"


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


# --------------------------------------------------------------------------- script


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
        Without ``plan.scenario``, or when the plan's paths cannot be routed in the generated topology;
        :class:`~subflow.errors.FieldNotHonoured` when the scenario sets a field the script cannot carry
        (:func:`_refuse_unexported`: a satellite's ``ephemeris``; :func:`_refuse_radio`: radio values
        Mininet-WiFi cannot take; :func:`_refuse_backhaul`: an ``uplink`` on another channel, or ad-hoc
        radios on several channels; ``subflow_engines.mininet_wifi.FIELDS`` declares them).
    """
    if plan.scenario is None:
        raise EngineCannotRun("plan.scenario: the mininet-wifi engine needs the scenario document")
    _refuse_unexported(plan.scenario)
    sc = to_local(load_scenario(plan.scenario))
    _refuse_radio(sc)
    _refuse_flow_kinds(sc)
    names = _Names(sc)
    _refuse_backhaul(sc, names)
    segments, ends = _topology(sc, names)
    routing = _Routing(plan, sc, names, segments)
    return "\n".join([
        *_script_header(sc, names),
        *_script_constants(plan, sc, names),
        *_script_topology(sc, names, random_models),
        *_script_addressing(sc, names, segments, ends, routing),
        *_script_schedule(plan, sc, names, ends, routing, random_models),
        _RUNTIME,
    ]) + "\n"


def _script_header(sc: Scenario, names: _Names) -> list[str]:
    """The script's docstring, the node-name key and its imports (wmediumd only with radios, the
    4-address and ad-hoc link classes only when used)."""
    L = ["#!/usr/bin/env python3",
         '"""Mininet-WiFi script generated by Subflow (scenario and strategy: see SCENARIO below).',
         "",
         "Run as root where Mininet-WiFi is installed: sudo python3 <this file>",
         "Node names are generated (h<k>, r<k>, ap<k>, sta<k>); SCENARIO['nodes'] maps them to the",
         "scenario's ids. Not imposed by Mininet-WiFi: association_delay_s (real association timing applies).",
         *_backhaul_note(sc, names),
         '"""',
         "# Node names (scenario id -> Mininet name):"]
    L += [f"#   {_comment(n.id)} -> {names.of[n.id]} ({n.kind})" for n in sc.nodes]
    L += ["", "import json", "import os", "import shutil", "import signal", "import sys", "import tempfile",
          "import time", "", "from mininet.link import TCLink", "from mininet.log import setLogLevel"]
    if _has_radios(sc):
        link_classes = ", ".join(["wmediumd"] + ["_4address"] * bool(uplink_links(sc, names)[0])
                                 + ["adhoc"] * bool(_adhoc_stations(sc)))
        L += ["from mininet.node import Controller", f"from mn_wifi.link import {link_classes}",
              "from mn_wifi.net import Mininet_wifi", "from mn_wifi.node import OVSKernelAP",
              "from mn_wifi.wmediumdConnector import interference"]
    else:
        L += ["from mn_wifi.net import Mininet_wifi"]
    return L + [""]


def _backhaul_note(sc: Scenario, names: _Names) -> list[str]:
    """Lines of the script's docstring on what its uplinks and ad-hoc links carry differently."""
    L = []
    if uplink_links(sc, names)[0]:
        L += ["Uplinks (access point -> access point) are Mininet-WiFi 4-address links (_4address), joined",
              "once when the network is built (iw connect): the scenario's uplink associates whenever the",
              "access point is in its uplink's range; here a link out of range at the build, or lost later,",
              "is not made again."]
    if _adhoc_stations(sc):
        L += [f"Ad-hoc links: the stations with a radio share one IBSS ({ADHOC_SSID!r}) on their last wlan; a",
              "pair hears each other while Mininet-WiFi's propagation model puts them in range, each",
              "direction by its sender's transmit power (the scenario uses the first station's radio)."]
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
            f"TICK_S = {MOTION_TICK_S:g}  # clock of the run: positions, routes, link events and flow starts",
            f"CLIENT_GRACE_S = {finish_rule.client_grace_s(plan):g}  # then SIGINT an iperf3 client still running "
            "(3 s + 6 base RTTs, at most 15 s)",
            f"SERVER_GRACE_S = {finish_rule.SERVER_GRACE_S:g}  # the servers' grace once the clients are done",
            f"REPORT_WAIT_S = {finish_rule.REPORT_WAIT_S:g}  # from SIGINT (iperf3 prints its report) to SIGKILL",
            f"STDERR_KEPT = {STDERR_KEPT}  # characters of each iperf3 standard error sent back (its tail)",
            f"MULTIPATH = {any(fp.multipath for fp in plan.flows)}",
            f"CONGESTION_CONTROL = {_CC[sc.transport.congestion_control]!r}",
            f"RESULT_BEGIN, RESULT_END = {RESULT_BEGIN!r}, {RESULT_END!r}",
            "", ""]


def _script_topology(sc: Scenario, names: _Names, random_models: str) -> list[str]:
    """``topology()``: the nodes, the radios (only when there are any), the wired links (TCLink), then
    the build, the access points' start and the shaping Open vSwitch cleared. The access points' uplinks
    and the stations' ad-hoc links come between the radios and the wired links (:func:`_script_backhaul`)."""
    aps = [n for n in sc.nodes if isinstance(n, AccessPointNode)]
    stations = [n for n in sc.nodes if isinstance(n, StationNode)]
    radios = _has_radios(sc)
    policy = getattr(sc, "radio", None)
    ac = policy.association_policy if policy is not None else "ssf"
    four = ", config4addr=True" if uplink_links(sc, names)[0] else ""
    L = ["def topology():"]
    if radios:
        L += ["    net = Mininet_wifi(controller=Controller, accessPoint=OVSKernelAP, link=wmediumd,",
              f"                       wmediumd_mode=interference, ac_method={ac!r}{four})",
              "    net.addController('c0')"]
    else:
        L += ["    net = Mininet_wifi()  # no station, no access point: no radio, no wmediumd"]
    for n in sc.nodes:
        if not isinstance(n, (AccessPointNode, StationNode)):
            L.append(f"    {names.of[n.id]} = net.addHost({names.of[n.id]!r}, ip=None)  # {_comment(n.id)} ({n.kind})")
    mapped = _radio_mapped(sc)
    tuning = _ap_tuning(sc)
    wlans = station_wlans(sc)
    for ap in aps:
        nm = names.of[ap.id]
        r = getattr(ap, "radio", None)
        tune = f"mode={tuning[ap.id][0]!r}, channel='{tuning[ap.id][1]}'"
        reach = _radio_params(r) if r is not None else f"range={ap.range_m:g}"
        L.append(f"    {nm} = net.addAccessPoint({nm!r}, ssid={nm + '-ssid'!r}, {tune}, "
                 f"position='{ap.position.x_m:g},{ap.position.y_m:g},{ap.position.alt_m:g}', {reach}, "
                 f"failMode='standalone')  # {_comment(ap.id)}")
    for st in stations:
        nm = names.of[st.id]
        if _native_walk(st, random_models):
            b = st.mobility.bounds
            where = (f"min_x={b.x_min_m:g}, max_x={b.x_max_m:g}, min_y={b.y_min_m:g}, max_y={b.y_max_m:g}, "
                     f"min_v={st.mobility.speed_min_mps:g}, max_v={st.mobility.speed_max_mps:g}")
        else:
            where = f"position='{st.position.x_m:g},{st.position.y_m:g},{st.position.alt_m:g}'"
        if mapped:
            where += ", " + _radio_params(getattr(st, "radio", None) or NodeRadio())
        L.append(f"    {nm} = net.addStation({nm!r}, ip=None, wlans={wlans[st.id]}, {where})"
                 f"  # {_comment(st.id)}")
    if mapped:
        p = sc.radio.propagation
        L.append(f"    net.setPropagationModel(model={_PPM[p.model]!r}, exp={p.exponent:g}, "
                 f"sL={10 ** (p.system_loss_db / 10):.6g})")
    elif radios:
        L.append(f"    net.setPropagationModel(model='logDistance', exp={PATH_LOSS_EXPONENT:g})")
    if radios:
        L.append("    net.configureWifiNodes()")
    L += _script_backhaul(sc, names)
    for link in sc.links:
        a, b = names.of[link.src], names.of[link.dst]
        params = [f"bw={link.bandwidth_mbps:g}", f"delay='{link.delay_ms:g}ms'",
                  f"max_queue_size={link.queue_packets}"]
        if link.loss > 0:
            params.append(f"loss={link.loss * 100:g}")
        if link.jitter_ms > 0:
            params.append(f"jitter='{link.jitter_ms:g}ms'")
        L.append(f"    net.addLink({a}, {b}, cls=TCLink, {', '.join(params)})  # {_comment(link.id)}")
    native = [st for st in stations if _native_walk(st, random_models)]
    if native:
        st = native[0]
        b = st.mobility.bounds
        L.append(f"    net.setMobilityModel(time=0, model='RandomWalk', max_x={b.x_max_m:g}, max_y={b.y_max_m:g}, "
                 f"seed={effective_seed(st.mobility.seed, sc.run.seed)})  # "
                 + ", ".join(names.of[s.id] for s in native))
    L += ["    net.build()", "    for ap in net.aps:", "        ap.start([])", "    reapply_shaping(net)",
          "    return net", "", ""]
    return L


def _script_backhaul(sc: Scenario, names: _Names) -> list[str]:
    """The access points' uplinks (4-address links, root first: :func:`uplink_links`) and the stations'
    ad-hoc links (each one's last wlan joins one IBSS, ``mn_wifi/link.py`` ``adhoc``), after the radios
    exist and before any wired link (whose port numbers follow theirs)."""
    L = []
    for link in uplink_links(sc, names)[0]:
        up, client = names.of[link["up"]], names.of[link["client"]]
        L.append(f"    net.addLink({up}, {client}, cls=_4address)  # uplink of {client}: {client}.wds0 -> "
                 f"{link['up_intf']}")
    adhoc = _adhoc_stations(sc)
    if adhoc:
        r, n_nets = adhoc[0].radio, len(_networks(sc))
        channel = _channel_of(r.frequency_mhz)
        ht = ", ht_cap='HT20'" if r.phy in _HT_PHYS else ""
        for st in adhoc:
            nm = names.of[st.id]
            L.append(f"    net.addLink({nm}, cls=adhoc, intf='{nm}-wlan{n_nets}', ssid={ADHOC_SSID!r}, "
                     f"mode={_ibss_band_mode(channel)!r}, channel={channel}{ht})  # {_comment(st.id)} ad-hoc")
    return L


#: PHYs whose ad-hoc links join the IBSS with HT (``iw dev <wlan> ibss join <ssid> <freq> HT20``; ``iw``
#: has no VHT for an IBSS, so an ``ac`` pair uses 802.11n rates); the others join without HT
_HT_PHYS = ("n", "ac")


def _ibss_band_mode(channel: int) -> str:
    """The ``mode`` of Mininet-WiFi's ``adhoc`` for a channel: it only picks the band its frequency is read
    from (``mn_wifi/frequency.py``: ``a``/``n``/``ac`` are 5 GHz, ``g`` 2.4 GHz), so the band's own mode."""
    return "a" if channel >= 32 else "g"


#: Mininet-WiFi's propagation models by the scenario's names (``mn_wifi/propagationModels.py``:
#: ``PropagationModel.friis``/``logDistance``; its ``twoRayGround`` is refused, :func:`_refuse_radio`)
_PPM = {"friis": "friis", "log_distance": "logDistance"}


def _radio_mapped(sc: Scenario) -> bool:
    """True when a station or an access point has a ``radio``: transmit powers, antenna gains, channels
    and the scenario's propagation model are then given to Mininet-WiFi."""
    return any(getattr(n, "radio", None) is not None for n in sc.nodes
               if isinstance(n, (StationNode, AccessPointNode)))


def _radio_params(r: NodeRadio) -> str:
    """``txpower`` (dBm), ``antennaGain`` (dBi) and ``antennaHeight`` (m) of a Mininet-WiFi node
    (``mn_wifi/link.py``: ``WirelessLink.set_attrs``; an access point given no ``range`` gets the range
    its propagation model gives these, ``mn_wifi/net.py`` ``config_range``)."""
    return f"txpower={int(r.tx_power_dbm)}, antennaGain={int(r.antenna_gain_dbi)}, antennaHeight={r.antenna_height_m:g}"


def _channel_of(frequency_mhz: float) -> int | None:
    """The 802.11 channel whose centre is ``frequency_mhz`` (MHz), or None (the inverse of
    :func:`subflow.scenario.document.channel_frequency_mhz`)."""
    if abs(frequency_mhz - 2484.0) < 1e-6:
        return 14
    for base, lo, hi in ((2407.0, 1, 13), (5000.0, 32, 177)):
        n = (frequency_mhz - base) / 5.0
        if abs(n - round(n)) < 1e-6 and lo <= round(n) <= hi:
            return int(round(n))
    return None


def _refuse_radio(sc: Scenario) -> None:
    """Raise :class:`~subflow.errors.FieldNotHonoured` naming the first radio field Mininet-WiFi
    cannot carry as the scenario means it.

    Mininet-WiFi computes received power and range with whole dB (``int(txpower)``,
    ``int(antennaGain)``), a 1 m reference distance with Friis loss there, and a ``noise_th``
    threshold (``mn_wifi/propagationModels.py``: ``PropagationModel.logDistance``,
    ``SetSignalRange``); its ``twoRayGround`` takes the channel width (``intf.band``) as the
    frequency; it tunes radios by channel number; the script sets 20 MHz channels; the kernel's rate
    control (minstrel) picks the MCS.
    """
    for i, n in enumerate(sc.nodes):
        r = getattr(n, "radio", None)
        if r is None:
            continue
        for name in ("tx_power_dbm", "antenna_gain_dbi"):
            v = getattr(r, name)
            if v != int(v):
                _refuse(["nodes", i, "radio", name], v, "Mininet-WiFi computes ranges in whole dB")
        if _channel_of(r.frequency_mhz) is None:
            _refuse(["nodes", i, "radio", "frequency_mhz"], r.frequency_mhz,
                    "not an 802.11 channel's centre; Mininet-WiFi tunes radios by channel number")
        if r.channel_width_mhz != 20:
            _refuse(["nodes", i, "radio", "channel_width_mhz"], r.channel_width_mhz,
                    "the script configures 20 MHz channels")
    radio = getattr(sc, "radio", None)
    if radio is None:
        return
    p = radio.propagation
    if p.model not in _PPM:
        _refuse(["radio", "propagation", "model"], p.model,
                "Mininet-WiFi's twoRayGround takes the channel width as its frequency")
    if p.reference_distance_m != 1.0:
        _refuse(["radio", "propagation", "reference_distance_m"], p.reference_distance_m,
                "Mininet-WiFi's reference distance is 1 m")
    if p.reference_loss_db is not None:
        _refuse(["radio", "propagation", "reference_loss_db"], p.reference_loss_db,
                "Mininet-WiFi's reference loss is Friis at 1 m")
    if p.noise_floor_dbm is not None:
        _refuse(["radio", "propagation", "noise_floor_dbm"], p.noise_floor_dbm,
                "Mininet-WiFi's range ends at its noise_th threshold, not at an MCS's SNR over a noise floor")
    if radio.rate_selection != "error_rate":
        _refuse(["radio", "rate_selection"], radio.rate_selection, "the kernel's rate control picks the MCS")


def _ap_tuning(sc: Scenario) -> dict[str, tuple[str, int]]:
    """``(mode, channel)`` of each access point: its radio's PHY and channel; without a radio ``g`` on
    channel 1, 6 or 11 by its rank, or, when it has an uplink, its uplink's (its 4-address client shares
    its radio, :func:`_refuse_backhaul`)."""
    aps = [n for n in sc.nodes if isinstance(n, AccessPointNode)]
    by_id = {ap.id: ap for ap in aps}
    out: dict[str, tuple[str, int]] = {}

    def tune(k: int, ap: AccessPointNode) -> tuple[str, int]:
        if ap.id not in out:
            r = getattr(ap, "radio", None)
            if r is not None:
                out[ap.id] = (r.phy, _channel_of(r.frequency_mhz))
            elif ap.uplink is not None:
                up = by_id[ap.uplink]
                out[ap.id] = tune(aps.index(up), up)
            else:
                out[ap.id] = ("g", 1 + 5 * (k % 3))
        return out[ap.id]

    for k, ap in enumerate(aps):
        tune(k, ap)
    return out


def _refuse_backhaul(sc: Scenario, names: _Names) -> None:
    """Raise :class:`~subflow.errors.FieldNotHonoured` naming an ``uplink`` or ad-hoc radio the script
    cannot carry as Mininet-WiFi builds it.

    An uplink is a 4-address client interface added on the access point's own radio (``mn_wifi/link.py``:
    ``_4address.add4addrIface``, ``iw dev <wlan> interface add <ap>.wds0 type managed 4addr on``), and a
    ``mac80211_hwsim`` radio works on one channel at a time: the access point must serve its cell on its
    uplink's channel and PHY, and both must be of one radio network (their segment is one L2 network).
    The ad-hoc links are one IBSS (``mn_wifi/link.py``: ``adhoc``) on one channel: the stations' radios
    must share their frequency and PHY. Interface names must fit Linux's 15 characters.
    """
    tuning = _ap_tuning(sc)
    nodes = {n.id: n for n in sc.nodes}
    for i, n in enumerate(sc.nodes):
        if not isinstance(n, AccessPointNode) or n.uplink is None:
            continue
        up = nodes[n.uplink]
        if getattr(up, "network", "wlan") != getattr(n, "network", "wlan"):
            _refuse(["nodes", i, "uplink"], n.uplink, "the uplink is of another radio network; the script joins an "
                    "access point to its uplink inside one network's radio segment")
        if tuning[n.id] != tuning[up.id]:
            _refuse(["nodes", i, "uplink"], n.uplink,
                    f"Mininet-WiFi's 4-address client shares the access point's radio, which works on one "
                    f"channel: mode/channel {tuning[n.id]} differ from the uplink's {tuning[up.id]}")
    for link in uplink_links(sc, names)[0]:
        if len(link["up_intf"]) > _IFNAME_MAX:
            i = next(k for k, n in enumerate(sc.nodes) if n.id == link["client"])
            _refuse(["nodes", i, "uplink"], link["up"], f"Mininet-WiFi names the uplink's interface "
                    f"{link['up_intf']!r}, longer than Linux's {_IFNAME_MAX} characters")
    adhoc = _adhoc_stations(sc)
    for st in adhoc[1:]:
        i = sc.nodes.index(st)
        if _channel_of(st.radio.frequency_mhz) != _channel_of(adhoc[0].radio.frequency_mhz):
            _refuse(["nodes", i, "radio", "frequency_mhz"], st.radio.frequency_mhz,
                    "the script's ad-hoc links are one IBSS on one channel, the first ad-hoc station's")
        if st.radio.phy != adhoc[0].radio.phy:
            _refuse(["nodes", i, "radio", "phy"], st.radio.phy,
                    "the script's ad-hoc links are one IBSS in one mode, the first ad-hoc station's")


def _refuse_flow_kinds(sc: Scenario) -> None:
    """Raise :class:`~subflow.errors.FieldNotHonoured` naming the first flow the script's iperf3 TCP clients
    cannot carry: a udp, voice or video source, or a DiffServ class other than BE
    (``subflow_engines.mininet_wifi.FIELDS`` refuses them too)."""
    for i, fl in enumerate(sc.flows):
        if fl.kind != "tcp":
            _refuse(["flows", i, "kind"], repr(fl.kind), "the script runs the strategy's transport with iperf3 "
                    "(TCP, MPTCP): udp, voice and video sources are not generated")
        if fl.dscp != "BE":
            _refuse(["flows", i, "dscp"], repr(fl.dscp), "the script sets up no priority queues")


def _refuse(loc: list[Any], value: Any, why: str) -> None:
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")
    raise FieldNotHonoured(f"{path}={value}: engine mininet-wifi does not honour it ({why})", "mininet-wifi", loc)


def _script_addressing(sc: Scenario, names: _Names, segments: list[dict], ends: dict, routing: _Routing) -> list[str]:
    """ADDRESSES, NODE_ADDRESSES, RULES (policy tables), AIR (netem of the air) and AP_WIRED (the access
    points' wired interfaces and their shaping)."""
    aps = [n for n in sc.nodes if isinstance(n, AccessPointNode)]
    stations = [n for n in sc.nodes if isinstance(n, StationNode)]
    nets = _networks(sc)
    L = ["ADDRESSES = [  # (node, interface, address/prefix); a station has one wlan<k> per radio network, and "
         "with ad-hoc links one more"]
    for seg in segments:
        for node, (itf, addr) in sorted(seg["members"].items(), key=lambda kv: kv[1]):
            L.append(f"    ({names.of[node]!r}, {itf!r}, '{addr}/24'),")
    L += ["]", "NODE_ADDRESSES = {  # node -> its /32 on lo (the address a single-path connection keeps)"]
    for node, addr in routing.node_addr.items():
        L.append(f"    {names.of[node]!r}: {addr!r},")
    L += ["}", "RULES = {  # node -> [(address, table)]: ip rule from <address> lookup <table>"]
    for node, entries in routing.rules().items():
        L.append(f"    {node!r}: {entries!r},")
    L += ["}", "AIR = {  # station wlan interface -> netem (delay ms, loss %) of its network's air"]
    for st in stations:
        for k, net in enumerate(nets):
            ap = next(a for a in aps if getattr(a, "network", "wlan") == net)
            if ap.wireless_delay_ms > 0 or ap.wireless_loss > 0:
                L.append(f"    '{names.of[st.id]}-wlan{k}': ({ap.wireless_delay_ms:g}, {ap.wireless_loss * 100:g}),")
    L += ["}", "AP_WIRED = {  # access point -> its wired interfaces (TCLink shaping to reapply after OVS starts)"]
    for ap in aps:
        mine = [ends[ln.id][0 if ln.src == ap.id else 1] for ln in sc.links if ap.id in (ln.src, ln.dst)]
        if mine:
            L.append(f"    {names.of[ap.id]!r}: {mine!r},")
    L.append("}")
    return L


def _rate_caps(plan: RunPlan, names: _Names, segments: list[dict]) -> dict[str, list[str]]:
    """Per source node (Mininet name), the shell commands of :func:`subflow.runplan.ratecap.cap_commands`
    for its rated flows (iperf3 port :data:`IPERF3_BASE_PORT` + the flow's index), on every interface it has an address on,
    with an IFB device named after the node. Only names and numbers reach these commands."""
    by_node: dict[str, list[tuple[int, int]]] = {}
    for i, fp in enumerate(plan.flows):
        if fp.rate_mbps is not None:
            by_node.setdefault(fp.src, []).append((IPERF3_BASE_PORT + i, ratecap.cap_kbit(fp.rate_mbps, plan.transport.mss_bytes)))
    out = {}
    for node, caps in by_node.items():
        devs = sorted({itf for seg in segments for n, (itf, _) in seg["members"].items() if n == node})
        name = names.of[node]
        out[name] = [" ".join(c) for c in ratecap.cap_commands(devs, caps, ifb=f"{name}-rate")]
    return out


def _script_schedule(plan: RunPlan, sc: Scenario, names: _Names, ends: dict, routing: _Routing,
                     random_models: str) -> list[str]:
    """SCHEDULE (routes and endpoints per plan boundary), LINK_EVENTS, FLOWS, MOTION (the planned paths
    of moving wireless nodes) and the planned motion of wired nodes."""
    L = ["SCHEDULE = [  # (t_s, routes [(node, table, address, via, device)], endpoints [(node, address, id, "
         "device, flag)])"]
    for t in routing.boundaries():
        routes, endpoints = routing.state(t)
        L.append(f"    ({round(t, 3)!r}, {routes!r}, {endpoints!r}),")
    L += ["]", "LINK_EVENTS = [  # (t_s, node a, node b, 'up'|'down', interfaces [(node, device)])"]
    links = {link.id: link for link in sc.links}
    for ev in sorted(getattr(sc, "link_events", []) or [], key=lambda e: e.t_s):
        ln = links[ev.link]
        a, b = names.of[ln.src], names.of[ln.dst]
        devs = [(a, ends[ln.id][0]), (b, ends[ln.id][1])]
        L.append(f"    ({ev.t_s:g}, {a!r}, {b!r}, {ev.state!r}, {devs!r}),  # {_comment(ev.link)}")
    L += ["]", "FLOWS = [  # index in SCENARIO['flows'], src, dst, port, rate (bit/s or None), start_s, seconds, "
          "bind address, server address"]
    for fl in routing.flows:
        fp = fl["plan"]
        rate = None if fp.rate_mbps is None else int(fp.rate_mbps * 1e6)
        secs = max(1, int(round(fp.stop_s - fp.start_s)))
        L.append(f"    ({fl['index']}, {names.of[fp.src]!r}, {names.of[fp.dst]!r}, {IPERF3_BASE_PORT + fl['index']}, {rate!r}, "
                 f"{fp.start_s:g}, {secs}, {fl['bind']!r}, {fl['connect']!r}),  # {_comment(fp.id)}")
    L += ["]", "RATE_CAPS = {  # source node -> commands holding its rated flows to their rates at every instant",
          "    # (an IFB device, an HTB class per flow, a clsact redirect on each interface: iperf3 -b alone",
          "    # throttles the average since its start and bursts after an outage)"]
    for node, cmds in _rate_caps(plan, names, list(routing.seg_of.values())).items():
        L.append(f"    {node!r}: {cmds!r},")
    L += ["}", "# Planned paths of moving stations and access points, replayed by the script (setPosition every",
          "# TICK_S): node -> corners (t_s, x_m, y_m, z_m) of its piecewise-linear path.",
          f"MOTION = {_data(_motion(sc, names, random_models))}"]
    wired = _wired_motion(sc, names)
    if wired:
        L += ["# Planned motion of wired nodes (no position in Mininet; nothing on a wired link depends on it):",
              "# node -> corners (t_s, x_m, y_m, z_m) of its piecewise-linear path.",
              f"WIRED_MOTION = {_data(wired)}"]
    L.append("")
    return L


_RUNTIME = '''
def reapply_shaping(net):
    """Open vSwitch resets the qdisc of a port it adds, and Mininet-WiFi's OVSAP.TCReapply only
    reapplies wireless interfaces: set each access point's wired TCLink shaping again."""
    for ap, names in AP_WIRED.items():
        node = net.get(ap)
        for name in names:
            intf = node.intf(name)
            intf.config(**intf.params)


def one_segment_per_packet(net):
    """One segment per skb on every interface (gso_max_segs 1, as the linux engine does): netem's loss
    then drops packets, not 64 KB GSO bursts, and a queue of N packets holds N packets."""
    for n in net.hosts + net.stations + net.aps + net.switches:
        for intf in n.intfList():
            if intf.name != "lo":
                n.cmd(f"ip link set dev {intf.name} gso_max_segs 1")


def cap_rates(net):
    """Run RATE_CAPS in each source node; a command that fails stops the script (no flow runs uncapped)."""
    for node, cmds in RATE_CAPS.items():
        n = net.get(node)
        for c in cmds:
            out = n.cmd(c + " || echo RATE_CAP_FAILED")
            if "RATE_CAP_FAILED" in (out or ""):
                raise RuntimeError("rate cap on %s failed: %s: %s" % (node, c, out.strip()))


def configure(net):
    one_segment_per_packet(net)
    cap_rates(net)
    for node, intf, cidr in ADDRESSES:
        n = net.get(node)
        n.cmd(f"ip addr flush dev {intf}")
        n.cmd(f"ip addr add {cidr} dev {intf}")
    for node, addr in NODE_ADDRESSES.items():
        net.get(node).cmd(f"ip addr add {addr}/32 dev lo")
    for n in net.hosts + net.stations:
        n.cmd("sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 "
              "net.ipv4.conf.default.rp_filter=0 net.mptcp.enabled=1")
        n.cmd("for f in /proc/sys/net/ipv4/conf/*/rp_filter; do echo 0 > $f; done")
    for intf, (delay, loss) in AIR.items():
        node = intf.split("-")[0]
        net.get(node).cmd(f"tc qdisc replace dev {intf} root netem delay {delay}ms loss {loss}%")
    for node, entries in RULES.items():
        n = net.get(node)
        for addr, table in entries:
            n.cmd(f"ip rule add from {addr} lookup {table} priority 100")
    if MULTIPATH:
        for n in net.hosts + net.stations:
            n.cmd("ip mptcp limits set subflows 8 add_addr_accepted 8")


def associated(net, node, dev):
    """False while Mininet-WiFi reports the wlan interface dev of node not associated."""
    for intf in getattr(net.get(node), "wintfs", {}).values():
        if getattr(intf, "name", None) == dev:
            return bool(getattr(intf, "associatedTo", None))
    return True


def apply_routes(net, state):
    """Bring the routes to state["want"]: delete the ones the plan dropped, replace the others; a route
    out of a wlan waits until Mininet-WiFi reports the wlan associated."""
    want = {r[:3]: r for r in state["want"]
            if (r[0], r[4]) not in state["down"] and associated(net, r[0], r[4])}
    for key, r in sorted(state["routes"].items()):
        if key not in want:
            net.get(r[0]).cmd(f"ip route del {r[2]}/32 table {r[1]}")
    for key, r in sorted(want.items()):
        if state["routes"].get(key) != r:
            node, table, addr, via, dev = r
            net.get(node).cmd(f"ip route replace {addr}/32 via {via} dev {dev} table {table}")
    state["routes"] = want


def carrier_up(net, node, dev):
    """True once the interface dev of node has its carrier (LOWER_UP). Mininet-WiFi reports a station
    associated when it asks for the association; mac80211 turns the wlan's carrier on only when the
    802.11 association is done, seconds later under emulation."""
    return "LOWER_UP" in (net.get(node).cmd(f"ip -o link show dev {dev}") or "")


def apply_endpoints(net, state):
    """MPTCP endpoints the plan wants now, each added once Mininet-WiFi reports its interface associated
    and the interface has its carrier (the agent plays mptcpd's part); the ones the plan dropped are
    deleted. The kernel's path manager opens a subflow once, when the endpoint is added, and never
    retries it: a join sent before the wlan's carrier is up fails its neighbour resolution and is
    closed (host unreachable), so the subflow would never exist."""
    want = {(e[0], e[1]): e for e in state["endpoints_want"]}
    for key, e in sorted(state["endpoints"].items()):
        if key not in want:
            net.get(e[0]).cmd(f"ip mptcp endpoint delete id {e[2]}")
            del state["endpoints"][key]
    for key, e in sorted(want.items()):
        if key not in state["endpoints"] and associated(net, e[0], e[3]) and carrier_up(net, e[0], e[3]):
            node, addr, eid, dev, flag = e
            net.get(node).cmd(f"ip mptcp endpoint add {addr} dev {dev} id {eid} {flag}")
            state["endpoints"][key] = e


def position_at(corners, t_s):
    """x,y,z (m) of a piecewise-linear path at t_s: the corner before it, moved along its leg."""
    prev = corners[0]
    for c in corners:
        if c[0] >= t_s:
            if c[0] == prev[0]:
                return tuple(c[1:])
            f = (t_s - prev[0]) / (c[0] - prev[0])
            return tuple(round(a + f * (b - a), 3) for a, b in zip(prev[1:], c[1:]))
        prev = c
    return tuple(prev[1:])


def alive(pid):
    """True while process pid runs (a zombie has finished)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def finish(procs, deadline):
    """Wait for the iperf3 processes procs ((flow index, role) -> pid) until deadline; the ones still
    running get SIGINT (iperf3 prints its JSON report), and SIGKILL REPORT_WAIT_S later (the rule of
    the linux engine). Returns the keys of the interrupted ones."""
    while any(alive(p) for p in procs.values() if p) and time.time() < deadline:
        time.sleep(0.2)
    late = sorted(k for k, p in procs.items() if p and alive(p))
    for k in late:
        try:
            os.kill(procs[k], signal.SIGINT)
        except OSError:
            pass
    stop = time.time() + REPORT_WAIT_S
    while any(alive(procs[k]) for k in late) and time.time() < stop:
        time.sleep(0.2)
    for k in late:
        if alive(procs[k]):
            try:
                os.kill(procs[k], signal.SIGKILL)
            except OSError:
                pass
    return late


def run(net, run_dir):
    wrap = "mptcpize run " if MULTIPATH else ""
    state = {"routes": {}, "want": SCHEDULE[0][1], "endpoints": {}, "endpoints_want": SCHEDULE[0][2],
             "down": set()}
    apply_routes(net, state)
    apply_endpoints(net, state)
    pids = {}
    for i, src, dst, port, rate, start, secs, bind, connect in FLOWS:
        n = net.get(dst)
        n.cmd(f"{wrap}iperf3 -4 -s -1 -J -p {port} > {run_dir}/{port}-server.json 2> {run_dir}/{port}-server.err &")
        pids[(i, "server")] = n.lastPid
    time.sleep(1.0)
    t0 = time.time()
    flows = sorted(FLOWS, key=lambda f: (f[5], f[0]))
    next_state, next_event, next_flow = 1, 0, 0
    moved = {}
    launched = {}
    lag = 0.0
    for k in range(int(round(DURATION_S / TICK_S)) + 1):
        t = round(k * TICK_S, 6)
        time.sleep(max(0.0, t0 + t - time.time()))
        while next_event < len(LINK_EVENTS) and LINK_EVENTS[next_event][0] <= t + 1e-9:
            _t, a, b, status, devs = LINK_EVENTS[next_event]
            net.configLinkStatus(a, b, status)
            for dev in devs:
                (state["down"].add if status == "down" else state["down"].discard)(tuple(dev))
            state["routes"] = {key: r for key, r in state["routes"].items() if (r[0], r[4]) not in state["down"]}
            apply_routes(net, state)
            next_event += 1
        while next_state < len(SCHEDULE) and SCHEDULE[next_state][0] <= t + 1e-9:
            state["want"], state["endpoints_want"] = SCHEDULE[next_state][1], SCHEDULE[next_state][2]
            apply_routes(net, state)
            next_state += 1
        for node, corners in MOTION.items():
            pos = position_at(corners, t)
            if moved.get(node) != pos:
                net.get(node).setPosition("%.3f,%.3f,%.3f" % pos)
                moved[node] = pos
        apply_routes(net, state)
        apply_endpoints(net, state)
        while next_flow < len(flows) and flows[next_flow][5] <= t + 1e-9:
            i, src, dst, port, rate, start, secs, bind, connect = flows[next_flow]
            pace = f" -b {rate} -l 16384" if rate else ""
            n = net.get(src)
            n.cmd(f"{wrap}iperf3 -4 -c {connect} -B {bind} -p {port} -t {secs} -i {INTERVAL_S} -J "
                  f"-C {CONGESTION_CONTROL}{pace} > {run_dir}/{port}-client.json 2> {run_dir}/{port}-client.err &")
            pids[(i, "client")] = n.lastPid
            launched[SCENARIO["flows"][i]] = time.time() - t0
            next_flow += 1
        # how far the run's clock fell behind real time (moves, routes and starts applied late)
        lag = max(lag, time.time() - (t0 + t))
    end = max(time.time(), t0 + max([f[5] + f[6] for f in FLOWS] + [DURATION_S]))
    late = finish({k: p for k, p in pids.items() if k[1] == "client"}, end + CLIENT_GRACE_S)
    late += finish({k: p for k, p in pids.items() if k[1] == "server"}, time.time() + SERVER_GRACE_S)
    out = {"launched_s": launched, "flows": {}, "clock_lag_s": round(lag, 3), "t0_epoch_s": round(t0, 3),
           "interrupted": [[SCENARIO["flows"][i], role] for i, role in late]}
    for i, _src, _dst, port, *_ in FLOWS:
        fid = SCENARIO["flows"][i]
        out["flows"][fid] = {}
        for role in ("client", "server"):
            try:
                with open(f"{run_dir}/{port}-{role}.json") as fh:
                    out["flows"][fid][role] = fh.read()
            except OSError as exc:
                out["flows"][fid][role] = json.dumps({"error": str(exc)})
            try:
                with open(f"{run_dir}/{port}-{role}.err") as fh:
                    out["flows"][fid][role + "_stderr"] = fh.read()[-STDERR_KEPT:]
            except OSError:
                pass
    print(RESULT_BEGIN)
    print(json.dumps(out))
    print(RESULT_END)
    sys.stdout.flush()


if __name__ == "__main__":
    setLogLevel("warning")
    net = topology()
    run_dir = tempfile.mkdtemp(prefix="subflow-mnwifi-")
    try:
        configure(net)
        run(net, run_dir)
    finally:
        net.stop()
        shutil.rmtree(run_dir, ignore_errors=True)'''


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
}


def _refuse_unexported(doc: dict) -> None:
    """Raise :class:`~subflow.errors.FieldNotHonoured` naming the first field of ``doc`` the script
    would silently drop: a satellite's orbit (radio fields: :func:`_refuse_radio`; uplinks and ad-hoc
    links: :func:`_refuse_backhaul`)."""
    for i, n in enumerate(doc.get("nodes", [])):
        for name, why in _UNEXPORTED_NODE_FIELDS.items():
            if n.get(name) is not None:
                raise FieldNotHonoured(f"nodes[{i}].{name}: engine mininet-wifi does not honour it ({why})",
                                       "mininet-wifi", ["nodes", i, name])


def script_for(scenario: Scenario | dict, strategy: str, random_models: str = "legs") -> str:
    """Convenience for the export endpoint: resolve the plan, then :func:`generate_script`."""
    return generate_script(resolve_plan(scenario, strategy, "mininet-wifi"), random_models=random_models)


