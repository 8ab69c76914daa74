import { describe, expect, it } from "vitest";
import type { ResultEvent, ScenarioDocument, StrategyResult } from "../api/types";
import { activePaths, linkUtilization, pathsOverlay, subflowPathAt } from "./routes";
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

describe("pathsOverlay", () => {
  const doc = {
    name: "t",
    nodes: [
      { id: "sta1", kind: "station" }, { id: "sta2", kind: "station" }, { id: "uav", kind: "access_point", range_m: 100 },
      { id: "sat", kind: "switch" }, { id: "ship", kind: "host" },
    ],
    links: [
      { id: "sta1-sat", src: "sta1", dst: "sat", bandwidth_mbps: 10 },
      { id: "sat-ship", src: "sat", dst: "ship", bandwidth_mbps: 10 },
      { id: "uav-ship", src: "uav", dst: "ship", bandwidth_mbps: 1 },
    ],
    flows: [],
  } as unknown as ScenarioDocument;
  const paths = [
    { flowId: "f1", subflowId: "f1/sat", nodes: ["sta1", "sat", "ship"], mbps: 1.2 },
    { flowId: "f1", subflowId: "f1/uav", nodes: ["sta1", "uav", "ship"], mbps: 0.5 },
    { flowId: "f2", subflowId: "f2/uav", nodes: ["sta2", "uav", "ship"], mbps: 0.4 },
  ];
  it("labels a link with every subflow crossing it, and draws the wireless hops", () => {
    const o = pathsOverlay(doc, paths);
    expect(o.links["uav-ship"]).toEqual({ color: "#dc2626", width: 7, label: "f1/uav 0.50 + f2/uav 0.40 Mbit/s", classes: "route shared" });
    expect(o.links["sat-ship"]!.label).toBe("f1/sat 1.20 Mbit/s");
    expect(o.air).toEqual([
      { station: "sta1", access_point: "uav", color: "#dc2626", label: "f1/uav 0.50 Mbit/s" },
      { station: "sta2", access_point: "uav", color: "#059669", label: "f2/uav 0.40 Mbit/s" },
    ]);
    expect(Object.keys(o.nodes).sort()).toEqual(["sat", "ship", "sta1", "sta2", "uav"]);
  });
});
