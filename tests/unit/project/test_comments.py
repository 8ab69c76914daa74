"""Comments and docstrings state facts a reader can check in the code: none refers to an issue number
(the tracker is not part of the checkout) or to how the code was "before"."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

#: source files checked, by suffix
SUFFIXES = (".py", ".ts", ".tsx", ".css", ".sh", ".toml", ".txt", ".json")
#: files whose text is allowed to tell history: the validation report's prose on how its figures moved
#: (scripts/validation.py writes docs/validation), and generated or third-party data
EXEMPT = {"scripts/validation.py", "frontend/package-lock.json", "e2e/package-lock.json"}
HISTORY = re.compile(r"\b[Ii]ssues? ?#?\d+|\bas before\b|\bthan before\b|\bbefore issue\b")


def test_no_comment_refers_to_an_issue_or_to_before() -> None:
    try:
        tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True,
                                 timeout=60).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    found = []
    for name in tracked:
        if not name.endswith(SUFFIXES) or name in EXEMPT or name.startswith(("docs/", "tests/unit/data/")):
            continue
        path = ROOT / name
        if not path.is_file():
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if HISTORY.search(line):
                found.append(f"{name}:{number}: {line.strip()[:120]}")
    assert not found, "say the fact itself instead:\n" + "\n".join(found)
