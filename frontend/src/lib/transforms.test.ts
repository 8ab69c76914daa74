import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { ScenarioDocument } from "../api/types";
import {
  allFlowIds,
  comparisonSeries,
  flowStyles,
  flowSeries,
  handoverMarkers,
  sharedDomains,
  strategyOrder,
} from "./chartData";
import { RESULT } from "./fixtures.test-data";
import { excerpt, formatFixed3, formatLoc, formatSeconds, formatValidationErrors } from "./format";
import { summaryRows } from "./summaryRows";
import { modelExtent, scaleFor, TARGET_EXTENT, topologyElements } from "./topology";

describe("strategyOrder", () => {
  it("follows the requested order, then appends strategies only in the result", () => {
    expect(strategyOrder(["sptcp", "mptcp"], RESULT)).toEqual(["sptcp", "mptcp"]);
    expect(strategyOrder(["sptcp", "nope"], RESULT)).toEqual(["sptcp", "mptcp"]);
    expect(strategyOrder(null, RESULT)).toEqual(["mptcp", "sptcp"]);
  });
});

describe("flowSeries", () => {
  it("pairs t_s with throughput and drops non-finite samples", () => {
    const r = structuredClone(RESULT.strategies.sptcp!);
    r.flows[0]!.throughput_mbps[1] = Number.NaN;
    const s = flowSeries(r);
    expect(s.map((f) => f.flowId)).toEqual(["f1", "f2"]);
    expect(s[0]!.points).toEqual([
      { t_s: 0, mbps: 3 },
      { t_s: 2, mbps: 0 },
      { t_s: 3, mbps: 0 },
    ]);
    expect(s[1]!.points).toHaveLength(4);
  });
});

describe("handoverMarkers", () => {
  it("keeps handover_start and association events, once per time/kind/node, sorted", () => {
    const m = handoverMarkers(RESULT.strategies.sptcp!.events);
    expect(m).toEqual([
      { t_s: 2, kind: "handover_start", node: "sta1" },
      { t_s: 2, kind: "handover_start", node: "sta2" },
      { t_s: 3, kind: "association", node: "sta1" },
    ]);
    expect(handoverMarkers(undefined)).toEqual([]);
  });
});

describe("sharedDomains", () => {
  it("spans every strategy's samples with one x and one y domain", () => {
    const series = comparisonSeries(RESULT, ["sptcp", "mptcp"]);
    expect(series.map((s) => s.strategy)).toEqual(["sptcp", "mptcp"]);
    const d = sharedDomains(series);
    expect(d.x).toEqual([0, 3]);
    expect(d.y[0]).toBe(0);
    expect(d.y[1]).toBeCloseTo(3.2 * 1.05, 9);
  });

  it("falls back to unit domains when there is nothing to draw", () => {
    expect(sharedDomains([])).toEqual({ x: [0, 1], y: [0, 1] });
    const flat = sharedDomains([
      { strategy: "s", engine: "fluid", markers: [], flows: [{ flowId: "f", points: [{ t_s: 5, mbps: 0 }] }] },
    ]);
    expect(flat).toEqual({ x: [5, 6], y: [0, 1] });
  });
});

describe("flow colours", () => {
  it("gives each flow one colour and dash shared across charts", () => {
    const ids = allFlowIds(comparisonSeries(RESULT));
    expect(ids).toEqual(["f1", "f2"]);
    const c = flowStyles(ids);
    expect(c.f1!.color).not.toEqual(c.f2!.color);
    expect(c.f1!.dash).toBe("");
    expect(c.f2!.dash).not.toBe("");
    expect(flowStyles(["f2", "f1"]).f1).toEqual(c.f2);
  });
});

describe("summaryRows", () => {
  it("has one row per strategy × flow and an 'all flows' row per strategy", () => {
    const rows = summaryRows(RESULT, ["sptcp", "mptcp"]);
    expect(rows.map((r) => r.key)).toEqual([
      "sptcp-f1",
      "sptcp-f2",
      "sptcp-all",
      "mptcp-f1",
      "mptcp-f2",
      "mptcp-all",
    ]);
    const all = rows[2]!;
    expect(all).toMatchObject({
      isAll: true,
      flowId: "all",
      mean_mbps: 1.125,
      std_mbps: 0.375,
      min_mbps: 0.75,
      zero_s: 5,
      longest_zero_s: 3,
      jain_index: 0.9,
    });
    expect(rows[0]).toMatchObject({ isAll: false, mean_mbps: 1.5, longest_zero_s: 2, jain_index: null });
  });
});

