"""Agent settings from the environment (pydantic-settings)."""

from __future__ import annotations

from pydantic import model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PLACEHOLDER_TOKEN = "local-dev-token"


class AgentSettings(BaseSettings):
    """``AGENT_TOKEN`` authenticates callers; ``AGENT_MAX_PARALLEL_RUNS`` bounds
    concurrent runs; ``AGENT_KEEP_RUNS`` bounds the finished runs kept in memory;
    ``AGENT_RUN_TIME_BUDGET_S`` stops a run that takes longer (wall clock)."""

    model_config = SettingsConfigDict(env_prefix="", extra="ignore")

    subflow_env: str = "local"
    agent_token: str = PLACEHOLDER_TOKEN
    agent_max_parallel_runs: int = 2
    agent_keep_runs: int = 200
    #: wall-clock seconds one run may take before the agent stops it (status ``failed``)
    agent_run_time_budget_s: float = 600.0

    @model_validator(mode="after")
    def _no_placeholder_in_production(self) -> "AgentSettings":
        if self.subflow_env == "production" and self.agent_token == PLACEHOLDER_TOKEN:
            raise ValueError("AGENT_TOKEN must be set to a secret when SUBFLOW_ENV=production")
        return self
