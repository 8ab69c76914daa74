import { describe, expect, it } from "vitest";
import type { AggregateStats, ResultDocument, ResultEvent, StrategyResult } from "../api/types";
import {
  comparisonSeries,
  decimate,
  empiricalCdf,
  eventMarkers,
  flowMeanCdfs,
  nearestIndex,
  seriesCsv,
  subflowSeries,
  summaryBars,
  sweepLines,
  toCsv,
  unionDomains,
  valuesAt,
  type SeriesPoint,
} from "./chartData";
import { RESULT } from "./fixtures.test-data";
import { activePaths, hopKeys, linkUtilization, sampleIndex, utilizationColor } from "./routes";
import { formatMetres, gridSpacing, niceLength } from "./scaleBar";
import { associationsAt, positionAt } from "./timeline";

/** Sweep statistics of one strategy at one point (Jain's index and zero time do not matter here). */
const agg = (mean_mbps: number, ci95_mbps: number, runs: number): AggregateStats => ({
  mean_mbps, ci95_mbps, runs, jain_index: 1, zero_s: 0,
});

describe("event markers", () => {
  it("keeps handovers, RTOs and route changes once per time/kind/node", () => {
    const sub = { flow: "f1", subflow: "f1/a" };
    const events: ResultEvent[] = [
      { t_s: 5, kind: "rto", node: "sta1", ...sub, rto_s: 1, resumed: false },
      { t_s: 5, kind: "rto", node: "sta1", ...sub, rto_s: 1, resumed: false },
      { t_s: 2, kind: "route_change", node: "sta1", ...sub, path: ["sta1", "b"], previous_path: ["sta1", "a"] },
      { t_s: 1, kind: "subflow_up", node: "sta1", ...sub, path: ["sta1", "a"] },
      { t_s: 3, kind: "association", node: "sta2", access_point: "uav" },
    ];
    expect(eventMarkers(events)).toEqual([
      { t_s: 2, kind: "route_change", node: "sta1" },
      { t_s: 3, kind: "association", node: "sta2" },
      { t_s: 5, kind: "rto", node: "sta1" },
    ]);
    expect(eventMarkers(events, ["rto"])).toHaveLength(1);
  });
});

describe("shared hover", () => {
  const pts: SeriesPoint[] = [0, 1, 2, 3].map((t) => ({ t_s: t, mbps: t * 10 }));
  it("finds the nearest sample by binary search", () => {
    expect(nearestIndex(pts, -5)).toBe(0);
    expect(nearestIndex(pts, 1.4)).toBe(1);
    expect(nearestIndex(pts, 1.6)).toBe(2);
    expect(nearestIndex(pts, 99)).toBe(3);
    expect(nearestIndex([], 1)).toBe(-1);
  });
  it("reads every strategy's flows at one time", () => {
    const v = valuesAt(comparisonSeries(RESULT, ["sptcp", "mptcp"]), 2.2);
    expect(v).toEqual([
      { strategy: "sptcp", flowId: "f1", t_s: 2, mbps: 0 },
      { strategy: "sptcp", flowId: "f2", t_s: 2, mbps: 0 },
      { strategy: "mptcp", flowId: "f1", t_s: 2, mbps: 2.9 },
      { strategy: "mptcp", flowId: "f2", t_s: 2, mbps: 3 },
    ]);
  });
});

describe("decimate", () => {
  it("keeps short series as they are", () => {
    const pts = [{ t_s: 0, mbps: 1 }];
    expect(decimate(pts, 10)).toBe(pts);
  });
  it("keeps each bucket's first, min, max and last sample in time order", () => {
    const pts: SeriesPoint[] = Array.from({ length: 10_000 }, (_, i) => ({ t_s: i, mbps: i === 4321 ? 100 : i === 7777 ? -5 : Math.sin(i) }));
    const out = decimate(pts, 100);
    expect(out.length).toBeLessThanOrEqual(400);
    expect(out.some((p) => p.mbps === 100)).toBe(true);
    expect(out.some((p) => p.mbps === -5)).toBe(true);
    expect(out[0]).toBe(pts[0]);
    expect(out.at(-1)).toBe(pts.at(-1));
    for (let i = 1; i < out.length; i++) expect(out[i]!.t_s).toBeGreaterThan(out[i - 1]!.t_s);
  });
});

