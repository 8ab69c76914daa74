/**
 * Route overlay and link utilisation from a result document (pure).
 *
 * A subflow's `path` lists node ids; it is active at `t` when its throughput at
 * the sample covering `t` is above zero. Wired-link utilisation is the sum of
 * active subflow throughputs crossing the link (either direction: the larger
 * direction counts) divided by `bandwidth_mbps`.
 */
import type { ScenarioDocument, StrategyResult } from "../api/types";
import { ZERO_MBPS } from "./constants";

/** Index of the sample whose interval [t_s[k], t_s[k+1]) holds `t` (-1 before the first). */
export function sampleIndex(t_s: readonly number[], t: number): number {
  let lo = 0;
  let hi = t_s.length - 1;
  if (hi < 0 || t < t_s[0]!) return -1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (t_s[mid]! <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Node-path hops as unordered pair keys "a|b" (sorted). */
export function hopKeys(path: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 1; i < path.length; i++) {
    const a = path[i - 1]!;
    const b = path[i]!;
    out.push(a < b ? `${a}|${b}` : `${b}|${a}`);
  }
  return out;
}

export interface ActivePath {
  flowId: string;
  subflowId: string;
  nodes: string[];
  mbps: number;
}

/** Subflow paths of `flowId` (all flows if null) carrying traffic at `t`. */
export function activePaths(result: StrategyResult, flowId: string | null, t: number): ActivePath[] {
  const out: ActivePath[] = [];
  for (const f of result.flows) {
    if (flowId !== null && f.id !== flowId) continue;
    for (const s of f.subflows ?? []) {
      const k = sampleIndex(s.t_s, t);
      const v = k >= 0 ? s.throughput_mbps[k] ?? 0 : 0;
      if (v > ZERO_MBPS) out.push({ flowId: f.id, subflowId: s.id, nodes: (s.path ?? []).filter((p) => !p.includes(":")), mbps: v });
    }
  }
  return out;
}

/** Utilisation (0…) of every wired link at `t`, by link id. */
export function linkUtilization(doc: ScenarioDocument, result: StrategyResult, t: number): Record<string, number> {
  const load: Record<string, number> = {};
  for (const p of activePaths(result, null, t)) {
    for (let i = 1; i < p.nodes.length; i++) {
      const key = `${p.nodes[i - 1]}>${p.nodes[i]}`;
      load[key] = (load[key] ?? 0) + p.mbps;
    }
  }
  const out: Record<string, number> = {};
  for (const l of doc.links ?? []) {
    const fwd = load[`${l.src}>${l.dst}`] ?? 0;
    const back = load[`${l.dst}>${l.src}`] ?? 0;
    out[l.id] = Math.max(fwd, back) / l.bandwidth_mbps;
  }
  return out;
}

/** Colour of a utilisation: grey when idle, then green → amber → red at ≥ 100 %. */
export function utilizationColor(u: number): string {
  if (!(u > 0)) return "#94a3b8";
  if (u < 0.5) return "#16a34a";
  if (u < 0.8) return "#ca8a04";
  if (u < 1) return "#ea580c";
  return "#dc2626";
}
