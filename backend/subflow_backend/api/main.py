"""The ``/api`` router: one sub-router per resource.

Everything but ``/api/health`` and ``/api/auth/login`` needs a signed-in user or an API
token (:func:`subflow_backend.api.deps.get_principal`); routes check project roles themselves.
"""

from fastapi import APIRouter, Depends

from subflow_backend.api.deps import get_principal
from subflow_backend.api.routes import (
    analysis,
    audit,
    auth,
    captures,
    checks,
    comparisons,
    coverage,
    engines,
    events,
    exports,
    imports,
    planning,
    projects,
    scenarios,
    strategies,
    timeline,
    tracks,
    users,
    utils,
    versions,
)

_signed_in = [Depends(get_principal)]

api_router = APIRouter()
api_router.include_router(utils.router)
api_router.include_router(auth.router)
for _router in (users.router, projects.router, audit.router, strategies.router, engines.router, scenarios.router,
                versions.router, exports.router, exports.formats_router, tracks.router, imports.router, planning.router, analysis.router,
                comparisons.router, captures.router, timeline.router, coverage.router, events.router, checks.router):
    api_router.include_router(_router, dependencies=_signed_in)