describe("summary bars, CDF, sweep", () => {
  it("takes mean, std, Jain's index and the outages from each strategy's summary", () => {
    // the fixture's flows stop for 2 s and 3 s: the longest outage is f2's 3 s, 5 s at zero in all
    expect(summaryBars(RESULT, ["sptcp", "mptcp"])).toEqual([
      { strategy: "sptcp", mean_mbps: 1.125, std_mbps: 0.375, jain_index: 0.9, longest_outage_s: 3, zero_s: 5 },
      { strategy: "mptcp", mean_mbps: 1.125, std_mbps: 0.375, jain_index: 0.9, longest_outage_s: 3, zero_s: 5 },
    ]);
  });
  it("builds the empirical CDF of per-flow means", () => {
    expect(empiricalCdf([3, 1, Number.NaN, 2, 2])).toEqual([
      { mbps: 1, p: 0.25 },
      { mbps: 2, p: 0.5 },
      { mbps: 2, p: 0.75 },
      { mbps: 3, p: 1 },
    ]);
    expect(flowMeanCdfs(RESULT, ["sptcp"])[0]).toEqual({ strategy: "sptcp", points: [{ mbps: 0.75, p: 0.5 }, { mbps: 1.5, p: 1 }] });
  });
  it("turns a sweep into sorted lines with 95 % CI bands", () => {
    const doc: ResultDocument = {
      ...RESULT,
      sweep: {
        parameter: "nodes.uav.range_m",
        values: [300, 100],
        points: [
          { value: 300, strategies: { mptcp: agg(3, 0.5, 3), sptcp: agg(2, 0.2, 3) } },
          { value: 100, strategies: { mptcp: agg(1, Number.NaN, 1) } },
        ],
      },
    };
    const lines = sweepLines(doc);
    expect(lines.map((l) => l.strategy)).toEqual(["mptcp", "sptcp"]);
    expect(lines[0]!.points).toEqual([
      { x: 100, mean: 1, lo: 1, hi: 1, runs: 1 },
      { x: 300, mean: 3, lo: 2.5, hi: 3.5, runs: 3 },
    ]);
    expect(sweepLines(RESULT)).toEqual([]);
  });
  it("unions domains for side-by-side charts", () => {
    expect(unionDomains([{ x: [0, 10], y: [0, 3] }, { x: [2, 20], y: [0, 5] }])).toEqual({ x: [0, 20], y: [0, 5] });
  });
});

describe("CSV", () => {
  it("quotes cells that need it", () => {
    expect(toCsv(["a", "b"], [["x,y", 'say "hi"'], [1, null]])).toBe('a,b\r\n"x,y","say ""hi"""\r\n1,\r\n');
  });
  it("writes throughput series in long format", () => {
    const csv = seriesCsv(comparisonSeries(RESULT, ["sptcp"]).slice(0, 1));
    const lines = csv.trim().split("\r\n");
    expect(lines[0]).toBe("strategy,flow,subflow,t_s,throughput_mbps,delay_ms,delay_p95_ms,jitter_ms,loss,r_factor,mos,frames_sent,frames_late,frames_lost");
    expect(lines[1]).toBe("sptcp,f1,,0,3,,,,,,,,,");
    expect(lines).toHaveLength(1 + 8);
  });
});

const ROUTED: StrategyResult = {
  strategy: "mptcp",
  engine: "fluid",
  flows: [
    {
      id: "f1",
      src: "a",
      dst: "d",
      t_s: [0, 1, 2],
      throughput_mbps: [5, 5, 5],
      subflows: [
        { id: "f1/0", path: ["a", "b", "d"], t_s: [0, 1, 2], throughput_mbps: [4, 0, 2] },
        { id: "f1/1", path: ["a", "c", "d"], t_s: [0, 1, 2], throughput_mbps: [1, 5, 3] },
      ],
    },
  ],
  events: [],
  summary: { flows: [], mean_mbps: 0, std_mbps: 0, min_mbps: 0, zero_s: 0, jain_index: 1 },
};

