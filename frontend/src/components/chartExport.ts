/**
 * Export a chart: its SVG (with the computed styles inlined, so it looks the
 * same outside the page) under its title and above its legend, a PNG rendered
 * from that SVG, or CSV text.
 */
import { glyphPath, type LegendItem } from "./chartKit";

const SVG_NS = "http://www.w3.org/2000/svg";
/** Room around the chart in an export, pixels (labels that overhang the plot stay inside). */
const PAD = 16;
const TITLE_H = 30;
const LEGEND_ROW_H = 20;
/** Rough width of one legend character at 12 px, pixels (for wrapping the legend rows). */
const CHAR_W = 7;

const STYLE_PROPS = [
  "fill",
  "fill-opacity",
  "stroke",
  "stroke-width",
  "stroke-dasharray",
  "stroke-opacity",
  "opacity",
  "font-family",
  "font-size",
  "font-weight",
  "text-anchor",
  "dominant-baseline",
];

function el(name: string, attrs: Record<string, string | number>): SVGElement {
  const e = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

/** A copy of `svg` with the styles the page applied written on every element. */
function inlined(svg: SVGSVGElement): SVGSVGElement {
  const clone = svg.cloneNode(true) as SVGSVGElement;
  const src = [svg, ...Array.from(svg.querySelectorAll("*"))];
  const dst = [clone, ...Array.from(clone.querySelectorAll("*"))];
  src.forEach((node, i) => {
    const cs = getComputedStyle(node);
    const target = dst[i] as SVGElement;
    const style = STYLE_PROPS.map((p) => `${p}:${cs.getPropertyValue(p)}`).join(";");
    target.setAttribute("style", style);
  });
  // interaction layers (hover target, brush, tooltip anchors) are not part of the picture
  clone.querySelectorAll(".hover-target, .hover-rule, .brush").forEach((n) => n.remove());
  return clone;
}

/** Size of `svg` in pixels: its width/height attributes, else its view box, else its box. */
export function svgSize(svg: SVGSVGElement): { w: number; h: number } {
  const w = Number(svg.getAttribute("width")) || svg.viewBox?.baseVal?.width || svg.clientWidth || 560;
  const h = Number(svg.getAttribute("height")) || svg.viewBox?.baseVal?.height || svg.clientHeight || 300;
  return { w, h };
}

/** Legend entries laid out in rows of at most `width` pixels: x, row per entry. */
export function legendLayout(items: readonly LegendItem[], width: number): { item: LegendItem; x: number; row: number }[] {
  const out: { item: LegendItem; x: number; row: number }[] = [];
  let x = 0;
  let row = 0;
  for (const item of items) {
    const w = 34 + item.label.length * CHAR_W + 14;
    if (x > 0 && x + w > width) {
      x = 0;
      row += 1;
    }
    out.push({ item, x, row });
    x += w;
  }
  return out;
}

function legendSwatch(item: LegendItem): SVGElement {
  if (item.kind === "marker") {
    const g = el("g", { transform: "translate(13,0)" });
    const cross = item.glyph === "cross";
    g.appendChild(el("path", { d: glyphPath(item.glyph ?? "circle", 10), fill: cross ? "none" : item.color, stroke: item.color, "stroke-width": cross ? 2 : 0 }));
    return g;
  }
  if (item.kind === "band" || item.kind === "bar") {
    return el("rect", { x: 2, y: -5, width: 22, height: 10, fill: item.color, "fill-opacity": item.kind === "band" ? 0.25 : 0.85, stroke: item.color, ...(item.dash ? { "stroke-dasharray": item.dash } : {}) });
  }
  return el("line", { x1: 0, x2: 26, y1: 0, y2: 0, stroke: item.color, "stroke-width": item.width ?? 2.5, ...(item.dash ? { "stroke-dasharray": item.dash } : {}) });
}

/**
 * A standalone SVG document of the chart `svg` with the styles the page applied, its `title`
 * above and its `legend` below (wrapped to the chart's width), on a white background.
 */
export function serializeSvg(svg: SVGSVGElement, title = "", legend: readonly LegendItem[] = []): string {
  const { w, h } = svgSize(svg);
  const laid = legendLayout(legend, w);
  const rows = laid.length ? laid[laid.length - 1]!.row + 1 : 0;
  const titleH = title ? TITLE_H : 0;
  const W = w + 2 * PAD;
  const H = PAD + titleH + h + (rows ? 8 + rows * LEGEND_ROW_H : 0) + PAD;
  const root = el("svg", { xmlns: SVG_NS, width: W, height: H, viewBox: `0 0 ${W} ${H}` });
  root.appendChild(el("rect", { width: "100%", height: "100%", fill: "#ffffff" }));
  if (title) {
    const t = el("text", { x: PAD, y: PAD + 18, "font-family": "Inter, system-ui, sans-serif", "font-size": 16, "font-weight": 600, fill: "#0f172a", class: "export-title" });
    t.textContent = title;
    root.appendChild(t);
  }
  const chart = inlined(svg);
  chart.setAttribute("x", String(PAD));
  chart.setAttribute("y", String(PAD + titleH));
  chart.setAttribute("width", String(w));
  chart.setAttribute("height", String(h));
  chart.setAttribute("overflow", "visible");
  root.appendChild(chart);
  const top = PAD + titleH + h + 8;
  for (const { item, x, row } of laid) {
    const g = el("g", { transform: `translate(${PAD + x},${top + row * LEGEND_ROW_H + LEGEND_ROW_H / 2})`, class: "export-legend-item" });
    g.appendChild(legendSwatch(item));
    const label = el("text", { x: 32, y: 4, "font-family": "Inter, system-ui, sans-serif", "font-size": 12, fill: "#334155" });
    label.textContent = item.label;
    g.appendChild(label);
    root.appendChild(g);
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(root)}`;
}

export function download(filename: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function downloadSvg(svg: SVGSVGElement, filename: string, title = "", legend: readonly LegendItem[] = []): void {
  download(filename, new Blob([serializeSvg(svg, title, legend)], { type: "image/svg+xml" }));
}

/** Render the exported SVG (title, chart, legend) at `scale` × its size to a PNG blob. */
export function svgToPng(svg: SVGSVGElement, title = "", legend: readonly LegendItem[] = [], scale = 2): Promise<Blob> {
  const text = serializeSvg(svg, title, legend);
  const m = /<svg[^>]*\swidth="([\d.]+)"[^>]*\sheight="([\d.]+)"/.exec(text);
  const w = Number(m?.[1] ?? 600);
  const h = Number(m?.[2] ?? 400);
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => {
      const canvas = document.createElement("canvas");
      canvas.width = Math.round(w * scale);
      canvas.height = Math.round(h * scale);
      const ctx = canvas.getContext("2d");
      if (!ctx) return reject(new Error("no 2d canvas"));
      ctx.scale(scale, scale);
      ctx.drawImage(img, 0, 0, w, h);
      canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("PNG encoding failed"))), "image/png");
    };
    img.onerror = () => reject(new Error("the SVG could not be rendered"));
    img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(text)}`;
  });
}

export async function downloadPng(svg: SVGSVGElement, filename: string, title = "", legend: readonly LegendItem[] = []): Promise<void> {
  download(filename, await svgToPng(svg, title, legend));
}

export function downloadCsv(text: string, filename: string): void {
  download(filename, new Blob([text], { type: "text/csv;charset=utf-8" }));
}
