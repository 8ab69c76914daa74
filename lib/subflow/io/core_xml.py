"""CORE session XML (coreemu/core's ``<scenario>`` document): import and export.

The schema followed is the one CORE 8 and 9 write and read (``daemon/core/xml/corexml.py``:
``CoreXmlWriter`` / ``CoreXmlReader``); CORE 6-7's ``interface_one``/``interface_two``/``node_one``
spellings and the ``per`` loss attribute are read too. Parsing goes through defusedxml only (no DTD,
entity or external reference); writing builds the tree with the standard library, which escapes every
attribute value.

Mapping (import, and its inverse for export)
--------------------------------------------
* ``<devices><device type=...>``: ``router``, ``mdr``, ``prouter`` → ``router``; ``PC``, ``host`` and any
  other model → ``host`` (noted when the model is unknown). A device joined to a wireless LAN is a
  ``station`` (``relay`` when its model is a router's). Export: host → ``PC``, router → ``router``,
  station → ``mdr`` (relay) or ``PC``, a satellite without an orbit → ``router`` (noted in the file's
  ``session_metadata``).
* ``<networks><network type=...>``: ``SWITCH`` and ``HUB`` → ``switch``; ``WIRELESS_LAN`` → an
  ``access_point`` at the network's position whose ``range_m``, ``wireless_bandwidth_mbps``,
  ``wireless_delay_ms`` and ``wireless_loss`` come from its ``basic_range`` mobility configuration
  (``range`` in canvas units, ``bandwidth`` bit/s, ``delay`` µs, ``error`` percent, ``jitter`` µs which must
  be 0). CORE links every pair of the LAN's members that are within ``range`` of *each other*; Subflow
  associates a station with the access point within ``range_m`` of *it* — the LAN becomes a cell centred
  on the network's position (noted on import). ``EMANE``, ``WIRELESS`` (CORE 9's wireless node), ``RJ45``,
  ``TUNNEL``, ``TAP_BRIDGE``, ``PEER_TO_PEER`` and control networks are refused, naming the element.
* ``<links><link node1 node2>`` with ``<options>``: ``bandwidth`` bit/s → ``bandwidth_mbps`` (/1e6; 0 or
  absent: unlimited in CORE, :data:`~subflow.io.imports.DEFAULT_CAPACITY_MBPS` here, noted), ``delay`` µs →
  ``delay_ms`` (/1000), ``loss`` (or ``per``) percent → ``loss`` (/100), ``jitter`` µs → ``jitter_ms``,
  ``buffer`` packets → ``queue_packets``. ``dup``, ``mer``, ``burst``, ``mburst`` other than 0 are refused
  (nothing in a scenario carries them), as are two directions (``unidirectional="1"``) with different
  options and a second link between the same two nodes. A link between a device and a wireless LAN is
  the device's membership of the LAN (CORE writes no options on it); one that carries ``<options>`` with
  a ``bandwidth`` is a wired link to the access point (export writes such links that way).
* positions: canvas pixels, ``100`` pixels = ``scale`` metres (``<session_origin scale>``, CORE's
  ``refscale``; default 1.0 as CORE's). The canvas ``y`` grows downwards: ``y_m = -y · scale / 100``.
  With ``<session_origin lat lon>`` the scenario is geographic: each ``<position lat lon alt>`` is kept
  (computed from ``x``/``y`` in the local frame of the origin when a position lacks them) and
  ``geo`` is the session origin. Export writes ``scale="100.0"`` (1 pixel = 1 metre), the local-frame
  metres of each node and, for a geographic scenario, its ``lat``/``lon``/``alt`` and the origin (note:
  CORE itself ignores an origin whose ``alt`` is 0, ``CoreXmlReader.read_session_origin``).
* labels: CORE has none; export keeps them in ``<session_metadata>`` as ``subflow.label.<node id>``
  configurations, the scenario's name as ``subflow.name`` and a satellite's kind as ``subflow.kind.<node id>``
  (CORE keeps metadata as it is), which import reads back.
* not carried by CORE's XML, so refused on export naming the field: orbits (``ephemeris``), link budgets,
  access point ``uplink``, ``rate_table`` and ``radio`` (they change who connects at what rate), a station's
  ``radio``, ``radio.adhoc_links`` and ``link_events``. An access point's handover timing
  (``association_delay_s``, ``beacon_interval_ms``) and air queue (``queue_packets``) are not carried either
  (CORE's wireless LAN links at once): export notes them in ``<session_metadata>``. Motion is not in the session XML (CORE replays ns-2 traces with its ``ns2script``
  model): export writes each node's initial position and notes it; use the ``ns2`` export for the
  trace. Flows are not exported (CORE runs services, not flows).

References
----------
.. [1] CORE (Common Open Research Emulator), ``daemon/core/xml/corexml.py`` (XML schema: ``CoreXmlWriter``,
   ``CoreXmlReader``), ``daemon/core/location/mobility.py`` (``BasicRangeModel``: ``range``, ``bandwidth``,
   ``delay``, ``jitter``, ``error``), https://github.com/coreemu/core; J. Ahrenholz, "Comparison of CORE network
   emulation platforms", MILCOM 2010.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from xml.etree.ElementTree import ParseError
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import defusedxml
import defusedxml.ElementTree as safe_et

from subflow.errors import ExportRefused, ImportFailed, ScenarioInvalid
from subflow.io.imports import DEFAULT_CAPACITY_MBPS, ImportResult, _Ids
from subflow.scenario.document import (
    AccessPointNode,
    HostNode,
    RouterNode,
    SatelliteNode,
    Scenario,
    StationNode,
    SwitchNode,
    load_scenario,
)
from subflow.scenario.geodesy import centroid, local_frame
from subflow.space.mobility import to_local

#: device models CORE runs as routers (``daemon/core/nodes/base.py`` defaults, the GUI's palette)
ROUTER_MODELS = frozenset({"router", "mdr", "prouter"})
#: device models CORE runs as end hosts
HOST_MODELS = frozenset({"PC", "host"})
#: CORE's ``BasicRangeModel`` defaults, used for a wireless LAN without a ``basic_range`` configuration:
#: range (canvas units), bandwidth (bit/s), delay (µs), jitter (µs), error (percent)
BASIC_RANGE_DEFAULTS = {"range": 275.0, "bandwidth": 54_000_000.0, "delay": 5000.0, "jitter": 0.0, "error": 0.0}
#: link options nothing in a scenario carries: refused unless 0
_UNCARRIED_OPTIONS = ("dup", "mer", "burst", "mburst")
_LABEL_KEY = "subflow.label."
_KIND_KEY = "subflow.kind."
_NAME_KEY = "subflow.name"


# --------------------------------------------------------------------------- import


def _num(el: Any, attr: str, where: str, source: str, default: float | None = None) -> float | None:
    raw = el.get(attr)
    if raw is None or raw == "":
        return default
    try:
        v = float(raw)
    except ValueError:
        v = math.nan
    if not math.isfinite(v):
        raise ImportFailed(source, f"{where}: {attr}={raw!r} is not a finite number")
    return v


def _describe(el: Any) -> str:
    """``<tag a="v" ...>`` of an element (its identifying attributes), for messages."""
    keys = [k for k in ("id", "name", "type", "node", "node1", "node2", "model") if el.get(k) is not None]
    attrs = " ".join(f'{k}="{el.get(k)[:40]}"' for k in keys)  # a file's values, cut for messages
    return f"<{el.tag}{' ' + attrs if attrs else ''}>"


@dataclass
class _CoreNode:
    core_id: str
    element: Any
    kind: str  # device | switch | wlan
    model: str
    sid: str = ""
    position: dict[str, float] = field(default_factory=dict)
    members: set[str] = field(default_factory=set)


def parse_core_xml(data: bytes | str, source: str = "core.xml") -> Any:
    """The ``<scenario>`` root of a CORE session file, parsed by defusedxml.

    Raises
    ------
    ImportFailed
        For XML with a DTD, entities or external references, XML that is not well-formed, or a root
        other than ``<scenario>``.

    References
    ----------
    .. [1] coreemu/core, ``daemon/core/xml/corexml.py`` (``CoreXmlReader``: the root ``<scenario>``).
    .. [2] defusedxml, https://github.com/tiran/defusedxml (``forbid_dtd``, ``forbid_entities``, ``forbid_external``).
    """
    raw = data.encode() if isinstance(data, str) else data
    try:
        root = safe_et.fromstring(raw, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except defusedxml.DefusedXmlException as exc:
        raise ImportFailed(source, f"XML with a DTD, entities or external references is refused "
                                   f"({type(exc).__name__})") from None
    except ParseError as exc:
        raise ImportFailed(source, f"not readable XML ({exc})") from None
    if root.tag != "scenario":
        raise ImportFailed(source, f"<{root.tag}> is not a CORE session (its root element is <scenario>)")
    return root


class _Reader:
    """One CORE document being converted (see the module's mapping)."""

    def __init__(self, root: Any, source: str):
        self.root, self.source = root, source
        self.notes: list[str] = []
        self.nodes: dict[str, _CoreNode] = {}
        origin = root.find("session_origin")
        self.scale = 1.0
        self.ref_xy = (0.0, 0.0)
        self.geo: tuple[float, float, float] | None = None
        if origin is not None:
            where = _describe(origin)
            self.scale = _num(origin, "scale", where, source, 1.0) or 1.0
            if self.scale <= 0:
                raise ImportFailed(source, f"{where}: scale={origin.get('scale')!r} must be > 0")
            self.ref_xy = (_num(origin, "x", where, source, 0.0), _num(origin, "y", where, source, 0.0))
            lat, lon = _num(origin, "lat", where, source), _num(origin, "lon", where, source)
            if lat is not None and lon is not None:
                if not (-90 <= lat <= 90 and -180 <= lon <= 180):
                    raise ImportFailed(source, f"{where}: lat={lat:g}, lon={lon:g} are not WGS84 degrees")
                self.geo = (lat, lon, _num(origin, "alt", where, source, 0.0))

    def metres(self, px: float) -> float:
        """Canvas units → metres (100 pixels = ``scale`` metres)."""
        return px * self.scale / 100.0

    def read_nodes(self) -> None:
        ids = _Ids("n")
        for group, kind in (("devices", "device"), ("networks", "network")):
            parent = self.root.find(group)
            for el in (parent if parent is not None else []):
                where = _describe(el)
                core_id = el.get("id")
                if core_id is None or core_id in self.nodes:
                    raise ImportFailed(self.source, f"{where}: missing or repeated id")
                model = el.get("type") or ""
                if kind == "network":
                    if model in ("SWITCH", "HUB"):
                        kind_ = "switch"
                    elif model == "WIRELESS_LAN":
                        kind_ = "wlan"
                    elif model == "EMANE":
                        raise ImportFailed(self.source, f"{where}: EMANE model {el.get('model')!r} cannot be "
                                                        "mapped (Subflow models 802.11 cells, not EMANE's radio "
                                                        "models)")
                    else:
                        raise ImportFailed(self.source, f"{where}: network type {model!r} cannot be mapped "
                                                        "(SWITCH, HUB and WIRELESS_LAN can)")
                else:
                    kind_ = "device"
                    if model not in ROUTER_MODELS | HOST_MODELS:
                        self.notes.append(f"{where}: model {model!r} imported as a host")
                    if el.get("class") in ("docker", "lxc"):
                        self.notes.append(f"{where}: container class {el.get('class')!r} and image not kept")
                node = _CoreNode(core_id, el, kind_, model)
                node.sid = ids.make(el.get("name") or f"n{core_id}")
                if node.sid != el.get("name"):
                    self.notes.append(f"{where}: name rewritten to the identifier {node.sid!r}")
                node.position = self.position(el, where)
                self.nodes[core_id] = node
        if not self.nodes:
            raise ImportFailed(self.source, "<scenario> has no <devices> or <networks> node")

    def position(self, el: Any, where: str) -> dict[str, float]:
        pos = el.find("position")
        if pos is None:
            raise ImportFailed(self.source, f"{where}: no <position>")
        x = _num(pos, "x", where + "/<position>", self.source, 0.0)
        y = _num(pos, "y", where + "/<position>", self.source, 0.0)
        alt = _num(pos, "alt", where + "/<position>", self.source, None)
        x_m = self.metres(x - self.ref_xy[0])
        y_m = -self.metres(y - self.ref_xy[1])
        if self.geo is None:
            out = {"x_m": round(x_m, 6), "y_m": round(y_m, 6)}
        else:
            lat = _num(pos, "lat", where + "/<position>", self.source, None)
            lon = _num(pos, "lon", where + "/<position>", self.source, None)
            if lat is None or lon is None:
                lat, lon = (float(v) for v in local_frame(self.geo[0], self.geo[1]).inverse(x_m, y_m))
            if not (-90 <= lat <= 90 and -180 <= lon <= 180):
                raise ImportFailed(self.source, f"{where}/<position>: lat={lat:g}, lon={lon:g} are not WGS84 "
                                                "degrees")
            out = {"lat_deg": lat, "lon_deg": lon}
        if alt is not None:
            out["alt_m"] = alt
        return out

    def wlan_config(self, node: _CoreNode) -> dict[str, float]:
        """The ``basic_range`` values of a wireless LAN (CORE's defaults where it has none)."""
        values = dict(BASIC_RANGE_DEFAULTS)
        found = False
        for conf in self.root.iterfind("mobility_configurations/mobility_configuration"):
            if conf.get("node") != node.core_id:
                continue
            model = conf.get("model")
            if model == "ns2script":
                file = next((c.get("value") for c in conf.iterfind("configuration") if c.get("name") == "file"),
                            "")
                self.notes.append(f"{_describe(conf)}: the ns-2 trace {file!r} is another file; import it with "
                                  "the ns2 format")
                continue
            if model != "basic_range":
                raise ImportFailed(self.source, f"{_describe(conf)}: mobility model {model!r} cannot be mapped "
                                                "(basic_range and ns2script can)")
            found = True
            for c in conf.iterfind("configuration"):
                name = c.get("name")
                if name in values:
                    values[name] = _num(c, "value", f"{_describe(conf)}/<configuration name=\"{name}\">",
                                        self.source, values[name])
        if not found:
            self.notes.append(f"{_describe(node.element)}: no basic_range configuration, CORE's defaults used")
        if values["jitter"] != 0:
            raise ImportFailed(self.source, f"{_describe(node.element)}: basic_range jitter={values['jitter']:g} µs "
                                            "cannot be carried (an access point's air has no jitter)")
        if values["range"] <= 0 or values["bandwidth"] <= 0 or not 0 <= values["error"] < 100 or values["delay"] < 0:
            raise ImportFailed(self.source, f"{_describe(node.element)}: basic_range range={values['range']:g}, "
                                            f"bandwidth={values['bandwidth']:g}, delay={values['delay']:g}, "
                                            f"error={values['error']:g} out of range")
        return values

    def link_options(self, link: Any, where: str) -> dict[str, Any]:
        opts = link.find("options")
        out: dict[str, Any] = {}
        if opts is None:
            out["bandwidth_mbps"] = None
            return out
        w = where + "/<options>"
        for name in _UNCARRIED_OPTIONS:
            v = _num(opts, name, w, self.source, 0.0)
            if v:
                raise ImportFailed(self.source, f"{w}: {name}={opts.get(name)!r} cannot be carried (a scenario "
                                                "link has bandwidth, delay, loss, jitter and a queue only)")
        bw = _num(opts, "bandwidth", w, self.source, 0.0)
        delay = _num(opts, "delay", w, self.source, 0.0)
        jitter = _num(opts, "jitter", w, self.source, 0.0)
        loss = _num(opts, "loss", w, self.source, None)
        if loss is None:
            loss = _num(opts, "per", w, self.source, 0.0)
        buffer = _num(opts, "buffer", w, self.source, None)
        for name, v in (("bandwidth", bw), ("delay", delay), ("jitter", jitter)):
            if v < 0:
                raise ImportFailed(self.source, f"{w}: {name}={v:g} must not be negative")
        if not 0 <= loss < 100:
            raise ImportFailed(self.source, f"{w}: loss={loss:g} % must lie in [0, 100)")
        out["bandwidth_mbps"] = bw / 1e6 if bw > 0 else None
        out["delay_ms"] = delay / 1000.0
        out["jitter_ms"] = jitter / 1000.0
        out["loss"] = loss / 100.0
        if buffer:
            if buffer < 1 or buffer != int(buffer):
                raise ImportFailed(self.source, f"{w}: buffer={buffer:g} is not a number of packets")
            out["queue_packets"] = int(buffer)
        return out

    def read_links(self) -> list[dict[str, Any]]:
        links: dict[frozenset[str], tuple[dict[str, Any], dict[str, Any]]] = {}
        ids = _Ids("l")
        unlimited = 0
        for k, el in enumerate(self.root.iterfind("links/link")):
            where = f"{_describe(el)} (link {k + 1})"
            a = el.get("node1", el.get("node_one"))
            b = el.get("node2", el.get("node_two"))
            for end in (a, b):
                if end not in self.nodes:
                    raise ImportFailed(self.source, f"{where}: unknown node id {end!r}")
            na, nb = self.nodes[a], self.nodes[b]
            opts = self.link_options(el, where)
            wlan = na if na.kind == "wlan" else nb if nb.kind == "wlan" else None
            if wlan is not None and opts.get("bandwidth_mbps") is None:
                other = nb if wlan is na else na
                if other.kind == "wlan":
                    raise ImportFailed(self.source, f"{where}: a link between two wireless LANs cannot be mapped")
                if other.kind == "device":
                    wlan.members.add(other.core_id)
                    continue
            pair = frozenset((a, b))
            if opts.get("bandwidth_mbps") is None:
                opts["bandwidth_mbps"] = DEFAULT_CAPACITY_MBPS
                unlimited += 1
            if pair in links:
                first = links[pair][1]
                one_way = el.find("options") is not None and el.find("options").get("unidirectional") == "1"
                if one_way and first == opts:
                    continue
                what = ("its other direction with other options" if one_way
                        else f"a second link between nodes {na.sid!r} and {nb.sid!r}")
                raise ImportFailed(self.source, f"{where}: {what} cannot be carried (a scenario has one full-duplex "
                                                "link per node pair, the same in both directions)")
            links[pair] = ({"id": ids.make(f"l{k + 1}"), "src": na.sid, "dst": nb.sid, **opts}, opts)
        if unlimited:
            self.notes.append(f"{unlimited} link(s) without a bandwidth (unlimited in CORE): "
                              f"{DEFAULT_CAPACITY_MBPS:g} Mbit/s assumed")
        return [doc for doc, _ in links.values()]

    def metadata(self, prefix: str) -> dict[str, str]:
        """``<session_metadata>`` values whose name starts with ``prefix``, by the rest of the name."""
        out = {}
        for c in self.root.iterfind("session_metadata/configuration"):
            name = c.get("name") or ""
            if name.startswith(prefix):
                out[name[len(prefix):]] = c.get("value") or ""
        return out

    def scenario_nodes(self) -> list[dict[str, Any]]:
        member_of = {m for n in self.nodes.values() if n.kind == "wlan" for m in n.members}
        labels = self.metadata(_LABEL_KEY)
        satellites = {k for k, v in self.metadata(_KIND_KEY).items() if v == "satellite"}
        out = []
        # in the order of CORE's node numbers (devices and networks share them)
        ordered = sorted(self.nodes.values(), key=lambda n: int(n.core_id) if n.core_id.isdigit() else math.inf)
        for n in ordered:
            doc: dict[str, Any] = {"id": n.sid, "position": n.position}
            if n.kind == "switch":
                doc["kind"] = "switch"
            elif n.kind == "wlan":
                conf = self.wlan_config(n)
                doc.update(kind="access_point", range_m=self.metres(conf["range"]),
                           wireless_bandwidth_mbps=conf["bandwidth"] / 1e6, wireless_delay_ms=conf["delay"] / 1000.0,
                           wireless_loss=conf["error"] / 100.0)
            elif n.core_id in member_of:
                doc.update(kind="station", relay=n.model in ROUTER_MODELS)
            elif n.sid in satellites:
                doc["kind"] = "satellite"
            else:
                doc["kind"] = "router" if n.model in ROUTER_MODELS else "host"
            if n.sid in labels:
                doc["label"] = labels[n.sid][:80]
            out.append(doc)
        if any(n.kind == "wlan" for n in self.nodes.values()):
            self.notes.append("each wireless LAN became an access point at the LAN's position: CORE links members "
                              "within range of each other, Subflow associates a station with an access point "
                              "within range_m of it")
        return out


def read_core_xml(data: bytes | str, source: str = "core.xml", name: str | None = None) -> ImportResult:
    """Convert a CORE session XML document into a scenario (see the module's mapping).

    Parameters
    ----------
    data : bytes or str
        The ``<scenario>`` document (CORE 8/9 schema; CORE 6/7 spellings accepted).
    source : str
        File name, for messages and the description.
    name : str, optional
        Scenario name; default: the ``name`` attribute of ``<scenario>`` (its file stem) or ``source``'s stem.

    Returns
    -------
    ImportResult
        The validated scenario (lengths in metres, bandwidths in Mbit/s, delays and jitter in ms,
        loss as a fraction) and the notes on what the conversion assumed.

    Raises
    ------
    ImportFailed
        For unsafe or unreadable XML, and for what a scenario cannot carry, naming the element and
        attribute (``<network id="5" name="emane1" type="EMANE">: EMANE model ... cannot be mapped``).

    References
    ----------
    .. [1] coreemu/core, ``daemon/core/xml/corexml.py`` (CORE 9: ``CoreXmlWriter.create_link_element``
       writes ``delay``/``jitter`` in µs, ``bandwidth`` in bit/s, ``loss`` in percent).
    """
    root = parse_core_xml(data, source)
    reader = _Reader(root, source)
    if root.find("emane_configurations") is not None and len(root.find("emane_configurations")):
        first = root.find("emane_configurations")[0]
        raise ImportFailed(source, f"{_describe(first)}: EMANE model configurations cannot be mapped")
    reader.read_nodes()
    links = reader.read_links()
    nodes = reader.scenario_nodes()
    for tag in ("service_configurations", "configservice_configurations", "session_hooks"):
        if root.find(tag) is not None and len(root.find(tag)):
            reader.notes.append(f"<{tag}> not kept (CORE services and hooks have no scenario counterpart)")
    title = (name or reader.metadata("").get(_NAME_KEY) or Path(root.get("name") or "").stem or Path(source).stem
             or "core")
    doc: dict[str, Any] = {"schema_version": 2, "name": title[:120], "nodes": nodes, "links": links}
    if reader.geo is not None:
        doc["geo"] = {"origin_lat_deg": reader.geo[0], "origin_lon_deg": reader.geo[1]}
    desc = f"Imported from {Path(source).name} (CORE session XML) by subflow.io.core_xml."
    if reader.notes:
        desc += " Notes: " + "; ".join(reader.notes) + "."
    doc["description"] = desc[:4000]
    try:
        scenario = load_scenario(doc)
    except ScenarioInvalid as exc:
        raise ImportFailed(source, f"the converted scenario is invalid: {exc}") from None
    return ImportResult(scenario=scenario, notes=reader.notes, format="core-xml")


# --------------------------------------------------------------------------- export


def _refuse(scenario: Scenario) -> None:
    """Raise :class:`~subflow.errors.ExportRefused` naming the first field CORE's XML cannot carry."""
    def no(loc: list[Any], why: str) -> None:
        raise ExportRefused("core-xml", loc, why)

    for i, n in enumerate(scenario.nodes):
        if isinstance(n, SatelliteNode) and n.ephemeris is not None:
            no(["nodes", i, "ephemeris"], "CORE's links have fixed delays: orbits cannot be carried")
        if isinstance(n, AccessPointNode):
            for fld in ("uplink", "rate_table", "radio"):
                if getattr(n, fld) is not None:
                    no(["nodes", i, fld], "CORE's basic_range wireless LAN has range, bandwidth, delay and loss only")
        if isinstance(n, StationNode) and n.radio is not None:
            no(["nodes", i, "radio"], "CORE's basic_range wireless LAN has no radio model")
    for i, ln in enumerate(scenario.links):
        if ln.budget is not None:
            no(["links", i, "budget"], "CORE's links have a fixed bandwidth: link budgets cannot be carried")
    if scenario.radio.adhoc_links:
        no(["radio", "adhoc_links"], "ad-hoc links are not exported")
    if scenario.link_events:
        no(["link_events"], "a CORE session XML holds no scheduled link changes")


def _core_kind(n: Any) -> tuple[str, str]:
    """(element, type) of a node: ``("device", model)`` or ``("network", type)``."""
    if isinstance(n, SwitchNode):
        return "network", "SWITCH"
    if isinstance(n, AccessPointNode):
        return "network", "WIRELESS_LAN"
    if isinstance(n, (RouterNode, SatelliteNode)):
        return "device", "router"
    if isinstance(n, StationNode):
        return "device", "mdr" if n.relay else "PC"
    assert isinstance(n, HostNode)
    return "device", "PC"


def _num_text(v: float) -> str:
    return repr(float(v)) if v != int(v) else f"{float(v):.1f}"


def write_core_xml(scenario: Scenario | dict) -> str:
    """The scenario as a CORE session XML document (see the module's mapping).

    Parameters
    ----------
    scenario : Scenario or dict
        A valid scenario (checked again here).

    Returns
    -------
    str
        UTF-8 XML text with a declaration: ``<scenario name>`` holding ``<networks>``, ``<devices>``,
        ``<links>`` (options: ``bandwidth`` bit/s, ``delay`` and ``jitter`` µs, ``loss`` percent, ``buffer``
        packets), ``<mobility_configurations>`` (``basic_range`` of each access point), ``<session_origin>``
        (``scale="100.0"``: 1 pixel = 1 m) and ``<session_metadata>`` (labels, notes).

    Raises
    ------
    ExportRefused
        Naming the first field CORE's XML cannot carry (orbits, link budgets, access point uplinks, rate
        tables and radios, ad-hoc links, scheduled link events).
    ScenarioInvalid
        For an invalid scenario.

    References
    ----------
    .. [1] coreemu/core, ``daemon/core/xml/corexml.py`` (``CoreXmlWriter``: ``write_nodes``,
       ``create_link_element``, ``write_mobility_configs``, ``write_session_origin``).
    """
    sc = load_scenario(scenario)
    _refuse(sc)
    local = to_local(sc)
    root = ET.Element("scenario", {"name": sc.name})
    networks, devices = ET.SubElement(root, "networks"), ET.SubElement(root, "devices")
    core_id = {n.id: str(i + 1) for i, n in enumerate(sc.nodes)}
    notes: list[str] = []
    for n, ln in zip(sc.nodes, local.nodes):
        tag, typ = _core_kind(n)
        attrs = {"id": core_id[n.id], "name": n.id, "icon": "", "canvas": "1", "type": typ}
        if tag == "device":
            attrs.update({"class": "", "image": ""})
        elif typ == "WIRELESS_LAN":
            attrs["model"] = "basic_range"
        el = ET.SubElement(devices if tag == "device" else networks, tag, attrs)
        pos = {"x": _num_text(ln.position.x_m), "y": _num_text(0.0 - ln.position.y_m)}
        if sc.is_geo:
            pos.update(lat=repr(n.position.lat_deg), lon=repr(n.position.lon_deg))
        pos["alt"] = _num_text(n.position.alt_m)
        ET.SubElement(el, "position", pos)
        if isinstance(n, SatelliteNode):
            notes.append(f"satellite {n.id} written as a router (subflow.kind.{n.id} keeps its kind)")
        if isinstance(n, AccessPointNode):
            timing = [f for f, default in (("association_delay_s", None), ("beacon_interval_ms", 102.4),
                                           ("queue_packets", 100)) if getattr(n, f) != default]
            if timing:
                notes.append(f"{n.id}: {', '.join(timing)} not carried (CORE's wireless LAN links at once, "
                             "with no handover timing or air queue)")
        if n.mobility.model != "static":
            notes.append(f"{n.id}: {n.mobility.model} motion not in the session XML (initial position only; "
                         "export it with the ns2 format for CORE's ns2script model)")
    _write_links(sc, root, core_id)
    mob = ET.SubElement(root, "mobility_configurations")
    for n in sc.nodes:
        if isinstance(n, AccessPointNode):
            conf = ET.SubElement(mob, "mobility_configuration", {"node": core_id[n.id], "model": "basic_range"})
            for key, value in (("range", _num_text(n.range_m)), ("bandwidth", str(round(n.wireless_bandwidth_mbps * 1e6))),
                               ("jitter", "0"), ("delay", str(round(n.wireless_delay_ms * 1000))),
                               ("error", repr(n.wireless_loss * 100.0)), ("promiscuous", "0")):
                ET.SubElement(conf, "configuration", {"name": key, "value": value})
    if not len(mob):
        root.remove(mob)
    origin = {"scale": "100.0"}
    if sc.is_geo:
        lat0, lon0 = ((sc.geo.origin_lat_deg, sc.geo.origin_lon_deg) if sc.geo is not None else
                      centroid([n.position.lat_deg for n in sc.nodes], [n.position.lon_deg for n in sc.nodes]))
        origin = {"lat": repr(float(lat0)), "lon": repr(float(lon0)), "alt": "0.0", "scale": "100.0"}
    ET.SubElement(root, "session_origin", origin)
    meta = ET.SubElement(root, "session_metadata")
    ET.SubElement(meta, "configuration", {"name": _NAME_KEY, "value": sc.name})
    for n in sc.nodes:
        if n.label is not None:
            ET.SubElement(meta, "configuration", {"name": _LABEL_KEY + n.id, "value": n.label})
        if isinstance(n, SatelliteNode):
            ET.SubElement(meta, "configuration", {"name": _KIND_KEY + n.id, "value": "satellite"})
    for k, note in enumerate(notes):
        ET.SubElement(meta, "configuration", {"name": f"subflow.note.{k + 1}", "value": note})
    ET.indent(root, space="  ")
    return "<?xml version='1.0' encoding='UTF-8'?>\n" + ET.tostring(root, encoding="unicode") + "\n"


def _write_links(sc: Scenario, root: Any, core_id: dict[str, str]) -> None:
    """``<links>``: wired links with their options, and each station's membership of every wireless LAN."""
    links = ET.SubElement(root, "links")
    kinds = {n.id: _core_kind(n)[0] for n in sc.nodes}
    next_iface: dict[str, int] = {}

    def iface(tag: str, node: str, link_el: Any, address: str | None, mask: str = "24") -> None:
        k = next_iface.get(node, 0)
        next_iface[node] = k + 1
        attrs = {"id": str(k), "name": f"eth{k}"}
        if address is not None:
            attrs.update(ip4=address, ip4_mask=mask)
        ET.SubElement(link_el, tag, attrs)

    for j, ln in enumerate(sc.links):
        el = ET.SubElement(links, "link", {"node1": core_id[ln.src], "node2": core_id[ln.dst]})
        subnet = f"10.{j // 256}.{j % 256}"
        for tag, end, host in (("iface1", ln.src, 1), ("iface2", ln.dst, 2)):
            if kinds[end] == "device":
                iface(tag, end, el, f"{subnet}.{host}")
        ET.SubElement(el, "options", {
            "delay": str(round(ln.delay_ms * 1000)), "bandwidth": str(round(ln.bandwidth_mbps * 1e6)),
            "loss": repr(ln.loss * 100.0), "dup": "0", "jitter": str(round(ln.jitter_ms * 1000)),
            "buffer": str(ln.queue_packets)})
    aps = [n for n in sc.nodes if isinstance(n, AccessPointNode)]
    for k, ap in enumerate(aps):
        for m, st in enumerate(n for n in sc.nodes if isinstance(n, StationNode)):
            el = ET.SubElement(links, "link", {"node1": core_id[st.id], "node2": core_id[ap.id]})
            iface("iface1", st.id, el, f"172.{16 + k % 16}.{m // 250}.{1 + m % 250}", "16")
    if not len(links):
        root.remove(links)


__all__ = ["BASIC_RANGE_DEFAULTS", "HOST_MODELS", "ROUTER_MODELS", "parse_core_xml", "read_core_xml",
           "write_core_xml"]
