"""The registry of file formats Subflow reads and writes: one home for the CLI and the REST API.

Each :class:`FileFormat` declares its name, the directions it supports (``import``, ``export``), its
file extension and media type; :data:`REGISTRY` holds them in order. :func:`import_file` converts an
uploaded file into a scenario (the format named, or detected from the content by :func:`detect`),
:func:`export_scenario` writes a scenario in a format.

=============  ======  ======  ==========================================================
name           import  export  module
=============  ======  ======  ==========================================================
json           yes     yes     the scenario document (:mod:`subflow.scenario.document`)
graphml        yes     yes     :mod:`subflow.io.imports` / :mod:`subflow.io.containerlab`
sndlib         yes     no      :mod:`subflow.io.imports`
core-xml       yes     yes     :mod:`subflow.io.core_xml`
ns2            yes     yes     :mod:`subflow.io.ns2` / :func:`subflow.io.exports.ns2_setdest`
containerlab   no      yes     :mod:`subflow.io.containerlab` (wired part)
mininet-wifi   no      yes     :mod:`subflow.io.exports`
=============  ======  ======  ==========================================================

References
----------
.. [1] coreemu/core ``daemon/core/xml/corexml.py``; "The ns Manual" §16.2.1; containerlab,
   https://containerlab.dev/manual/topo-def-file/; see each module.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from subflow.errors import ImportFailed
from subflow.io.containerlab import containerlab_topology, graphml_document
from subflow.io.core_xml import read_core_xml, write_core_xml
from subflow.io.exports import ns2_setdest, script_for
from subflow.io.imports import ImportResult, detect_format, import_scenario
from subflow.io.ns2 import read_ns2_mobility
from subflow.scenario.document import Scenario, load_scenario

Direction = Literal["import", "export"]
#: a reader: (content, source file name, scenario name or None) -> ImportResult
Reader = Callable[[bytes, str, "str | None"], ImportResult]
#: a writer: (scenario, transport strategy of a script export) -> text
Writer = Callable[[Scenario, str], str]


class FormatInfo(BaseModel):
    """What a file format is, as ``GET /api/formats`` and ``subflow formats`` list it."""

    name: str = Field(description="The format's name (``format`` of the import and export requests).")
    title: str = Field(description="A human-readable name.")
    directions: list[Direction] = Field(description="``import``, ``export`` or both.")
    extension: str = Field(description="File name extension of an export, with its dot.")
    media_type: str = Field(description="Media type of an export.")
    description: str = Field(description="What is read and written, and what is refused.")


@dataclass(frozen=True)
class FileFormat:
    """A registered format: its :class:`FormatInfo` and its reader and/or writer."""

    info: FormatInfo
    reader: Reader | None = None
    writer: Writer | None = None

    @property
    def name(self) -> str:
        return self.info.name


REGISTRY: dict[str, FileFormat] = {}


def register(name: str, title: str, extension: str, media_type: str, description: str,
             reader: Reader | None = None, writer: Writer | None = None) -> FileFormat:
    """Add a format to :data:`REGISTRY` (its directions follow from the reader and writer given).

    Parameters
    ----------
    name, title : str
        The format's name (the ``format`` of requests) and a human-readable name.
    extension, media_type : str
        File name extension (with its dot) and media type of an export.
    description : str
        What is read and written, and what is refused.
    reader, writer : callable, optional
        ``reader(content bytes, source, name) -> ImportResult``; ``writer(scenario, strategy) -> str``.

    Returns
    -------
    FileFormat
        The registered format.

    References
    ----------
    .. [1] See the module's table: CORE ``corexml.py``, "The ns Manual" §16.2.1, containerlab's topology definition.
    """
    directions: list[Direction] = (["import"] if reader else []) + (["export"] if writer else [])
    fmt = FileFormat(FormatInfo(name=name, title=title, directions=directions, extension=extension,
                                media_type=media_type, description=description), reader, writer)
    REGISTRY[name] = fmt
    return fmt


def all_formats(direction: Direction | None = None) -> list[FormatInfo]:
    """The registered formats (those of one direction if given), in registry order.

    Returns
    -------
    list of FormatInfo
        Name, directions, extension, media type and description of each.

    References
    ----------
    .. [1] See the module's table: CORE ``corexml.py``, "The ns Manual" §16.2.1, containerlab's topology definition.
    """
    return [f.info for f in REGISTRY.values() if direction is None or direction in f.info.directions]


def names(direction: Direction) -> list[str]:
    """Names of the formats of one direction (``"import"`` or ``"export"``), in registry order.

    Returns
    -------
    list of str

    References
    ----------
    .. [1] See the module's table: CORE ``corexml.py``, "The ns Manual" §16.2.1, containerlab's topology definition.
    """
    return [f.name for f in all_formats(direction)]


def get_format(name: str, direction: Direction) -> FileFormat:
    """The format ``name`` if it supports ``direction``.

    Raises
    ------
    ImportFailed
        (``direction`` import) or ValueError (export) for an unknown name, listing the known ones.

    References
    ----------
    .. [1] See the module's table: CORE ``corexml.py``, "The ns Manual" §16.2.1, containerlab's topology definition.
    """
    fmt = REGISTRY.get(name)
    if fmt is None or direction not in fmt.info.directions:
        known = ", ".join(names(direction))
        if direction == "import":
            raise ImportFailed(name, f"unknown import format {name!r}; known: {known}")
        raise ValueError(f"unknown export format {name!r}; known: {known}")
    return fmt


def detect(data: bytes | str, source: str = "file") -> str:
    """The import format of a content: ``core-xml`` (a ``<scenario>`` root), ``ns2`` (``$node_(``
    statements), else what :func:`subflow.io.imports.detect_format` finds (``json``, ``graphml``,
    ``sndlib``).

    Raises
    ------
    ImportFailed
        For content of no known format.

    References
    ----------
    .. [1] See the module's table: CORE ``corexml.py``, "The ns Manual" §16.2.1, containerlab's topology definition.
    """
    head = (data[:4096].decode("utf-8", "replace") if isinstance(data, bytes) else data[:4096]).lstrip("\ufeff \t\r\n")
    body = head.split("?>", 1)[1].lstrip() if head.startswith("<?xml") and "?>" in head else head
    if body.startswith("<scenario"):
        return "core-xml"
    lines = [ln.strip() for ln in head.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    if lines and (lines[0].startswith("$node_(") or lines[0].startswith("$ns_ at")):
        return "ns2"
    found = detect_format(data, source)
    return "json" if found == "scenario" else found


def import_file(data: bytes | str, source: str = "upload", name: str | None = None,
                format: str | None = None) -> ImportResult:
    """Convert a file into a scenario through its format's reader.

    Parameters
    ----------
    data : bytes or str
        The file's content.
    source : str
        File name, for messages and the description.
    name : str, optional
        Scenario name (default: the file's own).
    format : str, optional
        An import format of :data:`REGISTRY`; None: :func:`detect`.

    Returns
    -------
    ImportResult

    Raises
    ------
    ImportFailed, LinkInvalid, ScenarioInvalid
        For an unknown format, unreadable content or what the scenario cannot carry (the message names
        the element, line or link).

    References
    ----------
    .. [1] See the module's table: CORE ``corexml.py``, "The ns Manual" §16.2.1, containerlab's topology definition.
    """
    fmt = get_format(format or detect(data, source), "import")
    raw = data.encode() if isinstance(data, str) else data
    return fmt.reader(raw, source, name)


def export_scenario(scenario: Scenario | dict, format: str, strategy: str = "sptcp") -> str:
    """The scenario in an export format.

    Parameters
    ----------
    scenario : Scenario or dict
        A valid scenario.
    format : str
        An export format of :data:`REGISTRY`.
    strategy : str
        Transport strategy the ``mininet-wifi`` script runs (ignored by the other formats).

    Returns
    -------
    str
        The file's text.

    Raises
    ------
    ValueError
        For an unknown format.
    ExportRefused, FieldNotHonoured, ScenarioInvalid, UnknownStrategy
        For what the format cannot carry (naming the field) or an invalid scenario.

    References
    ----------
    .. [1] See the module's table: CORE ``corexml.py``, "The ns Manual" §16.2.1, containerlab's topology definition.
    """
    fmt = get_format(format, "export")
    return fmt.writer(load_scenario(scenario), strategy)


def _json_reader(data: bytes, source: str, name: str | None) -> ImportResult:
    result = import_scenario(data, source, None)
    if result.format != "scenario":
        raise ImportFailed(source, f"not a scenario JSON document (it reads as {result.format})")
    if name:
        return ImportResult(scenario=load_scenario({**result.scenario.model_dump(mode="json"), "name": name}),
                            notes=result.notes, format="scenario")
    return result


def _topology_reader(expected: str) -> Reader:
    def read(data: bytes, source: str, name: str | None) -> ImportResult:
        found = detect_format(data, source)
        if found != expected:
            raise ImportFailed(source, f"not {expected} (the content reads as {found})")
        return import_scenario(data, source, name)
    return read


def _json_writer(sc: Scenario, strategy: str) -> str:
    return json.dumps(sc.model_dump(mode="json", exclude_none=True), indent=1)


register("json", "Subflow scenario JSON", ".json", "application/json",
         "The scenario document itself (GET /api/scenarios/schema).", _json_reader, _json_writer)
register("graphml", "GraphML", ".graphml", "application/graphml+xml",
         "Import: Topology Zoo or own GraphML (delay_ms, loss, bandwidth_mbps edge attributes; routers). "
         "Export: every node and link through networkx (kind, x_m/y_m or lat_deg/lon_deg, bandwidth_mbps, "
         "delay_ms, loss, jitter_ms, queue_packets).",
         _topology_reader("graphml"), lambda sc, _s: graphml_document(sc))
register("sndlib", "SNDlib native", ".txt", "text/plain",
         "SNDlib native network files: nodes, links (capacity) and demands (flows).", _topology_reader("sndlib"))
register("core-xml", "CORE session XML", ".xml", "application/xml",
         "CORE 8/9 <scenario>: devices, switches, wireless LANs (basic_range: access points), links with "
         "bandwidth/delay/loss/jitter, positions and the geo reference. EMANE and other network types are "
         "refused, naming the element; orbits, link budgets and link events are refused on export.",
         read_core_xml, lambda sc, _s: write_core_xml(sc))
register("ns2", "ns-2 mobility trace", ".ns_movements", "text/plain",
         "setdest traces (ns-2, BonnMotion, CORE): import as waypoint motion of each node; export of every "
         "node's planned trajectory (metres, local frame).",
         read_ns2_mobility, lambda sc, _s: ns2_setdest(sc))
register("containerlab", "containerlab topology", ".clab.yml", "application/yaml",
         "Export of the wired part: linux nodes, links as endpoints, tc netem impairments in each node's exec; "
         "Wi-Fi, orbits, link budgets and link events are left out and listed in the file's comments.",
         writer=lambda sc, _s: containerlab_topology(sc))
register("mininet-wifi", "Mininet-WiFi script", ".py", "text/x-python",
         "A standalone Mininet-WiFi script running the scenario with a strategy.",
         writer=lambda sc, strategy: script_for(sc, strategy))


__all__ = ["Direction", "FileFormat", "FormatInfo", "REGISTRY", "detect", "all_formats", "export_scenario",
           "get_format", "import_file", "names", "register"]
