import { describe, expect, it } from "vitest";
import { comparisonLabel, fileStem, pageTitle, shortTime } from "./identity";

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

describe("identity", () => {
  it("titles a tab by the page, then the product", () => {
    expect(pageTitle("Scenarios")).toBe("Scenarios · Subflow");
    expect(pageTitle("sptcp vs mptcp", null, "naval-direct-move")).toBe("sptcp vs mptcp · naval-direct-move · Subflow");
    expect(pageTitle()).toBe("Subflow");
  });

  it("names a comparison by its strategies and start, in local time", () => {
    const at = new Date(2026, 10, 28, 15, 7).toISOString();
    expect(shortTime(at)).toBe("2026-11-28 15:07");
    expect(comparisonLabel(["sptcp", "mptcp"], at)).toBe("sptcp vs mptcp, 2026-11-28 15:07");
    expect(comparisonLabel([], null)).toBe("Comparison");
    expect(shortTime("not a date")).toBe("");
  });

  it("makes file names from readable parts, safe on every file system", () => {
    const at = new Date(2026, 10, 28, 15, 7).toISOString();
    const stem = fileStem("Naval direct move (Zhao)", comparisonLabel(["sptcp", "mptcp"], at), "sweep");
    expect(stem).toBe("naval-direct-move-zhao-sptcp-vs-mptcp-2026-11-28-15-07-sweep");
    expect(stem).not.toMatch(UUID);
    expect(fileStem("../../etc/passwd")).toBe("etc-passwd");
    expect(fileStem("Über: a/b\\c*?")).toBe("uber-a-b-c");
    expect(fileStem("", null)).toBe("subflow");
    expect(fileStem("x".repeat(200)).length).toBe(80);
  });
});
