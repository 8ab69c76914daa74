"""Where nodes are over time: trajectories of every mobility model, range-crossing times, satellite orbits (slant range, elevation, visibility, handover).

Public names of the package, by module; ``from subflow.space import X`` and ``from subflow.space.<module> import X``
name the same object.
"""

from subflow.space.mobility import (
    LOITER_RADIAL_ERROR,
    Leg,
    effective_seed,
    trajectory,
    loiter_chords,
    loiter_path,
    position_at,
    position3_at,
    distance_at,
    relative_legs,
    in_range_intervals,
    to_local,
    node_geo_track,
)
from subflow.space.satcom import (
    GEO_ALTITUDE_M,
    SPEED_OF_LIGHT_KM_S,
    SatcomLink,
    SatcomTimeline,
    SatcomUse,
    Use,
    ecef_km,
    look_angles,
    satcom_timeline,
    satellite_ecef_km,
    satcom_uses,
    skyfield_times,
)

__all__ = [
    "LOITER_RADIAL_ERROR",
    "Leg",
    "effective_seed",
    "trajectory",
    "loiter_chords",
    "loiter_path",
    "position_at",
    "position3_at",
    "distance_at",
    "relative_legs",
    "in_range_intervals",
    "to_local",
    "node_geo_track",
    "GEO_ALTITUDE_M",
    "SPEED_OF_LIGHT_KM_S",
    "SatcomLink",
    "SatcomTimeline",
    "SatcomUse",
    "Use",
    "ecef_km",
    "look_angles",
    "satcom_timeline",
    "satellite_ecef_km",
    "satcom_uses",
    "skyfield_times",
]
