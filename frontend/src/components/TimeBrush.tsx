/**
 * The time window of the synchronized throughput charts: an overview of the whole run with a
 * d3-brush selection. Brushing sets the window of every chart; zooming or panning a chart moves
 * the brush. "Whole run" clears the window.
 */
import { brushX, type BrushBehavior, type D3BrushEvent } from "d3-brush";
import { scaleLinear } from "d3-scale";
import { select } from "d3-selection";
import { line } from "d3-shape";
import { useEffect, useMemo, useRef } from "react";
import { decimate, type Domains, type FlowStyle, type SeriesPoint, type StrategySeries } from "../lib/chartData";
import { formatSeconds } from "../lib/format";
import { useChartWidth } from "./chartKit";
import { formatTick } from "./ThroughputChart";

const H = 64;
const M = { top: 6, right: 18, bottom: 22, left: 56 };

export interface TimeBrushProps {
  series: StrategySeries;
  domains: Domains;
  styles: Record<string, FlowStyle>;
  view: readonly [number, number] | null;
  onView: (w: [number, number] | null) => void;
}

export function TimeBrush({ series, domains, styles, view, onView }: TimeBrushProps) {
  const [bodyRef, width] = useChartWidth<HTMLDivElement>();
  const iw = Math.max(40, width - M.left - M.right);
  const ih = H - M.top - M.bottom;
  const x = useMemo(() => scaleLinear().domain(domains.x).range([0, iw]), [domains.x, iw]);
  const y = useMemo(() => scaleLinear().domain(domains.y).range([ih, 0]), [domains.y, ih]);
  const paths = useMemo(() => {
    const gen = line<SeriesPoint>()
      .x(function xOfPoint(p) {
        return x(p.t_s);
      })
      .y(function yOfPoint(p) {
        return y(p.mbps);
      });
    return series.flows.map((f) => ({ flowId: f.flowId, d: gen(decimate(f.points, iw)) ?? "" }));
  }, [series, x, y, iw]);

  const gRef = useRef<SVGGElement | null>(null);
  const brushRef = useRef<BrushBehavior<unknown> | null>(null);
  const onViewRef = useRef(onView);
  onViewRef.current = onView;
  useEffect(() => {
    const g = gRef.current;
    if (!g) return;
    const b = brushX<unknown>()
      .extent([
        [0, 0],
        [iw, ih],
      ])
      .on("brush end", (ev: D3BrushEvent<unknown>) => {
        if (!ev.sourceEvent) return; // moved from the shared window
        const sel = ev.selection as [number, number] | null;
        if (!sel || sel[1] - sel[0] < 2) {
          if (ev.type === "end") onViewRef.current(null);
          return;
        }
        onViewRef.current([x.invert(sel[0]), x.invert(sel[1])]);
      });
    brushRef.current = b;
    select(g).call(b);
    return () => {
      select(g).on(".brush", null);
      select(g).selectAll("*").remove();
      brushRef.current = null;
    };
  }, [iw, ih, x]);
  useEffect(() => {
    const g = gRef.current;
    const b = brushRef.current;
    if (!g || !b) return;
    const whole = !view || (view[0] <= domains.x[0] && view[1] >= domains.x[1]);
    select(g).call(b.move, whole ? null : [x(view![0]), x(view![1])]);
  }, [view, x, domains.x, iw, ih]);

  const ticks = x.ticks(Math.max(2, Math.floor(iw / 90)));
  return (
    <div className="time-brush" data-testid="time-brush">
      <div className="time-brush-head">
        <span className="small">
          Time window:{" "}
          <strong data-testid="time-window">{view ? `${formatSeconds(view[0])}–${formatSeconds(view[1])} s` : `whole run (${formatSeconds(domains.x[0])}–${formatSeconds(domains.x[1])} s)`}</strong>
          <span className="muted"> · drag here to choose it; ctrl + wheel over a chart zooms, drag pans</span>
        </span>
        <button type="button" className="btn btn-small" onClick={() => onView(null)} disabled={!view}>
          Whole run
        </button>
      </div>
      <div ref={bodyRef}>
        <svg width={width} height={H} className="chart-svg" role="img" aria-label={`Overview of the run, ${series.strategy}: time window selection`}>
          <g transform={`translate(${M.left},${M.top})`}>
            {paths.map((p) => (
              <path key={p.flowId} d={p.d} fill="none" stroke={styles[p.flowId]?.color ?? "#334155"} strokeWidth={1} opacity={0.6} />
            ))}
            <line x1={0} x2={iw} y1={ih} y2={ih} className="axis" />
            {ticks.map((t) => (
              <text key={t} x={x(t)} y={ih + 15} textAnchor="middle" className="tick">
                {formatTick(t)}
              </text>
            ))}
            <g ref={gRef} className="brush" />
          </g>
        </svg>
      </div>
    </div>
  );
}
