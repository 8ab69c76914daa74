/**
 * The comparison page asks for its scenario's timeline (orbits, link budgets) and draws its map only once the
 * run has ended, so that neither competes with the run for the machine's cores, and only once the record read
 * again at the end (with the result the charts draw) has arrived.
 */
import { describe, expect, it } from "vitest";
import { timelineVersion } from "./useScenarioTimeline";

describe("timelineVersion", () => {
  const record = (status: string) => ({ scenario_version: 3, status });
  it("none while the comparison is queued or running", () => {
    expect(timelineVersion(record("queued"), "queued")).toBeNull();
    expect(timelineVersion(record("running"), "running")).toBeNull();
    expect(timelineVersion(record("running"), undefined)).toBeNull();
    expect(timelineVersion(null, "succeeded")).toBeNull();
  });
  it("none while the stream has told the end but the record read again has not arrived", () => {
    expect(timelineVersion(record("running"), "succeeded")).toBeNull();
    expect(timelineVersion(record("queued"), "failed")).toBeNull();
  });
  it("the comparison's scenario version once it has ended", () => {
    expect(timelineVersion(record("succeeded"), "succeeded")).toBe(3);
    expect(timelineVersion(record("failed"), "failed")).toBe(3);
    expect(timelineVersion(record("cancelled"), "cancelled")).toBe(3);
  });
});
