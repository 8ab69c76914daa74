"""Agent settings from the environment (pydantic-settings)."""

from __future__ import annotations

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from subflow.service.secrets import check_secret


class AgentSettings(BaseSettings):
    """``AGENT_TOKEN`` authenticates callers and is required in every mode (a placeholder
    such as ``local-dev-token`` is refused at start-up, see :mod:`subflow.service.secrets`);
    ``AGENT_HOST``/``AGENT_PORT`` are where ``python -m subflow_agent`` listens (loopback by
    default: only the backend and worker on this host need the agent);
    ``AGENT_MAX_PARALLEL_RUNS`` bounds concurrent runs; ``AGENT_KEEP_RUNS`` bounds the
    finished runs kept in memory; ``AGENT_RUN_TIME_BUDGET_S`` stops a run that takes longer
    (wall clock)."""

    model_config = SettingsConfigDict(env_prefix="", extra="ignore", hide_input_in_errors=True)

    subflow_env: str = "local"
    agent_token: str = ""
    agent_host: str = "127.0.0.1"
    agent_port: int = Field(default=8001, ge=1, le=65535)
    agent_max_parallel_runs: int = 2
    agent_keep_runs: int = 200
    #: wall-clock seconds one run may take before the agent stops it (status ``failed``)
    agent_run_time_budget_s: float = 600.0

    @model_validator(mode="after")
    def _no_placeholder_token(self) -> "AgentSettings":
        check_secret("AGENT_TOKEN", self.agent_token)
        return self
