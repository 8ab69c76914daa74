"""``/api/scenario-checks``: save-time warnings of a scenario document (nothing stored).

The editor posts the document it has just saved and shows the answer as warnings next to the
elements they name (a flow without a path part of the time, a waypoint path longer than the run);
the computation is the domain library's (:func:`subflow.comparison.connectivity.scenario_warnings`).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body
from pydantic import BaseModel

from subflow.comparison.connectivity import ScenarioWarning, scenario_warnings
from subflow.scenario.document import load_scenario
from subflow.service.limits import check_scenario

from subflow_backend.settings import settings

router = APIRouter(prefix="/scenario-checks", tags=["scenarios"])


class ScenarioChecksPublic(BaseModel):
    """Answer of ``POST /api/scenario-checks``: the document's warnings (empty when none)."""

    warnings: list[ScenarioWarning]


@router.post(
    "",
    response_model=ScenarioChecksPublic,
    responses={422: {"description": "Invalid scenario, or one over a MAX_* limit; `detail[].loc` is "
                                    "`['body', ...path]`, as for scenarios."}},
)
def check_document(document: dict[str, Any] = Body(description="A scenario document.")) -> ScenarioChecksPublic:
    """Warnings of a scenario document: flows unreachable at some time, waypoint paths longer than the run.

    The document is validated as ``POST /api/scenarios`` validates it (422 naming each field).
    Each warning has ``code``, ``loc`` (document path, 0-based), ``message`` and the affected span
    ``t_start_s``/``t_end_s`` in seconds.
    """
    scenario = load_scenario(document)  # ScenarioInvalid → 422 at the API edge
    check_scenario(scenario, settings.limits)  # LimitExceeded → 422 naming the MAX_* setting
    return ScenarioChecksPublic(warnings=scenario_warnings(scenario))
