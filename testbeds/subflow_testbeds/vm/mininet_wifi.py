"""Mininet-WiFi in the testbed VM: the exported examples run on real Mininet-WiFi, beside ``fluid`` and ``linux``.

Mininet-WiFi, Mininet (2.3.1), wmediumd and mac80211_hwsim_mgmt do not come from a package registry, so the user
points this at their source trees; the VM (the ``mininet-wifi`` flavour of :mod:`.image`: Debian's kernel with
``mac80211_hwsim``, hostapd, wpa_supplicant, Open vSwitch, mptcpize, iperf3, compilers and the Python packages
``mn_wifi`` imports) builds them, starts Open vSwitch and runs each script of
:func:`subflow.io.exports.generate_script` as the ``mininet-wifi`` engine runs one (``python3 script.py``); the
host parses each script's output with the engine's own parser (:func:`subflow_engines.mininet_wifi.output`)
and prints it next to the ``fluid`` and ``linux`` engines' runs of the same plan.

Usage (``make mininet-wifi-testbed`` sets these from MININET_SRC, MININET_WIFI_SRC, WMEDIUMD_SRC, HWSIM_MGMT_SRC)::

    python -m subflow_testbeds.vm.mininet_wifi --mininet ~/src/mininet --mininet-wifi ~/src/mininet-wifi \\
        --wmediumd ~/src/wmediumd --hwsim-mgmt ~/src/mac80211_hwsim_mgmt \\
        [--example naval-direct-move:sptcp ...] [--no-linux]

The wheels ``mn_wifi`` needs beyond Debian's packages (``FlightRadarAPI`` and what it depends on) are downloaded
by pip on the host (``--wheels DIR`` to give them instead).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from subflow_testbeds.vm.image import ensure_image
from subflow_testbeds.vm.qemu import VmError, run_job

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
#: the examples of the comparison in docs/validation: (example, strategy)
EXAMPLES = (("naval-direct-move", "sptcp"), ("naval-direct-move", "mptcp"), ("naval-random-walk", "sptcp"),
            ("uav-backhaul-planning", "sptcp"), ("uav-backhaul-planning", "mptcp"))
#: Python packages ``mn_wifi`` imports that Debian bookworm does not package; ``mn_wifi.net`` imports the module
#: ``FlightRadar24``, which FlightRadarAPI renamed in 1.6.0
WHEELS = ("FlightRadarAPI==1.5.3",)
SOURCES = ("mininet", "mininet-wifi", "wmediumd", "hwsim_mgmt")


@dataclass(frozen=True)
class ScriptRun:
    """One script's run in the VM: its exit code, standard output and error."""

    rc: int
    stdout: str
    stderr: str


def _tar(tree: Path) -> bytes:
    """The source tree as a tar archive (its ``.git`` left out)."""
    if not tree.is_dir():
        raise FileNotFoundError(f"source tree {tree} is not a directory")
    with tempfile.TemporaryFile() as buf:
        with tarfile.open(fileobj=buf, mode="w") as tar:
            tar.add(tree, arcname=".", filter=lambda ti: None if "/.git" in f"/{ti.name}" else ti)
        buf.seek(0)
        return buf.read()


def download_wheels(out: Path) -> Path:
    """``pip download`` :data:`WHEELS` (with their dependencies) for the VM's Python (Debian bookworm's 3.11.2) on
    x86-64 into ``out``.

    Raises
    ------
    subprocess.CalledProcessError
        If pip cannot download them.
    """
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--dest", str(out), "--only-binary=:all:",
                    "--python-version", "3.11.2", "--platform", "manylinux2014_x86_64", "--implementation", "cp",
                    *WHEELS], check=True)
    return out


def run_scripts(sources: dict[str, Path], wheels: Path, scripts: dict[str, str], script_timeout_s: float = 600.0,
                timeout_s: float | None = None) -> dict[str, ScriptRun]:
    """Boot the ``mininet-wifi`` VM, build the sources and run each script.

    Parameters
    ----------
    sources : dict
        :data:`SOURCES` name → source tree.
    wheels : Path
        A folder of wheels for the VM's Python (:func:`download_wheels`).
    scripts : dict
        Name (letters, digits, ``-``, ``_``) → script text (:func:`subflow.io.exports.generate_script`).
    script_timeout_s : float
        Limit of each script's run, s.
    timeout_s : float, optional
        Limit of the whole VM, s (default: 20 minutes for the build plus each script's limit).

    Returns
    -------
    dict
        Name → :class:`ScriptRun`.

    Raises
    ------
    VmError
        If the VM does not boot, a build step fails (the build log's tail in the message) or a script sends
        nothing back.
    FileNotFoundError
        If a source tree is missing.
    """
    missing = [s for s in SOURCES if s not in sources]
    if missing:
        raise FileNotFoundError(f"no source tree for {', '.join(missing)}")
    files = {f"src-{name}.tar": _tar(Path(sources[name])) for name in SOURCES}
    with tempfile.TemporaryFile() as buf:
        with tarfile.open(fileobj=buf, mode="w") as tar:
            for whl in sorted(Path(wheels).glob("*.whl")):
                tar.add(whl, arcname=whl.name)
        buf.seek(0)
        files["wheels.tar"] = buf.read()
    for name, text in scripts.items():
        files[f"script-{name}.py"] = text.encode()
    files["params.sh"] = f"SCRIPT_TIMEOUT_S={int(script_timeout_s)}\n".encode()
    limit = timeout_s if timeout_s is not None else 1200.0 + len(scripts) * (script_timeout_s + 60.0)
    result = run_job(ensure_image("mininet-wifi"), (HERE / "mininet_wifi.sh").read_text(), files, timeout_s=limit,
                     memory_mb=6144)
    if result.rc != 0:
        log = result.files.get("build.log", b"").decode(errors="replace")[-3000:]
        raise VmError(f"the Mininet-WiFi job failed (rc {result.rc}):\n{log}\n"
                      + "\n".join(result.console.splitlines()[-20:]))
    out = {}
    for name in scripts:
        if f"{name}.rc" not in result.files:
            raise VmError(f"script {name} sent nothing back; console:\n" + "\n".join(result.console.splitlines()[-30:]))
        out[name] = ScriptRun(rc=int(result.files[f"{name}.rc"].strip() or b"-1"),
                              stdout=result.files.get(f"{name}.out", b"").decode(errors="replace"),
                              stderr=result.files.get(f"{name}.err", b"").decode(errors="replace"))
    return out


