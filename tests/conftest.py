"""Shared fixtures for unit and integration tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


@pytest.fixture
def naval_direct() -> dict:
    """The sd-mptcp Scenario I document (a fresh copy per test)."""
    return json.loads((EXAMPLES / "naval-direct-move.json").read_text())


def load_example(name: str) -> dict:
    return json.loads((EXAMPLES / f"{name}.json").read_text())
