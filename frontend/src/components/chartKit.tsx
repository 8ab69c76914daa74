/**
 * What every chart of the results shares: its width measured from its card (ResizeObserver, no
 * view-box stretch, so text keeps its CSS size), legend entries (drawn in the page and in exports),
 * and the event-marker glyphs.
 */
import { useLayoutEffect, useRef, useState, type RefObject } from "react";

/** Width used before the card is measured (server rendering, unit tests). */
export const DEFAULT_CHART_WIDTH = 560;

/** The content width (pixels) of the element in `ref`, following its resizes. */
export function useChartWidth<T extends HTMLElement>(): [RefObject<T | null>, number] {
  const ref = useRef<T | null>(null);
  const [width, setWidth] = useState(DEFAULT_CHART_WIDTH);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => {
      const w = Math.floor(el.clientWidth);
      if (w > 0) setWidth((old) => (old === w ? old : w));
    };
    measure();
    if (typeof ResizeObserver === "undefined") return;
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return [ref, width];
}

export type GlyphShape = "triangle" | "circle" | "square" | "diamond" | "cross";

/** One legend entry: a line (flow, subflow, strategy), a band, a bar or a marker glyph. */
export interface LegendItem {
  key: string;
  label: string;
  color: string;
  kind: "line" | "band" | "bar" | "marker";
  dash?: string;
  /** stroke width of a line entry */
  width?: number;
  glyph?: GlyphShape;
}

/** Event kinds drawn as markers: colour, glyph (distinct in greyscale) and label. */
export const MARKER_STYLE: Record<string, { color: string; glyph: GlyphShape; label: string }> = {
  handover_start: { color: "#b45309", glyph: "triangle", label: "handover start" },
  association: { color: "#047857", glyph: "circle", label: "association" },
  rto: { color: "#6d28d9", glyph: "square", label: "RTO" },
  route_change: { color: "#0e7490", glyph: "diamond", label: "route change" },
  route_lost: { color: "#be123c", glyph: "cross", label: "route lost" },
};

/** SVG path of a glyph of `size` pixels centred on (0, 0). */
export function glyphPath(shape: GlyphShape, size = 8): string {
  const r = size / 2;
  switch (shape) {
    case "triangle":
      return `M0,${r}L${r},${-r}L${-r},${-r}Z`;
    case "circle":
      return `M${r},0A${r},${r} 0 1 1 ${-r},0A${r},${r} 0 1 1 ${r},0Z`;
    case "square":
      return `M${-r},${-r}H${r}V${r}H${-r}Z`;
    case "diamond":
      return `M0,${-r}L${r},0L0,${r}L${-r},0Z`;
    case "cross":
      return `M${-r},${-r}L${r},${r}M${r},${-r}L${-r},${r}`;
  }
}

/** The legend swatch of an entry (also drawn into exports, see chartExport.ts). */
export function LegendSwatch({ item }: { item: LegendItem }) {
  if (item.kind === "marker") {
    const filled = item.glyph !== "cross";
    return (
      <svg width="14" height="14" viewBox="-7 -7 14 14" aria-hidden="true">
        <path d={glyphPath(item.glyph ?? "circle", 10)} fill={filled ? item.color : "none"} stroke={item.color} strokeWidth={filled ? 0 : 2} />
      </svg>
    );
  }
  if (item.kind === "band" || item.kind === "bar") {
    return (
      <svg width="22" height="12" aria-hidden="true">
        <rect x="1" y="1" width="20" height="10" fill={item.color} fillOpacity={item.kind === "band" ? 0.25 : 0.85} stroke={item.color} strokeDasharray={item.dash || undefined} />
      </svg>
    );
  }
  return (
    <svg width="26" height="10" aria-hidden="true">
      <line x1="1" x2="25" y1="5" y2="5" stroke={item.color} strokeWidth={item.width ?? 2.5} strokeDasharray={item.dash || undefined} />
    </svg>
  );
}

export function ChartLegend({ items, label }: { items: readonly LegendItem[]; label: string }) {
  if (!items.length) return null;
  return (
    <ul className="chart-legend" aria-label={label}>
      {items.map((it) => (
        <li key={it.key} data-legend={it.key}>
          <LegendSwatch item={it} />
          {it.label}
        </li>
      ))}
    </ul>
  );
}

/**
 * The axes of a time chart, drawn inside its plot group: horizontal grid lines with the y ticks' values,
 * x ticks under the plot, the two axis lines and the axis labels. `x` and `y` map values to pixels.
 */
export function TimeAxes({ xTicks, yTicks, x, y, innerW, innerH, yLabel, format }: {
  xTicks: readonly number[]; yTicks: readonly number[]; x: (v: number) => number; y: (v: number) => number;
  innerW: number; innerH: number; yLabel: string; format: (v: number) => string;
}) {
  return (
    <>
      {yTicks.map((t) => (
        <g key={`y${t}`} transform={`translate(0,${y(t)})`}>
          <line x1={0} x2={innerW} className="grid" />
          <text x={-8} dy="0.32em" textAnchor="end" className="tick">
            {format(t)}
          </text>
        </g>
      ))}
      {xTicks.map((t) => (
        <g key={`x${t}`} transform={`translate(${x(t)},${innerH})`}>
          <line y1={0} y2={5} className="axis" />
          <text y={19} textAnchor="middle" className="tick">
            {format(t)}
          </text>
        </g>
      ))}
      <line x1={0} x2={innerW} y1={innerH} y2={innerH} className="axis" />
      <line x1={0} x2={0} y1={0} y2={innerH} className="axis" />
      <text x={innerW / 2} y={innerH + 38} textAnchor="middle" className="axis-label">
        time (s)
      </text>
      <text transform={`translate(-44,${innerH / 2}) rotate(-90)`} textAnchor="middle" className="axis-label">
        {yLabel}
      </text>
    </>
  );
}
