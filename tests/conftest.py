"""Shared fixtures for unit and integration tests."""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

import pytest

# The emulator agent refuses to start without a real token (subflow.service.secrets); in-process tests
# of its app get a random one, as scripts/serve.sh gives the service.
os.environ.setdefault("AGENT_TOKEN", secrets.token_urlsafe(32))

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


@pytest.fixture
def naval_direct() -> dict:
    """The sd-mptcp Scenario I document (a fresh copy per test)."""
    return json.loads((EXAMPLES / "naval-direct-move.json").read_text())


def load_example(name: str) -> dict:
    return json.loads((EXAMPLES / f"{name}.json").read_text())
