/**
 * The quality of udp, voice and video flows on the results page (docs/traffic.md): the lines of the delay,
 * jitter, loss and MOS charts, and each flow's summary over the run. Pure; reads the per-flow series of
 * `chartData.flowSeries` (`FlowSeries.quality`, one sample per throughput point).
 *
 * Owns:
 * 1. `QUALITY_METRICS` — what each chart draws: the result fields, the unit, the fixed y range of MOS and its line.
 * 2. `qualityLines(series, metric)` — one line per strategy, flow and field, null values as gaps.
 * 3. `flowQualitySummary(flow)` — mean and 95th percentile delay, mean jitter, loss, mean and lowest MOS, video frames.
 * 4. `pooledLoss(intervals)` — the fraction lost of all the bits sent, each interval weighted by what it sent (the rule
 *    of `subflow.results.quality.pooled_loss`, which the CLI's quality table and the sweeps use).
 */
import type { FlowSeries, QualityField, StrategySeries } from "./chartData";

export type QualityMetric = "delay" | "jitter" | "loss" | "mos";

/** The quality charts in the order they are drawn beside the throughput charts. */
export const QUALITY_CHART_ORDER: readonly QualityMetric[] = ["delay", "jitter", "loss", "mos"];

export interface QualityMetricSpec {
  title: string;
  /** y axis label */
  unit: string;
  /** the result fields drawn, the first solid, the others thin (delay: mean and p95) */
  fields: readonly { field: QualityField; label: string }[];
  /** shown = stored × factor (loss fraction in %) */
  factor: number;
  /** a fixed y range (MOS 1 to 4.5, G.107 Annex B), else 0 to 5 % above the largest value */
  domain?: readonly [number, number];
  /** a horizontal reference line and what it means */
  reference?: { value: number; label: string };
  description: string;
}

export const QUALITY_METRICS: Record<QualityMetric, QualityMetricSpec> = {
  delay: {
    title: "One-way delay",
    unit: "ms",
    fields: [
      { field: "delay_ms", label: "mean" },
      { field: "delay_p95_ms", label: "p95" },
    ],
    factor: 1,
    description: "Mean one-way delay of the packets delivered in each interval (thin: their 95th percentile, where the engine gives it); gaps: nothing arrived.",
  },
  jitter: {
    title: "Jitter",
    unit: "ms",
    fields: [{ field: "jitter_ms", label: "jitter" }],
    factor: 1,
    description: "RFC 3550 interarrival jitter at the end of each interval.",
  },
  loss: {
    title: "Loss",
    unit: "%",
    fields: [{ field: "loss", label: "loss" }],
    factor: 100,
    description: "Share of the bits sent in each interval that were lost (full queues, link loss, no path).",
  },
  mos: {
    title: "Voice quality (MOS)",
    unit: "MOS",
    fields: [{ field: "mos", label: "MOS" }],
    factor: 1,
    domain: [1, 4.5],
    // MOS(R = 70) = 1 + 0.035·70 + 70·(70 − 60)·(100 − 70)·7·10⁻⁶ = 3.597 (G.107 Annex B); R 70 is the lower edge
    // of G.109's "medium" category (some users dissatisfied)
    reference: { value: 3.6, label: "MOS 3.6 (R 70): many users dissatisfied below (G.109)" },
    description: "Mean opinion score per interval from the ITU-T G.107 E-model (voice flows; none for a codec without G.113 values).",
  },
};

export interface QualityPoint {
  t_s: number;
  /** in the metric's displayed unit; null: no value in this interval (a gap) */
  v: number | null;
}

export interface QualityLine {
  key: string;
  strategy: string;
  flowId: string;
  field: QualityField;
  /** the metric's first field (solid, thick) or another one (thin) */
  primary: boolean;
  label: string;
  points: QualityPoint[];
}

/** The lines of a metric's chart: every strategy's flows that have a value of the field in some interval. */
export function qualityLines(series: readonly StrategySeries[], metric: QualityMetric): QualityLine[] {
  const spec = QUALITY_METRICS[metric];
  const out: QualityLine[] = [];
  for (const s of series)
    for (const f of s.flows) {
      const q = f.quality;
      if (!q) continue;
      spec.fields.forEach(({ field, label }, k) => {
        if (!q.some((x) => x[field] !== null)) return;
        const points = f.points.map((p, i) => {
          const v = q[i]?.[field] ?? null;
          return { t_s: p.t_s, v: v === null ? null : v * spec.factor };
        });
        out.push({ key: `${s.strategy}/${f.flowId}/${field}`, strategy: s.strategy, flowId: f.flowId, field, primary: k === 0, label: `${s.strategy} · ${f.flowId}${spec.fields.length > 1 ? ` ${label}` : ""}`, points });
      });
    }
  return out;
}

/** The y range of a metric's chart: its fixed one, else 0 to 5 % above the largest value (1 if none). */
export function qualityDomain(lines: readonly QualityLine[], metric: QualityMetric): [number, number] {
  const fixed = QUALITY_METRICS[metric].domain;
  if (fixed) return [fixed[0], fixed[1]];
  let hi = 0;
  for (const l of lines) for (const p of l.points) if (p.v !== null && p.v > hi) hi = p.v;
  return [0, hi > 0 ? hi * 1.05 : 1];
}

