import { describe, expect, it } from "vitest";
import { changedFields, formatValue } from "./versionDiff";

const base = {
  name: "naval",
  run: { duration_s: 100, interval_s: 1 },
  links: [
    { id: "satcom-ship", a: "sat", b: "ship", loss: 0.01 },
    { id: "uav-ship", a: "uav", b: "ship", loss: 0 },
  ],
  timeline: [0, 5, 10],
};

describe("changedFields", () => {
  it("finds nothing between equal documents", () => {
    expect(changedFields(base, structuredClone(base))).toEqual([]);
  });

  it("names a changed field of an element by its id", () => {
    const after = structuredClone(base);
    after.links[0]!.loss = 0.02;
    expect(changedFields(base, after)).toEqual([{ path: "links[satcom-ship].loss", before: 0.01, after: 0.02 }]);
  });

  it("does not see a reordering of elements with ids as a change", () => {
    const after = structuredClone(base);
    after.links.reverse();
    expect(changedFields(base, after)).toEqual([]);
  });

  it("lists added and removed elements and keys once each", () => {
    const after: any = structuredClone(base);
    after.links = [after.links[0], { id: "relay", a: "uav", b: "sat", loss: 0 }];
    after.description = "with a relay";
    delete after.run.interval_s;
    expect(changedFields(base, after)).toEqual([
      { path: "description", before: undefined, after: "with a relay" },
      { path: "links[uav-ship]", before: base.links[1], after: undefined },
      { path: "links[relay]", before: undefined, after: { id: "relay", a: "uav", b: "sat", loss: 0 } },
      { path: "run.interval_s", before: 1, after: undefined },
    ]);
  });

  it("compares arrays without ids by position", () => {
    const after = { ...structuredClone(base), timeline: [0, 6, 10, 15] };
    expect(changedFields(base, after)).toEqual([
      { path: "timeline[1]", before: 5, after: 6 },
      { path: "timeline[3]", before: undefined, after: 15 },
    ]);
  });

  it("reports a change of type as one change", () => {
    expect(changedFields({ a: [1] }, { a: { x: 1 } })).toEqual([{ path: "a", before: [1], after: { x: 1 } }]);
  });
});

describe("formatValue", () => {
  it("writes JSON, a dash for absent, and cuts long values", () => {
    expect(formatValue(0.02)).toBe("0.02");
    expect(formatValue(undefined)).toBe("—");
    expect(formatValue("x".repeat(100), 10)).toBe(`"xxxxxxxx…`);
  });
});
