"""Mininet-WiFi in the testbed VM: the exported examples run on real Mininet-WiFi, beside ``fluid`` and ``linux``.

Mininet-WiFi, Mininet (2.3.1), wmediumd and mac80211_hwsim_mgmt do not come from a package registry, so the user
points this at their source trees; the VM builds them and runs each script of
:func:`subflow.io.exports.generate_script` as the ``mininet-wifi`` engine runs one
(:func:`subflow_engines.vm.mininet_wifi.run_scripts`); the host parses each script's output with the engine's own parser (:func:`subflow_engines.mininet_wifi.output`)
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
import tempfile
from pathlib import Path

from subflow_engines.vm.mininet_wifi import SOURCES, download_wheels, run_scripts

REPO = Path(__file__).resolve().parents[3]
#: the examples of the comparison in docs/validation: (example, strategy)
EXAMPLES = (("naval-direct-move", "sptcp"), ("naval-direct-move", "mptcp"), ("naval-random-walk", "sptcp"),
            ("naval-random-walk", "mptcp"), ("uav-backhaul-planning", "sptcp"), ("uav-backhaul-planning", "mptcp"))
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
