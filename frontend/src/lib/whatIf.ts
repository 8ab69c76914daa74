/**
 * Pure helpers of the analysis page: the topology overlay of a failure, the capacity
 * trace as chart points, and the cells of a 2-D sweep heatmap.
 */
import type { CapacityResult, FailureCase } from "../api/analysis";
import type { Highlight } from "../components/topologyCy";
import type { ResultDocument } from "../api/types";

export const FAILED_COLOR = "#dc2626";
export const REROUTED_COLOR = "#2563eb";

/** Link ids along a node path, given the scenario's links (either direction). */
export function linksOfPath(path: readonly string[], links: readonly { id: string; src: string; dst: string }[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < path.length; i++) {
    const a = path[i], b = path[i + 1];
    const l = links.find((x) => (x.src === a && x.dst === b) || (x.src === b && x.dst === a));
    if (l) out.push(l.id);
  }
  return out;
}

/**
 * Overlay of one failure: the failed links red and dashed ("failed"), the links of every re-planned
 * route that changed blue, everything else dimmed; the failed node (a node failure) marked.
 */
export function failureHighlight(c: FailureCase, links: readonly { id: string; src: string; dst: string }[]): Highlight {
  const h: Highlight = { links: {}, nodes: {}, dim: true };
  for (const f of c.flows) {
    if (!f.path_changed) continue;
    for (const id of linksOfPath(f.path, links)) h.links[id] = { color: REROUTED_COLOR, width: 5 };
    for (const n of f.path) h.nodes[n] = "route";
  }
  for (const id of c.links) h.links[id] = { color: FAILED_COLOR, width: 5, classes: "failed" };
  if (c.kind === "node") h.nodes[c.element] = "failed";
  for (const n of c.nodes ?? []) h.nodes[n] = "failed";
  return h;
}

/** One capacity-search step for the trace chart: the value, the worst flow's mean, pass/fail. */
export interface TracePoint {
  step: number;
  value: number;
  worstMeanMbps: number;
  worstZeroS: number;
  passed: boolean;
}

export function tracePoints(result: CapacityResult): TracePoint[] {
  return result.trace.map((s) => ({
    step: s.step,
    value: s.value,
    worstMeanMbps: Math.min(...s.flows.map((f) => f.mean_mbps)),
    worstZeroS: Math.max(...s.flows.map((f) => f.zero_s)),
    passed: s.passed,
  }));
}

/** One heatmap cell: indices on both axes, the values, mean and 95 % CI half-width (Mbit/s). */
export interface HeatCell {
  i: number;
  j: number;
  x: string;
  y: string;
  meanMbps: number;
  ci95Mbps: number;
  runs: number;
}

/** Cells of a 2-D sweep for one strategy (null when the result has no 2-D sweep). */
export function heatmapCells(doc: ResultDocument, strategy: string): { xs: string[]; ys: string[]; cells: HeatCell[] } | null {
  const sw = doc.sweep;
  if (!sw || sw.parameter_y == null || !sw.values_y) return null;
  const xs = sw.values.map(String);
  const ys = sw.values_y.map(String);
  const cells: HeatCell[] = [];
  for (const p of sw.points) {
    const st = p.strategies[strategy];
    if (!st) continue;
    cells.push({ i: xs.indexOf(String(p.value)), j: ys.indexOf(String(p.value_y)), x: String(p.value), y: String(p.value_y),
      meanMbps: st.mean_mbps, ci95Mbps: st.ci95_mbps, runs: st.runs });
  }
  return { xs, ys, cells };
}
