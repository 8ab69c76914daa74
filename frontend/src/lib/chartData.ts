/**
 * Result document → chart series, shared axis domains and handover markers (pure).
 *
 * Every strategy gets its own chart; all charts share one x and one y domain so
 * that they can be compared side by side.
 */
import type { ResultDocument, ResultEvent, StrategyResult } from "../api/types";

export interface SeriesPoint {
  t_s: number;
  mbps: number;
}

export interface FlowSeries {
  flowId: string;
  points: SeriesPoint[];
}

export interface HandoverMarker {
  t_s: number;
  kind: string;
  node: string | null;
}

export interface StrategySeries {
  strategy: string;
  engine: string;
  flows: FlowSeries[];
  markers: HandoverMarker[];
}

export interface Domains {
  x: [number, number];
  y: [number, number];
}

/** Event kinds drawn as vertical markers on the charts. */
export const MARKER_KINDS: readonly string[] = ["handover_start", "association"];

/** Strategies in the order the comparison asked for, then any others the result holds. */
export function strategyOrder(requested: readonly string[] | null | undefined, doc: ResultDocument): string[] {
  const present = Object.keys(doc.strategies ?? {});
  const ordered = (requested ?? []).filter((s) => present.includes(s));
  return [...ordered, ...present.filter((s) => !ordered.includes(s))];
}

/** Per-flow (t_s, Mbit/s) points; samples with a non-finite value are dropped. */
export function flowSeries(result: StrategyResult): FlowSeries[] {
  return result.flows.map((flow) => {
    const n = Math.min(flow.t_s.length, flow.throughput_mbps.length);
    const points: SeriesPoint[] = [];
    for (let i = 0; i < n; i++) {
      const t = flow.t_s[i]!;
      const v = flow.throughput_mbps[i]!;
      if (Number.isFinite(t) && Number.isFinite(v)) points.push({ t_s: t, mbps: v });
    }
    return { flowId: flow.id, points };
  });
}

/** Radio handover events (start of a handover, completed association), one per time/kind/node. */
export function handoverMarkers(events: readonly ResultEvent[] | null | undefined): HandoverMarker[] {
  const seen = new Set<string>();
  const out: HandoverMarker[] = [];
  for (const e of events ?? []) {
    if (!MARKER_KINDS.includes(e.kind) || !Number.isFinite(e.t_s)) continue;
    const node = typeof e.node === "string" ? e.node : null;
    const key = `${e.t_s}|${e.kind}|${node ?? ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ t_s: e.t_s, kind: e.kind, node });
  }
  return out.sort((a, b) => a.t_s - b.t_s || a.kind.localeCompare(b.kind));
}

/** Everything the charts of one comparison need, in display order. */
export function comparisonSeries(doc: ResultDocument, requested?: readonly string[] | null): StrategySeries[] {
  return strategyOrder(requested, doc).map((name) => {
    const r = doc.strategies[name]!;
    return { strategy: name, engine: r.engine, flows: flowSeries(r), markers: handoverMarkers(r.events) };
  });
}

/**
 * One x domain (seconds, covering every sample) and one y domain (Mbit/s, from 0
 * to 5 % above the largest sample) for all charts.
 */
export function sharedDomains(all: readonly StrategySeries[]): Domains {
  let xMin = Infinity;
  let xMax = -Infinity;
  let yMax = 0;
  for (const s of all) {
    for (const f of s.flows) {
      for (const p of f.points) {
        if (p.t_s < xMin) xMin = p.t_s;
        if (p.t_s > xMax) xMax = p.t_s;
        if (p.mbps > yMax) yMax = p.mbps;
      }
    }
  }
  if (!Number.isFinite(xMin)) return { x: [0, 1], y: [0, 1] };
  if (xMax <= xMin) xMax = xMin + 1;
  return { x: [xMin, xMax], y: [0, yMax > 0 ? yMax * 1.05 : 1] };
}

/** Every flow id across strategies, in first-seen order (for a shared legend / colours). */
export function allFlowIds(all: readonly StrategySeries[]): string[] {
  const ids: string[] = [];
  for (const s of all) for (const f of s.flows) if (!ids.includes(f.flowId)) ids.push(f.flowId);
  return ids;
}

const PALETTE = [
  "#1f77b4",
  "#d62728",
  "#2ca02c",
  "#9467bd",
  "#ff7f0e",
  "#17becf",
  "#8c564b",
  "#e377c2",
  "#7f7f7f",
  "#bcbd22",
];

const DASHES = ["", "7 4", "2 3", "10 3 2 3"];

export interface FlowStyle {
  color: string;
  /** SVG stroke-dasharray ("" = solid); flows that overlap exactly stay distinguishable */
  dash: string;
}

/** A stable colour and dash pattern per flow id, the same in every chart. */
export function flowStyles(flowIds: readonly string[]): Record<string, FlowStyle> {
  const out: Record<string, FlowStyle> = {};
  flowIds.forEach((id, i) => {
    out[id] = { color: PALETTE[i % PALETTE.length]!, dash: DASHES[i % DASHES.length]! };
  });
  return out;
}
