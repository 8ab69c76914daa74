/**
 * One strategy's throughput over time: one line per flow (optionally its
 * subflows, thinner), event markers (handover, RTO, route change) on the time
 * axis, and a hover rule shared with the other charts of the page.
 *
 * d3 computes the scales and the line paths; React renders the SVG. All charts
 * of a comparison receive the same `domains` so they share axes.
 */
import { scaleLinear, type ScaleLinear } from "d3-scale";
import { line } from "d3-shape";
import { memo, useMemo, type MouseEvent } from "react";
import {
  decimate,
  seriesCsv,
  type Domains,
  type FlowStyle,
  type HandoverMarker,
  type SeriesPoint,
  type StrategySeries,
  type SubflowSeries,
} from "../lib/chartData";
import { kindLabel } from "../lib/events";
import { ChartFrame } from "./ChartFrame";

const WIDTH = 560;
const HEIGHT = 300;
const MARGIN = { top: 12, right: 16, bottom: 42, left: 52 };
const INNER_W = WIDTH - MARGIN.left - MARGIN.right;
const INNER_H = HEIGHT - MARGIN.top - MARGIN.bottom;

export const MARKER_STYLE: Record<string, { color: string; dash: string; label: string }> = {
  handover_start: { color: "#dc2626", dash: "4 3", label: "handover start" },
  association: { color: "#059669", dash: "", label: "association" },
  rto: { color: "#7c3aed", dash: "1 3", label: "RTO" },
  route_change: { color: "#0891b2", dash: "6 2 1 2", label: "route change" },
  route_lost: { color: "#b45309", dash: "2 2", label: "route lost" },
};

function timeOfPoint(p: SeriesPoint): number {
  return p.t_s;
}

function throughputOfPoint(p: SeriesPoint): number {
  return p.mbps;
}

function makeScales(domains: Domains): { x: ScaleLinear<number, number>; y: ScaleLinear<number, number> } {
  return {
    x: scaleLinear().domain(domains.x).range([0, INNER_W]),
    y: scaleLinear().domain(domains.y).range([INNER_H, 0]).nice(),
  };
}

export function formatTick(v: number): string {
  return String(Number(v.toFixed(6)));
}

export interface ThroughputChartProps {
  series: StrategySeries;
  domains: Domains;
  styles: Record<string, FlowStyle>;
  description?: string;
  /** marker kinds to draw (default: all of the series' markers) */
  markerKinds?: readonly string[];
  subflows?: SubflowSeries[] | null;
  hoverT?: number | null;
  onHover?: (t: number | null) => void;
  /** prefix of the export file names */
  filename?: string;
  title?: string;
  testId?: string;
}

