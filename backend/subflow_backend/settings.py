"""Backend and worker settings, read from the environment (pydantic-settings).

See the settings table in DEVELOPERS.md. The embedded defaults (SQLite file and
filesystem broker under ``SUBFLOW_DATA_DIR``) need no PostgreSQL or Redis; with
``DATABASE_URL=postgresql+psycopg://...`` and ``CELERY_BROKER_URL=redis://...``
the same code runs on those. With ``SUBFLOW_ENV=production`` placeholder
secrets are refused at start-up (the rule is :mod:`subflow.service.secrets`, shared with the
agent, which refuses them in every mode). The bounds on what a request may ask for
(``MAX_*``) live here too and reach the domain library as a
:class:`subflow.service.limits.Limits` value (:attr:`Settings.limits`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from subflow.service.limits import Limits
from subflow.service.secrets import check_secret

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

    model_config = SettingsConfigDict(env_file=None, extra="ignore", case_sensitive=False, hide_input_in_errors=True)

    SUBFLOW_ENV: Literal["local", "test", "production"] = "local"
    SUBFLOW_DATA_DIR: Path = Path("./.subflow")
    #: SQLAlchemy URL; empty means ``sqlite:///$SUBFLOW_DATA_DIR/subflow.db``.
    DATABASE_URL: str = ""
    #: Celery broker; empty means ``filesystem://`` (folders under ``$SUBFLOW_DATA_DIR/broker``).
    CELERY_BROKER_URL: str = "filesystem://"
    #: Celery result backend (background planning jobs keep their state there); empty: the Redis broker itself, or
    #: ``db+`` + ``DATABASE_URL`` (Celery's SQLAlchemy backend) with the filesystem broker.
    CELERY_RESULT_BACKEND: str = ""
    AGENT_URL: str = "http://127.0.0.1:8001"
    #: shared with the agent; ``scripts/serve.sh`` generates one per data directory
    AGENT_TOKEN: str = ""

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
    #: Always set the session cookie's ``Secure`` flag (the compose file does); without it the flag is
    #: set when the request came over HTTPS (``X-Forwarded-Proto`` trusted from ``FORWARDED_ALLOW_IPS``).
    SESSION_COOKIE_SECURE: bool = False
    #: Sign-in rate limit: at most this many failed attempts per username, and
    #: ``LOGIN_MAX_FAILURES_PER_ADDRESS`` per client address across usernames, within
    #: ``LOGIN_WINDOW_S`` seconds; then 429 until the window has passed.
    LOGIN_MAX_FAILURES: int = Field(default=5, ge=1)
    LOGIN_MAX_FAILURES_PER_ADDRESS: int = Field(default=50, ge=1)
    LOGIN_WINDOW_S: int = Field(default=300, gt=0)
    #: Bounds of one request (413/422 naming the variable): bytes of a request body, bytes of an
    #: uploaded file (``POST /api/imports``), and the :class:`subflow.service.limits.Limits` of a scenario.
    MAX_BODY_BYTES: int = Field(default=5 * 1024 * 1024, ge=1024)
    MAX_UPLOAD_BYTES: int = Field(default=20 * 1024 * 1024, ge=1024)
    MAX_NODES: int = Field(default=Limits.max_nodes, ge=1, le=10_000)
    MAX_LINKS: int = Field(default=Limits.max_links, ge=0, le=50_000)
    MAX_FLOWS: int = Field(default=Limits.max_flows, ge=0, le=10_000)
    MAX_LINK_EVENTS: int = Field(default=Limits.max_link_events, ge=0, le=10_000)
    MAX_SAMPLES: int = Field(default=Limits.max_samples, ge=1, le=200_000)
    MAX_TIMELINE_LEGS: int = Field(default=Limits.max_timeline_legs, ge=1)
    MAX_SWEEP_UNITS: int = Field(default=Limits.max_sweep_units, ge=1)
    #: Paths one routes request may ask for: node pairs (every ordered pair if ``pairs`` is null) × ``k``;
    #: beyond it 422 before anything is computed (memory grows with it: ~1.3 GB for 10^6).
    MAX_ROUTE_PATHS: int = Field(default=1_200_000, ge=1)
    #: Single failures one failure analysis evaluates (links + nodes); each is a re-plan (routes + FDM).
    MAX_FAILURE_CASES: int = Field(default=500, ge=1)

    #: Bearer token of ``GET /metrics`` (Prometheus); empty: ``/metrics`` answers 404.
    METRICS_TOKEN: str = ""
    #: bytes of an imported track file (``POST /api/scenarios/{id}/nodes/{node}/track``, 413 above)
    MAX_TRACK_BYTES: int = Field(default=Limits.max_track_bytes, ge=1024)
    #: bytes of one stored packet capture (worker: a larger file from the agent is not stored, the result
    #: document keeps its description); the linux engine's own cap has the same name and default
    MAX_CAPTURE_BYTES: int = Field(default=8 * 1024 * 1024, ge=1024)
    #: SATCOM geometry samples of a scenario: (satellites + SATCOM links) × times (subflow.space.satcom)
    MAX_SATCOM_SAMPLES: int = Field(default=Limits.max_satcom_samples, ge=1)

    AGENT_HTTP_TIMEOUT_S: float = Field(default=10.0, gt=0)
    AGENT_POLL_INTERVAL_S: float = Field(default=0.25, gt=0)
    AGENT_RUN_DEADLINE_S: float = Field(default=900.0, gt=0)
    #: strategies of one comparison run side by side on an engine that is not real time (the agent's
    #: ``GET /capabilities`` says ``supports.real_time`` false: ``fluid``); 1 runs them one after another.
    #: The agent's own ``AGENT_MAX_PARALLEL_RUNS`` still bounds the runs of all comparisons together.
    PARALLEL_STRATEGIES: int = Field(default=2, ge=1, le=16)
    #: 5 retries at 1, 2, 4, 8, 16 s: 31 s in all, long enough for a supervisor (serve.sh, Docker)
    #: to start a killed agent again on a loaded machine (its start took over 7 s at load 8 on 2 cores)
    TASK_MAX_RETRIES: int = Field(default=5, ge=0)
    TASK_RETRY_BACKOFF_S: float = Field(default=1.0, ge=0)
    TASK_SOFT_TIME_LIMIT_S: float = Field(default=1800.0, gt=0)
    TASK_TIME_LIMIT_S: float = Field(default=1860.0, gt=0)

    #: Dead processes (see :mod:`subflow_backend.reaper`): every worker process renews the
    #: heartbeat of what it runs every ``HEARTBEAT_INTERVAL_S``; a run whose heartbeat is older
    #: than ``STALE_AFTER_S`` is restarted (a queued one, or a sweep waiting for its units, only
    #: once the broker holds no waiting message, or after ``STALE_QUEUED_S``); after
    #: ``REAPER_MAX_RESTARTS`` restarts it fails with the reason. The reaper runs every
    #: ``REAPER_INTERVAL_S`` in each worker.
    HEARTBEAT_INTERVAL_S: float = Field(default=2.0, gt=0)
    STALE_AFTER_S: float = Field(default=20.0, gt=0)
    STALE_QUEUED_S: float = Field(default=900.0, gt=0)
    REAPER_INTERVAL_S: float = Field(default=5.0, gt=0)
    REAPER_MAX_RESTARTS: int = Field(default=3, ge=0)
    #: Units of one sweep in the queue at a time; the next is handed out as one finishes, so a
    #: cancel stops a sweep at once and a long sweep does not hold back later comparisons.
    SWEEP_WINDOW: int = Field(default=4, ge=1)
    #: Sweep points whose first repetition keeps its whole result document (the per-flow timelines the
    #: results page shows for a chosen point): all points up to this many, else this many spread evenly
    #: (:func:`subflow.comparison.sweeps.representative_points`); each document is bounded by ``MAX_SAMPLES``.
    SWEEP_POINT_DOCUMENTS: int = Field(default=16, ge=1, le=256)
    #: Comparisons queued or running at once (all users) beyond which a new one gets 429 with
    #: ``Retry-After: QUEUE_RETRY_AFTER_S``.
    QUEUE_MAX_UNFINISHED: int = Field(default=500, ge=1)
    QUEUE_RETRY_AFTER_S: int = Field(default=5, ge=1)
    #: Filesystem broker: seconds between two looks at the queue folder when it is empty.
    BROKER_POLL_INTERVAL_S: float = Field(default=0.02, gt=0)
    #: Database connection pool of each process (PostgreSQL): size, overflow, wait for a free
    #: connection (seconds) before the request fails with 503.
    DB_POOL_SIZE: int = Field(default=20, ge=1)
    DB_MAX_OVERFLOW: int = Field(default=20, ge=0)
    DB_POOL_TIMEOUT_S: float = Field(default=10.0, gt=0)
    #: API requests inside the app at once (progress streams not counted; the rest wait their turn, see
    #: :mod:`subflow_backend.admission`): at most the thread pool's 40 threads and the database pool's
    #: ``DB_POOL_SIZE + DB_MAX_OVERFLOW`` connections. A request that waits ``ADMISSION_WAIT_S``
    #: seconds for a slot gets 503 with ``Retry-After``.
    MAX_CONCURRENT_REQUESTS: int = Field(default=16, ge=1, le=40)
    ADMISSION_WAIT_S: float = Field(default=10.0, gt=0)
    #: Per-caller quotas on top of that global queue (:mod:`subflow_backend.quotas`; a caller is one token or
    #: browser session; 0 turns a quota off). Beyond one: 429 at once, ``Retry-After``, the setting named.
    #: API requests of one caller in progress at once (progress streams not counted).
    QUOTA_CONCURRENT: int = Field(default=32, ge=0)
    #: Heavy requests (POST of routes, allocations, failures, capacity searches, coverage, timeline, imports,
    #: track uploads) of one caller in progress at once: each may cost seconds of an API process's CPU.
    QUOTA_HEAVY_CONCURRENT: int = Field(default=4, ge=0)
    #: Progress streams (``GET .../events``) one caller may hold open at once.
    QUOTA_STREAMS: int = Field(default=32, ge=0)
    #: Requests (all / heavy) one caller may start per minute (a window aligned on the minute).
    QUOTA_REQUESTS_PER_MINUTE: int = Field(default=20_000, ge=0)
    QUOTA_HEAVY_PER_MINUTE: int = Field(default=1_200, ge=0)
    #: Background jobs (routes, allocations, failure analyses, capacity searches) one caller may have queued or
    #: running at once; beyond it 429 with ``Retry-After: 5``.
    QUOTA_JOBS: int = Field(default=16, ge=0)
    #: Where the quota counters live: a Redis URL (shared by every API process); empty: the Celery broker when
    #: it is Redis, else the API process's memory (the embedded deployment's single process).
    QUOTA_REDIS_URL: str = ""
    #: Seconds a Redis slot counter outlives its last use (the slots of a killed process come back after it).
    QUOTA_LEASE_S: int = Field(default=900, ge=10)
    #: Cost bound of a routes request computed inside the API: node pairs × ``k`` × network windows (every
    #: window of the run without ``t_s``); above it 422 naming ``background`` — send it to the worker with
    #: ``"background": true``. Measured 0.29 ms of CPU per unit on a 121-node grid (hop metric, 14,520 pairs:
    #: 4.2 s), so 5,000 is ~1.5 s; every example scenario's all-pairs routes (k ≤ 3) stays under it.
    MAX_INLINE_ROUTE_COST: int = Field(default=5_000, ge=1)
    #: Processes of each API process computing the heavy requests answered inline (routes, allocations, failure
    #: analyses, coverage, timelines, imports; :mod:`subflow_backend.compute`), so the API's own threads keep the
    #: interpreter lock; 0: computed in the request's thread.
    INLINE_COMPUTE_PROCESSES: int = Field(default=2, ge=0, le=32)
    #: Niceness added to those processes (``nice(2)``, 0–19): when the cores are short the API process goes first.
    INLINE_COMPUTE_NICE: int = Field(default=10, ge=0, le=19)
    #: Failure cases (links + nodes) a failure analysis may evaluate inside the API (each is a re-plan);
    #: above it 422 naming ``background`` (the worker takes up to ``MAX_FAILURE_CASES``).
    MAX_INLINE_FAILURE_CASES: int = Field(default=100, ge=1)

    @property
    def limits(self) -> Limits:
        """The ``MAX_*`` scenario bounds, as the domain library takes them."""
        return Limits(
            max_nodes=self.MAX_NODES, max_links=self.MAX_LINKS, max_flows=self.MAX_FLOWS,
            max_link_events=self.MAX_LINK_EVENTS, max_samples=self.MAX_SAMPLES,
            max_timeline_legs=self.MAX_TIMELINE_LEGS, max_sweep_units=self.MAX_SWEEP_UNITS,
            max_track_bytes=self.MAX_TRACK_BYTES, max_satcom_samples=self.MAX_SATCOM_SAMPLES,
        )

    @property
    def quota_redis_url(self) -> str:
        """Redis URL of the quota counters, or empty (counted in the process)."""
        if self.QUOTA_REDIS_URL.strip():
            return self.QUOTA_REDIS_URL.strip()
        return self.CELERY_BROKER_URL if self.CELERY_BROKER_URL.startswith(("redis://", "rediss://")) else ""

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
        if self.SUBFLOW_ENV == "production":
            check_secret("AGENT_TOKEN", self.AGENT_TOKEN)
            if self.METRICS_TOKEN:
                check_secret("METRICS_TOKEN", self.METRICS_TOKEN)
        if self.TASK_TIME_LIMIT_S < self.TASK_SOFT_TIME_LIMIT_S:
            raise ValueError("TASK_TIME_LIMIT_S must be at least TASK_SOFT_TIME_LIMIT_S")
        return self


settings = Settings()
