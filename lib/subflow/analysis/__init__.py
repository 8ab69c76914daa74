"""What-if analysis on top of comparisons and planning: capacity targets and single link or node failures.

Public names of the package, by module; ``from subflow.analysis import X`` and ``from subflow.analysis.<module> import X``
name the same object.
"""

from subflow.analysis.capacity import (
    CapacityRequest,
    FlowFigures,
    CapacityStep,
    CapacityResult,
    max_runs,
    check_request,
    evaluate,
    capacity_search,
)
from subflow.analysis.failures import (
    RiskGroup,
    FailureRequest,
    FlowImpact,
    FailureCase,
    FailureReport,
    failure_count,
    analyse_failures,
)
from subflow.analysis.planning import (
    RoutesRequest,
    AllocationRequest,
    RoutesWindow,
    RoutesOverTime,
    AllocationWindow,
    AllocationOverTime,
    routes_document,
    allocation_document,
)

__all__ = [
    "CapacityRequest",
    "FlowFigures",
    "CapacityStep",
    "CapacityResult",
    "max_runs",
    "check_request",
    "evaluate",
    "capacity_search",
    "RiskGroup",
    "FailureRequest",
    "FlowImpact",
    "FailureCase",
    "FailureReport",
    "failure_count",
    "analyse_failures",
    "RoutesRequest",
    "AllocationRequest",
    "RoutesWindow",
    "RoutesOverTime",
    "AllocationWindow",
    "AllocationOverTime",
    "routes_document",
    "allocation_document",
]
