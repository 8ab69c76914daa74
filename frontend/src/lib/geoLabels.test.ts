import { describe, expect, it } from "vitest";
import type { ScenarioDocument } from "../api/types";
import { labelPriorities } from "../lib/geo";

describe("labelPriorities (map label declutter order)", () => {
  it("puts radio nodes first, then the others by degree", () => {
    const doc = {
      name: "t",
      nodes: [
        { id: "r1", kind: "router" },
        { id: "r2", kind: "router" },
        { id: "r3", kind: "router" },
        { id: "ap", kind: "access_point" },
        { id: "sta", kind: "station" },
      ],
      links: [
        { id: "l1", src: "r1", dst: "r2" },
        { id: "l2", src: "r1", dst: "r3" },
        { id: "l3", src: "r1", dst: "ap" },
        { id: "l4", src: "r2", dst: "r3" },
      ],
    } as unknown as ScenarioDocument;
    const p = labelPriorities(doc);
    const order = [...p.keys()].sort((a, b) => p.get(b)! - p.get(a)! || (a < b ? -1 : 1));
    // ap (radio, degree 1) and sta (radio, degree 0) first; r1 (degree 3) before r2, r3 (degree 2)
    expect(order).toEqual(["ap", "sta", "r1", "r2", "r3"]);
  });
});
