"""The ``/api`` router: one sub-router per resource."""

from fastapi import APIRouter

from subflow_backend.api.routes import comparisons, scenarios, strategies, utils
from subflow_backend.api.routes import engines, events, exports, imports, planning, timeline

api_router = APIRouter()
api_router.include_router(utils.router)
api_router.include_router(strategies.router)
api_router.include_router(engines.router)
api_router.include_router(scenarios.router)
api_router.include_router(exports.router)
api_router.include_router(imports.router)
api_router.include_router(planning.router)
api_router.include_router(comparisons.router)
api_router.include_router(timeline.router)
api_router.include_router(events.router)
