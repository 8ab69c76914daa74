"""Topology imports: Topology Zoo / user GraphML and SNDlib native files.

Each format reads into a :class:`~subflow.planning.network.Network` (for ``routes`` and
``allocate`` directly on the file) and converts to a
:class:`~subflow.scenario.document.Scenario` (``subflow import FILE -o scenario.json``,
``POST /api/imports``).

GraphML conventions
-------------------
* Nodes are keyed by their GraphML ``id`` (Zoo labels repeat). The node id
  (in the network and the scenario alike) is the GraphML id when it is a valid
  identifier, else a rewritten one — Zoo ids are numbers: ``"12"`` → ``"n12"``
  (invalid characters become ``_``; at most 32 characters; made unique). The
  GraphML ``label`` becomes the scenario ``label`` (the original id if none).
* Edge attributes read (all optional), for users' own measured topologies:
  ``delay_ms`` (one-way, ms), ``loss`` (one-way, [0, 1)) and
  ``bandwidth_mbps`` (Mbit/s).
* Without ``delay_ms``: great-circle distance between the endpoints'
  ``Latitude``/``Longitude`` (haversine, mean Earth radius 6371.0088 km) at
  2/3 of the speed of light (199 861.6 km/s), i.e. about 5.0 µs/km; an
  endpoint without coordinates (Zoo "hyperedge" nodes) gives
  :data:`DEFAULT_DELAY_MS`.
* Without ``bandwidth_mbps``: the Zoo's ``LinkSpeedRaw`` (bit/s) / 1e6, else
  :data:`DEFAULT_CAPACITY_MBPS`.
* Without ``loss``: 0.
* An undirected edge is a full-duplex link (two arcs, each with the full
  capacity); in a directed GraphML each edge is one arc.

SNDlib native conventions
-------------------------
* A link's capacity is its pre-installed capacity if positive, else its first
  module's capacity (0 if it has neither; such a link cannot carry demand).
* Every listed link becomes two opposite arcs, each with that full capacity;
  a link listed twice gives parallel arcs.
* Delay: great-circle distance of the node coordinates at 2/3 c, as above;
  loss 0. Demands keep their value and are read as Mbit/s (abilene states
  MBITPERSEC; nobel-us and germany50 state no unit — capacities and demands
  share it). ``routing_unit``, ``max_path_length`` and ADMISSIBLE_PATHS are
  ignored.

Scenario conversion
-------------------
Scenarios hold full-duplex links only and at most one link per node pair, so
parallel links (and the two directions of a directed GraphML pair) are merged
into one link: capacities add, the first edge's delay and loss are kept. Link
and flow ids that are not valid identifiers are rewritten like node ids.
SNDlib node ids that are not identifiers are rewritten the same way (in the
network too). Positions are an equirectangular
projection of longitude/latitude in metres (for drawing only). Every such
rewrite is listed in :attr:`ImportResult.notes`.

References
----------
.. [1] S. Knight et al., "The Internet Topology Zoo", IEEE JSAC 29(9), 2011
   (data CC BY 4.0).
.. [2] S. Orlowski et al., "SNDlib 1.0 — Survivable Network Design Library",
   Networks 55(3), 2010 (native format, §"Network file format").
"""

from __future__ import annotations

import io
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from subflow.errors import ImportFailed, LinkInvalid, ScenarioInvalid
from subflow.planning.network import Demand, Network
from subflow.scenario.document import Scenario, load_scenario
from subflow.scenario.geodesy import centroid, geodesic_distance_m, local_frame

DEFAULT_CAPACITY_MBPS = 1000.0
"""Capacity of a GraphML edge with neither ``bandwidth_mbps`` nor ``LinkSpeedRaw``, Mbit/s."""
DEFAULT_DELAY_MS = 1.0
"""Delay of a GraphML edge without ``delay_ms`` whose endpoint has no coordinates, ms."""
FIBER_KM_PER_S = 299_792.458 * 2.0 / 3.0

_IDENT = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,31}$")

Format = Literal["scenario", "graphml", "sndlib", "core-xml", "ns2"]


