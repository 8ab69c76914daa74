"""The run plan an engine executes: its types, the strategies, the path policies, the SDN controller, the air of access points as plan resources, the engines' field declarations, and the resolution of a scenario into a plan.

Public names of the package, by module; ``from subflow.runplan import X`` and ``from subflow.runplan.<module> import X``
name the same object.
"""

from subflow.runplan.air_cells import (
    has_station_queues,
    station_queue_id,
    air_arcs,
    station_queue_resources,
    station_tcp_goodput_mbps,
    dcf_shares_mbps,
    channels_overlap,
    co_channel_windows,
    station_queue_capacity_changes,
)
from subflow.runplan.capabilities import (
    Honours,
    Refuses,
    Describes,
    Declaration,
    schema_fields,
    undeclared,
    check_fields,
    from_description,
    describe,
    PLANNED,
    RADIO_FIELDS,
)
from subflow.runplan.controller import (
    apply_fdm,
)
from subflow.runplan.document import (
    PLAN_VERSION,
    FRAME_OVERHEAD_BYTES,
    goodput_fraction,
    capacity_for_goodput_mbps,
    Resource,
    SubflowPath,
    Segment,
    FlowPlan,
    CapacityChange,
    DelayChange,
    RunPlan,
)
from subflow.runplan.path_policies import (
    route_arcs,
    path_nodes,
    Interval,
    PathPolicy,
    single_path,
    per_interface,
    primary,
    lba_routes,
    lba,
    PATH_POLICIES,
)
from subflow.runplan.resolve import (
    resolve_plan,
)
from subflow.runplan.strategies import (
    Strategy,
    STRATEGIES,
    get_strategy,
)
from subflow.runplan.topology import (
    AdhocLink,
    stop_of,
    link_name,
    NetworkTimeline,
)

__all__ = [
    "has_station_queues",
    "station_queue_id",
    "air_arcs",
    "station_queue_resources",
    "station_tcp_goodput_mbps",
    "dcf_shares_mbps",
    "channels_overlap",
    "co_channel_windows",
    "station_queue_capacity_changes",
    "Honours",
    "Refuses",
    "Describes",
    "Declaration",
    "schema_fields",
    "undeclared",
    "check_fields",
    "from_description",
    "describe",
    "PLANNED",
    "RADIO_FIELDS",
    "apply_fdm",
    "PLAN_VERSION",
    "FRAME_OVERHEAD_BYTES",
    "goodput_fraction",
    "capacity_for_goodput_mbps",
    "Resource",
    "SubflowPath",
    "Segment",
    "FlowPlan",
    "CapacityChange",
    "DelayChange",
    "RunPlan",
    "route_arcs",
    "path_nodes",
    "Interval",
    "PathPolicy",
    "single_path",
    "per_interface",
    "primary",
    "lba_routes",
    "lba",
    "PATH_POLICIES",
    "resolve_plan",
    "Strategy",
    "STRATEGIES",
    "get_strategy",
    "AdhocLink",
    "stop_of",
    "link_name",
    "NetworkTimeline",
]
