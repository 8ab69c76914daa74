/**
 * One strategy's throughput over time: one line per flow (optionally its subflows, thinner and
 * dashed), event markers in lanes above the plot (one lane per kind, a glyph per event, so that
 * they neither crowd nor look like flow lines), a hover rule shared with the other charts and a
 * readout at the cursor.
 *
 * The chart is as wide as its card (ResizeObserver; text keeps its CSS size). The time axis zooms
 * (ctrl + wheel, pinch) and pans (drag) with d3-zoom; the window is the parent's (`view`/`onView`), so every
 * synchronized chart and the brush show the same one. d3 computes scales and paths; React renders
 * the SVG. Only the points inside the window are decimated and drawn.
 */
import { scaleLinear } from "d3-scale";
import { select } from "d3-selection";
import { line } from "d3-shape";
import { zoom, zoomIdentity, zoomTransform, type D3ZoomEvent, type ZoomBehavior } from "d3-zoom";
import { memo, useEffect, useId, useMemo, useRef, useState, useSyncExternalStore, type MouseEvent, type ReactNode } from "react";
import {
  clampWindow,
  decimate,
  nearestIndex,
  seriesCsv,
  subflowDash,
  type Domains,
  type FlowStyle,
  type HandoverMarker,
  type SeriesPoint,
  type StrategySeries,
  type SubflowSeries,
  visiblePoints,
} from "../lib/chartData";
import { kindLabel } from "../lib/events";
import { formatFixed3, formatSeconds } from "../lib/format";
import { ChartFrame } from "./ChartFrame";
import { glyphPath, MARKER_STYLE, TimeAxes, useChartWidth, type LegendItem } from "./chartKit";

export { MARKER_STYLE } from "./chartKit";

/** Plot height (pixels): the same in every chart whatever its marker lanes, so that y axes match. */
const PLOT_H = 240;
/** On a short screen (1024×768), so that the first chart is above the fold. */
const PLOT_H_SHORT = 200;
const SHORT_SCREEN = "(max-height: 820px)";

/** Whether the viewport is short ({@link SHORT_SCREEN}), following resizes. */
function useShortScreen(): boolean {
  return useSyncExternalStore(
    (cb) => {
      const mq = typeof window.matchMedia === "function" ? window.matchMedia(SHORT_SCREEN) : null;
      mq?.addEventListener?.("change", cb);
      return () => mq?.removeEventListener?.("change", cb);
    },
    () => (typeof window.matchMedia === "function" ? window.matchMedia(SHORT_SCREEN).matches : false),
    () => false,
  );
}
const MARGIN = { top: 10, right: 18, bottom: 44, left: 56 };
const LANE_H = 13;
/** Guide lines through the plot are drawn only when at most this many markers are in view. */
const MAX_GUIDES = 200;
/** Deepest zoom: the window is at least this fraction of the whole run. */
const MAX_ZOOM = 2000;

function timeOfPoint(p: SeriesPoint): number {
  return p.t_s;
}

function throughputOfPoint(p: SeriesPoint): number {
  return p.mbps;
}

export function formatTick(v: number): string {
  return String(Number(v.toFixed(6)));
}

export interface ThroughputChartProps {
  series: StrategySeries;
  /** the whole x domain (seconds) and the y domain (Mbit/s), shared by the synchronized charts */
  domains: Domains;
  /** the zoomed time window (null: the whole x domain) */
  view?: readonly [number, number] | null;
  /** the user zoomed or panned this chart: the new window */
  onView?: (w: [number, number]) => void;
  styles: Record<string, FlowStyle>;
  description?: string;
  /** marker kinds to draw (default: all of the series' markers) */
  markerKinds?: readonly string[];
  subflows?: SubflowSeries[] | null;
  hoverT?: number | null;
  onHover?: (t: number | null) => void;
  /** content of the readout at the cursor (default: this chart's flows at t) */
  readout?: (t: number) => ReactNode;
  /** prefix of the export file names */
  filename?: string;
  title?: string;
  testId?: string;
}