def great_circle_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Geodesic distance in km on the WGS84 ellipsoid between two (latitude, longitude) points in degrees.

    Computed by :func:`subflow.scenario.geodesy.geodesic_distance_m` (pyproj's ``Geod``, Karney's algorithm).

    Examples
    --------
    >>> round(great_circle_km(0, 0, 0, 1), 2)   # one degree on the equator of WGS84
    111.32
    """
    return geodesic_distance_m(lat1, lon1, lat2, lon2) / 1000.0


def fiber_delay_ms(km: float) -> float:
    """One-way propagation delay of ``km`` of fibre at 2/3 c, in ms."""
    return km / FIBER_KM_PER_S * 1000.0


@dataclass
class Topology:
    """A parsed file: nodes with optional (lat, lon) and label, directed arcs,
    demands. Internal form shared by the readers."""

    name: str
    source: str
    nodes: list[str]
    labels: dict[str, str] = field(default_factory=dict)
    coords: dict[str, tuple[float, float]] = field(default_factory=dict)
    # (link id, a, b, delay_ms, loss, capacity_mbps), one entry per *link*;
    # ``duplex`` tells whether each gives two arcs
    links: list[tuple[str, str, str, float, float, float]] = field(default_factory=list)
    duplex: bool = True
    demands: list[Demand] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    licence: str = ""
    format: Format = "graphml"

    def network(self) -> Network:
        """The :class:`Network` (validated; errors name the link)."""
        build = Network.from_links if self.duplex else Network.from_arcs
        return build(self.nodes, self.links, demands=self.demands, name=self.name)


@dataclass
class ImportResult:
    """A converted scenario and the notes on what the conversion changed."""

    scenario: Scenario
    notes: list[str]
    format: Format


# --------------------------------------------------------------------------- GraphML


def _float(x: Any) -> float | None:
    if x is None:
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def _coordinate(raw: Any, low: float, high: float) -> float | None:
    """``raw`` as a finite number in [``low``, ``high``], or None if it is not one."""
    v = _float(raw)
    return v if v is not None and low <= v <= high else None


def _graphml_coords(source: str, nid: str, attrs: dict[str, Any]) -> tuple[float, float] | None:
    """A node's (``Latitude``, ``Longitude``) in degrees, None if it has neither; ImportFailed naming
    the node, the attribute and its value if one is missing or not a finite number in range."""
    raw = {"Latitude": attrs.get("Latitude"), "Longitude": attrs.get("Longitude")}
    if raw["Latitude"] is None and raw["Longitude"] is None:
        return None
    bounds = {"Latitude": (-90.0, 90.0), "Longitude": (-180.0, 180.0)}
    values = {k: _coordinate(v, *bounds[k]) for k, v in raw.items()}
    for key, value in values.items():
        if value is None:
            low, high = bounds[key]
            raise ImportFailed(source, f"node {nid!r}: {key} = {raw[key]!r} is not a finite number of degrees "
                                       f"in [{low:g}, {high:g}]")
    return values["Latitude"], values["Longitude"]


def _graphml_capacity(source: str, lid: str, ends: str, attrs: dict[str, Any]) -> float | None:
    """An edge's capacity in Mbit/s from the Zoo's ``LinkSpeedRaw`` (bit/s), None without it;
    ImportFailed naming the edge and the value if it is not a finite number > 0."""
    raw = attrs.get("LinkSpeedRaw")
    if raw is None:
        return None
    speed = _float(raw)
    if speed is None or speed <= 0:
        raise ImportFailed(source, f"edge {lid!r} ({ends}): LinkSpeedRaw = {raw!r} is not a bit rate > 0 (bit/s)")
    return speed / 1e6


def read_graphml(data: bytes | str, source: str = "graphml") -> Topology:
    """Parse Topology Zoo or user GraphML (see the module conventions).

    Parameters
    ----------
    data : bytes or str
        The file content.
    source : str
        File name, for messages.

    Returns
    -------
    Topology

    Raises
    ------
    ImportFailed
        If the content is not GraphML networkx can read, or holds a DTD, an entity
        declaration or an external reference (refused by defusedxml before networkx
        parses it: no entity expansion, no external entities); or a node's ``Latitude`` /
        ``Longitude`` or an edge's ``LinkSpeedRaw`` is present but not a finite number in range
        (the message names the node or edge, the attribute and the value).
    LinkInvalid
        If an edge's ``delay_ms``, ``loss`` or ``bandwidth_mbps`` is invalid.
    """
    import networkx as nx

    raw = data.encode() if isinstance(data, str) else data
    _refuse_unsafe_xml(raw, source)
    try:
        g = nx.read_graphml(io.BytesIO(raw))
    except Exception as exc:  # networkx raises several types for bad XML
        raise ImportFailed(source, f"not readable GraphML ({exc})") from None
    name = str(g.graph.get("label") or g.graph.get("Network") or Path(source).stem or "graphml")
    ids = _node_ids([str(n) for n in g.nodes])
    topo = Topology(name=name, source=source, nodes=[ids[str(n)] for n in g.nodes], duplex=not g.is_directed())
    _note_renames(topo, ids)
    if "Topology Zoo" in str(g.graph.get("Creator", "")) or "Zoo" in str(g.graph.get("Provenance", "")):
        topo.licence = "Internet Topology Zoo data, CC BY 4.0; cite Knight et al., IEEE JSAC 29(9), 2011."
    for n, attrs in g.nodes(data=True):
        nid = ids[str(n)]
        coords = _graphml_coords(source, nid, attrs)
        if coords is not None:
            topo.coords[nid] = coords
        if attrs.get("label") is not None:
            topo.labels[nid] = str(attrs["label"])
        elif nid != str(n):
            topo.labels[nid] = str(n)
    missing_coords = 0
    defaults_cap = 0
    edges = g.edges(keys=True, data=True) if g.is_multigraph() else ((a, b, None, d) for a, b, d in g.edges(data=True))
    for i, (a, b, key, attrs) in enumerate(edges):
        a, b = ids[str(a)], ids[str(b)]
        lid = str(attrs.get("id") or f"e{i}")
        if not _IDENT.match(lid):
            lid = f"e{i}"
        d = attrs.get("delay_ms")
        if d is None:
            if a in topo.coords and b in topo.coords:
                d = fiber_delay_ms(great_circle_km(*topo.coords[a], *topo.coords[b]))
            else:
                d = DEFAULT_DELAY_MS
                missing_coords += 1
        p = attrs.get("loss", 0.0)
        c = attrs.get("bandwidth_mbps")
        if c is None:
            c = _graphml_capacity(source, lid, f"{a}>{b}", attrs)
            if c is None:
                c = DEFAULT_CAPACITY_MBPS
                defaults_cap += 1
        for fld, val in (("delay_ms", d), ("loss", p), ("bandwidth_mbps", c)):
            if _float(val) is None:
                raise LinkInvalid(lid, fld, val, f"not a finite number ({a}>{b})")
        c = float(c)
        if c <= 0:
            raise LinkInvalid(lid, "bandwidth_mbps", c, f"capacity must be > 0 Mbit/s ({a}>{b})")
        topo.links.append((lid, a, b, float(d), float(p), c))
    if missing_coords:
        topo.notes.append(
            f"{missing_coords} edge(s) touch a node without coordinates: delay set to {DEFAULT_DELAY_MS} ms"
        )
    if defaults_cap:
        topo.notes.append(f"{defaults_cap} edge(s) without capacity: {DEFAULT_CAPACITY_MBPS:g} Mbit/s assumed")
    # validate now so errors name the link
    topo.network()
    return topo


def _refuse_unsafe_xml(raw: bytes, source: str) -> None:
    """Parse ``raw`` with defusedxml, refusing any DTD (hence every entity declaration and
    external reference): GraphML needs none, and the document networkx then reads with the
    standard library's parser can expand nothing.

    Raises
    ------
    ImportFailed
        If the XML declares a DTD or entities, references an external resource, or is
        not well-formed.
    """
    from xml.etree.ElementTree import ParseError

    import defusedxml
    import defusedxml.ElementTree as safe_et

    try:
        safe_et.fromstring(raw, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except defusedxml.DefusedXmlException as exc:
        raise ImportFailed(
            source, f"XML with a DTD, entities or external references is refused ({type(exc).__name__})"
        ) from None
    except ParseError as exc:
        raise ImportFailed(source, f"not readable GraphML ({exc})") from None


def _node_ids(raw: list[str]) -> dict[str, str]:
    """Scenario-valid node ids for the file's ids (unchanged when already valid)."""
    maker = _Ids("n")
    return {r: maker.make(r) for r in raw}


