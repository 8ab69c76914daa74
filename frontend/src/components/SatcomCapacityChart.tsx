/**
 * "SATCOM capacity": the capacity of each direction of each budgeted SATCOM link over the run, as steps at each
 * MODCOD change (the link budget's ACM choice, `POST /api/timeline?access=true` `access`), with gaps where the link
 * is down (no MODCOD closes, or the terminal does not use the satellite). Drawn on the throughput charts' time axis
 * (same margins and time window) with the page's playback rule, so that a fade and the strategies' reaction line up.
 *
 * The capacities span a ship terminal's few Mbit/s and a feeder link's hundred: the y axis is logarithmic.
 */
import { scaleLog, scaleLinear } from "d3-scale";
import { memo, useMemo, type MouseEvent } from "react";
import type { AccessPass, ScenarioDocument } from "../api/types";
import { formatSeconds } from "../lib/format";
import { capacityAt, capacitySeries, modcodText, type CapacitySeries } from "../lib/satcomAccess";
import { ChartFrame } from "./ChartFrame";
import { TimeAxes, useChartWidth, type LegendItem } from "./chartKit";
import { formatTick } from "./ThroughputChart";

/** The throughput charts' side margins, so that the time axes line up. */
const MARGIN = { top: 10, right: 18, bottom: 44, left: 56 };
const PLOT_H = 130;
/** One colour per link (the up direction solid, the down one dashed). */
const COLOURS = ["#1d4ed8", "#b45309", "#047857", "#7c3aed", "#be123c", "#0e7490", "#4d7c0f", "#a21caf"];
const DOWN_DASH = "5 3";
const LOG_TICKS = [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000];

export interface SatcomCapacityChartProps {
  passes: readonly AccessPass[];
  doc: ScenarioDocument;
  /** The throughput charts' whole time domain (seconds). */
  domain: readonly [number, number];
  /** Their zoomed window (null: the whole domain). */
  view?: readonly [number, number] | null;
  /** The playback rule's time (the hovered, else the chosen one; null: none). */
  ruleT: number | null;
  onHover?: (t: number | null) => void;
  filename?: string;
}

function seriesCsv(series: readonly CapacitySeries[]): string {
  const rows = ["link,direction,label,t_start_s,t_end_s,capacity_mbps,modcod"];
  for (const s of series)
    for (const g of s.segments) rows.push([s.link, s.direction, JSON.stringify(s.label), g.t0_s, g.t1_s, g.capacity_mbps, JSON.stringify(g.modcod)].join(","));
  return rows.join("\n") + "\n";
}

