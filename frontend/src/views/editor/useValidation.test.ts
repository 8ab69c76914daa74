// @vitest-environment happy-dom
/**
 * useValidation mounted in happy-dom: a refused save's field errors and banner lines hold until the
 * field's value changes, clear() drops them, and the saved version's warnings are read from the
 * scenario-checks endpoint (replaced here) each time the server returns a new version.
 */
import { act } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { api } from "../../api/client";
import type { ScenarioDocument, ScenarioPublic, ValidationErrorItem } from "../../api/types";
import { updateNode } from "../../lib/editor";
import { renderHook, settle, type Rendered } from "../../testing/renderHook";
import { record, smallDoc } from "./editorFixtures.test-data";
import { useValidation, type Validation } from "./useValidation";

type Props = { id: string | null; item: ScenarioPublic | null; doc: ScenarioDocument };
let r: Rendered<Props, Validation>;
afterEach(() => {
  r.unmount();
  vi.restoreAllMocks();
});

const RANGE: ValidationErrorItem = { loc: ["body", "nodes", 2, "range_m"], msg: "Input should be greater than 0", type: "greater_than" } as ValidationErrorItem;
const DELAY: ValidationErrorItem = { loc: ["body", "links", 0, "delay_ms"], msg: "Input should be greater than or equal to 0", type: "greater_than_equal" } as ValidationErrorItem;

describe("useValidation", () => {
  it("keeps each field error until that field changes; clear() drops the rest", () => {
    const refused = updateNode(smallDoc(), "ap1", { range_m: -5 });
    r = renderHook((p: Props) => useValidation(p.id, p.item, p.doc), { id: null, item: null, doc: refused });
    expect(r.result.current.errors).toEqual({});
    let fe: Record<string, string> = {};
    act(() => {
      fe = r.result.current.refuse([RANGE, DELAY], refused);
    });
    expect(Object.keys(fe).sort()).toEqual(["links.0.delay_ms", "nodes.2.range_m"]);
    expect(Object.keys(r.result.current.errors).sort()).toEqual(["links.0.delay_ms", "nodes.2.range_m"]);
    expect(r.result.current.banner).toHaveLength(2);
    expect(r.result.current.banner.some((l) => l.includes("ap1"))).toBe(true);

    // the range is corrected: its error and its banner line go, the link's stay
    r.rerender({ id: null, item: null, doc: updateNode(refused, "ap1", { range_m: 50 }) });
    expect(Object.keys(r.result.current.errors)).toEqual(["links.0.delay_ms"]);
    expect(r.result.current.banner).toHaveLength(1);
    expect(r.result.current.banner[0]).toContain("l1");

    act(() => r.result.current.clear());
    expect(r.result.current.errors).toEqual({});
    expect(r.result.current.banner).toEqual([]);
  });

  it("reads the saved version's warnings, again for each new version, none for a new scenario", async () => {
    const checks = vi.spyOn(api, "scenarioChecks").mockImplementation(async (doc) => ({ warnings: [{ message: `about ${doc.name}` }] }) as never);
    r = renderHook((p: Props) => useValidation(p.id, p.item, p.doc), { id: null, item: null, doc: smallDoc() });
    await settle();
    expect(r.result.current.warnings).toEqual([]);

    const v1 = record(smallDoc("v1"), 1);
    r.rerender({ id: "s1", item: v1, doc: v1.scenario });
    await settle();
    expect(r.result.current.warnings.map((w) => w.message)).toEqual(["about v1"]);

    checks.mockRejectedValueOnce(new Error("offline"));
    const v2 = record(smallDoc("v2"), 2);
    r.rerender({ id: "s1", item: v2, doc: v2.scenario });
    await settle();
    expect(r.result.current.warnings).toEqual([]);
  });
});
