"""ns-2 mobility traces (``setdest`` files, as ns-2's ``setdest`` tool, BonnMotion and CORE write them): import.

The export is :func:`subflow.io.exports.ns2_setdest`; this import reads what it writes (and what
BonnMotion's ``NSFile`` and CORE's ``ns2script`` mobility files hold) back into waypoint mobility.

Grammar read (one statement a line; ``#`` starts a comment)::

    $node_(<i>) set X_ <x>          initial position, metres (likewise Y_, Z_)
    $ns_ at <t> "$node_(<i>) setdest <x> <y> <speed>"   from t (s), move straight towards (x, y) at speed (m/s)

Semantics are ns-2's (``MobileNode::set_destination``, ns-2 manual §16.2.1 "Mobile node movement"):
the node moves in a straight line at ``speed`` until it reaches the destination, then stays there;
a new ``setdest`` given before it arrives starts from where it is at that moment. A speed of 0 stops
the node where it is. ``Z_`` is the altitude (constant: setdest is planar). Statements of ns-2's
``setdest`` tool that tell the God object distances (``$god_ set-dist ...``) or its connectivity
changes are skipped; any other statement is refused, naming the line.

Each node becomes a ``waypoints`` mobility (a corner at every start, arrival and interruption of a
leg; ``static`` without any ``setdest``), positions planar metres. Nodes are ``station`` s named
``n<i>``, except in traces written by Subflow, whose ``# node_(i) = <id> (<kind>)`` comments give back
each node's id and kind. ``run.duration_s`` covers the last corner (at least the scenario default, 100 s).

References
----------
.. [1] K. Fall and K. Varadhan (eds.), "The ns Manual", §16.2.1 (mobile node movement: ``set X_``,
   ``setdest``) and §16.2.2 (``setdest`` movement files), https://www.isi.edu/nsnam/ns/doc/.
.. [2] N. Aschenbruck et al., "BonnMotion — a mobility scenario generation and analysis tool",
   SIMUTools 2010 (``NSFile`` output).
.. [3] coreemu/core, ``daemon/core/location/mobility.py`` (``Ns2ScriptedMobility``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from subflow.errors import ImportFailed, ScenarioInvalid
from subflow.io.imports import ImportResult, _Ids
from subflow.scenario.document import NODE_KINDS, Scenario, load_scenario

#: a number (one way to match each text: no backtracking blow-up on long digit runs)
_NUM = r"([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)"
_SET = re.compile(rf"^\$node_\((\d{{1,9}})\)\s+set\s+([XYZ])_\s+{_NUM}$")
_SETDEST = re.compile(rf'^\$ns_\s+at\s+{_NUM}\s+"\$node_\((\d{{1,9}})\)\s+setdest\s+{_NUM}\s+{_NUM}\s+{_NUM}"$')
_GOD = re.compile(r'^(\$god_\s|\$ns_\s+at\s+\S+\s+"\$god_\s)')
#: ``# node_(i) = <id> (<kind>)``: the comment :func:`subflow.io.exports.ns2_setdest` writes before each node
_NAMED = re.compile(r"^#\s*node_\((\d{1,9})\)\s*=\s*([A-Za-z][A-Za-z0-9_-]{0,31})\s*\(([a-z_]+)\)\s*$")
#: times closer than this (s) are the same instant (traces print 6 decimals)
TIME_EPS_S = 1e-6
#: a longer line is refused (a statement of a trace is well under 200 characters)
MAX_LINE_CHARS = 1000


@dataclass
class _Track:
    x: float | None = None
    y: float | None = None
    z: float = 0.0
    moves: list[tuple[float, float, float, float, int]] = field(default_factory=list)  # t, x, y, speed, line
    name: str | None = None
    kind: str | None = None


def parse_ns2(text: str, source: str = "ns2") -> dict[int, _Track]:
    """Statements of an ns-2 mobility trace, per node number (see the module's grammar).

    Raises
    ------
    ImportFailed
        Naming the line of a statement that is not understood or a number that is not finite.

    References
    ----------
    .. [1] "The ns Manual", §16.2.1 (``set X_``/``Y_``/``Z_`` in metres, ``setdest x y speed`` in metres and m/s).
    """
    tracks: dict[int, _Track] = {}
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if len(line) > MAX_LINE_CHARS:
            raise ImportFailed(source, f"line {lineno}: longer than {MAX_LINE_CHARS} characters: not an ns-2 "
                                       "mobility statement")
        named = _NAMED.match(line)
        if named:
            tr = tracks.setdefault(int(named.group(1)), _Track())
            tr.name, tr.kind = named.group(2), named.group(3)
            continue
        if not line or line.startswith("#") or _GOD.match(line):
            continue
        m = _SET.match(line)
        if m:
            value = _finite(m.group(3), lineno, source)
            setattr(tracks.setdefault(int(m.group(1)), _Track()), m.group(2).lower(), value)
            continue
        m = _SETDEST.match(line)
        if m:
            t, x, y, speed = (_finite(m.group(k), lineno, source) for k in (1, 3, 4, 5))
            if t < 0 or speed < 0:
                raise ImportFailed(source, f"line {lineno}: negative {'time' if t < 0 else 'speed'} in {line[:80]!r}")
            tracks.setdefault(int(m.group(2)), _Track()).moves.append((t, x, y, speed, lineno))
            continue
        raise ImportFailed(source, f"line {lineno}: not an ns-2 mobility statement ($node_(i) set X_|Y_|Z_ v, "
                                   f"$ns_ at t \"$node_(i) setdest x y speed\"): {line[:80]!r}")
    if not tracks:
        raise ImportFailed(source, "no $node_(i) statement: not an ns-2 mobility trace")
    return tracks


def _finite(raw: str, lineno: int, source: str) -> float:
    v = float(raw)
    if not math.isfinite(v):
        raise ImportFailed(source, f"line {lineno}: {raw!r} is not a finite number")
    return v


def corners(track: _Track, i: int, source: str) -> list[tuple[float, float, float]]:
    """The (t_s, x_m, y_m) corners of a node's path under ns-2's ``setdest`` semantics.

    The first corner is the initial position at t = 0; a leg interrupted by the next ``setdest``
    ends where the node is at that moment.

    Raises
    ------
    ImportFailed
        When the node has moves but no initial ``X_``/``Y_``, naming the node.

    References
    ----------
    .. [1] ns-2, ``mobilenode.cc``: ``MobileNode::set_destination`` (a new destination starts from the current
       position, ``update_position`` interpolates), "The ns Manual" §16.2.1.
    """
    if track.x is None or track.y is None:
        if track.moves:
            raise ImportFailed(source, f"line {track.moves[0][4]}: $node_({i}) moves but has no initial "
                                       "'set X_' and 'set Y_'")
        raise ImportFailed(source, f"$node_({i}): no initial 'set X_' and 'set Y_'")
    pts: list[tuple[float, float, float]] = [(0.0, track.x, track.y)]
    for t, x, y, speed, _line in sorted(track.moves, key=lambda m: m[0]):
        # where the node is at t: on its last leg (pts[-2] -> pts[-1]) or at pts[-1]
        t_last, x_last, y_last = pts[-1]
        if t < t_last - TIME_EPS_S and len(pts) >= 2:
            t0, x0, y0 = pts[-2]
            f = (t - t0) / (t_last - t0) if t_last > t0 else 1.0
            here = (t, x0 + f * (x_last - x0), y0 + f * (y_last - y0))
            pts[-1] = here
        elif abs(t - t_last) <= TIME_EPS_S:
            here = pts[-1]
        else:
            here = (t, x_last, y_last)
            pts.append(here)
        dist = math.hypot(x - here[1], y - here[2])
        if speed > 0 and dist > 0:
            arrival = here[0] + dist / speed
            if not math.isfinite(arrival):
                raise ImportFailed(source, f"line {_line}: $node_({i}) would arrive after an infinite time")
            pts.append((arrival, x, y))
    return pts


def read_ns2_mobility(data: bytes | str, source: str = "ns2", name: str | None = None) -> ImportResult:
    """Convert an ns-2 ``setdest`` mobility trace into a scenario of moving nodes (no links).

    Parameters
    ----------
    data : bytes or str
        The trace (UTF-8).
    source : str
        File name, for messages and the description.
    name : str, optional
        Scenario name; default: ``source``'s stem.

    Returns
    -------
    ImportResult
        Nodes with ``waypoints`` mobility (``t_s`` seconds, ``x_m``/``y_m``/``alt_m`` metres) or ``static``.

    Raises
    ------
    ImportFailed
        Naming the line of a statement it does not understand, or the node without an initial position.

    References
    ----------
    .. [1] "The ns Manual", §16.2.1 (mobile node movement, ``setdest``).
    """
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    tracks = parse_ns2(text, source)
    ids = _Ids("n")
    nodes: list[dict[str, Any]] = []
    last_t = 0.0
    notes: list[str] = []
    for i in sorted(tracks):
        tr = tracks[i]
        pts = corners(tr, i, source)
        kind = tr.kind if tr.kind in NODE_KINDS and tr.kind not in ("access_point", "satellite") else "station"
        if tr.kind is not None and kind != tr.kind:
            notes.append(f"node_({i}) ({tr.kind}) imported as a station: the trace holds no {tr.kind}'s settings")
        node: dict[str, Any] = {"id": ids.make(tr.name or f"n{i}"), "kind": kind,
                                "position": {"x_m": tr.x, "y_m": tr.y, "alt_m": tr.z}}
        if len(pts) > 1:
            node["mobility"] = {"model": "waypoints", "points": [
                {"t_s": round(t, 6), "x_m": x, "y_m": y, "alt_m": tr.z} for t, x, y in pts]}
            last_t = max(last_t, pts[-1][0])
        nodes.append(node)
    duration = max(100.0, math.ceil(last_t))
    doc = {"schema_version": 2, "name": (name or Path(source).stem or "ns2")[:120], "nodes": nodes,
           "run": {"duration_s": duration},
           "description": f"Imported from {Path(source).name} (ns-2 mobility trace) by subflow.io.ns2."[:4000]}
    try:
        scenario = load_scenario(doc)
    except ScenarioInvalid as exc:
        raise ImportFailed(source, f"the converted scenario is invalid: {exc}") from None
    return ImportResult(scenario=scenario, notes=notes, format="ns2")


def apply_ns2_mobility(scenario: Scenario | dict, data: bytes | str, source: str = "ns2") -> Scenario:
    """The scenario with the motion of a trace: node ``i`` of the trace moves the scenario's node of the
    same id (traces written by Subflow) or, without ids, the ``i``-th node in the export's order
    (stations first, then the others in scenario order, as :func:`subflow.io.exports.ns2_setdest`).

    Parameters
    ----------
    scenario : Scenario or dict
        A planar scenario (the trace's positions are metres).
    data : bytes or str
        The trace.
    source : str
        File name, for messages.

    Returns
    -------
    Scenario
        Validated; each traced node gets the trace's initial position and ``waypoints`` (or ``static``).

    Raises
    ------
    ImportFailed
        For an unreadable trace, a geographic scenario, or a trace node the scenario does not have.

    References
    ----------
    .. [1] "The ns Manual", §16.2.1; CORE's ``Ns2ScriptedMobility`` numbers nodes the same way
       (coreemu/core ``daemon/core/location/mobility.py``).
    """
    sc = load_scenario(scenario)
    if sc.is_geo:
        raise ImportFailed(source, "an ns-2 trace is planar (metres): apply it to a planar scenario")
    moved = read_ns2_mobility(data, source)
    order = [n for n in sc.nodes if n.kind == "station"] + [n for n in sc.nodes if n.kind != "station"]
    tracks = parse_ns2(data.decode("utf-8", "replace") if isinstance(data, bytes) else data, source)
    doc = sc.model_dump(mode="json", exclude_none=True)
    index = {n["id"]: n for n in doc["nodes"]}
    for k, i in enumerate(sorted(tracks)):
        target = tracks[i].name or (order[i].id if i < len(order) else None)
        if target not in index:
            raise ImportFailed(source, f"$node_({i}){' = ' + target if target else ''}: no such node in the scenario")
        new = moved.scenario.nodes[k]
        index[target]["position"] = new.position.model_dump(mode="json", exclude_none=True)
        index[target]["mobility"] = new.mobility.model_dump(mode="json", exclude_none=True)
    last = max((p.t_s for n in moved.scenario.nodes if n.mobility.model == "waypoints" for p in n.mobility.points),
               default=0.0)
    doc["run"]["duration_s"] = max(doc["run"]["duration_s"], float(math.ceil(last)))
    try:
        return load_scenario(doc)
    except ScenarioInvalid as exc:
        raise ImportFailed(source, f"the scenario with the trace's motion is invalid: {exc}") from None


__all__ = ["TIME_EPS_S", "apply_ns2_mobility", "corners", "parse_ns2", "read_ns2_mobility"]