function ThroughputChartImpl({
  series,
  domains,
  styles,
  description,
  markerKinds,
  subflows,
  hoverT,
  onHover,
  filename,
  title,
  testId,
}: ThroughputChartProps) {
  const { x, y } = useMemo(() => makeScales(domains), [domains]);
  const gen = useMemo(
    () =>
      line<SeriesPoint>()
        .x(function xOfPoint(p) {
          return x(timeOfPoint(p));
        })
        .y(function yOfPoint(p) {
          return y(throughputOfPoint(p));
        }),
    [x, y],
  );
  // at most ~4 points per horizontal pixel are drawn (min–max decimation)
  const paths = useMemo(() => series.flows.map((f) => ({ flowId: f.flowId, d: gen(decimate(f.points, INNER_W)) ?? "", n: f.points.length })), [series, gen]);
  const subPaths = useMemo(
    () => (subflows ?? []).map((s) => ({ key: `${s.flowId}/${s.subflowId}`, flowId: s.flowId, subflowId: s.subflowId, d: gen(decimate(s.points, INNER_W)) ?? "" })),
    [subflows, gen],
  );
  const xTicks = x.ticks(8);
  const yTicks = y.ticks(6);
  const markers: HandoverMarker[] = series.markers.filter(
    (m) => m.t_s >= domains.x[0] && m.t_s <= domains.x[1] && (!markerKinds || markerKinds.includes(m.kind)),
  );
  const shownKinds = [...new Set(markers.map((m) => m.kind))];

  const onMove = (e: MouseEvent<SVGRectElement>) => {
    if (!onHover) return;
    const rect = e.currentTarget.getBoundingClientRect();
    const px = ((e.clientX - rect.left) / rect.width) * INNER_W;
    onHover(x.invert(Math.max(0, Math.min(INNER_W, px))));
  };
  const name = title ?? series.strategy;

  return (
    <ChartFrame
      title={name}
      filename={`${filename ?? "throughput"}-${series.strategy}`}
      testId={testId ?? `chart-${series.strategy}`}
      description={description}
      csv={() => seriesCsv([series], (subflows ?? []).map((s) => ({ ...s, strategy: series.strategy })))}
    >
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} className="chart-svg" role="img" aria-label={`Throughput per flow over time, ${name}`}>
        <defs>
          <clipPath id={`clip-${series.strategy}-${testId ?? ""}`}>
            <rect x={0} y={-2} width={INNER_W} height={INNER_H + 4} />
          </clipPath>
        </defs>
        <g transform={`translate(${MARGIN.left},${MARGIN.top})`}>
          {yTicks.map((t) => (
            <g key={`y${t}`} transform={`translate(0,${y(t)})`}>
              <line x1={0} x2={INNER_W} className="grid" />
              <text x={-8} dy="0.32em" textAnchor="end" className="tick">
                {formatTick(t)}
              </text>
            </g>
          ))}
          {xTicks.map((t) => (
            <g key={`x${t}`} transform={`translate(${x(t)},${INNER_H})`}>
              <line y1={0} y2={5} className="axis" />
              <text y={18} textAnchor="middle" className="tick">
                {formatTick(t)}
              </text>
            </g>
          ))}
          <line x1={0} x2={INNER_W} y1={INNER_H} y2={INNER_H} className="axis" />
          <line x1={0} x2={0} y1={0} y2={INNER_H} className="axis" />
          <text x={INNER_W / 2} y={INNER_H + 36} textAnchor="middle" className="axis-label">
            time (s)
          </text>
          <text transform={`translate(-40,${INNER_H / 2}) rotate(-90)`} textAnchor="middle" className="axis-label">
            throughput (Mbit/s)
          </text>
          {markers.map((m, i) => {
            const st = MARKER_STYLE[m.kind] ?? { color: "#64748b", dash: "2 2" };
            return (
              <line
                key={`m${i}`}
                x1={x(m.t_s)}
                x2={x(m.t_s)}
                y1={0}
                y2={INNER_H}
                stroke={st.color}
                strokeDasharray={st.dash || undefined}
                strokeWidth={1.2}
                opacity={0.75}
                data-kind={m.kind}
                data-t={m.t_s}
                className="marker"
              >
                <title>{`${kindLabel(m.kind)}${m.node ? ` (${m.node})` : ""} at ${formatTick(m.t_s)} s`}</title>
              </line>
            );
          })}
          <g clipPath={`url(#clip-${series.strategy}-${testId ?? ""})`}>
            {subPaths.map((p) => (
              <path
                key={p.key}
                d={p.d}
                fill="none"
                stroke={styles[p.flowId]?.color ?? "#334155"}
                strokeWidth={1}
                strokeDasharray="3 2"
                opacity={0.7}
                data-testid={`subflow-${series.strategy}-${p.key}`}
              >
                <title>{`subflow ${p.subflowId}`}</title>
              </path>
            ))}
            {paths.map((p) => (
              <path
                key={p.flowId}
                d={p.d}
                fill="none"
                stroke={styles[p.flowId]?.color ?? "#334155"}
                strokeDasharray={styles[p.flowId]?.dash || undefined}
                strokeWidth={2}
                strokeLinejoin="round"
                strokeLinecap="round"
                data-testid={`line-${series.strategy}-${p.flowId}`}
                data-samples={p.n}
              >
                <title>{`flow ${p.flowId}`}</title>
              </path>
            ))}
          </g>
          {hoverT !== null && hoverT !== undefined && hoverT >= domains.x[0] && hoverT <= domains.x[1] ? (
            <line x1={x(hoverT)} x2={x(hoverT)} y1={0} y2={INNER_H} className="hover-rule" data-testid="hover-rule" />
          ) : null}
          {onHover ? (
            <rect
              width={INNER_W}
              height={INNER_H}
              fill="transparent"
              className="hover-target"
              onMouseMove={onMove}
              onMouseLeave={() => onHover(null)}
            />
          ) : null}
        </g>
      </svg>
      <ul className="chart-legend" aria-label={`Legend, ${name}`}>
        {series.flows.map((f) => (
          <li key={f.flowId}>
            <svg width="22" height="8" aria-hidden="true">
              <line x1="1" x2="21" y1="4" y2="4" stroke={styles[f.flowId]?.color ?? "#334155"} strokeWidth="2.5" strokeDasharray={styles[f.flowId]?.dash || undefined} />
            </svg>
            flow {f.flowId}
          </li>
        ))}
        {shownKinds.map((k) => {
          const st = MARKER_STYLE[k] ?? { color: "#64748b", dash: "2 2" };
          return (
            <li key={k}>
              <svg width="10" height="14" aria-hidden="true">
                <line x1="5" x2="5" y1="0" y2="14" stroke={st.color} strokeWidth="1.5" strokeDasharray={st.dash || undefined} />
              </svg>
              {kindLabel(k)}
            </li>
          );
        })}
      </ul>
    </ChartFrame>
  );
}

/** Memoised: hovering another chart re-renders only the rule, not the paths. */
export const ThroughputChart = memo(ThroughputChartImpl);