describe("format", () => {
  it("formats Mbit/s with 3 decimals and seconds without trailing zeros", () => {
    expect(formatFixed3(1.94223176)).toBe("1.942");
    expect(formatFixed3(-0.0001)).toBe("0.000");
    expect(formatFixed3(null)).toBe("—");
    expect(formatFixed3(Number.NaN)).toBe("—");
    expect(formatSeconds(3)).toBe("3");
    expect(formatSeconds(0.25)).toBe("0.25");
    expect(formatSeconds(1.23456)).toBe("1.235");
  });

  it("joins 422 locations with dots and drops the 'body' prefix", () => {
    expect(formatLoc(["body", "links", 0, "dst"])).toBe("links.0.dst");
    expect(formatLoc(["name"])).toBe("name");
    expect(
      formatValidationErrors([
        { loc: ["body", "links", 0, "dst"], msg: "unknown node 'x'" },
        { loc: ["body"], msg: "Field required" },
      ]),
    ).toEqual(["links.0.dst: unknown node 'x'", "Field required"]);
  });

  it("cuts long descriptions on a word boundary", () => {
    expect(excerpt("short")).toBe("short");
    const e = excerpt("alpha beta gamma delta epsilon", 14);
    expect(e).toBe("alpha beta…");
    expect(excerpt(undefined)).toBe("");
  });
});

describe("topologyElements", () => {
  const naval = JSON.parse(
    readFileSync(fileURLToPath(new URL("../../../examples/naval-direct-move.json", import.meta.url)), "utf8"),
  ) as ScenarioDocument;

  it("draws every node, wired link, radio range and mobility path of the example", () => {
    const { elements, scale } = topologyElements(naval);
    const byClass = (c: string) => elements.filter((e) => e.classes.split(" ").includes(c));
    expect(byClass("node").map((e) => e.data.id)).toEqual(["ship", "satcom", "uav", "sta1", "sta2"]);
    expect(byClass("link")).toHaveLength(4);
    const range = byClass("range");
    expect(range).toHaveLength(1);
    expect(range[0]!.data.w).toBeCloseTo(600 * scale, 9);
    // two linear paths: start → end
    expect(byClass("mobility").map((e) => e.data.id)).toEqual(["path:sta1:1", "path:sta2:1"]);
    const ids = elements.map((e) => e.data.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("maps metres with one scale and flips y so north is up", () => {
    const { elements, scale } = topologyElements(naval);
    const ship = elements.find((e) => e.data.id === "ship")!;
    expect(ship.position).toEqual({ x: 1000 * scale, y: -600 * scale });
    const box = modelExtent(naval);
    // the UAV's range circle (x 700..1300) and sta2's path (y -900) widen the box
    expect(box).toEqual({ xMin: 100, xMax: 1300, yMin: -900, yMax: 600 });
    expect(scale).toBeCloseTo(TARGET_EXTENT / 1500, 12);
  });

  it("draws waypoints as a polyline and a random walk as its bounds", () => {
    const doc: ScenarioDocument = {
      name: "w",
      nodes: [
        {
          id: "a",
          kind: "station",
          mobility: {
            model: "waypoints",
            points: [
              { t_s: 0, x_m: 0, y_m: 0 },
              { t_s: 1, x_m: 10, y_m: 0 },
              { t_s: 2, x_m: 10, y_m: 10 },
            ],
          },
        },
        {
          id: "b",
          kind: "station",
          position: { x_m: 5, y_m: 5 },
          mobility: { model: "random_walk", bounds: { x_min_m: 0, y_min_m: 0, x_max_m: 20, y_max_m: 10 } },
        },
      ],
      links: [{ id: "l", src: "a", dst: "missing", bandwidth_mbps: 1 }],
    };
    const { elements, scale } = topologyElements(doc);
    expect(elements.filter((e) => e.classes.startsWith("mobility")).map((e) => [e.data.source, e.data.target])).toEqual([
      ["wp:a:0", "wp:a:1"],
      ["wp:a:1", "wp:a:2"],
    ]);
    const bounds = elements.find((e) => e.data.id === "bounds:b")!;
    expect(bounds.data.w).toBeCloseTo(20 * scale, 9);
    expect(bounds.data.h).toBeCloseTo(10 * scale, 9);
    expect(bounds.position).toEqual({ x: 10 * scale, y: -5 * scale });
    // a link to an unknown node is not drawn
    expect(elements.some((e) => e.classes === "link")).toBe(false);
  });

  it("scales an empty or single-point extent by 1", () => {
    expect(scaleFor({ xMin: 0, xMax: 0, yMin: 0, yMax: 0 })).toBe(1);
  });
});
