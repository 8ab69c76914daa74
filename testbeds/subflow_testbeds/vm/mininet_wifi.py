"""Mininet-WiFi in the testbed VM: the exported examples run on real Mininet-WiFi, beside ``fluid`` and ``linux``.

Mininet-WiFi, Mininet (2.3.1), wmediumd and mac80211_hwsim_mgmt do not come from a package registry, so the user
points this at their source trees; the VM builds them and runs each script of
:func:`subflow.io.exports.generate_script` as the ``mininet-wifi`` engine runs one
(:func:`subflow_engines.vm.mininet_wifi.run_scripts`); the host parses each script's output with the engine's own parser (:func:`subflow_engines.mininet_wifi.output`)
and prints it next to the ``fluid`` and ``linux`` engines' runs of the same plan.

Usage (``make mininet-wifi-testbed`` sets these from MININET_SRC, MININET_WIFI_SRC, WMEDIUMD_SRC, HWSIM_MGMT_SRC)::

    python -m subflow_testbeds.vm.mininet_wifi --mininet ~/src/mininet --mininet-wifi ~/src/mininet-wifi \\
        --wmediumd ~/src/wmediumd --hwsim-mgmt ~/src/mac80211_hwsim_mgmt \\
        [--example naval-direct-move:sptcp ...] [--no-linux] [--duration-s 600] [--record DIR] [--series]

``--duration-s S`` cuts every example to its first S seconds (a flow's stop at S at the latest; the run's key then
reads ``<example><S>-<strategy>``). ``--record DIR`` keeps each script's output in DIR (``<key>.out``,
``<key>.err``) with a record of its nodes made every ``--record-interval-s`` (0.5 s) in the VM: ``ss -tani``,
``ss -Mni``, ``ip mptcp endpoint show``, ``ip mptcp limits``, link states, counters and ``tc -s qdisc show`` per
node (``<key>.rec.gz``, :func:`subflow_engines.vm.mininet_wifi.run_scripts`; ``--record-node`` to record only
some nodes). ``--series`` adds each engine's per-second throughput of
every flow to the JSON.

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
def cut(doc: dict, duration_s: float | None) -> dict:
    """A copy of the scenario document ``doc`` run for its first ``duration_s`` seconds (None: as it is): the run's
    duration, each flow's ``stop_s`` at most that, the flows starting at or after it left out."""
    doc = json.loads(json.dumps(doc))
    if duration_s is None or duration_s >= doc["run"]["duration_s"]:
        return doc
    doc["run"]["duration_s"] = duration_s
    doc["flows"] = [f for f in doc.get("flows", []) if f.get("start_s", 0.0) < duration_s]
    for flow in doc["flows"]:
        if flow.get("stop_s") is not None and flow["stop_s"] > duration_s:
            flow["stop_s"] = duration_s
    return doc


def run_key(name: str, strategy: str, duration_s: float | None) -> str:
    """The run's name: ``<example>-<strategy>``, or ``<example><S>-<strategy>`` when cut to its first S s."""
    return f"{name}{duration_s:g}-{strategy}" if duration_s is not None else f"{name}-{strategy}"


def _figures(output, plan) -> dict[str, dict[str, float]]:
    """Per flow: mean Mbit/s over its window, seconds at zero, and its longest run at zero (the handover gap)."""
    from subflow.results.document import summarize_flow

    windows = {f.id: (f.start_s, f.stop_s) for f in plan.flows}
    out = {}
    for flow in output.flows:
        s = summarize_flow(flow, plan.interval_s, *windows.get(flow.id, (0.0, None)))
        out[flow.id] = {"mean_mbps": s.mean_mbps, "zero_s": s.zero_s, "gap_s": s.longest_zero_s}
    return out


def _series(output) -> dict[str, list[float]]:
    """Per flow: its throughput per interval, Mbit/s."""
    return {flow.id: [round(v, 4) for v in flow.throughput_mbps] for flow in output.flows}


