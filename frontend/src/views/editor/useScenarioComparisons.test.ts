// @vitest-environment happy-dom
/**
 * useScenarioComparisons mounted in happy-dom with the API client's listComparisons replaced: the
 * scenario's comparisons, an empty list when they cannot be read, and none for a new scenario.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { api } from "../../api/client";
import type { ComparisonSummary } from "../../api/types";
import { renderHook, settle, type Rendered } from "../../testing/renderHook";
import { useScenarioComparisons } from "./useScenarioComparisons";

let r: Rendered<string | null, ComparisonSummary[]>;
afterEach(() => {
  r.unmount();
  vi.restoreAllMocks();
});

describe("useScenarioComparisons", () => {
  it("lists the scenario's comparisons", async () => {
    vi.spyOn(api, "listComparisons").mockImplementation(async (id) => ({ data: [{ id: `${id}-c1`, status: "succeeded", strategies: ["sptcp"] }] }) as never);
    r = renderHook(useScenarioComparisons, "s1");
    expect(r.result.current).toEqual([]);
    await settle();
    expect(r.result.current.map((c) => c.id)).toEqual(["s1-c1"]);
  });

  it("is empty when the list cannot be read, and for a scenario not saved yet", async () => {
    const list = vi.spyOn(api, "listComparisons").mockRejectedValue(new Error("offline"));
    r = renderHook(useScenarioComparisons, "s1");
    await settle();
    expect(r.result.current).toEqual([]);
    r.unmount();
    list.mockResolvedValue({ data: [{ id: "c1", status: "succeeded", strategies: ["sptcp"] }] } as never);
    r = renderHook(useScenarioComparisons, null);
    await settle();
    expect(r.result.current).toEqual([]);
  });
});
