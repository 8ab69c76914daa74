"""Comparisons of strategies: the one code path the CLI, the worker and the tests share, sweeps and repetitions, and the connectivity checks before a run.

Public names of the package, by module; ``from subflow.comparison import X`` and ``from subflow.comparison.<module> import X``
name the same object.
"""

from subflow.comparison.compare import (
    Runner,
    run_strategy,
    compare,
)
from subflow.comparison.connectivity import (
    WarningCode,
    ScenarioWarning,
    check_connectable,
    scenario_warnings,
)
from subflow.comparison.sweeps import (
    FAILED_LINK,
    SweepSpec,
    point_count,
    point_values,
    Unit,
    apply_parameter,
    expand,
    unit_count,
    unit_at,
    representative_points,
    ci95_half_width,
    unit_summary,
    aggregate,
)

__all__ = [
    "Runner",
    "run_strategy",
    "compare",
    "WarningCode",
    "ScenarioWarning",
    "check_connectable",
    "scenario_warnings",
    "FAILED_LINK",
    "SweepSpec",
    "point_count",
    "point_values",
    "Unit",
    "apply_parameter",
    "expand",
    "unit_count",
    "unit_at",
    "representative_points",
    "ci95_half_width",
    "unit_summary",
    "aggregate",
]
