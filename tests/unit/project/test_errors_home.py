"""Every exception class of the shipped packages is defined in ``subflow.errors`` (one hierarchy, translated at
the edges), as coreemu/core keeps its errors in ``daemon/core/errors.py``.

Measured on the source with :mod:`ast`: a class whose bases name an exception (``Exception``, ``*Error``,
``*Invalid``...) or any class of ``subflow.errors`` counts as an exception class. An ``HTTPException`` subclass is the edge's own translation (a status code raised
while a request body is read) and stays at the edge.
"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

import subflow.errors

ROOT = Path(__file__).resolve().parents[3]
HOME = ROOT / "lib/subflow/errors.py"
FOLDERS = ("lib/subflow", "engines/subflow_engines", "backend/subflow_backend", "worker/subflow_worker",
           "cli/subflow_cli", "emulator-agent/subflow_agent")

EXCEPTION_NAMES = {n for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)}
DOMAIN_NAMES = {n for n, v in vars(subflow.errors).items() if isinstance(v, type) and issubclass(v, BaseException)}


def _is_exception(node: ast.ClassDef) -> bool:
    for base in node.bases:
        name = ast.unparse(base).rsplit(".", 1)[-1]
        if name == "HTTPException":
            return False
        if name in EXCEPTION_NAMES or name in DOMAIN_NAMES or name.endswith(("Error", "Exception")):
            return True
    return False


def exception_classes_outside_home() -> list[str]:
    out = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path == HOME:
                continue
            for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
                if isinstance(node, ast.ClassDef) and _is_exception(node):
                    out.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    return out


def test_the_measure_sees_exception_classes():
    # the rule itself: a class deriving from a builtin exception or a domain error is seen, a dataclass is not
    tree = ast.parse("class A(ValueError): pass\nclass B(ScenarioInvalid): pass\nclass C(Base): pass\nclass D(HTTPException): pass\n")
    assert [_is_exception(n) for n in tree.body] == [True, True, False, False]
    home = [n.name for n in ast.walk(ast.parse(HOME.read_text())) if isinstance(n, ast.ClassDef) and _is_exception(n)]
    assert "ScenarioInvalid" in home and "VmError" in home


def test_every_exception_class_lives_in_errors_py():
    assert exception_classes_outside_home() == []