def _figures(output, plan) -> dict[str, dict[str, float]]:
    """Per flow: mean Mbit/s over its window, seconds at zero, and its longest run at zero (the handover gap)."""
    from subflow.results.document import summarize_flow

    windows = {f.id: (f.start_s, f.stop_s) for f in plan.flows}
    out = {}
    for flow in output.flows:
        s = summarize_flow(flow, plan.interval_s, *windows.get(flow.id, (0.0, None)))
        out[flow.id] = {"mean_mbps": s.mean_mbps, "zero_s": s.zero_s, "gap_s": s.longest_zero_s}
    return out


def compare_examples(sources: dict[str, Path], wheels: Path, examples=EXAMPLES, with_linux: bool = True) -> dict:
    """Run ``examples`` ((example, strategy) pairs) on Mininet-WiFi in the VM, on ``fluid`` and (as root, with
    ``with_linux``) on ``linux`` here; per example, strategy, engine and flow :func:`_figures`, or the error."""
    from subflow.io.exports import generate_script
    from subflow.runplan.resolve import resolve_plan
    from subflow_engines import get_engine
    from subflow_engines.mininet_wifi import output as engine_output

    docs = {name: json.loads((REPO / "examples" / f"{name}.json").read_text()) for name, _ in examples}
    plans = {f"{n}-{s}": resolve_plan(docs[n], s, "mininet-wifi") for n, s in examples}
    runs = run_scripts(sources, wheels, {key: generate_script(plan) for key, plan in plans.items()})
    table: dict = {}
    for (name, strategy) in examples:
        key = f"{name}-{strategy}"
        row = table.setdefault(key, {})
        run = runs[key]
        try:
            row["mininet-wifi"] = _figures(engine_output(plans[key], run.stdout, run.rc, run.stderr), plans[key])
        except Exception as exc:  # reported in the table: the comparison goes on with the other engines
            row["mininet-wifi"] = {"error": str(exc)[:400]}
        for engine in ("fluid", *(("linux",) if with_linux else ())):
            plan = resolve_plan(docs[name], strategy, engine)
            try:
                row[engine] = _figures(get_engine(engine).run(plan), plan)
            except Exception as exc:  # e.g. the linux engine refusing a field: reported, not fatal
                row[engine] = {"error": str(exc)[:400]}
    return table


def main(argv: list[str] | None = None) -> int:
    """The ``make mininet-wifi-testbed`` command: build, run, print the table (and ``--json`` it)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for name in SOURCES:
        ap.add_argument(f"--{name.replace('_', '-')}", type=Path, required=True, help=f"{name} source tree")
    ap.add_argument("--wheels", type=Path, help="folder of wheels for the VM (default: pip download them)")
    ap.add_argument("--example", action="append", help="EXAMPLE:STRATEGY (default: the docs/validation set)")
    ap.add_argument("--no-linux", action="store_true", help="skip the linux engine (needs root)")
    ap.add_argument("--json", type=Path, help="also write the table as JSON here")
    args = ap.parse_args(argv)
    sources = {name: getattr(args, name.replace("-", "_")) for name in SOURCES}
    examples = tuple(tuple(e.split(":", 1)) for e in args.example) if args.example else EXAMPLES
    with tempfile.TemporaryDirectory(prefix="subflow-wheels-") as tmp:
        wheels = args.wheels or download_wheels(Path(tmp))
        table = compare_examples(sources, wheels, examples, with_linux=not args.no_linux)
    print(f"{'run':36} {'engine':13} {'flow':5} {'mean Mbit/s':>11} {'zero s':>7} {'gap s':>6}")
    for key, row in table.items():
        for engine, flows in row.items():
            if "error" in flows:
                print(f"{key:36} {engine:13} error: {flows['error']}")
                continue
            for fid, f in flows.items():
                print(f"{key:36} {engine:13} {fid:5} {f['mean_mbps']:11.3f} {f['zero_s']:7.1f} {f['gap_s']:6.1f}")
    if args.json:
        args.json.write_text(json.dumps(table, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