/** True if some flow of `series` has quality series (udp, voice, video), i.e. there are quality charts to draw. */
export function hasQuality(series: readonly StrategySeries[]): boolean {
  return series.some((s) => s.flows.some((f) => f.quality));
}

/**
 * One y range per metric over several comparisons' series (side by side): `qualityDomain` of all their lines
 * together, so that each column's chart of a metric has the same scale.
 */
export function sharedQualityDomains(groups: readonly (readonly StrategySeries[])[]): Record<QualityMetric, [number, number]> {
  const out = {} as Record<QualityMetric, [number, number]>;
  for (const m of QUALITY_CHART_ORDER) out[m] = qualityDomain(groups.flatMap((g) => qualityLines(g, m)), m);
  return out;
}

export interface FlowQualitySummary {
  /** mean one-way delay of the delivered bits, ms: the intervals' delays weighted by their throughput */
  meanDelayMs: number | null;
  /** 95th percentile (nearest rank) over the intervals of their mean delay, ms (of their p95 without a mean) */
  p95DelayMs: number | null;
  meanJitterMs: number | null;
  /** the fraction lost of all the bits sent over the run (`pooledLoss`: each interval weighted by what it sent) */
  loss: number | null;
  meanMos: number | null;
  minMos: number | null;
  framesSent: number | null;
  framesLate: number | null;
  framesLost: number | null;
}

const values = (f: FlowSeries, field: QualityField): number[] => (f.quality ?? []).map((q) => q[field]).filter((v): v is number => v !== null);
const mean = (v: readonly number[]): number | null => (v.length ? v.reduce((a, b) => a + b, 0) / v.length : null);
const sum = (v: readonly number[]): number | null => (v.length ? v.reduce((a, b) => a + b, 0) : null);

/** Nearest-rank percentile: the smallest value with at least p % of the values at or below it. */
export function nearestRank(v: readonly number[], p: number): number | null {
  if (!v.length) return null;
  const sorted = [...v].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * The fraction lost of all the bits sent over some intervals: Σ loss·sent / Σ sent over the intervals with a loss
 * (null loss: nothing sent, left out), when each of them has what it sent (`sent_mbps`; the intervals are equally
 * long, so Mbit/s weigh as bits); else (a result stored before `sent_mbps`) the mean of their losses. An on/off
 * source or a call with silence suppression sends little or nothing in some intervals: they must not weigh like
 * full ones. Null without any loss. Mirrors `subflow.results.quality.pooled_loss`.
 */
export function pooledLoss(intervals: readonly { loss: number | null; sent: number | null }[]): number | null {
  const pairs = intervals.filter((x): x is { loss: number; sent: number | null } => x.loss !== null && Number.isFinite(x.loss));
  if (!pairs.length) return null;
  if (pairs.every((x) => x.sent !== null && Number.isFinite(x.sent))) {
    const sent = pairs.reduce((a, x) => a + x.sent!, 0);
    if (sent > 0) return pairs.reduce((a, x) => a + x.loss * x.sent!, 0) / sent;
  }
  return pairs.reduce((a, x) => a + x.loss, 0) / pairs.length;
}

/** A flow's quality over the run, null for a flow without quality series (tcp). */
export function flowQualitySummary(f: FlowSeries): FlowQualitySummary | null {
  const q = f.quality;
  if (!q) return null;
  // delay of the delivered bits: each interval's mean weighted by what it delivered (unweighted if nothing did)
  let wSum = 0;
  let wd = 0;
  q.forEach((x, i) => {
    const mbps = f.points[i]?.mbps ?? 0;
    if (x.delay_ms !== null && mbps > 0) {
      wSum += mbps;
      wd += mbps * x.delay_ms;
    }
  });
  const delays = values(f, "delay_ms");
  const mos = values(f, "mos");
  return {
    meanDelayMs: wSum > 0 ? wd / wSum : mean(delays),
    p95DelayMs: nearestRank(delays.length ? delays : values(f, "delay_p95_ms"), 95),
    meanJitterMs: mean(values(f, "jitter_ms")),
    loss: pooledLoss(q.map((x, i) => ({ loss: x.loss, sent: f.sentMbps?.[i] ?? null }))),
    meanMos: mean(mos),
    minMos: mos.length ? Math.min(...mos) : null,
    framesSent: sum(values(f, "frames_sent")),
    framesLate: sum(values(f, "frames_late")),
    framesLost: sum(values(f, "frames_lost")),
  };
}

export interface QualityRow extends FlowQualitySummary {
  key: string;
  strategy: string;
  flowId: string;
}

/** One summary row per strategy and flow that has quality series, in the strategies' order. */
export function qualityRows(series: readonly StrategySeries[]): QualityRow[] {
  const rows: QualityRow[] = [];
  for (const s of series)
    for (const f of s.flows) {
      const sum_ = flowQualitySummary(f);
      if (sum_) rows.push({ key: `${s.strategy}/${f.flowId}`, strategy: s.strategy, flowId: f.flowId, ...sum_ });
    }
  return rows;
}
