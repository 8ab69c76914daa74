"""Packaging declares what the code imports: every Python package of the repository (``lib``, ``engines``,
``emulator-agent``, ``worker``, ``backend``, ``cli``, ``testbeds``) lists in its ``pyproject.toml`` each
third-party distribution its code imports (checked with deptry), the shipped library imports no test
infrastructure, and each declared version range admits the version pinned in requirements.txt (the one the
tests run with)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[3]

#: folder of each Python package → its import package
PACKAGES = {
    "lib": "subflow",
    "engines": "subflow_engines",
    "emulator-agent": "subflow_agent",
    "worker": "subflow_worker",
    "backend": "subflow_backend",
    "cli": "subflow_cli",
    "testbeds": "subflow_testbeds",
}

#: what the shipped library never imports: the testbeds (tests, benchmarks, ``make validation``), the engines (above it)
NOT_IN_LIB = {"subflow_testbeds", "subflow_engines"}


def _project(folder: str) -> dict:
    return tomllib.loads((ROOT / folder / "pyproject.toml").read_text())["project"]


def _names(requirements: list[str]) -> set[str]:
    return {canonicalize_name(Requirement(r).name) for r in requirements}


def _imported_distributions(path: Path) -> dict[str, int]:
    """Distributions (canonical names) whose top-level modules ``path`` imports, absolute imports only,
    function-local ones included → the first line importing each."""
    tree = ast.parse(path.read_text(), filename=str(path))
    modules: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                modules.setdefault(alias.name.split(".")[0], node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.setdefault(node.module.split(".")[0], node.lineno)
    owners = packages_distributions()
    found: dict[str, int] = {}
    for module, line in modules.items():
        for dist in owners.get(module, [module.replace("_", "-")]):
            found.setdefault(canonicalize_name(dist), line)
    return found


@pytest.mark.parametrize("folder", list(PACKAGES))
def test_every_import_is_declared(folder: str, tmp_path: Path) -> None:
    """deptry over the package: no import of an undeclared distribution (DEP001, DEP003), no declared
    dependency left unused (DEP002, exceptions listed with reasons under ``[tool.deptry]``)."""
    pytest.importorskip("deptry", reason="deptry is in requirements-dev.txt")
    report = tmp_path / "deptry.json"
    done = subprocess.run(
        [sys.executable, "-m", "deptry", ".", "--json-output", str(report)],
        cwd=ROOT / folder,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert report.exists(), f"{folder}: deptry did not run:\n{done.stdout}\n{done.stderr}"
    issues = [
        f"{folder} ({_project(folder)['name']}): {v['error']['code']} {v['error']['message']} "
        f"at {v['location']['file']}:{v['location']['line']}"
        for v in json.loads(report.read_text())
    ]
    assert not issues, "\n".join(issues)


def test_the_library_ships_no_test_infrastructure() -> None:
    """``lib`` (what every service installs) neither declares nor imports the testbeds or the engines."""
    declared = _names(_project("lib")["dependencies"])
    assert not declared & {"subflow-testbeds", "subflow-engines", "httpx"}, declared
    leaks = []
    for path in sorted((ROOT / "lib" / "subflow").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            leaks += [f"{path.relative_to(ROOT)}:{node.lineno} imports {n}" for n in names
                      if n.split(".")[0] in NOT_IN_LIB | {"httpx"}]
    assert not leaks, "\n".join(leaks)


def _pins() -> dict[str, str]:
    pins = {}
    for name in ("requirements.txt", "requirements-dev.txt"):
        for line in (ROOT / name).read_text().splitlines():
            line = line.split("#")[0].strip()
            if line:
                req = Requirement(line)
                (spec,) = req.specifier
                assert spec.operator == "==", f"{name}: {line} is not a pin"
                pins[canonicalize_name(req.name)] = spec.version
    return pins


@pytest.mark.parametrize("folder", list(PACKAGES))
def test_declared_ranges_admit_the_pins(folder: str) -> None:
    """Each version range in the package's ``pyproject.toml`` admits the version requirements.txt pins."""
    pins = _pins()
    project = _project(folder)
    declared = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        declared += extra
    wrong = []
    for line in declared:
        req = Requirement(line)
        pin = pins.get(canonicalize_name(req.name))
        if pin is not None and not req.specifier.contains(pin, prereleases=True):
            wrong.append(f"{folder}: {line} excludes the pinned {req.name}=={pin}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("manifest", ["frontend/package.json", "e2e/package.json"])
def test_npm_manifest_has_no_repeated_key(manifest: str) -> None:
    """No object of the npm manifest repeats a key (JSON keeps the last one silently)."""
    repeated = []

    def check(pairs: list[tuple[str, object]]) -> dict:
        keys = [k for k, _ in pairs]
        repeated.extend(sorted({k for k in keys if keys.count(k) > 1}))
        return dict(pairs)

    json.loads((ROOT / manifest).read_text(), object_pairs_hook=check)
    assert not repeated, f"{manifest} repeats {repeated}"


def test_the_python_lock_holds_every_pin_at_its_version() -> None:
    """constraints.txt (the lock every install uses: scripts/bootstrap.sh, docker/*.Dockerfile) pins each
    distribution once, with ``==`` and no URL, and agrees with every pin of requirements*.txt."""
    locked: dict[str, str] = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if not line:
            continue
        assert "://" not in line and " @ " not in line, f"constraints.txt records a location: {line}"
        req = Requirement(line)
        (spec,) = req.specifier
        assert spec.operator == "==", f"constraints.txt: {line} is not a pin"
        name = canonicalize_name(req.name)
        assert name not in locked, f"constraints.txt pins {name} twice"
        locked[name] = spec.version
    wrong = [f"{name}: requirements pin {v}, constraints.txt {locked.get(name)}"
             for name, v in _pins().items() if locked.get(name) != v]
    assert not wrong, "\n".join(wrong)
    for docker in (ROOT / "docker").glob("*.Dockerfile"):
        text = docker.read_text()
        if "pip install -r requirements.txt" in text:
            assert "-c constraints.txt" in text, f"{docker.name} installs without the lock"


@pytest.mark.parametrize("folder", ["frontend", "e2e"])
def test_the_npm_lock_matches_package_json(folder: str) -> None:
    """Each npm folder commits a package-lock.json whose root dependencies are package.json's (exact pins),
    with every package at a version and an integrity hash, and no registry address (``resolved``)."""
    package = json.loads((ROOT / folder / "package.json").read_text())
    lock = json.loads((ROOT / folder / "package-lock.json").read_text())
    root = lock["packages"][""]
    for kind in ("dependencies", "devDependencies"):
        assert root.get(kind, {}) == package.get(kind, {}), f"{folder}/package-lock.json is stale ({kind})"
    for path, entry in lock["packages"].items():
        if not path:
            continue
        assert "resolved" not in entry, f"{folder}/package-lock.json records where {path} came from"
        if not entry.get("link"):
            assert entry.get("version") and entry.get("integrity"), f"{folder}/package-lock.json: {path}"
