"""The developer docs name what exists: every dotted Python name in docs/architecture.md (one starting with
``subflow``, ``subflow_engines``, ``subflow_agent``, ``subflow_backend``, ``subflow_worker``,
``subflow_cli`` or ``subflow_testbeds``) is a module, or a module's top-level name, optionally followed by one attribute of a class
(method, field, constant); every backticked repository path in it exists; DEVELOPERS.md's layout table lists
every top-level folder of the repository.

Names are resolved from the source files (``ast``), not imported: no module is run, no setting needed."""

from __future__ import annotations

import ast
import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
ARCHITECTURE = ROOT / "docs" / "architecture.md"

#: import package → its folder in the repository
PACKAGE_DIRS = {
    "subflow": ROOT / "lib" / "subflow",
    "subflow_engines": ROOT / "engines" / "subflow_engines",
    "subflow_agent": ROOT / "emulator-agent" / "subflow_agent",
    "subflow_backend": ROOT / "backend" / "subflow_backend",
    "subflow_worker": ROOT / "worker" / "subflow_worker",
    "subflow_cli": ROOT / "cli" / "subflow_cli",
    "subflow_testbeds": ROOT / "testbeds" / "subflow_testbeds",
}

#: a dotted name of one of the packages, not part of a path or of a longer dotted name
DOTTED = re.compile(r"(?<![\w/.-])(?:%s)(?:\.\w+)+" % "|".join(sorted(PACKAGE_DIRS, key=len, reverse=True)))


@cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), filename=str(path))


def _bound_names(body: list[ast.stmt]) -> dict[str, ast.AST]:
    """Names bound by a module's or a class's statements → the binding statement (class or function
    definitions, assignments with or without annotation, imports; ``if``/``try`` blocks included)."""
    names: dict[str, ast.AST] = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                for t in ast.walk(target):
                    if isinstance(t, ast.Name):
                        names[t.id] = node
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names[(alias.asname or alias.name).split(".")[0]] = node
        elif isinstance(node, (ast.If, ast.Try)):
            blocks = [node.body, node.orelse] + ([h.body for h in node.handlers] if isinstance(node, ast.Try) else [])
            for block in blocks:
                names.update(_bound_names(block))
    return names


def _module_file(parts: list[str]) -> tuple[Path, int] | None:
    """The source file of the longest module prefix of ``parts`` and how many parts it takes."""
    base = PACKAGE_DIRS.get(parts[0])
    if base is None or not (base / "__init__.py").exists():
        return None
    path, used = base / "__init__.py", 1
    here = base
    for part in parts[1:]:
        if (here / part / "__init__.py").exists():
            here = here / part
            path = here / "__init__.py"
        elif (here / f"{part}.py").exists():
            path = here / f"{part}.py"
            used += 1
            break
        else:
            break
        used += 1
    return path, used


def resolve(dotted: str) -> str | None:
    """None when ``dotted`` names an existing module, module attribute or class attribute; else why not."""
    parts = dotted.split(".")
    found = _module_file(parts)
    if found is None:
        return "no such package"
    path, used = found
    rest = parts[used:]
    if not rest:
        return None
    names = _bound_names(_tree(path).body)
    node = names.get(rest[0])
    if node is None:
        return f"{path.relative_to(ROOT)} defines no {rest[0]!r}"
    if len(rest) == 1:
        return None
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        original = next(a.name for a in node.names if (a.asname or a.name) == rest[0])
        return resolve(".".join([node.module, original, *rest[1:]]))
    if not isinstance(node, ast.ClassDef) or len(rest) > 2:
        return f"{'.'.join(parts[: used + 1])} is not a class whose attribute the doc can name"
    if rest[1] not in _bound_names(node.body):
        return f"class {rest[0]} in {path.relative_to(ROOT)} has no {rest[1]!r}"
    return None


def _dotted_names() -> list[str]:
    return sorted(set(DOTTED.findall(ARCHITECTURE.read_text())))


def _paths() -> list[str]:
    """Backticked words of docs/architecture.md that start with a top-level folder of the repository."""
    tops = {p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith(".")}
    found = set()
    for word in re.findall(r"`([^`\s]+)`", ARCHITECTURE.read_text()):
        head = word.split("/")[0]
        if "/" in word and head in tops:
            found.add(word.split("[")[0])
    return sorted(found)


def test_the_doc_names_python_objects() -> None:
    """The convention is in use: the table and the diagram name at least one object of each package."""
    names = _dotted_names()
    for package in ("subflow", "subflow_engines", "subflow_agent", "subflow_backend", "subflow_worker"):
        assert any(n.split(".")[0] == package for n in names), f"docs/architecture.md names nothing of {package}"


@pytest.mark.parametrize("dotted", _dotted_names())
def test_named_object_exists(dotted: str) -> None:
    """Each dotted name of docs/architecture.md resolves in the source."""
    why = resolve(dotted)
    assert why is None, f"docs/architecture.md names {dotted}: {why}"


@pytest.mark.parametrize("path", _paths())
def test_named_path_exists(path: str) -> None:
    """Each backticked repository path of docs/architecture.md exists (``*`` as a glob)."""
    assert list(ROOT.glob(path.rstrip("/"))), f"docs/architecture.md names {path}, which does not exist"


def test_resolver_refuses_what_does_not_exist() -> None:
    """The check is not vacuous: a missing module, name and class attribute are each reported."""
    assert resolve("subflow.no_such_module") is not None
    assert resolve("subflow.comparison.compare.no_such_function") is not None
    assert resolve("subflow.runplan.document.RunPlan.no_such_field") is not None
    assert resolve("subflow.runplan.document.RunPlan") is None
    assert resolve("subflow_engines.fluid") is None


def _layout_folders() -> set[str]:
    """First path component of each backticked word in the first column of DEVELOPERS.md's layout table."""
    text = (ROOT / "DEVELOPERS.md").read_text()
    section = text.split("## Layout", 1)[1].split("\n## ", 1)[0]
    folders = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            first_cell = line.split("|")[1]
            folders |= {w.split("/")[0] for w in re.findall(r"`([^`]+)`", first_cell)}
    return folders


def test_developers_layout_lists_every_top_level_folder() -> None:
    """Every top-level folder that git tracks has a row in DEVELOPERS.md's layout table, and each row
    names a folder that exists."""
    try:
        tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True,
                                 timeout=60).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    folders = {f.split("/")[0] for f in tracked if "/" in f}
    listed = _layout_folders()
    assert not folders - listed, f"DEVELOPERS.md's layout misses {sorted(folders - listed)}"
    assert not {f for f in listed if not (ROOT / f).is_dir()}, f"DEVELOPERS.md lists missing {listed - folders}"
