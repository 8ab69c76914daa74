/**
 * One strategy's throughput chart rendered by React (react-dom/server) from the typed result
 * fixture: a path per flow through every sample at the scaled positions, handover markers once per
 * time/kind/node, the legend. Pixel positions are worked out by hand from the chart's geometry
 * (560 × 300 view box, margins 12/16/42/52: a 492 × 246 plot area).
 */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { comparisonSeries, flowStyles } from "../lib/chartData";
import { RESULT } from "../lib/fixtures.test-data";
import { ThroughputChart } from "./ThroughputChart";

describe("ThroughputChart", () => {
  const sptcp = comparisonSeries(RESULT, ["sptcp", "mptcp"])[0]!;
  // 0–3 s across 492 px (164 px per second); 0–4 Mbit/s up 246 px (61.5 px per Mbit/s)
  const html = renderToStaticMarkup(
    <ThroughputChart series={sptcp} domains={{ x: [0, 3], y: [0, 4] }} styles={flowStyles(["f1", "f2"])} />,
  );
  const attrs = (tag: string, testId: string) => {
    const m = new RegExp(`<(?:${tag})\\b[^>]*data-testid="${testId}"[^>]*>`).exec(html);
    if (!m) throw new Error(`no <${tag} data-testid="${testId}"> in the chart`);
    return Object.fromEntries([...m[0].matchAll(/([\w-]+)="([^"]*)"/g)].map(([, k, v]) => [k!, v!]));
  };

  it("draws one line per flow through every sample", () => {
    expect(sptcp.strategy).toBe("sptcp");
    // f1: 3, 3, 0, 0 Mbit/s at 0, 1, 2, 3 s
    expect(attrs("path", "line-sptcp-f1")).toMatchObject({ d: "M0,61.5L164,61.5L328,246L492,246", "data-samples": "4" });
    // f2: 3, 0, 0, 0 Mbit/s
    expect(attrs("path", "line-sptcp-f2")).toMatchObject({ d: "M0,61.5L164,246L328,246L492,246", "data-samples": "4" });
    expect(attrs("path", "line-sptcp-f1").stroke).not.toBe(attrs("path", "line-sptcp-f2").stroke);
  });

  it("marks handovers once per time, kind and node (the duplicate association is drawn once)", () => {
    const markers = [...html.matchAll(/<line[^>]*data-kind="([^"]+)" data-t="([^"]+)"[^>]*class="marker"[^>]*><title>([^<]*)<\/title>/g)].map(
      ([, kind, t, title]) => ({ kind, t, title }),
    );
    expect(markers.map((m) => `${m.kind}@${m.t}`)).toEqual(["handover_start@2", "handover_start@2", "association@3"]);
    expect(markers.map((m) => m.title)).toEqual([
      expect.stringContaining("(sta1) at 2 s"),
      expect.stringContaining("(sta2) at 2 s"),
      expect.stringContaining("(sta1) at 3 s"),
    ]);
    expect(html).toContain('x1="328" x2="328"');
    expect(html).toContain('x1="492" x2="492"');
  });

  it("names the chart and its flows", () => {
    expect(html).toContain('aria-label="Throughput per flow over time, sptcp"');
    expect(html).toMatch(/<ul class="chart-legend" aria-label="Legend, sptcp">.*flow f1.*flow f2/);
    expect(attrs("section|div|figure", "chart-sptcp")).toBeTruthy();
  });
});
