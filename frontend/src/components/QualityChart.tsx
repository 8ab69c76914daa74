/**
 * One quality metric of the udp, voice and video flows over time (delay, jitter, loss or MOS; `lib/flowQuality`):
 * one line per strategy (its colour) and flow (its dash), gaps where an interval has no value. Drawn on the
 * throughput charts' time axis (chartKit's TimeAxes, same margins and time window) with the page's playback rule.
 */
import { scaleLinear } from "d3-scale";
import { line } from "d3-shape";
import { memo, useMemo, type MouseEvent } from "react";
import type { FlowStyle, StrategySeries } from "../lib/chartData";
import { seriesCsv } from "../lib/chartData";
import { QUALITY_METRICS, qualityDomain, qualityLines, type QualityMetric, type QualityPoint } from "../lib/flowQuality";
import { ChartFrame } from "./ChartFrame";
import { TimeAxes, useChartWidth, type LegendItem } from "./chartKit";
import { formatTick } from "./ThroughputChart";

/** The throughput charts' side margins, so that the time axes line up. */
const MARGIN = { top: 10, right: 18, bottom: 44, left: 56 };
const PLOT_H = 140;
const REFERENCE_DASH = "6 4";

export interface QualityChartProps {
  metric: QualityMetric;
  series: readonly StrategySeries[];
  /** strategy → colour, flow → dash (the throughput charts' styles) */
  colors: Record<string, string>;
  styles: Record<string, FlowStyle>;
  /** the throughput charts' whole time domain (seconds) and their zoomed window (null: the whole domain) */
  domain: readonly [number, number];
  view?: readonly [number, number] | null;
  ruleT: number | null;
  onHover?: (t: number | null) => void;
  filename?: string;
  /** a y range shared with other charts of the metric (side by side: every comparison's lines,
   * `qualityDomain`); default: this chart's own */
  yDomain?: readonly [number, number];
  /** the chart's name in its test ids and its clip path's id, unique on the page (default: the metric) */
  id?: string;
}

const definedPoint = (p: QualityPoint) => p.v !== null;

function QualityChartImpl({ metric, series, colors, styles, domain, view, ruleT, onHover, filename, yDomain, id = metric }: QualityChartProps) {
  const spec = QUALITY_METRICS[metric];
  const lines = useMemo(() => qualityLines(series, metric), [series, metric]);
  const [bodyRef, width] = useChartWidth<HTMLDivElement>();
  const window_ = view ?? domain;
  const innerW = Math.max(40, width - MARGIN.left - MARGIN.right);
  const height = MARGIN.top + PLOT_H + MARGIN.bottom;
  const [lo, hi] = yDomain ?? qualityDomain(lines, metric);
  const x = useMemo(() => scaleLinear().domain(window_).range([0, innerW]), [window_, innerW]);
  const y = useMemo(() => scaleLinear().domain([lo, hi]).range([PLOT_H, 0]).nice(), [lo, hi]);
  if (!lines.length) return null;
  const path = line<QualityPoint>()
    .defined(definedPoint)
    .x((p) => x(p.t_s))
    .y((p) => y(p.v!));
  const legend: LegendItem[] = lines.map((l) => ({ key: l.key, label: l.label, color: colors[l.strategy] ?? "#334155", dash: styles[l.flowId]?.dash, width: l.primary ? 2 : 1.2, kind: "line" }));
  if (spec.reference) legend.push({ key: "reference", label: spec.reference.label, color: "#64748b", dash: REFERENCE_DASH, width: 1, kind: "line" });
  const xTicks = x.ticks(Math.max(2, Math.floor(innerW / 90)));
  const yTicks = y.ticks(4);
  const showRule = ruleT !== null && ruleT >= window_[0] && ruleT <= window_[1];
  const onMove = (e: MouseEvent<SVGRectElement>) => {
    const rect = e.currentTarget.getBoundingClientRect();
    const px = Math.max(0, Math.min(innerW, ((e.clientX - rect.left) / rect.width) * innerW));
    onHover?.(x.invert(px));
  };
  const inWindow = (p: QualityPoint) => p.t_s >= window_[0] && p.t_s <= window_[1];
  const flows = series.map((s) => ({ ...s, flows: s.flows.filter((f) => f.quality) })).filter((s) => s.flows.length);

  return (
    <ChartFrame title={spec.title} filename={`${filename ?? "flows"}-${metric}`} testId={`quality-${id}`} description={spec.description} legend={legend} csv={() => seriesCsv(flows)}>
      <div className="chart-body" ref={bodyRef}>
        <svg width={width} height={height} className="chart-svg" role="img" aria-label={`${spec.title} over time (${spec.unit}), ${lines.length} lines`}>
          <defs>
            <clipPath id={`quality-clip-${id}`}>
              <rect width={innerW} height={PLOT_H} />
            </clipPath>
          </defs>
          <g transform={`translate(${MARGIN.left},${MARGIN.top})`}>
            <TimeAxes xTicks={xTicks} yTicks={yTicks} x={x} y={y} innerW={innerW} innerH={PLOT_H} yLabel={spec.unit} format={formatTick} />
            {spec.reference ? (
              <line x1={0} x2={innerW} y1={y(spec.reference.value)} y2={y(spec.reference.value)} stroke="#64748b" strokeDasharray={REFERENCE_DASH} data-testid={`quality-${id}-reference`} />
            ) : null}
            <g clipPath={`url(#quality-clip-${id})`}>
              {lines.map((l) => (
                <path
                  key={l.key}
                  d={path(l.points.filter((p, i, all) => inWindow(p) || inWindow(all[i - 1] ?? p) || inWindow(all[i + 1] ?? p))) ?? ""}
                  data-series={l.key}
                  fill="none"
                  stroke={colors[l.strategy] ?? "#334155"}
                  strokeDasharray={styles[l.flowId]?.dash || undefined}
                  strokeWidth={l.primary ? 2 : 1.2}
                  strokeOpacity={l.primary ? 1 : 0.75}
                >
                  <title>{l.label}</title>
                </path>
              ))}
            </g>
            {showRule ? <line x1={x(ruleT)} x2={x(ruleT)} y1={0} y2={PLOT_H} className="hover-rule" /> : null}
            <rect width={innerW} height={PLOT_H} fill="transparent" className="hover-target" onMouseMove={onMove} onMouseLeave={() => onHover?.(null)} />
          </g>
        </svg>
      </div>
    </ChartFrame>
  );
}

/** Memoised like the throughput charts: only the rule moves while another chart is hovered. */
export const QualityChart = memo(QualityChartImpl);
