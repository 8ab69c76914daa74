/**
 * Result document → chart series, shared axis domains and handover markers (pure).
 *
 * Every strategy gets its own chart; all charts share one x and one y domain so
 * that they can be compared side by side.
 */
import type { ResultDocument, ResultEvent, StrategyResult } from "../api/types";
import { parameterScale } from "./parameters";

export interface SeriesPoint {
  t_s: number;
  mbps: number;
}

export interface FlowSeries {
  flowId: string;
  points: SeriesPoint[];
  /** udp, voice and video flows: their per-interval quality, one sample per point (absent for tcp flows) */
  quality?: QualitySample[];
  /** what the source sent in each interval, Mbit/s, one per point (null: not known); only with `quality`, and
   * only where the result has `sent_mbps` (documents stored before it have not) */
  sentMbps?: (number | null)[];
}

/** A flow's quality series of the result document (`FlowSeries` of the results: null where an interval has none). */
export const QUALITY_FIELDS = ["delay_ms", "delay_p95_ms", "jitter_ms", "loss", "r_factor", "mos", "frames_sent", "frames_late", "frames_lost"] as const;
export type QualityField = (typeof QUALITY_FIELDS)[number];
/** One interval's quality: delays and jitter in ms, loss as a fraction, R and MOS, video frame counts. */
export type QualitySample = Record<QualityField, number | null>;

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
    const present = QUALITY_FIELDS.filter((k) => Array.isArray(flow[k]));
    const quality: QualitySample[] = [];
    const sent: (number | null)[] = [];
    const sentSeries = Array.isArray(flow.sent_mbps) ? flow.sent_mbps : null;
    for (let i = 0; i < n; i++) {
      const t = flow.t_s[i]!;
      const v = flow.throughput_mbps[i]!;
      if (!Number.isFinite(t) || !Number.isFinite(v)) continue;
      points.push({ t_s: t, mbps: v });
      if (present.length) {
        const q = Object.fromEntries(QUALITY_FIELDS.map((k) => [k, null])) as QualitySample;
        for (const k of present) {
          const x = (flow[k] as readonly (number | null)[])[i];
          q[k] = typeof x === "number" && Number.isFinite(x) ? x : null;
        }
        quality.push(q);
        const x = sentSeries?.[i];
        sent.push(typeof x === "number" && Number.isFinite(x) ? x : null);
      }
    }
    if (!present.length) return { flowId: flow.id, points };
    return sentSeries ? { flowId: flow.id, points, quality, sentMbps: sent } : { flowId: flow.id, points, quality };
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

/** Flow line dash patterns, so that flows stay apart in greyscale and where they overlap. */
const DASHES = ["", "8 4", "2 3", "12 3 2 3", "5 2 5 6", "1 2 6 2"];

/** Subflow line dash patterns (thin lines), by the subflow's index within its flow. */
const SUBFLOW_DASHES = ["4 2", "1 2", "6 2 1 2", "8 3"];

export function subflowDash(i: number): string {
  return SUBFLOW_DASHES[i % SUBFLOW_DASHES.length]!;
}

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

// ----------------------------------------------------------------------------- markers, subflows, hover

/** Event kinds that can be drawn as markers: handovers, RTOs and route changes. */
export const EVENT_MARKER_KINDS: readonly string[] = ["handover_start", "association", "rto", "route_change", "route_lost"];

