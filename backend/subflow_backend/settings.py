"""Backend and worker settings, read from the environment (pydantic-settings).

See the settings table in DEVELOPERS.md. The embedded defaults (SQLite file and
filesystem broker under ``SUBFLOW_DATA_DIR``) need no PostgreSQL or Redis; with
``DATABASE_URL=postgresql+psycopg://...`` and ``CELERY_BROKER_URL=redis://...``
the same code runs on those. With ``SUBFLOW_ENV=production`` placeholder
secrets are refused at start-up.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

#: The development token of the emulator agent; never valid in production.
PLACEHOLDER_AGENT_TOKEN = "local-dev-token"
_PLACEHOLDERS = {PLACEHOLDER_AGENT_TOKEN, "changethis", ""}

#: ``<repo>/frontend/dist`` when the backend runs from a source checkout.
_REPO_FRONTEND_DIST = Path(__file__).resolve().parents[2] / "frontend" / "dist"


class Settings(BaseSettings):
    """Environment variables of the backend and the worker (names as in DEVELOPERS.md).

    Attributes not in the DEVELOPERS.md table are tuning knobs with working
    defaults: ``AGENT_*_S`` bound the HTTP calls to the agent (seconds),
    ``TASK_MAX_RETRIES`` / ``TASK_RETRY_BACKOFF_S`` govern retries of a comparison
    while the agent is unreachable (exponential: base × 2^attempt seconds), and
    ``TASK_SOFT_TIME_LIMIT_S`` / ``TASK_TIME_LIMIT_S`` bound one task attempt.
    """

    model_config = SettingsConfigDict(env_file=None, extra="ignore", case_sensitive=False)

    SUBFLOW_ENV: Literal["local", "test", "production"] = "local"
    SUBFLOW_DATA_DIR: Path = Path("./.subflow")
    #: SQLAlchemy URL; empty means ``sqlite:///$SUBFLOW_DATA_DIR/subflow.db``.
    DATABASE_URL: str = ""
    #: Celery broker; empty means ``filesystem://`` (folders under ``$SUBFLOW_DATA_DIR/broker``).
    CELERY_BROKER_URL: str = "filesystem://"
    #: Celery result backend (chords of sweeps need one); empty: the Redis broker itself, or
    #: ``db+`` + ``DATABASE_URL`` (Celery's SQLAlchemy backend) with the filesystem broker.
    CELERY_RESULT_BACKEND: str = ""
    AGENT_URL: str = "http://127.0.0.1:8001"
    AGENT_TOKEN: str = PLACEHOLDER_AGENT_TOKEN

    #: Engines a comparison may name (the agent executes them).
    ENGINES: list[str] = ["fluid"]
    #: Built frontend served at ``/``; default ``<repo>/frontend/dist``.
    FRONTEND_DIST: Path = _REPO_FRONTEND_DIST
    #: Extra origins allowed by CORS (e.g. the Vite dev server); same-origin needs none.
    BACKEND_CORS_ORIGINS: list[str] = []

    #: Engines that run as root on the agent's host; a comparison on one needs the user's
    #: ``can_run_linux`` permission (off by default).
    PRIVILEGED_ENGINES: list[str] = ["linux", "mininet-wifi"]
    #: Lifetime of a browser session (cookie) and of a bearer access token from ``POST /api/auth/login``.
    SESSION_TTL_S: int = Field(default=12 * 3600, gt=0)
    ACCESS_TOKEN_TTL_S: int = Field(default=30 * 60, gt=0)
    #: Set the session cookie's ``Secure`` flag (serve over HTTPS when true).
    SESSION_COOKIE_SECURE: bool = False
    #: Sign-in rate limit: at most this many failures per username and client address
    #: within ``LOGIN_WINDOW_S`` seconds; then 429 until the window has passed.
    LOGIN_MAX_FAILURES: int = Field(default=5, ge=1)
    LOGIN_WINDOW_S: int = Field(default=300, gt=0)

    AGENT_HTTP_TIMEOUT_S: float = Field(default=10.0, gt=0)
    AGENT_POLL_INTERVAL_S: float = Field(default=0.25, gt=0)
    AGENT_RUN_DEADLINE_S: float = Field(default=900.0, gt=0)
    TASK_MAX_RETRIES: int = Field(default=3, ge=0)
    TASK_RETRY_BACKOFF_S: float = Field(default=1.0, ge=0)
    TASK_SOFT_TIME_LIMIT_S: float = Field(default=1800.0, gt=0)
    TASK_TIME_LIMIT_S: float = Field(default=1860.0, gt=0)

    @property
    def broker_dir(self) -> Path:
        """Folder of the filesystem broker (used only with ``filesystem://``)."""
        return (self.SUBFLOW_DATA_DIR / "broker").resolve()

    @model_validator(mode="after")
    def _defaults_and_placeholders(self) -> "Settings":
        if not self.CELERY_BROKER_URL.strip():
            self.CELERY_BROKER_URL = "filesystem://"
        if not self.DATABASE_URL.strip():
            self.DATABASE_URL = f"sqlite:///{(self.SUBFLOW_DATA_DIR / 'subflow.db').resolve()}"
        if not self.CELERY_RESULT_BACKEND.strip():
            if self.CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
                self.CELERY_RESULT_BACKEND = self.CELERY_BROKER_URL
            else:
                self.CELERY_RESULT_BACKEND = "db+" + self.DATABASE_URL
        if self.SUBFLOW_ENV == "production" and self.AGENT_TOKEN.strip() in _PLACEHOLDERS:
            raise ValueError(
                f"AGENT_TOKEN is {self.AGENT_TOKEN!r}, a placeholder; set a secret when SUBFLOW_ENV=production"
            )
        if self.TASK_TIME_LIMIT_S < self.TASK_SOFT_TIME_LIMIT_S:
            raise ValueError("TASK_TIME_LIMIT_S must be at least TASK_SOFT_TIME_LIMIT_S")
        return self


settings = Settings()
