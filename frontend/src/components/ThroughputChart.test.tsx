/**
 * One strategy's throughput chart rendered by React (react-dom/server) from the typed result
 * fixture: a path per flow through every sample at the scaled positions, handover markers once per
 * time/kind/node in their lanes, the legend (flows, subflows, marker kinds), the zoomed window.
 * Pixel positions are worked out by hand from the chart's geometry: 560 px wide before it is
 * measured, margins left 56 / right 18 / bottom 44, top 10 + 13 per marker lane + 4 (two lanes
 * here: 40), and a 240 px high plot whatever the lanes: a 486 × 240 plot area in a 324 px high SVG.
 */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { clampWindow, comparisonSeries, flowStyles, subflowSeries, visiblePoints } from "../lib/chartData";
import { RESULT } from "../lib/fixtures.test-data";
import { ThroughputChart } from "./ThroughputChart";

const sptcp = comparisonSeries(RESULT, ["sptcp", "mptcp"])[0]!;
const attrsIn = (html: string, tag: string, testId: string) => {
  const m = new RegExp(`<(?:${tag})\\b[^>]*data-testid="${testId}"[^>]*>`).exec(html);
  if (!m) throw new Error(`no <${tag} data-testid="${testId}"> in the chart`);
  return Object.fromEntries([...m[0].matchAll(/([\w-]+)="([^"]*)"/g)].map(([, k, v]) => [k!, v!]));
};

describe("ThroughputChart", () => {
  // 0–3 s across 486 px (162 px per second); 0–4 Mbit/s up 240 px (60 px per Mbit/s)
  const html = renderToStaticMarkup(<ThroughputChart series={sptcp} domains={{ x: [0, 3], y: [0, 4] }} styles={flowStyles(["f1", "f2"])} />);
  const attrs = (tag: string, testId: string) => attrsIn(html, tag, testId);

  it("draws one line per flow through every sample, at the card's size (no view-box stretch)", () => {
    expect(sptcp.strategy).toBe("sptcp");
    expect(html).toMatch(/<svg width="560" height="324" class="chart-svg"/);
    expect(html).not.toMatch(/<svg[^>]*viewBox="0 0 560 300"/);
    // f1: 3, 3, 0, 0 Mbit/s at 0, 1, 2, 3 s
    expect(attrs("path", "line-sptcp-f1")).toMatchObject({ d: "M0,60L162,60L324,240L486,240", "data-samples": "4" });
    // f2: 3, 0, 0, 0 Mbit/s
    expect(attrs("path", "line-sptcp-f2")).toMatchObject({ d: "M0,60L162,240L324,240L486,240", "data-samples": "4" });
    expect(attrs("path", "line-sptcp-f1").stroke).not.toBe(attrs("path", "line-sptcp-f2").stroke);
  });

  it("marks events once per time, kind and node, in one lane per kind above the plot", () => {
    const markers = [...html.matchAll(/<line[^>]*data-kind="([^"]+)" data-t="([^"]+)"[^>]*class="marker"[^>]*><title>([^<]*)<\/title>/g)].map(
      ([, kind, t, title]) => ({ kind, t, title }),
    );
    expect(markers.map((m) => `${m.kind}@${m.t}`)).toEqual(["handover_start@2", "handover_start@2", "association@3"]);
    expect(markers.map((m) => m.title)).toEqual([
      expect.stringContaining("(sta1) at 2 s"),
      expect.stringContaining("(sta2) at 2 s"),
      expect.stringContaining("(sta1) at 3 s"),
    ]);
    // lanes above the plot (negative y), at 2 s and 3 s
    expect(html).toContain('<g data-lane="handover_start"><g transform="translate(324,-23.5)">');
    expect(html).toContain('<g data-lane="association"><g transform="translate(486,-10.5)">');
    // marker lines are never dashed, so that no marker looks like a (dashed) flow line
    expect(html).not.toMatch(/class="marker"[^>]*stroke-dasharray|stroke-dasharray[^>]*class="marker"/);
  });

  it("names the chart, its flows and the marker kinds in the legend", () => {
    expect(html).toContain('aria-label="Throughput per flow over time, sptcp"');
    expect(html).toMatch(/<ul class="chart-legend" aria-label="Legend, sptcp">.*flow f1.*flow f2.*handover start.*association/);
    expect(attrs("section|div|figure", "chart-sptcp")).toBeTruthy();
  });

  it("names every subflow drawn in the legend", () => {
    const routed = {
      ...RESULT.strategies.sptcp!,
      flows: [
        {
          id: "f1",
          src: "a",
          dst: "b",
          t_s: [0, 1],
          throughput_mbps: [2, 2],
          subflows: [
            { id: "f1/satcom", path: ["a", "s", "b"], t_s: [0, 1], throughput_mbps: [1, 1] },
            { id: "f1/uav", path: ["a", "u", "b"], t_s: [0, 1], throughput_mbps: [1, 1] },
          ],
        },
      ],
    };
    const subs = subflowSeries(routed);
    const out = renderToStaticMarkup(<ThroughputChart series={sptcp} domains={{ x: [0, 3], y: [0, 4] }} styles={flowStyles(["f1", "f2"])} subflows={subs} />);
    expect(out).toMatch(/aria-label="Legend, sptcp">.*subflow f1\/satcom.*subflow f1\/uav/);
    const a = attrsIn(out, "path", "subflow-sptcp-f1/f1/satcom");
    const b = attrsIn(out, "path", "subflow-sptcp-f1/f1/uav");
    expect(a["stroke-dasharray"]).not.toBe(b["stroke-dasharray"]);
  });

  it("draws only the zoomed window, scaled to the full width", () => {
    const out = renderToStaticMarkup(
      <ThroughputChart series={sptcp} domains={{ x: [0, 3], y: [0, 4] }} view={[1, 2]} styles={flowStyles(["f1", "f2"])} />,
    );
    // 1–2 s across 486 px; the samples at 0 s and 3 s are the neighbours that reach the edges
    expect(attrsIn(out, "path", "line-sptcp-f1").d).toBe("M-486,60L0,60L486,240L972,240");
    expect(out).toContain('data-window="1 2"');
    // the association at 3 s is outside the window
    expect(out).not.toContain('data-kind="association"');
  });
});

describe("time window", () => {
  const pts = [0, 1, 2, 3, 4, 5].map((t) => ({ t_s: t, mbps: t }));
  it("keeps the points inside the window and one neighbour on each side", () => {
    expect(visiblePoints(pts, 2, 3).map((p) => p.t_s)).toEqual([1, 2, 3, 4]);
    expect(visiblePoints(pts, 2.5, 2.6).map((p) => p.t_s)).toEqual([2, 3]);
    expect(visiblePoints(pts, -5, 99)).toBe(pts);
    expect(visiblePoints([], 0, 1)).toEqual([]);
  });
  it("clamps a window into the run and keeps it at least minSpan wide", () => {
    expect(clampWindow(null, [0, 10])).toEqual([0, 10]);
    expect(clampWindow([-2, 3], [0, 10])).toEqual([0, 5]);
    expect(clampWindow([8, 14], [0, 10])).toEqual([4, 10]);
    expect(clampWindow([5, 5], [0, 10], 2)).toEqual([4, 6]);
    expect(clampWindow([3, 1], [0, 10])).toEqual([1, 3]);
  });
});
