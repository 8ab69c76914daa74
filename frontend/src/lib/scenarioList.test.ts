import { describe, expect, it } from "vitest";
import type { ScenarioSummary } from "../api/types";
import { copyName, filterScenarios } from "./scenarioList";

const S = (name: string, project_id: string, updated_at: string, description = ""): ScenarioSummary =>
  ({ id: name, name, project_id, updated_at, description, version: 1 }) as ScenarioSummary;

const ITEMS = [
  S("naval-direct-move", "p1", "2026-11-20T10:00:00Z", "MPTCP over SATCOM and a UAV"),
  S("hsln-10node", "p1", "2026-11-28T09:00:00Z", "TCPBP thesis lossy network"),
  S("Naval LEO", "p2", "2026-11-25T09:00:00Z", "Starlink-like shell"),
  S("uav-relay-chain", "p2", "2026-11-01T09:00:00Z", "two UAV relays"),
];

describe("scenario list", () => {
  it("searches every word in name or description, any case", () => {
    expect(filterScenarios(ITEMS, { query: "naval", projectId: null, sort: "name" }).map((s) => s.name)).toEqual(["Naval LEO", "naval-direct-move"]); // collation: a space sorts before "-"
    expect(filterScenarios(ITEMS, { query: "uav MPTCP", projectId: null, sort: "name" }).map((s) => s.name)).toEqual(["naval-direct-move"]);
    expect(filterScenarios(ITEMS, { query: "nothing like it", projectId: null, sort: "name" })).toEqual([]);
  });
  it("filters by project and sorts by name or by the latest update", () => {
    expect(filterScenarios(ITEMS, { query: "", projectId: "p2", sort: "name" }).map((s) => s.name)).toEqual(["Naval LEO", "uav-relay-chain"]);
    expect(filterScenarios(ITEMS, { query: "", projectId: null, sort: "updated" }).map((s) => s.name)).toEqual([
      "hsln-10node", "Naval LEO", "naval-direct-move", "uav-relay-chain",
    ]);
    expect(ITEMS[0]!.name).toBe("naval-direct-move"); // the input is not reordered
  });
  it("names a duplicate no scenario has", () => {
    expect(copyName("a", ["a"])).toBe("a (copy)");
    expect(copyName("a", ["a", "a (copy)", "a (copy 2)"])).toBe("a (copy 3)");
  });
});
