"""``/api/strategies``: the transport strategies a comparison can ask for."""

from __future__ import annotations

from fastapi import APIRouter

from subflow.runplan.strategies import STRATEGIES

from subflow_backend.schemas import StrategyPublic

router = APIRouter(prefix="/strategies", tags=["strategies"])


@router.get("", response_model=list[StrategyPublic])
def list_strategies() -> list[StrategyPublic]:
    """Every registered strategy: ``[{name, family, multipath, routing, paths, coupling,
    handover, description, source}]`` (see :mod:`subflow.runplan.strategies`)."""
    return [StrategyPublic(**s.public()) for s in STRATEGIES.values()]
