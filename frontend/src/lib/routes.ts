/**
 * Route overlay and link utilisation from a result document (pure).
 *
 * A subflow's path at `t` follows its events (`subflow_up`, `route_change`, `route_lost`,
 * `subflow_down`; the series' `path` is only the last one it used); it is active at `t` when its
 * throughput at the sample covering `t` is above zero. Wired-link utilisation is the sum of
 * active subflow throughputs crossing the link (either direction: the larger
 * direction counts) divided by `bandwidth_mbps`.
 */
import type { ResultEvent, ScenarioDocument, StrategyResult } from "../api/types";
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

type PathEvent = { t_s: number; kind: string; subflow: string; path: string[]; previous_path?: string[] };

function isPathEvent(e: ResultEvent): e is ResultEvent & PathEvent {
  return (e.kind === "subflow_up" || e.kind === "route_change" || e.kind === "route_lost" || e.kind === "subflow_down") && "subflow" in e;
}

/**
 * The node path subflow `subflowId` used at `t`, from its path events: the path of the last
 * `subflow_up` / `route_change` at or before `t` (a `route_lost` / `subflow_down` keeps the path it
 * lost); before its first event, the path that event names as in use (`previous_path` of a
 * `route_change`, else its `path`); without events, `fallback` (the series' last path).
 */
export function subflowPathAt(events: readonly ResultEvent[] | null | undefined, subflowId: string, t: number, fallback: readonly string[]): string[] {
  const mine = (events ?? []).filter(isPathEvent).filter((e) => e.subflow === subflowId);
  mine.sort((a, b) => a.t_s - b.t_s);
  let current: string[] | null = null;
  for (const e of mine) {
    if (e.t_s > t) {
      if (current) return current;
      return e.kind === "route_change" && e.previous_path ? e.previous_path : e.path;
    }
    current = e.path;
  }
  return current ?? [...fallback];
}

/** Subflow paths of `flowId` (all flows if null) carrying traffic at `t`, on the path each used at `t`. */
export function activePaths(result: StrategyResult, flowId: string | null, t: number): ActivePath[] {
  const out: ActivePath[] = [];
  for (const f of result.flows) {
    if (flowId !== null && f.id !== flowId) continue;
    for (const s of f.subflows ?? []) {
      const k = sampleIndex(s.t_s, t);
      const v = k >= 0 ? s.throughput_mbps[k] ?? 0 : 0;
      if (!(v > ZERO_MBPS)) continue;
      const path = subflowPathAt(result.events, s.id, t, s.path ?? []);
      out.push({ flowId: f.id, subflowId: s.id, nodes: path.filter((p) => !p.includes(":")), mbps: v });
    }
  }
  return out;
}

/** Colours of subflows in the route overlay, in the order of `activePaths`. */
export const SUBFLOW_COLORS = ["#2563eb", "#dc2626", "#059669", "#9333ea", "#ea580c"];

/** A wireless hop of an active path (a station and its access point: no wired link joins them). */
export interface AirHop {
  station: string;
  access_point: string;
  color: string;
  label: string;
}

/**
 * The route overlay of active paths: per wired link every subflow crossing it ("f1/sat 1.20 + f2/uav 0.80 Mbit/s",
 * the first one's colour, wider for each more), and the wireless hops (station – access point) the paths take.
 */
export function pathsOverlay(doc: ScenarioDocument, paths: readonly ActivePath[]): {
  links: Record<string, { color: string; width: number; label: string; classes: string }>;
  air: AirHop[];
  nodes: Record<string, string>;
} {
  const byPair = new Map<string, string>();
  for (const l of doc.links ?? []) byPair.set(l.src < l.dst ? `${l.src}|${l.dst}` : `${l.dst}|${l.src}`, l.id);
  const kind = new Map(doc.nodes.map((n) => [n.id, n.kind]));
  const uses = new Map<string, { color: string; text: string }[]>();
  const nodes: Record<string, string> = {};
  paths.forEach((p, i) => {
    const use = { color: SUBFLOW_COLORS[i % SUBFLOW_COLORS.length]!, text: `${p.subflowId} ${p.mbps.toFixed(2)}` };
    for (const key of hopKeys(p.nodes)) {
      const id = byPair.get(key) ?? `air:${key}`;
      if (!uses.has(id)) uses.set(id, []);
      uses.get(id)!.push(use);
    }
    for (const n of p.nodes) nodes[n] = "route";
  });
  const links: Record<string, { color: string; width: number; label: string; classes: string }> = {};
  const air: AirHop[] = [];
  for (const [id, u] of uses) {
    const label = `${u.map((x) => x.text).join(" + ")} Mbit/s`;
    if (!id.startsWith("air:")) {
      links[id] = { color: u[0]!.color, width: 5 + 2 * (u.length - 1), label, classes: u.length > 1 ? "route shared" : "route" };
      continue;
    }
    const [a, b] = id.slice(4).split("|") as [string, string];
    const station = kind.get(a) === "access_point" ? b : a;
    const ap = station === a ? b : a;
    if (kind.get(ap) === "access_point") air.push({ station, access_point: ap, color: u[0]!.color, label });
  }
  return { links, air, nodes };
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
