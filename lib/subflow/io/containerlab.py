"""containerlab topology export (the wired part) and GraphML export of a scenario.

containerlab
------------
The wired part only — hosts, routers, switches and satellites without an orbit, and the links
between them — as a containerlab topology file (``name``, ``topology.nodes``, ``topology.links``):

* every node is of kind ``linux`` with :data:`DEFAULT_IMAGE` (an image with ``ip`` and ``tc``);
  ``labels`` keep the scenario's id, kind and label (``subflow.kind``, ``subflow.label``);
* a link is ``endpoints: ["a:eth<k>", "b:eth<k>"]``, ``k`` counting each node's links from 1
  (``eth0`` is containerlab's management interface); each end gets ``10.<j // 256>.<j % 256>.<1|2>/24``;
* each node's ``exec`` commands (run in the container after deployment) set its addresses, enable
  forwarding on routers, bridge every interface of a switch (``br0``) and impair each of its link
  interfaces with netem: ``tc qdisc replace dev eth<k> root netem delay <delay_ms>ms <jitter_ms>ms loss
  <loss·100>% rate <bandwidth_mbps·1000>kbit limit <queue_packets>``, so both directions of a link carry
  its delay, jitter, loss and rate, as ``containerlab tools netem set -n clab-<lab>-<node> -i eth<k>
  --delay --jitter --loss --rate`` would from the host (the file's leading comments list those commands).

Left out, and listed by name in the file's leading comments (``# left out: ...``): stations, access
points (Wi-Fi), satellites with an orbit and every link touching them (SATCOM geometry), link budgets,
scheduled link events, mobility and flows. Names in the YAML come from scenario identifiers; labels
and the scenario name are YAML strings written by PyYAML's ``safe_dump``, which quotes and escapes them.

GraphML
-------
Every node and link through ``networkx.write_graphml``: node attributes ``kind``, ``label``, ``x_m``,
``y_m`` or ``lat_deg``, ``lon_deg`` (and the Topology Zoo's ``Latitude``/``Longitude``, which
:func:`subflow.io.imports.read_graphml` reads back), ``alt_m``; edge attributes ``id``,
``bandwidth_mbps``, ``delay_ms``, ``loss`` (fraction), ``jitter_ms`` and ``queue_packets``. An undirected
graph: each link is full-duplex.

References
----------
.. [1] containerlab documentation, "Topology definition" (nodes, ``kind: linux``, ``exec``, ``labels``,
   links ``endpoints``) and "tools netem set" (``--delay``, ``--jitter``, ``--loss`` percent, ``--rate``
   kbit/s), https://containerlab.dev/manual/topo-def-file/, https://containerlab.dev/cmd/tools/netem/set.
.. [2] ``tc-netem(8)``: ``delay TIME [JITTER]``, ``loss PERCENT``, ``rate RATE``, ``limit PACKETS``.
.. [3] U. Brandes et al., "GraphML Progress Report", Graph Drawing 2001 (the GraphML format);
   networkx ``write_graphml``.
"""

from __future__ import annotations

import io
import re
from typing import Any

import networkx as nx
import yaml

from subflow.scenario.document import AccessPointNode, SatelliteNode, Scenario, StationNode, SwitchNode, load_scenario

#: container image of every node: Alpine with iproute2 (``ip``, ``tc``) and bridge tools
DEFAULT_IMAGE = "nicolaka/netshoot:v0.13"


def _wired(sc: Scenario) -> tuple[list[Any], list[tuple[int, Any]], list[str]]:
    """Nodes and (index, link) of the wired part, and what was left out, as ``kind id`` texts."""
    out_nodes, left = [], []
    for n in sc.nodes:
        if isinstance(n, (StationNode, AccessPointNode)):
            left.append(f"{n.kind} {n.id} (Wi-Fi)")
        elif isinstance(n, SatelliteNode) and n.ephemeris is not None:
            left.append(f"satellite {n.id} (orbit)")
        else:
            out_nodes.append(n)
    kept = {n.id for n in out_nodes}
    links = []
    for j, ln in enumerate(sc.links):
        if ln.src not in kept or ln.dst not in kept:
            left.append(f"link {ln.id} (joins a left-out node)")
        elif ln.budget is not None:
            left.append(f"link {ln.id} (link budget)")
        else:
            links.append((j, ln))
    if sc.link_events:
        left.append(f"{len(sc.link_events)} scheduled link event(s)")
    moving = [n.id for n in out_nodes if n.mobility.model != "static"]
    if moving:
        left.append(f"mobility of {', '.join(moving)}")
    if sc.flows:
        left.append(f"{len(sc.flows)} flow(s)")
    return out_nodes, links, left


def _netem(dev: str, ln: Any) -> str:
    kbit = max(1, round(ln.bandwidth_mbps * 1000))
    return (f"tc qdisc replace dev {dev} root netem delay {ln.delay_ms:g}ms {ln.jitter_ms:g}ms "
            f"loss {ln.loss * 100:g}% rate {kbit}kbit limit {ln.queue_packets}")


