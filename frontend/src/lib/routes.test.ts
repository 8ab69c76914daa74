import { describe, expect, it } from "vitest";
import type { ResultEvent, StrategyResult } from "../api/types";
import { activePaths, linkUtilization, subflowPathAt } from "./routes";
import { docAt } from "./timeline";

/**
 * sptcp on naval-direct-move as the fluid engine reports it: f1 starts on SATCOM, loses it at
 * 60 s and moves to the UAV at 62 s. The series' `path` is the last path (the UAV's).
 */
const sub = { node: "sta1", flow: "f1", subflow: "f1/tcp" };
const EVENTS: ResultEvent[] = [
  { t_s: 0, kind: "subflow_up", ...sub, path: ["sta1", "satcom", "ship"] },
  { t_s: 60, kind: "route_lost", ...sub, path: ["sta1", "satcom", "ship"] },
  { t_s: 62, kind: "route_change", ...sub, path: ["sta1", "uav", "ship"], previous_path: ["sta1", "satcom", "ship"] },
];
const T = [0, 30, 60, 62, 90];
const SPTCP: StrategyResult = {
  strategy: "sptcp",
  engine: "fluid",
  flows: [
    {
      id: "f1",
      src: "sta1",
      dst: "ship",
      t_s: T,
      throughput_mbps: [1.9, 1.9, 0, 3, 3],
      subflows: [{ id: "f1/tcp", path: ["sta1", "uav", "ship"], t_s: T, throughput_mbps: [1.9, 1.9, 0, 3, 3] }],
    },
  ],
  events: EVENTS,
  summary: { flows: [], mean_mbps: 0, std_mbps: 0, min_mbps: 0, zero_s: 0, jain_index: 1 },
};

describe("routes over time", () => {
  it("follows subflow_up, route_lost and route_change instead of the last path", () => {
    expect(subflowPathAt(EVENTS, "f1/tcp", 30, ["x"])).toEqual(["sta1", "satcom", "ship"]);
    expect(subflowPathAt(EVENTS, "f1/tcp", 61, ["x"])).toEqual(["sta1", "satcom", "ship"]);
    expect(subflowPathAt(EVENTS, "f1/tcp", 62, ["x"])).toEqual(["sta1", "uav", "ship"]);
    expect(subflowPathAt(EVENTS, "other", 30, ["a", "b"])).toEqual(["a", "b"]);
  });
  it("uses the path a later route_change names as previous before any event", () => {
    expect(subflowPathAt(EVENTS.slice(2), "f1/tcp", 10, ["x"])).toEqual(["sta1", "satcom", "ship"]);
  });
  it("shows sptcp on SATCOM at 30 s and on the UAV at 90 s", () => {
    expect(activePaths(SPTCP, null, 30)).toEqual([{ flowId: "f1", subflowId: "f1/tcp", nodes: ["sta1", "satcom", "ship"], mbps: 1.9 }]);
    expect(activePaths(SPTCP, null, 90)[0]!.nodes).toEqual(["sta1", "uav", "ship"]);
    expect(activePaths(SPTCP, null, 61)).toEqual([]);
  });
  it("loads the links of the path in use at t", () => {
    const doc = {
      name: "n",
      nodes: ["sta1", "satcom", "uav", "ship"].map((id) => ({ id, kind: "router" as const })),
      links: [
        { id: "sat", src: "satcom", dst: "ship", bandwidth_mbps: 2 },
        { id: "uav", src: "uav", dst: "ship", bandwidth_mbps: 3 },
      ],
    };
    expect(linkUtilization(doc as never, SPTCP, 30)).toEqual({ sat: 0.95, uav: 0 });
    expect(linkUtilization(doc as never, SPTCP, 90)).toEqual({ sat: 0, uav: 1 });
  });
});

describe("stations at t", () => {
  it("moves stations along their trajectories and leaves other nodes alone", () => {
    const doc = {
      name: "n",
      nodes: [
        { id: "sta1", kind: "station", position: { x_m: 0, y_m: 0 } },
        { id: "ap", kind: "access_point", position: { x_m: 5, y_m: 5 } },
      ],
    };
    const moved = docAt(doc, { sta1: [[0, 0, 0], [100, 1000, 0]], ap: [[0, 9, 9]] }, 30);
    expect(moved.nodes[0]!.position).toEqual({ x_m: 300, y_m: 0 });
    expect(moved.nodes[1]).toBe(doc.nodes[1]);
    expect(docAt(doc, null, 30)).toBe(doc);
  });
});