def compare_examples(sources: dict[str, Path], wheels: Path, examples=EXAMPLES, with_linux: bool = True,
                     duration_s: float | None = None, record: Path | None = None, record_s: float = 0.5,
                     series: bool = False, record_nodes: tuple[str, ...] = ()) -> dict:
    """Run ``examples`` ((example, strategy) pairs, each cut to its first ``duration_s`` s by :func:`cut`) on
    Mininet-WiFi in the VM, on ``fluid`` and (as root, with ``with_linux``) on ``linux`` here; per run
    (:func:`run_key`), engine and flow :func:`_figures`, or the error; with ``series`` each engine's per-interval
    throughput too (under ``"series"``). ``record``: a folder where each script's output and the VM's record of
    its nodes every ``record_s`` s are kept (the module's docstring)."""
    from subflow.io.exports import generate_script
    from subflow.runplan.finish import longest_finish_s
    from subflow.runplan.resolve import resolve_plan
    from subflow_engines import get_engine
    from subflow_engines.mininet_wifi import output as engine_output

    docs = {name: cut(json.loads((REPO / "examples" / f"{name}.json").read_text()), duration_s)
            for name, _ in examples}
    keys = {(n, s): run_key(n, s, duration_s) for n, s in examples}
    plans = {keys[n, s]: resolve_plan(docs[n], s, "mininet-wifi") for n, s in examples}
    longest = max(max([fp.stop_s for fp in p.flows] + [p.duration_s]) for p in plans.values())
    runs = run_scripts(sources, wheels, {key: generate_script(plan) for key, plan in plans.items()},
                       script_timeout_s=longest + longest_finish_s() + 120,
                       record_s=record_s if record is not None else None, record_nodes=record_nodes)
    table: dict = {}
    for (name, strategy) in examples:
        key = keys[name, strategy]
        row = table.setdefault(key, {})
        run = runs[key]
        if record is not None:
            record.mkdir(parents=True, exist_ok=True)
            (record / f"{key}.out").write_text(run.stdout)
            (record / f"{key}.err").write_text(run.stderr)
            if run.record is not None:
                (record / f"{key}.rec.gz").write_bytes(run.record)
        outputs = {}
        try:
            outputs["mininet-wifi"] = engine_output(plans[key], run.stdout, run.rc, run.stderr), plans[key]
        except Exception as exc:  # reported in the table: the comparison goes on with the other engines
            row["mininet-wifi"] = {"error": str(exc)[:400]}
        for engine in ("fluid", *(("linux",) if with_linux else ())):
            plan = resolve_plan(docs[name], strategy, engine)
            try:
                outputs[engine] = get_engine(engine).run(plan), plan
            except Exception as exc:  # e.g. the linux engine refusing a field: reported, not fatal
                row[engine] = {"error": str(exc)[:400]}
        for engine, (out, plan) in outputs.items():
            row[engine] = _figures(out, plan)
            if series:
                row.setdefault("series", {})[engine] = _series(out)
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
    ap.add_argument("--duration-s", type=float, help="cut every example to its first DURATION_S seconds")
    ap.add_argument("--record", type=Path, help="keep each script's output and a record of its nodes here")
    ap.add_argument("--record-interval-s", type=float, default=0.5, help="seconds between two records (0.5)")
    ap.add_argument("--record-node", action="append", default=[], help="record only this Mininet node (repeat)")
    ap.add_argument("--series", action="store_true", help="add each engine's per-interval throughput to the JSON")
    args = ap.parse_args(argv)
    sources = {name: getattr(args, name.replace("-", "_")) for name in SOURCES}
    examples = tuple(tuple(e.split(":", 1)) for e in args.example) if args.example else EXAMPLES
    with tempfile.TemporaryDirectory(prefix="subflow-wheels-") as tmp:
        wheels = args.wheels or download_wheels(Path(tmp))
        table = compare_examples(sources, wheels, examples, with_linux=not args.no_linux, duration_s=args.duration_s,
                                 record=args.record, record_s=args.record_interval_s, series=args.series,
                                 record_nodes=tuple(args.record_node))
    print(f"{'run':36} {'engine':13} {'flow':5} {'mean Mbit/s':>11} {'zero s':>7} {'gap s':>6}")
    for key, row in table.items():
        for engine, flows in row.items():
            if engine == "series":
                continue
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
