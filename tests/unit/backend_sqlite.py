"""Fixtures for in-process backend tests on a temporary SQLite file.

The tables are created with SQLAlchemy (``Base.metadata.create_all``) on a file
under pytest's ``tmp_path``; the API runs in process (FastAPI ``TestClient``)
with its session dependency bound to that file, signed in as an admin of the ``default``
project (with ``can_run_linux``) by a personal API token. The Celery producer is replaced
by :class:`FakeQueue` (a fake at the broker boundary: it records what would be
sent) and the emulator agent's capabilities by a fixed snapshot, so nothing
leaves the process.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest

# settings are read once, at the first import of the backend: keep its default SQLite file and
# filesystem broker out of the working tree
os.environ.setdefault("SUBFLOW_DATA_DIR", tempfile.mkdtemp(prefix="subflow-unit-"))

from sqlalchemy.orm import Session, sessionmaker  # noqa: E402

from subflow_backend import accounts, agent, models  # noqa: E402
from subflow_backend.db import make_engine  # noqa: E402
from subflow_backend.schemas import EnginesPublic  # noqa: E402

#: What the fake agent reports: fluid runs every strategy, linux only two.
CAPABILITIES: dict[str, Any] = {
    "agent_reachable": True,
    "engines": [
        {"name": "fluid", "description": "", "available": True, "strategies": [], "supports": {}},
        {"name": "linux", "description": "", "available": True, "strategies": ["mptcp", "sptcp"], "supports": {}},
        {"name": "mininet-wifi", "description": "", "available": False, "strategies": [], "supports": {}},
    ],
}


class FakeResultBackend:
    """Stands in for Celery's result backend: records ``store_result`` (job id → state, meta)."""

    def __init__(self) -> None:
        self.stored: dict[str, tuple[str, Any]] = {}

    def store_result(self, task_id: str, result: Any, state: str, **_: Any) -> None:
        self.stored[task_id] = (state, result)


class FakeQueue:
    """Stands in for the Celery producer: records ``send_task`` calls, or raises ``error``."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, list[Any]]] = []
        self.error: Exception | None = None
        self.backend = FakeResultBackend()

    def send_task(self, name: str, args: list[Any] | None = None, **_: Any) -> Any:
        if self.error is not None:
            raise self.error
        self.sent.append((name, list(args or [])))

        class _Result:
            id = f"job-{len(self.sent)}"

        return _Result()


@pytest.fixture
def sessions(tmp_path) -> Iterator[sessionmaker[Session]]:
    """A session factory on a fresh SQLite file with every table created."""
    engine = make_engine(f"sqlite:///{tmp_path / 'unit.db'}")
    models.Base.metadata.create_all(engine)
    yield sessionmaker(bind=engine, expire_on_commit=False)
    engine.dispose()


@pytest.fixture
def fake_agent(monkeypatch) -> list[str]:
    """The agent's capabilities are :data:`CAPABILITIES`; returns the list of calls that would
    have gone to the agent (``"capabilities"`` for each fetch)."""
    calls: list[str] = []

    reported = EnginesPublic.model_validate(CAPABILITIES)

    def capabilities(refresh: bool = False) -> EnginesPublic:
        calls.append("capabilities")
        return reported

    monkeypatch.setattr(agent, "capabilities", capabilities)
    monkeypatch.setattr(agent, "snapshot", lambda: reported)
    return calls


@pytest.fixture
def queue() -> FakeQueue:
    return FakeQueue()


@pytest.fixture
def api(sessions, queue, fake_agent, monkeypatch):
    """A ``TestClient`` of the backend app on the SQLite file of ``sessions``."""
    from fastapi.testclient import TestClient

    from subflow_backend.api import deps
    from subflow_backend.api.routes import events
    from subflow_backend.db import get_session
    from subflow_backend.main import app

    def session() -> Iterator[Session]:
        with sessions() as s:
            yield s

    app.dependency_overrides[get_session] = session
    app.dependency_overrides[deps.get_celery] = lambda: queue
    monkeypatch.setattr(events, "SessionLocal", sessions)
    with sessions() as s:
        user = accounts.create_user(s, "unit-admin", "unit-password", is_admin=True, can_run_linux=True)
        project = accounts.default_project(s)
        s.add(models.ProjectMember(project_id=project.id, user_id=user.id, role="owner"))
        s.commit()
        token = accounts.create_api_token(s, user, "unit", "write").secret
    try:
        with TestClient(app, raise_server_exceptions=False, headers={"Authorization": f"Bearer {token}"}) as client:
            yield client
    finally:
        app.dependency_overrides.clear()