def _note_renames(topo: "Topology", ids: dict[str, str]) -> None:
    renamed = [(r, i) for r, i in ids.items() if r != i]
    if renamed:
        topo.notes.append(
            f"{len(renamed)} node id(s) rewritten to identifiers (e.g. {renamed[0][0]!r} → {renamed[0][1]!r}); "
            "the original id is the label when the file gives none"
        )


# --------------------------------------------------------------------------- SNDlib native

_TOKEN = re.compile(r"\(|\)|[^\s()]+")


def read_sndlib(text: str, source: str = "sndlib") -> Topology:
    """Parse an SNDlib native network file (see the module conventions).

    Parameters
    ----------
    text : str
        File content (header ``?SNDlib native format; type: network``).
    source : str
        File name, for messages.

    Returns
    -------
    Topology
        Links as given (two arcs each), demands from DEMANDS.

    Raises
    ------
    ImportFailed
        On a malformed section, naming the line; on a node's coordinates that are not finite
        degrees in range (longitude [-180, 180], latitude [-90, 90]), naming the line, node and value.
    """
    if not text.lstrip().startswith("?SNDlib native format"):
        raise ImportFailed(source, "not an SNDlib native file (missing '?SNDlib native format' header)")
    name_m = re.search(r"^#\s*network\s+(\S+)", text, re.M)
    topo = Topology(
        name=name_m.group(1) if name_m else Path(source).stem,
        source=source,
        format="sndlib",
        nodes=[],
        licence="SNDlib data (ZIB academic licence, non-commercial); cite Orlowski et al., Networks 55(3), 2010.",
    )
    sections = _sndlib_sections(text, source)
    if "NODES" not in sections or "LINKS" not in sections:
        raise ImportFailed(source, "SNDlib file needs NODES and LINKS sections")
    raw_nodes = [(lineno, _TOKEN.findall(line)) for lineno, line in sections["NODES"]]
    raw_nodes = [(lineno, tok) for lineno, tok in raw_nodes if tok]
    ids = _node_ids([tok[0] for _, tok in raw_nodes])
    _note_renames(topo, ids)
    for lineno, tok in raw_nodes:
        nid = ids[tok[0]]
        topo.nodes.append(nid)
        if nid != tok[0]:
            topo.labels[nid] = tok[0]
        if len(tok) >= 5 and tok[1] == "(":
            lon, lat = _coordinate(tok[2], -180.0, 180.0), _coordinate(tok[3], -90.0, 90.0)
            if lon is None or lat is None:
                bad, value, rng = ("longitude", tok[2], "[-180, 180]") if lon is None else ("latitude", tok[3], "[-90, 90]")
                raise ImportFailed(source, f"line {lineno}: node {nid!r}: {bad} = {value!r} is not a finite number "
                                           f"of degrees in {rng}")
            topo.coords[nid] = (lat, lon)
    zero: list[str] = []
    for lineno, line in sections["LINKS"]:
        tok = _TOKEN.findall(line)
        if not tok:
            continue
        try:
            lid = tok[0]
            assert tok[1] == "(" and tok[4] == ")"
            a, b = tok[2], tok[3]
            pre = float(tok[5])
            mods = tok[tok.index("(", 5) + 1 : len(tok) - 1] if "(" in tok[5:] else []
            module_caps = [float(mods[i]) for i in range(0, len(mods) - 1, 2)]
        except (IndexError, ValueError, AssertionError):
            raise ImportFailed(source, f"line {lineno}: malformed link {line.strip()!r}") from None
        for end in (a, b):
            if end not in ids:
                raise ImportFailed(source, f"line {lineno}: link {lid!r} refers to unknown node {end!r}")
        a, b = ids[a], ids[b]
        cap = pre if pre > 0 else (module_caps[0] if module_caps else 0.0)
        if cap <= 0:
            zero.append(lid)
        d = DEFAULT_DELAY_MS
        if a in topo.coords and b in topo.coords:
            d = fiber_delay_ms(great_circle_km(*topo.coords[a], *topo.coords[b]))
        topo.links.append((lid, a, b, d, 0.0, cap))
    if zero:
        topo.notes.append(f"link(s) with no capacity (no pre-installed capacity, no module): {', '.join(zero)}")
    for lineno, line in sections.get("DEMANDS", []):
        tok = _TOKEN.findall(line)
        if not tok:
            continue
        try:
            did = tok[0]
            assert tok[1] == "(" and tok[4] == ")"
            a, b, value = tok[2], tok[3], float(tok[6])
        except (IndexError, ValueError, AssertionError):
            raise ImportFailed(source, f"line {lineno}: malformed demand {line.strip()!r}") from None
        for end in (a, b):
            if end not in ids:
                raise ImportFailed(source, f"line {lineno}: demand {did!r} refers to unknown node {end!r}")
        a, b = ids[a], ids[b]
        if value > 0 and a != b:
            topo.demands.append(Demand(a, b, value, id=did))
    topo.network()
    return topo


