"""Per-phase figures of a comparison's result document (``subflow compare FILE --json``): for each strategy and
phase, each voice and udp flow's mean one-way delay (ms), mean RFC 3550 jitter (ms), loss (the fraction lost of the
bits sent over the phase, :func:`subflow.results.quality.pooled_loss`) and mean and lowest MOS (voice) over the phase's intervals (an interval that sent and delivered nothing counts as MOS 1), and each
bulk tcp flow's mean throughput (Mbit/s). Prints a Markdown table.

Usage: ``python scripts/voice_phases.py RESULT.json before:0:60 during:60:63 after:63:100``
(phase name, start and end, seconds; an interval counts when it lies inside the phase).
"""

from __future__ import annotations

import json
import statistics
import sys

from subflow.results.quality import pooled_loss


def _mean(values):
    values = [v for v in values if v is not None]
    return statistics.fmean(values) if values else None


def _fmt(x, spec):
    return "—" if x is None else format(x, spec)


def main(path: str, phases: list[str]) -> None:
    doc = json.load(open(path))
    interval = doc["scenario"]["run"]["interval_s"]
    kinds = {f["id"]: f.get("kind", "tcp") for f in doc["scenario"]["flows"]}
    print("| strategy | phase | flow | delay ms | jitter ms | loss | MOS mean | MOS min | bulk Mbit/s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, result in doc["strategies"].items():
        for phase in phases:
            label, t0, t1 = phase.split(":")
            t0, t1 = float(t0), float(t1)
            for flow in result["flows"]:
                ks = [k for k, t in enumerate(flow["t_s"]) if t >= t0 - 1e-9 and t + interval <= t1 + 1e-9]
                kind = kinds.get(flow["id"], "tcp")
                if kind == "tcp":
                    print(f"| {name} | {label} | {flow['id']} | | | | | | "
                          f"{_fmt(_mean(flow['throughput_mbps'][k] for k in ks), '.3f')} |")
                    continue
                if kind not in ("voice", "udp") or flow.get("loss") is None:
                    continue
                rated = flow.get("mos") or [None] * len(flow["t_s"])
                mos = [rated[k] if rated[k] is not None else (1.0 if flow["delay_ms"][k] is None else None)
                       for k in ks if flow["loss"][k] is not None] if kind == "voice" else []
                mos = [m for m in mos if m is not None]
                sent = flow.get("sent_mbps") or [None] * len(flow["t_s"])
                print(f"| {name} | {label} | {flow['id']} | {_fmt(_mean(flow['delay_ms'][k] for k in ks), '.1f')} | "
                      f"{_fmt(_mean(flow['jitter_ms'][k] for k in ks), '.2f')} | "
                      f"{_fmt(pooled_loss((flow['loss'][k], sent[k]) for k in ks), '.4f')} | {_fmt(_mean(mos), '.2f')} | "
                      f"{_fmt(min(mos) if mos else None, '.2f')} | |")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
