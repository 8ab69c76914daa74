"""No Python function over 120 lines outside the numba kernels, so that each can be read at once.

Measured on the source with :mod:`ast` (first line of the ``def`` to its last line, docstring included).
A function decorated with ``njit`` is exempt: the compiled kernels keep their loops together on purpose
(one pass over the arrays per step), and their docstrings carry the equations.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
FOLDERS = ("lib/subflow", "engines/subflow_engines", "backend/subflow_backend", "worker/subflow_worker",
           "cli/subflow_cli", "emulator-agent/subflow_agent", "scripts", "benchmarks")
LIMIT = 120


def _compiled(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any("njit" in ast.unparse(d) for d in node.decorator_list)


def long_functions() -> list[tuple[str, str, int]]:
    out = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(), filename=str(path))
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not _compiled(node):
                    length = node.end_lineno - node.lineno + 1
                    if length > LIMIT:
                        out.append((str(path.relative_to(ROOT)), node.name, length))
    return out


def test_the_measure_sees_functions():
    # the walk itself: a known long compiled kernel is skipped, a known short function is measured
    tree = ast.parse((ROOT / "engines/subflow_engines/fluid/vectorised.py").read_text())
    step = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "_step")
    assert _compiled(step) and step.end_lineno - step.lineno + 1 > LIMIT


def test_no_function_over_120_lines():
    assert long_functions() == []
