// @vitest-environment happy-dom
/** Chart exports carry the title and every legend entry, with room for labels that overhang the plot. */
import { describe, expect, it } from "vitest";
import { legendLayout, serializeSvg } from "./chartExport";
import type { LegendItem } from "./chartKit";

const LEGEND: LegendItem[] = [
  { key: "flow:f1", label: "flow f1", color: "#1f77b4", kind: "line" },
  { key: "flow:f2", label: "flow f2", color: "#d62728", dash: "8 4", kind: "line" },
  { key: "subflow:f1/uav", label: "subflow f1/uav", color: "#1f77b4", dash: "4 2", width: 1.2, kind: "line" },
  { key: "marker:handover_start", label: "handover start", color: "#b45309", glyph: "triangle", kind: "marker" },
];

function chartSvg(): SVGSVGElement {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg") as SVGSVGElement;
  svg.setAttribute("width", "400");
  svg.setAttribute("height", "300");
  svg.innerHTML = '<g><text x="390" y="290" class="tick">100</text><rect class="hover-target" width="10" height="10"/></g>';
  document.body.appendChild(svg);
  return svg;
}

describe("chart export", () => {
  it("writes the title above the chart and every legend entry below it", () => {
    const text = serializeSvg(chartSvg(), "Throughput per flow — sptcp", LEGEND);
    const doc = new DOMParser().parseFromString(text.replace(/^<\?xml[^>]*>\s*/, ""), "image/svg+xml");
    const root = doc.documentElement;
    expect(root.getAttribute("width")).toBe("432");
    // 16 padding + 30 title + 300 chart + 8 + two legend rows (2 × 20: the fourth entry wraps) + 16 padding
    expect(root.getAttribute("height")).toBe("410");
    expect(root.querySelector(".export-title")?.textContent).toBe("Throughput per flow — sptcp");
    const labels = Array.from(root.querySelectorAll(".export-legend-item text")).map((t) => t.textContent);
    expect(labels).toEqual(["flow f1", "flow f2", "subflow f1/uav", "handover start"]);
    // the chart is inset, so that a label centred on the axis end is not cut off
    const chart = root.querySelector("svg svg");
    expect(chart?.getAttribute("x")).toBe("16");
    expect(chart?.querySelector(".hover-target")).toBeNull();
    expect(text).toContain('stroke-dasharray="8 4"');
  });
  it("wraps legend rows at the chart's width", () => {
    const rows = legendLayout(LEGEND, 200).map((e) => e.row);
    expect(rows).toEqual([0, 0, 1, 2]);
    expect(legendLayout(LEGEND, 2000).every((e) => e.row === 0)).toBe(true);
  });
});