def _sndlib_sections(text: str, source: str) -> dict[str, list[tuple[int, str]]]:
    out: dict[str, list[tuple[int, str]]] = {}
    current: str | None = None
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line or line.startswith("?"):
            continue
        if current is None:
            m = re.match(r"^([A-Z_]+)\s*\($", line)
            if m:
                current = m.group(1)
                out[current] = []
                continue
            raise ImportFailed(source, f"line {lineno}: expected a section start, got {line!r}")
        if line == ")":
            current = None
            continue
        out[current].append((lineno, line))
    if current is not None:
        raise ImportFailed(source, f"section {current} is not closed")
    return out


# --------------------------------------------------------------------------- detection and conversion


def detect_format(data: bytes | str, source: str = "file") -> Format:
    """``"scenario"`` (JSON), ``"graphml"`` or ``"sndlib"`` (native), from the content.

    Raises
    ------
    ImportFailed
        For SNDlib XML or anything else.
    """
    head = (data[:4096].decode("utf-8", "replace") if isinstance(data, bytes) else data[:4096]).lstrip("\ufeff \t\r\n")
    if head.startswith("{"):
        return "scenario"
    if head.startswith("?SNDlib native format"):
        return "sndlib"
    if "<graphml" in head:
        return "graphml"
    if "sndlib.zib.de" in head:
        raise ImportFailed(source, "SNDlib XML is not supported; use the native format (.txt)")
    raise ImportFailed(source, "unknown format: expected scenario JSON, GraphML or SNDlib native")