function SatcomCapacityChartImpl({ passes, doc, domain, view, ruleT, onHover, filename }: SatcomCapacityChartProps) {
  const series = useMemo(() => capacitySeries(passes, doc), [passes, doc]);
  const [bodyRef, width] = useChartWidth<HTMLDivElement>();
  const window_ = view ?? domain;
  const innerW = Math.max(40, width - MARGIN.left - MARGIN.right);
  const height = MARGIN.top + PLOT_H + MARGIN.bottom;
  const x = useMemo(() => scaleLinear().domain(window_).range([0, innerW]), [window_, innerW]);
  const caps = series.flatMap((s) => s.segments.map((g) => g.capacity_mbps));
  const lo = caps.length ? Math.min(...caps) / 1.5 : 1;
  const hi = caps.length ? Math.max(...caps) * 1.5 : 10;
  const y = useMemo(() => scaleLog().domain([lo, hi]).range([PLOT_H, 0]).clamp(true), [lo, hi]);
  const colour = useMemo(() => {
    const links = [...new Set(series.map((s) => s.link))];
    return (s: CapacitySeries) => COLOURS[links.indexOf(s.link) % COLOURS.length]!;
  }, [series]);
  const legend: LegendItem[] = series.map((s) => ({ key: s.key, label: s.label, color: colour(s), dash: s.direction === "down" ? DOWN_DASH : undefined, kind: "line" }));
  if (!series.length) return null;

  const xTicks = x.ticks(Math.max(2, Math.floor(innerW / 90)));
  const yTicks = LOG_TICKS.filter((v) => v >= lo && v <= hi);
  const clip = (t: number) => Math.max(window_[0], Math.min(window_[1], t));
  const showRule = ruleT !== null && ruleT >= window_[0] && ruleT <= window_[1];
  const onMove = (e: MouseEvent<SVGRectElement>) => {
    const rect = e.currentTarget.getBoundingClientRect();
    const px = Math.max(0, Math.min(innerW, ((e.clientX - rect.left) / rect.width) * innerW));
    onHover?.(x.invert(px));
  };
  const onLeave = () => onHover?.(null);

  return (
    <ChartFrame
      title="SATCOM capacity"
      filename={`${filename ?? "satcom"}-capacity`}
      testId="satcom-capacity"
      description="Each budgeted link's capacity per direction (↑ terminal → satellite, ↓ satellite → terminal) as its MODCOD follows the link budget; gaps: the link is down. Hover a step for its MODCOD. A terminal sharing a beam gets its share of its carrier."
      legend={legend}
      csv={() => seriesCsv(series)}
    >
      <div className="chart-body" ref={bodyRef}>
        <svg width={width} height={height} className="chart-svg" role="img" aria-label={`SATCOM capacity over time, ${series.length} link directions`}>
          <g transform={`translate(${MARGIN.left},${MARGIN.top})`}>
            <TimeAxes xTicks={xTicks} yTicks={yTicks} x={x} y={y} innerW={innerW} innerH={PLOT_H} yLabel="Mbit/s (log)" format={formatTick} />
            {series.map((s) => (
              <g key={s.key} data-series={s.key} stroke={colour(s)} strokeDasharray={s.direction === "down" ? DOWN_DASH : undefined} fill="none" strokeWidth={2}>
                {s.segments.map((g, k) => {
                  if (g.t1_s < window_[0] || g.t0_s > window_[1]) return null;
                  const next = s.segments[k + 1];
                  // the rise or fall to the next step when it follows without a gap
                  const riser = next && next.t0_s === g.t1_s && g.t1_s <= window_[1] ? `V${y(next.capacity_mbps).toFixed(1)}` : "";
                  return (
                    <path
                      key={k}
                      d={`M${x(clip(g.t0_s)).toFixed(1)},${y(g.capacity_mbps).toFixed(1)}H${x(clip(g.t1_s)).toFixed(1)}${riser}`}
                      data-testid="capacity-step"
                      data-t0={g.t0_s}
                      data-t1={g.t1_s}
                      data-mbps={g.capacity_mbps}
                      data-modcod={g.modcod}
                    >
                      <title>{`${s.label}: ${modcodText(g.modcod, g.capacity_mbps)} from ${formatSeconds(g.t0_s)} to ${formatSeconds(g.t1_s)} s`}</title>
                    </path>
                  );
                })}
              </g>
            ))}
            {showRule ? <line x1={x(ruleT)} x2={x(ruleT)} y1={0} y2={PLOT_H} className="hover-rule" data-testid="capacity-rule" /> : null}
            <rect width={innerW} height={PLOT_H} fill="transparent" className="hover-target" onMouseMove={onMove} onMouseLeave={onLeave} />
          </g>
        </svg>
      </div>
      {showRule ? <CapacityReadout series={series} t={ruleT} /> : null}
    </ChartFrame>
  );
}

/** Each link's MODCOD and capacity per direction at the playback time, under the chart: one row per link. */
function CapacityReadout({ series, t }: { series: readonly CapacitySeries[]; t: number }) {
  const links = [...new Set(series.map((s) => s.link))];
  const cell = (s: CapacitySeries | undefined) => {
    if (!s) return <td />;
    const g = capacityAt(s, t);
    return <td data-series={s.key}>{g ? modcodText(g.modcod, g.capacity_mbps) : <span className="muted">down</span>}</td>;
  };
  return (
    <table className="compact capacity-readout" data-testid="capacity-readout" aria-live="off">
      <caption>At {formatSeconds(t)} s</caption>
      <thead>
        <tr>
          <th scope="col">Link</th>
          <th scope="col">↑ up</th>
          <th scope="col">↓ down</th>
        </tr>
      </thead>
      <tbody>
        {links.map((link) => {
          const up = series.find((s) => s.link === link && s.direction === "up");
          const down = series.find((s) => s.link === link && s.direction === "down");
          return (
            <tr key={link}>
              <th scope="row" title={link}>
                {(up ?? down)!.label.replace(/ [↑↓]$/, "")}
              </th>
              {cell(up)}
              {cell(down)}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** Memoised like the throughput charts: only the rule moves while another chart is hovered. */
export const SatcomCapacityChart = memo(SatcomCapacityChartImpl);
