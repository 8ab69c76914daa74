// @vitest-environment happy-dom
/**
 * The quality of udp and voice flows on the results page: their series carried with the throughput points, the
 * delay / jitter / loss / MOS charts (only for flows and metrics that have values, gaps where an interval has
 * none, MOS on its fixed 1–4.5 scale with the 3.6 line), the per-flow summary and the CSV's quality columns.
 *
 * Expected values are worked out by hand below from the made-up series; pixel positions from the chart's
 * geometry (a 140 px high plot).
 */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { StrategyResult } from "../api/types";
import { flowSeries, seriesCsv, type StrategySeries } from "../lib/chartData";
import { flowQualitySummary, nearestRank, qualityLines, qualityRows } from "../lib/flowQuality";
import { QualityChart } from "./QualityChart";
import { QualityTable } from "./QualityTable";

const t_s = [0, 1, 2, 3];
const strategy = {
  engine: "fluid",
  flows: [
    { id: "bulk", src: "a", dst: "b", t_s, throughput_mbps: [5, 5, 5, 5], subflows: [] },
    {
      id: "call", src: "a", dst: "b", t_s, throughput_mbps: [0.08, 0.08, 0, 0.04], subflows: [],
      delay_ms: [5, 7, null, 11], jitter_ms: [0.5, 1, null, 1.5], loss: [0, 0, 1, 0.5], r_factor: [92.4, 90, null, 60], mos: [4.4, 4.3, null, 3.1],
    },
    { id: "cbr", src: "a", dst: "b", t_s, throughput_mbps: [2, 2, 2, 2], subflows: [], delay_ms: [6, 6, 6, 6], jitter_ms: [0, 0, 0, 0], loss: [0, 0, 0, 0] },
  ],
  events: [],
  summary: { flows: [], mean_mbps: 0, std_mbps: 0, min_mbps: 0, zero_s: 0, jain_index: 1 },
} as unknown as StrategyResult;

const series: StrategySeries[] = [{ strategy: "sptcp", engine: "fluid", flows: flowSeries(strategy), markers: [] }];
const colors = { sptcp: "#1f77b4" };
const styles = { call: { color: "#000", dash: "" }, cbr: { color: "#000", dash: "8 4" } };
const chart = (metric: "delay" | "jitter" | "loss" | "mos", s = series) =>
  renderToStaticMarkup(<QualityChart metric={metric} series={s} colors={colors} styles={styles} domain={[0, 3]} ruleT={null} />);

describe("quality series", () => {
  it("ride with the throughput points, only on flows that have them", () => {
    const [bulk, call] = series[0]!.flows;
    expect(bulk!.quality).toBeUndefined();
    expect(call!.quality!.map((q) => q.delay_ms)).toEqual([5, 7, null, 11]);
    expect(call!.quality![0]).toEqual({ delay_ms: 5, delay_p95_ms: null, jitter_ms: 0.5, loss: 0, r_factor: 92.4, mos: 4.4, frames_sent: null, frames_late: null, frames_lost: null });
  });

  it("give each chart the flows that have a value: MOS only for the call", () => {
    expect(qualityLines(series, "delay").map((l) => l.key)).toEqual(["sptcp/call/delay_ms", "sptcp/cbr/delay_ms"]);
    expect(qualityLines(series, "mos").map((l) => l.key)).toEqual(["sptcp/call/mos"]);
    // loss in %: 0.5 → 50
    expect(qualityLines(series, "loss")[0]!.points.map((p) => p.v)).toEqual([0, 0, 100, 50]);
  });

  it("summarise a call over the run", () => {
    const s = flowQualitySummary(series[0]!.flows[1]!)!;
    // delay weighted by throughput: (0.08·5 + 0.08·7 + 0.04·11) / (0.08 + 0.08 + 0.04) = 1.4 / 0.2 = 7 ms
    expect(s.meanDelayMs).toBeCloseTo(7, 12);
    // nearest rank of [5, 7, 11] at 95 %: ceil(0.95 · 3) = 3rd → 11
    expect(s.p95DelayMs).toBe(11);
    expect(s.meanJitterMs).toBeCloseTo(1, 12);
    // (0 + 0 + 1 + 0.5) / 4
    expect(s.loss).toBeCloseTo(0.375, 12);
    // (4.4 + 4.3 + 3.1) / 3
    expect(s.meanMos).toBeCloseTo(3.9333333333, 9);
    expect(s.minMos).toBe(3.1);
    expect(s.framesSent).toBeNull();
    expect(flowQualitySummary(series[0]!.flows[0]!)).toBeNull();
    expect(nearestRank([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20], 95)).toBe(19);
  });
});

