"""No import circles in Subflow's packages, counting every import a module makes when it runs.

A circle hidden by an import inside a function still ties the modules together: neither can be read,
tested or moved without the other. The graph is built here from the source with :mod:`ast` (not from
the code under test): every ``import``/``from … import`` of a Subflow package anywhere in a module,
function bodies included, except those under ``if TYPE_CHECKING:`` (annotations only, never run).
``from pkg import name`` counts as an import of ``pkg.name`` when that is a module, else of ``pkg``.
A package's ``__init__`` is the package itself. Strongly connected components of more than one module
are the circles (:func:`networkx.strongly_connected_components`).
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[2]
#: the import roots of the repository and the package each holds
PACKAGES = {
    "subflow": ROOT / "lib",
    "subflow_engines": ROOT / "engines",
    "subflow_backend": ROOT / "backend",
    "subflow_worker": ROOT / "worker",
    "subflow_cli": ROOT / "cli",
    "subflow_agent": ROOT / "emulator-agent",
}


def _module_name(path: Path, base: Path) -> str:
    parts = path.relative_to(base).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _runtime_imports(tree: ast.AST):
    """Import nodes of ``tree`` outside ``if TYPE_CHECKING:`` blocks."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and getattr(node.test, "id", getattr(node.test, "attr", None)) == "TYPE_CHECKING":
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def import_graph() -> nx.DiGraph:
    modules: dict[str, Path] = {}
    for pkg, base in PACKAGES.items():
        for path in (base / pkg).rglob("*.py"):
            modules[_module_name(path, base)] = path
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _runtime_imports(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                base = node.module or ""
                if node.level:
                    up = package.split(".")
                    base = ".".join(up[: len(up) - node.level + 1] + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph.add_edge(name, target)
    return graph


@pytest.fixture(scope="module")
def graph() -> nx.DiGraph:
    return import_graph()


def test_the_graph_sees_the_packages(graph):
    # a sanity check on the walk itself: known edges are found, function-local ones included
    assert graph.has_edge("subflow.resolve", "subflow.air_cells")
    assert graph.has_edge("subflow_engines.fluid.scalar", "subflow_engines.fluid.common")
    assert graph.number_of_nodes() > 100


def test_no_import_circles(graph):
    circles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert circles == [], "import circles: " + "; ".join(" ↔ ".join(c) for c in circles)