/** Events of `kinds`, once per time/kind/node, sorted by time then kind. */
export function eventMarkers(
  events: readonly ResultEvent[] | null | undefined,
  kinds: readonly string[] = EVENT_MARKER_KINDS,
): HandoverMarker[] {
  const seen = new Set<string>();
  const out: HandoverMarker[] = [];
  for (const e of events ?? []) {
    if (!kinds.includes(e.kind) || !Number.isFinite(e.t_s)) continue;
    const node = typeof e.node === "string" ? e.node : null;
    const key = `${e.t_s}|${e.kind}|${node ?? ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ t_s: e.t_s, kind: e.kind, node });
  }
  return out.sort((a, b) => a.t_s - b.t_s || a.kind.localeCompare(b.kind));
}

export interface SubflowSeries {
  flowId: string;
  subflowId: string;
  path: string[];
  points: SeriesPoint[];
}

function pairs(t: readonly number[], v: readonly number[]): SeriesPoint[] {
  const n = Math.min(t.length, v.length);
  const out: SeriesPoint[] = [];
  for (let i = 0; i < n; i++) {
    const ti = t[i]!;
    const vi = v[i]!;
    if (Number.isFinite(ti) && Number.isFinite(vi)) out.push({ t_s: ti, mbps: vi });
  }
  return out;
}

/** Every subflow of every flow, as (t_s, Mbit/s) points. */
export function subflowSeries(result: StrategyResult): SubflowSeries[] {
  return result.flows.flatMap((f) =>
    (f.subflows ?? []).map((s) => ({ flowId: f.id, subflowId: s.id, path: s.path ?? [], points: pairs(s.t_s, s.throughput_mbps) })),
  );
}

/** Index of the sample nearest to `t` in points sorted by time (-1 if none). */
export function nearestIndex(points: readonly SeriesPoint[], t: number): number {
  if (!points.length) return -1;
  let lo = 0;
  let hi = points.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (points[mid]!.t_s < t) lo = mid + 1;
    else hi = mid;
  }
  if (lo > 0 && Math.abs(points[lo - 1]!.t_s - t) <= Math.abs(points[lo]!.t_s - t)) return lo - 1;
  return lo;
}

export interface HoverValue {
  strategy: string;
  flowId: string;
  t_s: number;
  mbps: number;
}

/** Every strategy's value of every flow at the sample nearest to `t` (the shared hover). */
export function valuesAt(all: readonly StrategySeries[], t: number): HoverValue[] {
  const out: HoverValue[] = [];
  for (const s of all) {
    for (const f of s.flows) {
      const i = nearestIndex(f.points, t);
      if (i >= 0) out.push({ strategy: s.strategy, flowId: f.flowId, t_s: f.points[i]!.t_s, mbps: f.points[i]!.mbps });
    }
  }
  return out;
}

/**
 * Min–max decimation for drawing: at most 4 points per bucket (first, min, max,
 * last) over `buckets` equal time buckets, so a line drawn `buckets` pixels wide
 * looks the same as with every sample. Series short enough are returned as they are.
 */
export function decimate(points: readonly SeriesPoint[], buckets: number): SeriesPoint[] {
  if (points.length <= buckets * 4 || buckets < 1) return points as SeriesPoint[];
  const t0 = points[0]!.t_s;
  const span = points[points.length - 1]!.t_s - t0 || 1;
  const out: SeriesPoint[] = [];
  let i = 0;
  for (let b = 0; b < buckets && i < points.length; b++) {
    const end = t0 + (span * (b + 1)) / buckets;
    const first = points[i]!;
    let min = first;
    let max = first;
    let last = first;
    while (i < points.length && (points[i]!.t_s <= end || b === buckets - 1)) {
      const p = points[i]!;
      if (p.mbps < min.mbps) min = p;
      if (p.mbps > max.mbps) max = p;
      last = p;
      i++;
    }
    const group = [first, min, max, last].filter((p, k, arr) => arr.indexOf(p) === k);
    group.sort((a, b2) => a.t_s - b2.t_s);
    out.push(...group);
  }
  return out;
}

// ----------------------------------------------------------------------------- summary bars, CDF, sweeps

export interface SummaryBar {
  strategy: string;
  mean_mbps: number;
  std_mbps: number;
  jain_index: number;
  /** the longest run of intervals at zero of any one flow, s (an outage the means hide) */
  longest_outage_s: number;
  /** the flows' seconds at zero, summed */
  zero_s: number;
}

/**
 * Mean ± std (over the per-flow means), Jain's index and the outages (the longest run at zero of any
 * flow, the seconds at zero of all flows) per strategy, in display order.
 */
export function summaryBars(doc: ResultDocument, requested?: readonly string[] | null): SummaryBar[] {
  return strategyOrder(requested, doc).flatMap((name) => {
    const s = doc.strategies[name]?.summary;
    if (!s) return [];
    const longest = Math.max(0, ...s.flows.map((f) => f.longest_zero_s));
    return [{ strategy: name, mean_mbps: s.mean_mbps, std_mbps: s.std_mbps, jain_index: s.jain_index, longest_outage_s: longest, zero_s: s.zero_s }];
  });
}

export interface CdfPoint {
  mbps: number;
  /** fraction of flows with a mean ≤ mbps */
  p: number;
}

/** Empirical CDF of `values` as step corners: (v_i, i/n) for sorted values. */
export function empiricalCdf(values: readonly number[]): CdfPoint[] {
  const v = values.filter(Number.isFinite).slice().sort((a, b) => a - b);
  const n = v.length;
  return v.map((x, i) => ({ mbps: x, p: (i + 1) / n }));
}

/** Per strategy, the CDF of its flows' mean throughput (scmptcp Fig. 6). */
export function flowMeanCdfs(doc: ResultDocument, requested?: readonly string[] | null): { strategy: string; points: CdfPoint[] }[] {
  return strategyOrder(requested, doc).map((name) => ({
    strategy: name,
    points: empiricalCdf((doc.strategies[name]?.summary?.flows ?? []).map((f) => f.mean_mbps)),
  }));
}

export interface SweepLinePoint {
  x: number;
  mean: number;
  lo: number;
  hi: number;
  runs: number;
}

/** One line per strategy: (swept value in its displayed unit, mean) with the 95 % CI band [mean − ci, mean + ci]; non-numeric values are skipped. */
export function sweepLines(doc: ResultDocument): { strategy: string; points: SweepLinePoint[] }[] {
  const sweep = doc.sweep;
  if (!sweep) return [];
  const scale = parameterScale(sweep.parameter);
  const names: string[] = [];
  for (const p of sweep.points) for (const s of Object.keys(p.strategies)) if (!names.includes(s)) names.push(s);
  return names.map((strategy) => ({
    strategy,
    points: sweep.points
      .filter((p) => typeof p.value === "number" && p.strategies[strategy])
      .map((p) => {
        const a = p.strategies[strategy]!;
        const ci = Number.isFinite(a.ci95_mbps) ? a.ci95_mbps : 0;
        return { x: (p.value as number) * scale, mean: a.mean_mbps, lo: a.mean_mbps - ci, hi: a.mean_mbps + ci, runs: a.runs };
      })
      .sort((a, b) => a.x - b.x),
  }));
}

/** Union of several comparisons' domains, so that side-by-side charts share axes. */
export function unionDomains(all: readonly Domains[]): Domains {
  if (!all.length) return { x: [0, 1], y: [0, 1] };
  return {
    x: [Math.min(...all.map((d) => d.x[0])), Math.max(...all.map((d) => d.x[1]))],
    y: [Math.min(...all.map((d) => d.y[0])), Math.max(...all.map((d) => d.y[1]))],
  };
}

// ----------------------------------------------------------------------------- CSV

function csvCell(v: unknown): string {
  const s = v === null || v === undefined ? "" : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** RFC 4180 CSV text of a header and rows. */
export function toCsv(header: readonly string[], rows: readonly (readonly unknown[])[]): string {
  return [header, ...rows].map((r) => r.map(csvCell).join(",")).join("\r\n") + "\r\n";
}

/**
 * Long-format CSV rows of the per-flow series, one shape for every chart: strategy, flow, subflow, t_s,
 * throughput_mbps, then the flow's quality per interval (`QUALITY_FIELDS`: delays and jitter in ms, loss as a
 * fraction, R, MOS, video frames), empty for tcp flows, subflows and intervals without a value.
 */
export function seriesCsv(all: readonly StrategySeries[], subflows: readonly (SubflowSeries & { strategy: string })[] = []): string {
  const rows: unknown[][] = [];
  const none = QUALITY_FIELDS.map(() => null);
  for (const s of all)
    for (const f of s.flows)
      f.points.forEach((p, i) => {
        const q = f.quality?.[i];
        rows.push([s.strategy, f.flowId, "", p.t_s, p.mbps, ...(q ? QUALITY_FIELDS.map((k) => q[k]) : none)]);
      });
  for (const sf of subflows) for (const p of sf.points) rows.push([sf.strategy, sf.flowId, sf.subflowId, p.t_s, p.mbps, ...none]);
  return toCsv(["strategy", "flow", "subflow", "t_s", "throughput_mbps", ...QUALITY_FIELDS], rows);
}

// ----------------------------------------------------------------------------- time-axis zoom

/**
 * The points of a time-sorted series that draw the window [t0, t1]: those inside it plus one on
 * each side (so that lines reach the edges), found by binary search.
 */
export function visiblePoints(points: readonly SeriesPoint[], t0: number, t1: number): readonly SeriesPoint[] {
  const n = points.length;
  if (!n) return points;
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (points[mid]!.t_s < t0) lo = mid + 1;
    else hi = mid;
  }
  const start = Math.max(0, lo - 1);
  lo = start;
  hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (points[mid]!.t_s <= t1) lo = mid + 1;
    else hi = mid;
  }
  const end = Math.min(n, lo + 1);
  return start === 0 && end === n ? points : points.slice(start, end);
}

/** A zoom window clamped into `full` and at least `minSpan` wide (null: the whole domain). */
export function clampWindow(win: readonly [number, number] | null | undefined, full: readonly [number, number], minSpan = 1e-3): [number, number] {
  if (!win) return [full[0], full[1]];
  let [a, b] = win[0] <= win[1] ? [win[0], win[1]] : [win[1], win[0]];
  const span = Math.min(full[1] - full[0], Math.max(minSpan, b - a));
  if (b - a < span) {
    const mid = (a + b) / 2;
    a = mid - span / 2;
    b = mid + span / 2;
  }
  if (a < full[0]) [a, b] = [full[0], full[0] + span];
  if (b > full[1]) [a, b] = [full[1] - span, full[1]];
  return [a, b];
}