describe("QualityChart", () => {
  it("draws a line per flow with a gap where nothing arrived", () => {
    const html = chart("delay");
    expect(html).toContain(">One-way delay<");
    const d = /<path d="([^"]*)" data-series="sptcp\/call\/delay_ms"/.exec(html)![1]!;
    // 5 and 7 ms at 0 and 1 s, nothing at 2 s, 11 ms at 3 s: two pieces
    expect(d.match(/M/g)!.length).toBe(2);
    expect(html).toContain('data-series="sptcp/cbr/delay_ms"');
    expect(html).toMatch(/data-series="sptcp\/cbr\/delay_ms" fill="none" stroke="#1f77b4" stroke-dasharray="8 4"/);
    expect(html).toContain("sptcp · call mean");
  });

  it("draws MOS on 1–4.5 with the 3.6 line", () => {
    const html = chart("mos");
    // y(3.6) = 140 − (3.6 − 1) / (4.5 − 1) · 140 = 140 − 104 = 36
    expect(html).toMatch(/<line x1="0" x2="\d+" y1="36" y2="36"[^>]*data-testid="quality-mos-reference"/);
    expect(html).toContain("MOS 3.6 (R 70)");
    expect(html).toContain('data-series="sptcp/call/mos"');
    expect(html).not.toContain("cbr/mos");
  });

  it("draws nothing for tcp flows only", () => {
    const tcpOnly: StrategySeries[] = [{ ...series[0]!, flows: [series[0]!.flows[0]!] }];
    expect(chart("delay", tcpOnly)).toBe("");
  });
});

describe("quality summary and CSV", () => {
  it("tabulates each flow with quality series", () => {
    const html = renderToStaticMarkup(<QualityTable rows={qualityRows(series)} />);
    expect(html).toContain('data-testid="quality-sptcp/call"');
    expect(html).not.toContain("quality-sptcp/bulk");
    const cells = Object.fromEntries([...html.matchAll(/data-testid="quality-sptcp\/call">(.*?)<\/tr>/g)][0]![1]!.split("</td>").flatMap((c) => {
      const m = /data-col="(\w+)"[^>]*>(.*)$/.exec(c);
      return m ? [[m[1], m[2]]] : [];
    }));
    expect(cells).toEqual({ meanDelayMs: "7.00", p95DelayMs: "11.00", meanJitterMs: "1.000", loss: "37.50", meanMos: "3.93", minMos: "3.10" });
    expect(html).not.toContain("Frames late");
  });

  it("shows a video flow's frames late and lost out of those sent", () => {
    const video = { ...strategy, flows: [{ id: "cam", src: "a", dst: "b", t_s: [0, 1], throughput_mbps: [2, 2], subflows: [], delay_p95_ms: [40, 60], frames_sent: [30, 30], frames_late: [1, 2], frames_lost: [0, 4] }] } as unknown as StrategyResult;
    const rows = qualityRows([{ strategy: "sptcp", engine: "fluid", flows: flowSeries(video), markers: [] }]);
    expect(rows[0]!.p95DelayMs).toBe(60);
    const html = renderToStaticMarkup(<QualityTable rows={rows} />);
    // late 1 + 2, lost 0 + 4, of 30 + 30 sent
    expect(html).toMatch(/data-col="framesLate"[^>]*>3 of 60</);
    expect(html).toMatch(/data-col="framesLost"[^>]*>4 of 60</);
  });

  it("exports the quality columns in the throughput CSV's shape, empty for tcp flows", () => {
    const lines = seriesCsv(series).trim().split("\r\n");
    expect(lines[0]).toBe("strategy,flow,subflow,t_s,throughput_mbps,delay_ms,delay_p95_ms,jitter_ms,loss,r_factor,mos,frames_sent,frames_late,frames_lost");
    expect(lines[1]).toBe("sptcp,bulk,,0,5,,,,,,,,,");
    expect(lines[5]).toBe("sptcp,call,,0,0.08,5,,0.5,0,92.4,4.4,,,");
    expect(lines[7]).toBe("sptcp,call,,2,0,,,,1,,,,,");
  });
});
