import { describe, expect, it } from "vitest";
import type { FailureCase } from "../api/analysis";
import type { ResultDocument } from "../api/types";
import { FAILED_COLOR, REROUTED_COLOR, failureHighlight, heatmapCells, linksOfPath, tracePoints } from "./whatIf";

const LINKS = [
  { id: "ab", src: "a", dst: "b" },
  { id: "bc", src: "b", dst: "c" },
  { id: "ac", src: "a", dst: "c" },
];

function flow(over: Partial<FailureCase["flows"][number]>): FailureCase["flows"][number] {
  return { flow: "f", src: "a", dst: "c", reachable: true, path_changed: false, path: ["a", "c"], intact_path: ["a", "c"],
    delay_ms: 1, intact_delay_ms: 1, delay_change_ms: 0, requested_mbps: 1, delivered_mbps: 1, intact_delivered_mbps: 1,
    lost_mbps: 0, ...over };
}

describe("failure overlay", () => {
  it("maps a node path to link ids in either direction", () => {
    expect(linksOfPath(["c", "b", "a"], LINKS)).toEqual(["bc", "ab"]);
  });
  it("draws the failed link red and dashed, re-planned routes blue, the rest dimmed", () => {
    const c: FailureCase = { kind: "link", t_s: 0, element: "ac", links: ["ac"], lost_mbps: 0, flows_cut: 0, paths_changed: 1,
      max_delay_change_ms: 2, mean_delay_s: 0.01, max_utilization: 0.5,
      flows: [flow({ path_changed: true, path: ["a", "b", "c"] }), flow({ flow: "g", path: ["a", "b"] })] };
    const h = failureHighlight(c, LINKS);
    expect(h.dim).toBe(true);
    expect(h.links.ac).toEqual({ color: FAILED_COLOR, width: 5, classes: "failed" });
    expect(h.links.ab?.color).toBe(REROUTED_COLOR);
    expect(h.links.bc?.color).toBe(REROUTED_COLOR);
    expect(Object.keys(h.links).sort()).toEqual(["ab", "ac", "bc"]);
  });
  it("marks a failed node", () => {
    const c: FailureCase = { kind: "node", t_s: 0, element: "b", links: ["ab", "bc"], lost_mbps: 1, flows_cut: 1, paths_changed: 1,
      max_delay_change_ms: null, mean_delay_s: null, max_utilization: null, flows: [flow({ reachable: false, path: [] })] };
    const h = failureHighlight(c, LINKS);
    expect(h.nodes.b).toBe("failed");
    expect(h.links.ab?.classes).toBe("failed");
  });
});

describe("capacity trace", () => {
  it("takes the worst flow of each step", () => {
    const pts = tracePoints({ parameter: "p", strategy: "s", min_mean_mbps: 2, max_zero_s: null, window_s: [0, 60], status: "found", value: 3,
      bracket: [2, 3], runs: 2, trace: [
        { step: 0, value: 4, passed: true, runs: 1, flows: [{ flow: "a", mean_mbps: 3, zero_s: 0, passed: true }, { flow: "b", mean_mbps: 2.5, zero_s: 1, passed: true }] },
        { step: 1, value: 2, passed: false, runs: 1, flows: [{ flow: "a", mean_mbps: 1.5, zero_s: 2, passed: false }] },
      ] });
    expect(pts.map((p) => [p.value, p.worstMeanMbps, p.worstZeroS, p.passed])).toEqual([[4, 2.5, 1, true], [2, 1.5, 2, false]]);
  });
});

describe("heatmap cells", () => {
  it("places each 2-D point on its row and column", () => {
    const stats = (m: number) => ({ s: { mean_mbps: m, ci95_mbps: m / 10, jain_index: 1, zero_s: 0, runs: 2 } });
    const doc = { sweep: { parameter: "x", values: [1, 4], parameter_y: "y", values_y: [1, 3], points: [
      { value: 1, value_y: 1, strategies: stats(1) }, { value: 1, value_y: 3, strategies: stats(2) },
      { value: 4, value_y: 1, strategies: stats(3) }, { value: 4, value_y: 3, strategies: stats(4) },
    ] } } as unknown as ResultDocument;
    const h = heatmapCells(doc, "s")!;
    expect(h.xs).toEqual(["1", "4"]);
    expect(h.cells.map((c) => [c.i, c.j, c.meanMbps, c.ci95Mbps])).toEqual([[0, 0, 1, 0.1], [0, 1, 2, 0.2], [1, 0, 3, 0.3], [1, 1, 4, 0.4]]);
    expect(heatmapCells({ sweep: { parameter: "x", values: [1], points: [] } } as unknown as ResultDocument, "s")).toBeNull();
  });
});
