// @vitest-environment happy-dom
/**
 * The two read-once hooks of the comparison page, mounted in happy-dom with the API client's calls
 * replaced: strategy descriptions by name, and the scenario's name for the breadcrumbs; both stay
 * empty when the server does not answer.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { api } from "../../api/client";
import { renderHook, settle, type Rendered } from "../../testing/renderHook";
import { useScenarioName } from "./useScenarioName";
import { useStrategyDescriptions } from "./useStrategyDescriptions";

let r: Rendered<string, unknown>;
afterEach(() => {
  r.unmount();
  vi.restoreAllMocks();
});

describe("useStrategyDescriptions", () => {
  it("maps each strategy to its description", async () => {
    vi.spyOn(api, "listStrategies").mockResolvedValue([
      { name: "sptcp", description: "One TCP connection" },
      { name: "mptcp", description: "Multipath TCP" },
    ] as never);
    r = renderHook(useStrategyDescriptions, "");
    expect(r.result.current).toEqual({});
    await settle();
    expect(r.result.current).toEqual({ sptcp: "One TCP connection", mptcp: "Multipath TCP" });
  });

  it("stays empty when the list cannot be read", async () => {
    vi.spyOn(api, "listStrategies").mockRejectedValue(new Error("offline"));
    r = renderHook(useStrategyDescriptions, "");
    await settle();
    expect(r.result.current).toEqual({});
  });
});

describe("useScenarioName", () => {
  it("reads the scenario's name; null when it cannot be read", async () => {
    vi.spyOn(api, "getScenario").mockImplementation(async (id) => {
      if (id === "gone") throw new Error("Not found");
      return { name: `Scenario ${id}` } as never;
    });
    r = renderHook(useScenarioName, "s1");
    expect(r.result.current).toBeNull();
    await settle();
    expect(r.result.current).toBe("Scenario s1");
    r.unmount();
    r = renderHook(useScenarioName, "gone");
    await settle();
    expect(r.result.current).toBeNull();
  });
});