def containerlab_topology(scenario: Scenario | dict, image: str = DEFAULT_IMAGE) -> str:
    """The wired part of a scenario as a containerlab topology (YAML; see the module's rules).

    Parameters
    ----------
    scenario : Scenario or dict
        A valid scenario.
    image : str
        Container image of every ``linux`` node (needs ``ip`` and ``tc``).

    Returns
    -------
    str
        The YAML text: leading comments (the equivalent ``containerlab tools netem set`` commands, with
        ``--delay``/``--jitter`` in ms, ``--loss`` in percent and ``--rate`` in kbit/s, and ``# left out:``
        lines naming what a wired lab cannot hold), then ``name`` and ``topology``.

    References
    ----------
    .. [1] containerlab, "Topology definition" and "tools netem set", https://containerlab.dev.
    """
    sc = load_scenario(scenario)
    nodes, links, left = _wired(sc)
    lab = (re.sub(r"[^A-Za-z0-9_-]+", "-", sc.name).strip("-") or "subflow")[:40]
    execs: dict[str, list[str]] = {n.id: [] for n in nodes}
    ports: dict[str, int] = {}
    switches = {n.id for n in nodes if isinstance(n, SwitchNode)}
    clab_links, host_cmds = [], []
    for j, ln in links:
        ends = []
        for end, host in ((ln.src, 1), (ln.dst, 2)):
            k = ports.get(end, 0) + 1
            ports[end] = k
            ends.append(f"{end}:eth{k}")
            if end not in switches:
                execs[end].append(f"ip addr add 10.{j // 256}.{j % 256}.{host}/24 dev eth{k}")
            execs[end].append(_netem(f"eth{k}", ln))
            jitter = f" --jitter {ln.jitter_ms:g}ms" if ln.jitter_ms else ""
            host_cmds.append(f"containerlab tools netem set -n clab-{lab}-{end} -i eth{k} --delay {ln.delay_ms:g}ms"
                             f"{jitter} --loss {ln.loss * 100:g} --rate {max(1, round(ln.bandwidth_mbps * 1000))}")
        clab_links.append({"endpoints": ends})
    topo_nodes: dict[str, Any] = {}
    for n in nodes:
        cmds = list(execs[n.id])
        if n.id in switches and ports.get(n.id):
            cmds = (["ip link add br0 type bridge", "ip link set br0 up"]
                    + [f"ip link set eth{k} master br0" for k in range(1, ports[n.id] + 1)] + cmds)
        elif n.kind in ("router", "satellite"):
            cmds.insert(0, "sysctl -w net.ipv4.ip_forward=1")
        labels = {"subflow.id": n.id, "subflow.kind": n.kind}
        if n.label is not None:
            labels["subflow.label"] = n.label
        entry: dict[str, Any] = {"kind": "linux", "image": image, "labels": labels}
        if cmds:
            entry["exec"] = cmds
        topo_nodes[n.id] = entry
    doc: dict[str, Any] = {"name": lab, "topology": {"nodes": topo_nodes}}
    if clab_links:  # containerlab's schema wants at least one link in a links list
        doc["topology"]["links"] = clab_links
    head = ["# containerlab topology of the wired part of a Subflow scenario (subflow.io.containerlab).",
            "# Impairments are applied by each node's exec (tc netem); from the host, after deployment:"]
    head += [f"#   {c}" for c in host_cmds]
    head += [f"# left out: {item}" for item in left]
    return "\n".join(head) + "\n" + yaml.safe_dump(doc, sort_keys=False, allow_unicode=False, width=4096)


def graphml_document(scenario: Scenario | dict) -> str:
    """Every node and link of a scenario as GraphML, through ``networkx.write_graphml``.

    Parameters
    ----------
    scenario : Scenario or dict
        A valid scenario.

    Returns
    -------
    str
        The GraphML text; attributes carry their unit in their name (``bandwidth_mbps`` Mbit/s,
        ``delay_ms`` and ``jitter_ms`` ms, ``loss`` fraction, ``x_m``/``y_m``/``alt_m`` metres,
        ``lat_deg``/``lon_deg`` WGS84 degrees).

    References
    ----------
    .. [1] networkx, ``networkx.readwrite.graphml.write_graphml``; the GraphML Primer,
       http://graphml.graphdrawing.org/primer/graphml-primer.html.
    """
    sc = load_scenario(scenario)
    g = nx.Graph(name=sc.name)
    for n in sc.nodes:
        attrs: dict[str, Any] = {"kind": n.kind, "alt_m": float(n.position.alt_m)}
        if n.label is not None:
            attrs["label"] = n.label
        if n.position.is_geo:
            attrs.update(lat_deg=float(n.position.lat_deg), lon_deg=float(n.position.lon_deg),
                         Latitude=float(n.position.lat_deg), Longitude=float(n.position.lon_deg))
        else:
            attrs.update(x_m=float(n.position.x_m), y_m=float(n.position.y_m))
        g.add_node(n.id, **attrs)
    for ln in sc.links:
        g.add_edge(ln.src, ln.dst, id=ln.id, bandwidth_mbps=float(ln.bandwidth_mbps), delay_ms=float(ln.delay_ms),
                   loss=float(ln.loss), jitter_ms=float(ln.jitter_ms), queue_packets=int(ln.queue_packets))
    buf = io.BytesIO()
    nx.write_graphml(g, buf, encoding="utf-8")
    return buf.getvalue().decode("utf-8")


__all__ = ["DEFAULT_IMAGE", "containerlab_topology", "graphml_document"]
