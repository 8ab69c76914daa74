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

ROOT = Path(__file__).resolve().parents[3]
#: the import roots of the repository and the package each holds
PACKAGES = {
    "subflow": ROOT / "lib",
    "subflow_engines": ROOT / "engines",
    "subflow_backend": ROOT / "backend",
    "subflow_worker": ROOT / "worker",
    "subflow_cli": ROOT / "cli",
    "subflow_agent": ROOT / "emulator-agent",
    "subflow_testbeds": ROOT / "testbeds",
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
    assert graph.has_edge("subflow.runplan.resolve", "subflow.runplan.air_cells")
    assert graph.has_edge("subflow_engines.fluid.scalar", "subflow_engines.fluid.common")
    assert graph.number_of_nodes() > 100


def test_no_import_circles(graph):
    circles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert circles == [], "import circles: " + "; ".join(" ↔ ".join(c) for c in circles)


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "subflow" and len(parts) > 1 else None


def test_the_library_imports_only_downward(graph):
    """Each module of ``subflow`` imports from its own subpackage or a layer below it (``subflow.LAYERS``,
    lowest first), never upward: the layers read bottom-up, each without the ones above."""
    layers = ("errors", "compiled", "scenario", "space", "radio", "results", "planning", "runplan",
              "comparison", "analysis", "io", "service")
    rank = {name: i for i, name in enumerate(layers)}
    found = {_layer(m) for m in graph if _layer(m)}
    assert found == set(layers), f"layers in the code but not in the order: {found ^ set(layers)}"
    upward = [f"{a} → {b}" for a, b in graph.edges
              if _layer(a) and _layer(b) and rank[_layer(b)] > rank[_layer(a)]]
    assert upward == [], "upward imports:\n" + "\n".join(sorted(upward))


def test_the_declared_layers_are_the_tested_ones():
    import subflow

    assert subflow.LAYERS == ("errors", "compiled", "scenario", "space", "radio", "results", "planning",
                              "runplan", "comparison", "analysis", "io", "service")


def test_the_library_imports_no_other_package(graph):
    """``subflow`` is the bottom of the repository: it imports none of the engines, services or testbeds."""
    outward = [f"{a} → {b}" for a, b in graph.edges if a.startswith("subflow.") and not b.startswith("subflow.")
               and b != "subflow"]
    assert outward == [], "\n".join(outward)


def test_the_library_imports_its_modules_at_the_top():
    """No module of ``subflow`` imports another one inside a function: with the layers, nothing needs to hide
    an import, and an import at the top is one a reader sees (``TYPE_CHECKING`` blocks are at the top too)."""
    hidden = []
    for path in sorted((ROOT / "lib" / "subflow").rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(fn):
                    module = getattr(node, "module", None) if isinstance(node, ast.ImportFrom) else None
                    names = [a.name for a in node.names] if isinstance(node, ast.Import) else [module or ""]
                    if any(n == "subflow" or n.startswith("subflow.") for n in names):
                        hidden.append(f"{path.relative_to(ROOT)}:{node.lineno} in {fn.name}()")
    assert hidden == [], "\n".join(hidden)
