"""Other tools' formats: the registry of import/export formats (:mod:`subflow.io.formats`), topology imports (GraphML,
SNDlib), CORE session XML in and out, ns-2 mobility in and out, containerlab and GraphML exports, Mininet-WiFi
scripts, ship and aircraft tracks (GPX, AIS, NMEA).

Public names of the package, by module; ``from subflow.io import X`` and ``from subflow.io.<module> import X``
name the same object.
"""

from subflow.io.containerlab import DEFAULT_IMAGE, containerlab_topology, graphml_document
from subflow.io.core_xml import read_core_xml, write_core_xml
from subflow.io.exports import (
    RESULT_BEGIN,
    RESULT_END,
    PATH_LOSS_EXPONENT,
    generate_script,
    ns2_setdest,
    script_for,
)
from subflow.io.imports import (
    DEFAULT_CAPACITY_MBPS,
    DEFAULT_DELAY_MS,
    ImportResult,
    Topology,
    detect_format,
    fiber_delay_ms,
    great_circle_km,
    import_scenario,
    load_network,
    read_graphml,
    read_sndlib,
    read_topology,
    to_scenario,
)
from subflow.io.formats import (
    REGISTRY,
    FileFormat,
    FormatInfo,
    all_formats,
    detect,
    export_scenario,
    get_format,
    import_file,
)
from subflow.io.ns2 import apply_ns2_mobility, read_ns2_mobility
from subflow.io.tracks import (
    FORMATS,
    Fix,
    TrackInvalid,
    TrackTooLarge,
    apply_track,
    check_size,
    read_ais_csv,
    read_gpx,
    read_nmea,
    read_track,
    resample,
    track_mobility,
    write_gpx,
)

__all__ = [
    "DEFAULT_IMAGE",
    "containerlab_topology",
    "graphml_document",
    "read_core_xml",
    "write_core_xml",
    "REGISTRY",
    "FileFormat",
    "FormatInfo",
    "all_formats",
    "detect",
    "export_scenario",
    "get_format",
    "import_file",
    "apply_ns2_mobility",
    "read_ns2_mobility",
    "RESULT_BEGIN",
    "RESULT_END",
    "PATH_LOSS_EXPONENT",
    "generate_script",
    "ns2_setdest",
    "script_for",
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
    "FORMATS",
    "Fix",
    "TrackInvalid",
    "TrackTooLarge",
    "apply_track",
    "check_size",
    "read_ais_csv",
    "read_gpx",
    "read_nmea",
    "read_track",
    "resample",
    "track_mobility",
    "write_gpx",
]
