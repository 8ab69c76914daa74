import { describe, expect, it } from "vitest";
import type { AllocationDocument, ScenarioDocument, StrategyResult } from "../api/types";
import { allocationHighlight, allocationUtilization, linkUseHighlight, parsePairs, pathsHighlight, plannedLines, rankColor, shareColor, SHARE_BUCKETS, timeNote } from "./planning";
import { utilizationColor } from "./routes";

/** naval-direct-move's wired links (the air hops sta–uav have no link). */
const DOC = {
  name: "naval",
  nodes: ["ship", "satcom", "uav", "sta1", "sta2"].map((id) => ({ id, kind: "host" })),
  links: [
    { id: "sta1-satcom", src: "sta1", dst: "satcom", bandwidth_mbps: 50, delay_ms: 250 },
    { id: "sta2-satcom", src: "sta2", dst: "satcom", bandwidth_mbps: 50, delay_ms: 250 },
    { id: "satcom-ship", src: "satcom", dst: "ship", bandwidth_mbps: 50, delay_ms: 1 },
    { id: "uav-ship", src: "uav", dst: "ship", bandwidth_mbps: 1, delay_ms: 10 },
  ],
} as unknown as ScenarioDocument;

describe("paths overlay", () => {
  it("colours each link by its best rank and lists every rank in the label", () => {
    const h = pathsHighlight(DOC, [
      { rank: 1, nodes: ["sta1", "uav", "ship"] },
      { rank: 0, nodes: ["sta1", "satcom", "ship"] },
      { rank: 2, nodes: ["sta2", "satcom", "ship"] },
    ]);
    expect(Object.keys(h.links).sort()).toEqual(["satcom-ship", "sta1-satcom", "sta2-satcom", "uav-ship"]);
    expect(h.links["satcom-ship"]).toMatchObject({ color: "#2563eb", label: "#1 #3" });
    expect(h.links["uav-ship"]).toMatchObject({ color: "#dc2626", label: "#2" });
    expect(h.links["sta2-satcom"]!.color).toBe(rankColor(2));
    expect(h.nodes).toMatchObject({ sta1: "route", uav: "route", ship: "route", sta2: "route" });
    expect(h.dim).toBe(true);
    // thicker for better ranks
    expect(h.links["satcom-ship"]!.width!).toBeGreaterThan(h.links["uav-ship"]!.width!);
  });
});

describe("route summary overlay", () => {
  it("sizes and colours by the share of reachable pairs", () => {
    const h = linkUseHighlight([{ link: "a", routes: 0 }, { link: "b", routes: 3 }, { link: "c", routes: 40 }], 100);
    expect(h.links.a!.color).toBe(SHARE_BUCKETS[0]!.color);
    expect(h.links.b!.color).toBe("#93c5fd"); // 3 % < 5 %
    expect(h.links.c!.color).toBe("#172554"); // 40 % ≥ 30 %
    expect(h.links.c!.label).toBe("40");
    expect(shareColor(0.1)).toBe("#3b82f6");
  });
});

describe("allocation overlay", () => {
  const alloc = {
    method: "fdm", gamma: 6, sum_flow_over_residual: 1, mean_delay_s: 0.01, tempered: 1, lambda_max: null, relative_gap: 0, iterations: 3,
    links: [
      { link: "uav-ship", src: "uav", dst: "ship", flow: 0.9, capacity: 1, utilization: 0.9 },
      { link: "uav-ship", src: "ship", dst: "uav", flow: 0.1, capacity: 1, utilization: 0.1 },
      { link: "satcom-ship", src: "satcom", dst: "ship", flow: 5.1, capacity: 50, utilization: 0.102 },
    ],
    demands: [],
  } as unknown as AllocationDocument;
  it("takes the busier direction and colours by utilisation", () => {
    expect(allocationUtilization(alloc)).toEqual({ "uav-ship": 0.9, "satcom-ship": 0.102 });
    const h = allocationHighlight(DOC, alloc);
    expect(h.links["uav-ship"]).toMatchObject({ color: utilizationColor(0.9), label: "90%" });
    expect(h.links["satcom-ship"]!.label).toBe("10%");
    expect(h.links["sta1-satcom"]).toMatchObject({ color: "#94a3b8", label: "0%" });
  });
});