describe("routes and utilisation", () => {
  it("finds the sample interval holding t", () => {
    expect(sampleIndex([0, 1, 2], -0.1)).toBe(-1);
    expect(sampleIndex([0, 1, 2], 0.99)).toBe(0);
    expect(sampleIndex([0, 1, 2], 1)).toBe(1);
    expect(sampleIndex([0, 1, 2], 7)).toBe(2);
  });
  it("lists the subflows carrying traffic at t", () => {
    expect(activePaths(ROUTED, "f1", 1.5).map((p) => p.subflowId)).toEqual(["f1/1"]);
    expect(activePaths(ROUTED, null, 0).map((p) => [p.subflowId, p.mbps])).toEqual([["f1/0", 4], ["f1/1", 1]]);
    expect(activePaths(ROUTED, "other", 0)).toEqual([]);
    expect(hopKeys(["b", "a", "c"])).toEqual(["a|b", "a|c"]);
  });
  it("divides the busier direction's load by the link bandwidth", () => {
    const doc = {
      name: "r",
      nodes: ["a", "b", "c", "d"].map((id) => ({ id, kind: "router" as const })),
      links: [
        { id: "ab", src: "b", dst: "a", bandwidth_mbps: 10 },
        { id: "bd", src: "b", dst: "d", bandwidth_mbps: 2 },
        { id: "ac", src: "a", dst: "c", bandwidth_mbps: 10 },
        { id: "cd", src: "c", dst: "d", bandwidth_mbps: 10 },
      ],
    };
    expect(linkUtilization(doc as never, ROUTED, 2)).toEqual({ ab: 0.2, bd: 1, ac: 0.3, cd: 0.3 });
    expect(utilizationColor(0)).toBe("#94a3b8");
    expect(utilizationColor(1)).toBe("#dc2626");
  });
});

describe("association timeline at t", () => {
  const corners = [
    [0, 0, 0],
    [10, 100, 0],
    [20, 100, 50],
  ] as const;
  it("interpolates positions and clamps at the ends", () => {
    expect(positionAt(corners, -1)).toEqual({ x_m: 0, y_m: 0 });
    expect(positionAt(corners, 5)).toEqual({ x_m: 50, y_m: 0 });
    expect(positionAt(corners, 15)).toEqual({ x_m: 100, y_m: 25 });
    expect(positionAt(corners, 99)).toEqual({ x_m: 100, y_m: 50 });
    expect(positionAt([], 1)).toBeNull();
  });
  it("tells associating from associated", () => {
    const a = [{ station: "sta1", access_point: "ap1", t_start_s: 10, t_associated_s: 12, t_end_s: 30 }];
    expect(associationsAt(a, 9)).toEqual([]);
    expect(associationsAt(a, 11)).toEqual([{ station: "sta1", access_point: "ap1", state: "associating" }]);
    expect(associationsAt(a, 12)).toEqual([{ station: "sta1", access_point: "ap1", state: "associated" }]);
    expect(associationsAt(a, 30)).toEqual([]);
  });
});

describe("scale bar and grid", () => {
  it("picks a 1/2/5 length that fits", () => {
    expect(niceLength(0.5, 120)).toEqual({ metres: 200, px: 100, label: "200 m" });
    expect(niceLength(0.001, 120)).toMatchObject({ metres: 100_000, label: "100 km" });
    expect(niceLength(0, 120).px).toBe(0);
    expect(formatMetres(0.5)).toBe("50 cm");
  });
  it("spaces grid lines at least minPx apart", () => {
    expect(gridSpacing(0.5, 40)).toBe(100);
    expect(gridSpacing(0.5, 36)).toBe(100);
    expect(gridSpacing(2, 40)).toBe(20);
  });
});

describe("subflow series", () => {
  it("pairs every subflow's samples with its flow", () => {
    const s = subflowSeries(ROUTED);
    expect(s.map((x) => [x.flowId, x.subflowId, x.points.length])).toEqual([
      ["f1", "f1/0", 3],
      ["f1", "f1/1", 3],
    ]);
  });
});