def read_topology(data: bytes | str, source: str = "file") -> Topology | Scenario:
    """Parse any supported file: a :class:`Scenario` for JSON, else a :class:`Topology`.

    Raises
    ------
    ImportFailed, ScenarioInvalid, LinkInvalid
        For unreadable or invalid content.
    """
    fmt = detect_format(data, source)
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    if fmt == "scenario":
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ImportFailed(source, f"not valid JSON ({exc})") from None
        return load_scenario(doc)
    if fmt == "graphml":
        return read_graphml(data, source)
    return read_sndlib(text, source)


def load_network(path: str | Path) -> Network:
    """Read a scenario JSON, GraphML or SNDlib native file into a :class:`Network`.

    Raises
    ------
    ImportFailed
        If the file is missing or of an unknown format.
    ScenarioInvalid, LinkInvalid
        For invalid content.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ImportFailed(str(path), exc.strerror or str(exc)) from None
    topo = read_topology(data, str(path))
    if isinstance(topo, Scenario):
        return Network.from_scenario(topo)
    return topo.network()


class _Ids:
    def __init__(self, prefix: str):
        self.prefix = prefix
        self.used: set[str] = set()

    def make(self, raw: str) -> str:
        cand = raw if _IDENT.match(raw) else re.sub(r"[^A-Za-z0-9_-]", "_", raw)
        if not cand or not cand[0].isalpha():
            cand = self.prefix + cand
        cand = cand[:32]
        base, i = cand, 2
        while cand in self.used:
            suffix = f"-{i}"
            cand = base[: 32 - len(suffix)] + suffix
            i += 1
        self.used.add(cand)
        return cand


#: half-width of the extent given to a network with fewer than two placed nodes, metres
_MIN_EXTENT_M = 10_000.0


def layout_positions(topo: Topology, seed: int = 1) -> tuple[dict[str, dict[str, float]], int]:
    """Positions of every node of ``topo`` and how many were laid out (had no coordinates).

    The local frame used is centred on :func:`subflow.scenario.geodesy.centroid` of the placed nodes, which
    :func:`to_scenario` records as the scenario's ``geo`` origin (so "inside the extent" holds in the
    scenario's own frame).

    Nodes with ``Latitude``/``Longitude`` keep them (``{lat_deg, lon_deg}``). The others are placed by
    networkx's spring layout (Fruchterman–Reingold, seeded) with the placed nodes held fixed at their
    local-frame positions (:mod:`subflow.scenario.geodesy`), then clamped into the placed nodes' extent (the
    bounding box in the local frame, at least ±10 km), so none lands at the origin or off the map.
    Without any coordinates the whole graph is laid out on the plane (``{x_m, y_m}``, 10 km scale).

    References
    ----------
    .. [1] T. M. J. Fruchterman and E. M. Reingold, "Graph drawing by force-directed placement",
       Software: Practice and Experience 21(11), 1991 (``networkx.spring_layout``).
    """
    import networkx as nx
    import numpy as np


    g = nx.Graph()
    g.add_nodes_from(topo.nodes)
    g.add_edges_from((a, b) for _, a, b, *_ in topo.links if a in g and b in g)
    placed = [n for n in topo.nodes if n in topo.coords]
    missing = [n for n in topo.nodes if n not in topo.coords]
    out: dict[str, dict[str, float]] = {}
    if not placed:
        pos = nx.spring_layout(g, seed=seed, scale=_MIN_EXTENT_M) if len(g) > 1 else {n: (0.0, 0.0) for n in g}
        spread = max((abs(v) for xy in pos.values() for v in xy), default=0.0)
        for k, n in enumerate(topo.nodes):
            x, y = pos[n]
            if spread == 0.0:  # a single node: put it on a line rather than all at the origin
                x, y = float(k) * 1000.0, 0.0
            out[n] = {"x_m": round(float(x), 1), "y_m": round(float(y), 1)}
        return out, len(topo.nodes)
    lat0, lon0 = centroid([topo.coords[n][0] for n in placed], [topo.coords[n][1] for n in placed])
    frame = local_frame(lat0, lon0)
    xs, ys = frame.forward(np.array([topo.coords[n][0] for n in placed]), np.array([topo.coords[n][1] for n in placed]))
    xs, ys = np.atleast_1d(xs), np.atleast_1d(ys)
    for n in placed:
        lat, lon = topo.coords[n]
        out[n] = {"lat_deg": float(lat), "lon_deg": float(lon)}
    if not missing:
        return out, 0
    cx, cy = float(np.mean(xs)), float(np.mean(ys))
    half = max(_MIN_EXTENT_M, float(np.max(np.abs(xs - cx))), float(np.max(np.abs(ys - cy))))
    x_lo, x_hi = (float(xs.min()), float(xs.max())) if np.ptp(xs) > 0 else (cx - half, cx + half)
    y_lo, y_hi = (float(ys.min()), float(ys.max())) if np.ptp(ys) > 0 else (cy - half, cy + half)
    # unit square coordinates for the layout (spring_layout's k is relative to a unit box)
    def unit(x: float, y: float) -> tuple[float, float]:
        return (x - cx) / half, (y - cy) / half

    init = {n: unit(float(x), float(y)) for n, x, y in zip(placed, xs, ys)}
    rng = np.random.default_rng(seed)
    for n in missing:
        init[n] = tuple(rng.uniform(-0.5, 0.5, 2))
    pos = nx.spring_layout(g, pos=init, fixed=placed, seed=seed)
    mx, my = [], []
    for n in missing:
        ux, uy = pos[n]
        mx.append(min(x_hi, max(x_lo, cx + float(ux) * half)))
        my.append(min(y_hi, max(y_lo, cy + float(uy) * half)))
    lats, lons = frame.inverse(np.array(mx), np.array(my))
    for n, lat, lon in zip(missing, np.atleast_1d(lats), np.atleast_1d(lons)):
        out[n] = {"lat_deg": round(float(lat), 6), "lon_deg": round(float(lon), 6)}
    return out, len(missing)


def to_scenario(topo: Topology, name: str | None = None) -> ImportResult:
    """Convert a parsed :class:`Topology` to a validated :class:`Scenario`.

    Routers for nodes, one full-duplex link per node pair (parallel links
    merged, see the module conventions), one flow per demand (``rate_mbps`` =
    demand).

    Raises
    ------
    ImportFailed
        If a link has no capacity (a scenario link needs ``bandwidth_mbps > 0``)
        or the result breaks a scenario limit.
    """
    notes = list(topo.notes)
    ids = {n: n for n in topo.nodes}
    positions, laid_out = layout_positions(topo)
    placed = [topo.coords[n] for n in topo.nodes if n in topo.coords]
    geo = None
    if placed:

        lat0, lon0 = centroid([c[0] for c in placed], [c[1] for c in placed])
        geo = {"origin_lat_deg": lat0, "origin_lon_deg": lon0}
    if laid_out:
        notes.append(f"{laid_out} node(s) without coordinates placed by a spring layout inside the extent of "
                     "the others")
    nodes = []
    for n in topo.nodes:
        node: dict[str, Any] = {"id": ids[n], "kind": "router"}
        label = topo.labels.get(n)
        if label:
            node["label"] = label[:80]
        node["position"] = positions[n]
        nodes.append(node)
    link_ids = _Ids("l")
    by_pair: dict[frozenset[str], dict[str, Any]] = {}
    merged = 0
    for lid, a, b, d, p, c in topo.links:
        if c <= 0:
            raise ImportFailed(topo.source, f"link {lid!r} has no capacity; a scenario link needs bandwidth_mbps > 0")
        key = frozenset((a, b))
        if key in by_pair:
            by_pair[key]["bandwidth_mbps"] += c
            merged += 1
            continue
        by_pair[key] = {
            "id": link_ids.make(lid),
            "src": ids[a],
            "dst": ids[b],
            "bandwidth_mbps": c,
            "delay_ms": round(d, 6),
            "loss": p,
        }
    if merged:
        notes.append(f"{merged} parallel link(s) merged into the first link of their node pair (capacities added)")
    flow_ids = _Ids("f")
    flows = [
        {"id": flow_ids.make(dm.id or f"f{i}"), "src": ids[dm.src], "dst": ids[dm.dst], "rate_mbps": dm.demand_mbps}
        for i, dm in enumerate(topo.demands)
    ]
    desc = f"Imported from {Path(topo.source).name} by subflow.io.imports. {topo.licence}".strip()
    if notes:
        desc += " Notes: " + "; ".join(notes) + "."
    doc = {
        "schema_version": 2,
        "name": (name or topo.name or "imported")[:120],
        "description": desc[:4000],
        "nodes": nodes,
        "links": list(by_pair.values()),
        "flows": flows,
    }
    if geo is not None:
        doc["geo"] = geo
    try:
        scenario = load_scenario(doc)
    except ScenarioInvalid as exc:
        raise ImportFailed(topo.source, f"the converted scenario is invalid: {exc}") from None
    return ImportResult(scenario=scenario, notes=notes, format=topo.format)


def import_scenario(data: bytes | str, source: str = "upload", name: str | None = None) -> ImportResult:
    """Convert uploaded GraphML or SNDlib native content (or scenario JSON) to a scenario.

    Parameters
    ----------
    data : bytes or str
        File content.
    source : str
        File name, for messages and the description.
    name : str, optional
        Scenario name (default: the network's name).

    Returns
    -------
    ImportResult

    Raises
    ------
    ImportFailed, LinkInvalid, ScenarioInvalid, UnknownNode
        For unreadable or invalid content; messages name the line or link.
    """
    topo = read_topology(data, source)
    if isinstance(topo, Scenario):
        return ImportResult(scenario=topo, notes=[], format="scenario")
    return to_scenario(topo, name)


__all__ = [
    "DEFAULT_CAPACITY_MBPS",
    "DEFAULT_DELAY_MS",
    "ImportResult",
    "Topology",
    "detect_format",
    "fiber_delay_ms",
    "great_circle_km",
    "import_scenario",
    "load_network",
    "read_graphml",
    "read_sndlib",
    "read_topology",
    "to_scenario",
]