describe("planned lines", () => {
  it("pairs each planned subflow with its measured series", () => {
    const r = {
      strategy: "mptcp-fdm", engine: "fluid", events: [],
      summary: { flows: [], mean_mbps: 0, std_mbps: 0, min_mbps: 0, zero_s: 0, jain_index: 1 },
      flows: [{ id: "f1", src: "sta1", dst: "ship", t_s: [0, 1], throughput_mbps: [1, 2], subflows: [
        { id: "f1/satcom", path: [], t_s: [0, 1], throughput_mbps: [1, 1.5] },
        { id: "f1/uav", path: [], t_s: [0, 1], throughput_mbps: [0, 0.5] },
      ] }],
      planned: { strategy: "mptcp-fdm", t0_s: 0, t1_s: 2, links: [], subflows: [
        { flow: "f1", subflow: "f1/satcom", planned_mbps: [3, 2.6] },
        { flow: "f1", subflow: "f1/uav", planned_mbps: [null, 0.4] },
      ] },
    } as unknown as StrategyResult;
    const lines = plannedLines(r);
    expect(lines.map((l) => [l.subflowId, l.planned, l.measured])).toEqual([
      ["f1/satcom", [3, 2.6], [1, 1.5]],
      ["f1/uav", [null, 0.4], [0, 0.5]],
    ]);
    expect(plannedLines({ ...r, planned: null })).toEqual([]);
  });
});

describe("pair parsing", () => {
  it("reads SRC:DST items and names what is wrong", () => {
    const ids = new Set(["a", "b", "c"]);
    expect(parsePairs("a:b, c:a\nb c", ids)).toEqual({ pairs: [["a", "b"], ["c", "a"], ["b", "c"]], errors: [] });
    const bad = parsePairs("a:z, a:a, abc", ids);
    expect(bad.pairs).toEqual([]);
    expect(bad.errors).toEqual(["“a:z”: no node z", "“a:a”: source and destination are the same node", "“abc”: expected SRC:DST"]);
  });
});

describe("routes panel overlay choice", async () => {
  const { overlayOf } = await import("../components/RoutesPanel");
  const routes = {
    metric: "delay", cost_unit: "ms", greedy_differs: [{ src: "sta1", dst: "ship", exact_cost: 1, greedy_cost: 2, exact_nodes: ["sta1", "satcom", "ship"], greedy_nodes: ["sta1", "uav", "ship"] }],
    routes: [
      { src: "sta1", dst: "ship", reachable: true, paths: [{ nodes: ["sta1", "satcom", "ship"], hops: 2, delay_ms: 251, loss: 0, cost: 251 }] },
      { src: "sta2", dst: "uav", reachable: true, paths: [{ nodes: ["sta2", "satcom", "ship", "uav"], hops: 3, delay_ms: 261, loss: 0, cost: 261 }] },
    ],
  } as never;
  it("draws every pair, one selected pair, or the greedy and exact routes together", () => {
    expect(Object.keys(overlayOf(DOC, routes, null).links).sort()).toEqual(["satcom-ship", "sta1-satcom", "sta2-satcom", "uav-ship"]);
    expect(Object.keys(overlayOf(DOC, routes, "sta1>ship").links).sort()).toEqual(["satcom-ship", "sta1-satcom"]);
    const both = overlayOf(DOC, routes, "greedy:sta1>ship").links;
    expect(both["sta1-satcom"]).toMatchObject({ color: rankColor(0), label: "exact" });
    expect(both["uav-ship"]).toMatchObject({ color: rankColor(1), label: "greedy" });
  });
  it("draws a summary as link shares", () => {
    const h = overlayOf(DOC, { ...(routes as object), link_use: [{ link: "uav-ship", routes: 20 }], pairs_reachable: 40 } as never, null);
    expect(h.links["uav-ship"]).toMatchObject({ color: "#172554", label: "20", classes: "util" });
  });
});

describe("timeNote", () => {
  it("names the time asked for and the window it falls in", () => {
    expect(timeNote({ t_s: 42, duration_s: 900, windows: [{ t_start_s: 20.0538, t_end_s: 132.05 }] })).toBe(
      "At t = 42 s of 900 s (the network is the same from 20.05 to 132.1 s).",
    );
  });
  it("lists where the answer changes over the whole run", () => {
    expect(timeNote({ t_s: null, duration_s: 900, windows: [{ t_start_s: 0, t_end_s: 20 }, { t_start_s: 20, t_end_s: 132 }, { t_start_s: 132, t_end_s: 900 }] })).toBe(
      "At the run's start (t = 0 of 900 s); the answer changes at 20 s, 132 s.",
    );
    expect(timeNote({ t_s: null, duration_s: 60, windows: [{ t_start_s: 0, t_end_s: 60 }] })).toBe("The whole run (0–60 s): the network does not change.");
  });
});
