"""Other tools' formats: topology imports (GraphML, SNDlib), Mininet-WiFi and ns-2 exports, ship and aircraft tracks (GPX, AIS, NMEA).

Public names of the package, by module; ``from subflow.io import X`` and ``from subflow.io.<module> import X``
name the same object.
"""

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
