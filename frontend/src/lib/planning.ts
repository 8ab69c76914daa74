/**
 * Planning overlays (pure): routes, route counts and Flow Deviation utilisation as a
 * {@link Highlight} for the one cytoscape owner, and the planned-vs-measured series of a result.
 *
 * Paths come as node lists (`POST /api/scenarios/{id}/routes`); a hop a → b is drawn on the
 * scenario link joining a and b (the first one in the document when several do). Ranked paths of
 * one pair get one colour per rank; a link on several paths keeps the colour of the best rank
 * and its label lists every rank (`#1 #2`). Allocation utilisation of a link is its busier
 * direction's (`links[].utilization` per arc of the allocation document).
 */
import type { AllocationDocument, PairRoutes, ScenarioDocument, StrategyResult } from "../api/types";
import type { Highlight } from "../components/topologyCy";
import { hopKeys, utilizationColor } from "./routes";

/** Colour of the path of rank i (0 = best). */
export const RANK_COLORS = ["#2563eb", "#dc2626", "#059669", "#9333ea", "#ea580c", "#0891b2", "#be185d", "#65a30d"];

export function rankColor(rank: number): string {
  return RANK_COLORS[rank % RANK_COLORS.length]!;
}

/** Link id of every unordered node pair "a|b" joined by a link (the first such link). */
export function linkByPair(doc: ScenarioDocument): Map<string, string> {
  const out = new Map<string, string>();
  for (const l of doc.links ?? []) {
    const key = l.src < l.dst ? `${l.src}|${l.dst}` : `${l.dst}|${l.src}`;
    if (!out.has(key)) out.set(key, l.id);
  }
  return out;
}

/** Link ids along a node path (hops without a link, e.g. a station's air hop, are skipped). */
export function pathLinks(byPair: Map<string, string>, nodes: readonly string[]): string[] {
  const out: string[] = [];
  for (const k of hopKeys(nodes)) {
    const id = byPair.get(k);
    if (id) out.push(id);
  }
  return out;
}

export interface RankedPath {
  /** 0 = best */
  rank: number;
  nodes: string[];
  color?: string;
  /** label prefix (default `#<rank + 1>`) */
  tag?: string;
}

/** Overlay of ranked paths: colour of the best rank per link, every rank in the label, others dimmed. */
export function pathsHighlight(doc: ScenarioDocument, paths: readonly RankedPath[]): Highlight {
  const byPair = linkByPair(doc);
  const links: Highlight["links"] = {};
  const tags: Record<string, string[]> = {};
  const nodes: Highlight["nodes"] = {};
  const sorted = [...paths].sort((a, b) => a.rank - b.rank);
  for (const p of sorted) {
    const tag = p.tag ?? `#${p.rank + 1}`;
    for (const id of pathLinks(byPair, p.nodes)) {
      const t = (tags[id] ??= []);
      if (!t.includes(tag)) t.push(tag);
      if (!links[id]) links[id] = { color: p.color ?? rankColor(p.rank), width: Math.max(2.5, 7 - 1.5 * p.rank), classes: "route" };
    }
    for (const n of p.nodes) nodes[n] = "route";
  }
  for (const [id, t] of Object.entries(tags)) links[id]!.label = t.join(" ");
  return { links, nodes, dim: true };
}

/** The ranked paths of some pairs' routes (every pair's k paths, rank = position). */
export function rankedPaths(routes: readonly PairRoutes[]): RankedPath[] {
  const out: RankedPath[] = [];
  for (const r of routes) r.paths.forEach((p, i) => out.push({ rank: i, nodes: p.nodes }));
  return out;
}

/** Colour classes of a share in [0, 1] of the routes crossing a link (legend order). */
export const SHARE_BUCKETS: readonly { max: number; color: string; label: string }[] = [
  { max: 0, color: "#cbd5e1", label: "no route" },
  { max: 0.05, color: "#93c5fd", label: "< 5 %" },
  { max: 0.15, color: "#3b82f6", label: "5–15 %" },
  { max: 0.3, color: "#1d4ed8", label: "15–30 %" },
  { max: Infinity, color: "#172554", label: "≥ 30 %" },
];

export function shareColor(share: number): string {
  if (!(share > 0)) return SHARE_BUCKETS[0]!.color;
  return SHARE_BUCKETS.find((b, i) => i > 0 && share < b.max)?.color ?? SHARE_BUCKETS[SHARE_BUCKETS.length - 1]!.color;
}

