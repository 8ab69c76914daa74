"""``python -m subflow_agent``: serve the agent on ``AGENT_HOST:AGENT_PORT`` (default 127.0.0.1:8001)."""

from __future__ import annotations

import uvicorn

from subflow_agent.settings import AgentSettings


def main() -> None:
    """Run uvicorn with the agent app where the settings say (refuses a placeholder ``AGENT_TOKEN``)."""
    settings = AgentSettings()
    uvicorn.run("subflow_agent.app:app", host=settings.agent_host, port=settings.agent_port)


if __name__ == "__main__":
    main()
