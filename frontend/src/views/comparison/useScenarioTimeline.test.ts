/**
 * The comparison page asks for its scenario's timeline (orbits, link budgets) and draws its map only once the
 * run has ended, so that neither competes with the run for the machine's cores.
 */
import { describe, expect, it } from "vitest";
import { timelineVersion } from "./useScenarioTimeline";

describe("timelineVersion", () => {
  const c = { scenario_version: 3 };
  it("none while the comparison is queued or running", () => {
    expect(timelineVersion(c, "queued")).toBeNull();
    expect(timelineVersion(c, "running")).toBeNull();
    expect(timelineVersion(c, undefined)).toBeNull();
    expect(timelineVersion(null, "succeeded")).toBeNull();
  });
  it("the comparison's scenario version once it has ended", () => {
    expect(timelineVersion(c, "succeeded")).toBe(3);
    expect(timelineVersion(c, "failed")).toBe(3);
    expect(timelineVersion(c, "cancelled")).toBe(3);
  });
});