/** Overlay of a route summary: each link coloured and sized by the share of best routes crossing it. */
export function linkUseHighlight(linkUse: readonly { link: string; routes: number }[], pairsReachable: number): Highlight {
  const links: Highlight["links"] = {};
  const total = Math.max(1, pairsReachable);
  for (const u of linkUse) {
    const share = u.routes / total;
    links[u.link] = { color: shareColor(share), width: 1.5 + 8 * Math.min(1, share / 0.3), label: `${u.routes}`, classes: "util" };
  }
  return { links, nodes: {}, dim: false };
}

/** Utilisation (flow / capacity) of each link of an allocation: its busier direction. */
export function allocationUtilization(alloc: AllocationDocument): Record<string, number> {
  const out: Record<string, number> = {};
  for (const l of alloc.links) out[l.link] = Math.max(out[l.link] ?? 0, l.utilization);
  return out;
}

/** Overlay of an allocation: each link coloured by its utilisation (legend: {@link UTILIZATION_LEGEND}). */
export function allocationHighlight(doc: ScenarioDocument, alloc: AllocationDocument): Highlight {
  const u = allocationUtilization(alloc);
  const links: Highlight["links"] = {};
  for (const l of doc.links ?? []) {
    const v = u[l.id] ?? 0;
    links[l.id] = { color: utilizationColor(v), width: 2 + 5 * Math.min(1, v), label: `${Math.round(v * 100)}%`, classes: "util" };
  }
  return { links, nodes: {}, dim: false };
}

/** Legend of {@link utilizationColor}, in order. */
export const UTILIZATION_LEGEND: readonly { color: string; label: string }[] = [
  { color: utilizationColor(0), label: "idle" },
  { color: utilizationColor(0.25), label: "< 50 %" },
  { color: utilizationColor(0.6), label: "50–80 %" },
  { color: utilizationColor(0.9), label: "80–100 %" },
  { color: utilizationColor(1), label: "≥ 100 %" },
];

export interface PlannedLine {
  flowId: string;
  subflowId: string;
  t_s: number[];
  measured: number[];
  /** rate limit in force at each sample (null: none) */
  planned: (number | null)[];
}

/** Planned and measured rate of each subflow of a strategy whose result has a plan (else []). */
export function plannedLines(result: StrategyResult): PlannedLine[] {
  const planned = result.planned;
  if (!planned) return [];
  const bySubflow = new Map(planned.subflows.map((p) => [p.subflow, p.planned_mbps]));
  const out: PlannedLine[] = [];
  for (const f of result.flows) {
    for (const s of f.subflows) {
      const p = bySubflow.get(s.id);
      if (!p) continue;
      out.push({ flowId: f.id, subflowId: s.id, t_s: s.t_s, measured: s.throughput_mbps, planned: p });
    }
  }
  return out;
}

/**
 * Parse "a:b, c:d" (or one pair per line, "a b") into ordered node pairs; unknown nodes and
 * malformed items are returned as errors naming them.
 */
export function parsePairs(text: string, nodeIds: ReadonlySet<string>): { pairs: [string, string][]; errors: string[] } {
  const pairs: [string, string][] = [];
  const errors: string[] = [];
  for (const raw of text.split(/[,\n;]/)) {
    const item = raw.trim();
    if (!item) continue;
    const parts = item.split(/\s*[:\s>]\s*/).filter(Boolean);
    if (parts.length !== 2) {
      errors.push(`“${item}”: expected SRC:DST`);
      continue;
    }
    const [a, b] = parts as [string, string];
    const unknown = [a, b].filter((n) => !nodeIds.has(n));
    if (unknown.length) errors.push(`“${item}”: no node ${unknown.join(", ")}`);
    else if (a === b) errors.push(`“${item}”: source and destination are the same node`);
    else pairs.push([a, b]);
  }
  return { pairs, errors };
}

/** What a planning answer over the run's network says about time (`t_s`, `duration_s`, `windows` of
 * `POST .../routes` and `.../allocations`): the time it is for, and where over the run the answer changes. */
export function timeNote(doc: { t_s?: number | null; duration_s: number; windows: readonly { t_start_s: number; t_end_s: number }[] }): string {
  const s = (v: number) => String(Number(v.toPrecision(4)));
  if (doc.t_s != null) {
    const w = doc.windows[0];
    return `At t = ${s(doc.t_s)} s of ${s(doc.duration_s)} s (the network is the same from ${s(w?.t_start_s ?? 0)} to ${s(w?.t_end_s ?? doc.duration_s)} s).`;
  }
  const changes = doc.windows.slice(1).map((w) => `${s(w.t_start_s)} s`);
  return changes.length
    ? `At the run's start (t = 0 of ${s(doc.duration_s)} s); the answer changes at ${changes.join(", ")}.`
    : `The whole run (0–${s(doc.duration_s)} s): the network does not change.`;
}