/** Legend of a throughput chart: its flows, the subflows drawn, and the marker kinds in view. */
export function throughputLegend(series: StrategySeries, styles: Record<string, FlowStyle>, subflows: readonly SubflowSeries[], kinds: readonly string[]): LegendItem[] {
  const items: LegendItem[] = series.flows.map((f) => ({
    key: `flow:${f.flowId}`,
    label: `flow ${f.flowId}`,
    color: styles[f.flowId]?.color ?? "#334155",
    dash: styles[f.flowId]?.dash,
    kind: "line",
  }));
  const perFlow = new Map<string, number>();
  for (const s of subflows) {
    const i = perFlow.get(s.flowId) ?? 0;
    perFlow.set(s.flowId, i + 1);
    items.push({ key: `subflow:${s.flowId}/${s.subflowId}`, label: `subflow ${s.subflowId}`, color: styles[s.flowId]?.color ?? "#334155", dash: subflowDash(i), width: 1.2, kind: "line" });
  }
  for (const k of kinds) {
    const st = MARKER_STYLE[k];
    items.push({ key: `marker:${k}`, label: kindLabel(k), color: st?.color ?? "#64748b", glyph: st?.glyph ?? "circle", kind: "marker" });
  }
  return items;
}

function ThroughputChartImpl({
  series,
  domains,
  view,
  onView,
  styles,
  description,
  markerKinds,
  subflows,
  hoverT,
  onHover,
  readout,
  filename,
  title,
  testId,
}: ThroughputChartProps) {
  const [bodyRef, width] = useChartWidth<HTMLDivElement>();
  const clipId = useId().replace(/:/g, "");
  const window_ = useMemo(() => clampWindow(view, domains.x, (domains.x[1] - domains.x[0]) / MAX_ZOOM), [view, domains.x]);
  const inView = (t: number) => t >= window_[0] && t <= window_[1];

  const allMarkers: HandoverMarker[] = useMemo(
    () => series.markers.filter((m) => !markerKinds || markerKinds.includes(m.kind)),
    [series.markers, markerKinds],
  );
  const kinds = useMemo(() => [...new Set(allMarkers.map((m) => m.kind))].sort((a, b) => Object.keys(MARKER_STYLE).indexOf(a) - Object.keys(MARKER_STYLE).indexOf(b)), [allMarkers]);
  const top = MARGIN.top + kinds.length * LANE_H + (kinds.length ? 4 : 0);
  const innerW = Math.max(40, width - MARGIN.left - MARGIN.right);
  const innerH = useShortScreen() ? PLOT_H_SHORT : PLOT_H;
  const height = top + innerH + MARGIN.bottom;

  const x = useMemo(() => scaleLinear().domain(window_).range([0, innerW]), [window_, innerW]);
  const y = useMemo(() => scaleLinear().domain(domains.y).range([innerH, 0]).nice(), [domains.y, innerH]);
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
  // only the points in the window, at most ~4 per horizontal pixel (min–max decimation)
  const paths = useMemo(
    () => series.flows.map((f) => ({ flowId: f.flowId, d: gen(decimate(visiblePoints(f.points, window_[0], window_[1]) as SeriesPoint[], innerW)) ?? "", n: f.points.length })),
    [series, gen, window_, innerW],
  );
  const subList = subflows ?? [];
  const subPaths = useMemo(() => {
    const perFlow = new Map<string, number>();
    return (subflows ?? []).map((s) => {
      const i = perFlow.get(s.flowId) ?? 0;
      perFlow.set(s.flowId, i + 1);
      return { key: `${s.flowId}/${s.subflowId}`, flowId: s.flowId, subflowId: s.subflowId, dash: subflowDash(i), d: gen(decimate(visiblePoints(s.points, window_[0], window_[1]) as SeriesPoint[], innerW)) ?? "" };
    });
  }, [subflows, gen, window_, innerW]);
  const xTicks = x.ticks(Math.max(2, Math.floor(innerW / 90)));
  const yTicks = y.ticks(Math.max(2, Math.floor(innerH / 40)));
  const markers = allMarkers.filter((m) => inView(m.t_s));

  // d3-zoom on the plot: wheel zooms, drag pans the time axis; the window lives in the parent
  const targetRef = useRef<SVGRectElement | null>(null);
  const zoomRef = useRef<ZoomBehavior<SVGRectElement, unknown> | null>(null);
  /** True while the shared window is being applied to this chart's zoom state. */
  const syncing = useRef(false);
  const full = domains.x;
  const onViewRef = useRef(onView);
  onViewRef.current = onView;
  useEffect(() => {
    const el = targetRef.current;
    if (!el || !onViewRef.current) return;
    const base = scaleLinear().domain(full).range([0, innerW]);
    const z = zoom<SVGRectElement, unknown>()
      .scaleExtent([1, MAX_ZOOM])
      .extent([
        [0, 0],
        [innerW, innerH],
      ])
      .translateExtent([
        [0, 0],
        [innerW, innerH],
      ])
      // ctrl + wheel (and a trackpad pinch) zooms, so that the plain wheel still scrolls the page
      .filter((ev: Event) => (ev.type === "wheel" && (ev as WheelEvent).ctrlKey) || ev.type === "mousedown" || ev.type.startsWith("touch"))
      .wheelDelta((ev: WheelEvent) => -ev.deltaY * (ev.deltaMode === 1 ? 0.05 : ev.deltaMode ? 1 : 0.002))
      .on("zoom", (ev: D3ZoomEvent<SVGRectElement, unknown>) => {
        // set from the shared window, not by the user: no sourceEvent, or (inside a wheel gesture,
        // whose event d3-zoom lends to every transform until the gesture idles) while syncing
        if (!ev.sourceEvent || syncing.current) return;
        const d = ev.transform.rescaleX(base).domain() as [number, number];
        onViewRef.current?.([d[0], d[1]]);
      });
    zoomRef.current = z;
    select(el).call(z).on("dblclick.zoom", null);
    return () => {
      select(el).on(".zoom", null);
      zoomRef.current = null;
    };
  }, [full, innerW, innerH]);
  // the shared window → this chart's zoom state (no event reaches onView: no sourceEvent)
  useEffect(() => {
    const el = targetRef.current;
    const z = zoomRef.current;
    if (!el || !z) return;
    const base = scaleLinear().domain(full).range([0, innerW]);
    const k = (full[1] - full[0]) / (window_[1] - window_[0]);
    const t = zoomIdentity.translate(-k * base(window_[0]), 0).scale(k);
    const cur = zoomTransform(el);
    // already there (the window this chart's own gesture just reported): leave the gesture alone
    if (Math.abs(cur.k - t.k) <= 1e-9 * t.k && Math.abs(cur.x - t.x) <= 1e-6 && cur.y === t.y) return;
    // Without the guard, a transform set during a wheel gesture is reported with that gesture's
    // wheel event, so onView re-asserted the previous window and overwrote the next wheel steps.
    syncing.current = true;
    try {
      select(el).call(z.transform, t);
    } finally {
      syncing.current = false;
    }
  }, [window_, full, innerW]);

  const [pointer, setPointer] = useState<{ x: number; y: number } | null>(null);
  const onMove = (e: MouseEvent<SVGRectElement>) => {
    const rect = e.currentTarget.getBoundingClientRect();
    const px = Math.max(0, Math.min(innerW, ((e.clientX - rect.left) / rect.width) * innerW));
    setPointer({ x: px, y: e.clientY - rect.top });
    onHover?.(x.invert(px));
  };
  const onLeave = () => {
    setPointer(null);
    onHover?.(null);
  };
  const name = title ?? series.strategy;
  const legend = useMemo(() => throughputLegend(series, styles, subList, kinds), [series, styles, subList, kinds]);
  const showRule = hoverT !== null && hoverT !== undefined && inView(hoverT);

  const defaultReadout = (t: number) => (
    <>
      <strong>t ≈ {formatSeconds(t)} s</strong>
      {series.flows.map((f) => {
        const i = nearestIndex(f.points, t);
        return i >= 0 ? <span key={f.flowId}>{`${f.flowId} ${formatFixed3(f.points[i]!.mbps)} Mbit/s`}</span> : null;
      })}
    </>
  );

  return (
    <ChartFrame
      title={name}
      exportTitle={`Throughput per flow — ${name}`}
      filename={`${filename ?? "throughput"}-${series.strategy}`}
      testId={testId ?? `chart-${series.strategy}`}
      description={description}
      legend={legend}
      csv={() => seriesCsv([series], subList.map((s) => ({ ...s, strategy: series.strategy })))}
    >
      <div className="chart-body" ref={bodyRef}>
        <svg width={width} height={height} className="chart-svg" role="img" aria-label={`Throughput per flow over time, ${name}`} data-window={`${window_[0]} ${window_[1]}`}>
          <defs>
            <clipPath id={`clip-${clipId}`}>
              <rect x={0} y={-2} width={innerW} height={innerH + 4} />
            </clipPath>
          </defs>
          <g transform={`translate(${MARGIN.left},${top})`}>
            <TimeAxes xTicks={xTicks} yTicks={yTicks} x={x} y={y} innerW={innerW} innerH={innerH} yLabel="throughput (Mbit/s)" format={formatTick} />
            {markers.length <= MAX_GUIDES
              ? markers.map((m, i) => <line key={`g${i}`} x1={x(m.t_s)} x2={x(m.t_s)} y1={0} y2={innerH} className="marker-guide" />)
              : null}
            <g className="marker-lanes">
              {kinds.map((k, lane) => {
                const ly = -(kinds.length - lane) * LANE_H - 4 + LANE_H / 2;
                const st = MARKER_STYLE[k] ?? { color: "#64748b", glyph: "circle" as const, label: k };
                return (
                  <g key={k} data-lane={k}>
                    {markers
                      .filter((m) => m.kind === k)
                      .map((m, i) => (
                        <g key={`m${i}`} transform={`translate(${x(m.t_s)},${ly})`}>
                          <line x1={0} x2={0} y1={-5} y2={5} stroke={st.color} strokeWidth={1} data-kind={m.kind} data-t={m.t_s} className="marker">
                            <title>{`${kindLabel(m.kind)}${m.node ? ` (${m.node})` : ""} at ${formatTick(m.t_s)} s`}</title>
                          </line>
                          <path d={glyphPath(st.glyph, 8)} fill={st.glyph === "cross" ? "none" : st.color} stroke={st.color} strokeWidth={st.glyph === "cross" ? 1.6 : 0} className="marker-glyph">
                            <title>{`${kindLabel(m.kind)}${m.node ? ` (${m.node})` : ""} at ${formatTick(m.t_s)} s`}</title>
                          </path>
                        </g>
                      ))}
                  </g>
                );
              })}
            </g>
            <g clipPath={`url(#clip-${clipId})`}>
              {subPaths.map((p) => (
                <path
                  key={p.key}
                  d={p.d}
                  fill="none"
                  stroke={styles[p.flowId]?.color ?? "#334155"}
                  strokeWidth={1.2}
                  strokeDasharray={p.dash}
                  opacity={0.85}
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
            {showRule ? <line x1={x(hoverT!)} x2={x(hoverT!)} y1={0} y2={innerH} className="hover-rule" data-testid="hover-rule" /> : null}
            {onHover || onView ? (
              <rect ref={targetRef} width={innerW} height={innerH} fill="transparent" className="hover-target" onMouseMove={onMove} onMouseLeave={onLeave} />
            ) : null}
          </g>
        </svg>
        {pointer && showRule ? (
          <div
            className="chart-tooltip"
            data-testid="hover-readout"
            aria-live="off"
            style={{
              left: MARGIN.left + pointer.x + (pointer.x > innerW * 0.6 ? -12 : 12),
              top: top + Math.max(0, Math.min(innerH - 10, pointer.y)),
              transform: pointer.x > innerW * 0.6 ? "translateX(-100%)" : undefined,
            }}
          >
            {(readout ?? defaultReadout)(hoverT!)}
          </div>
        ) : null}
      </div>
    </ChartFrame>
  );
}

/** Memoised: hovering another chart re-renders only the rule, not the paths. */
export const ThroughputChart = memo(ThroughputChartImpl);
