// @vitest-environment happy-dom
/**
 * useScenarioSource with useEditHistory, mounted in happy-dom with the API client's getScenario
 * replaced: loading puts the server's document in the editor with a scale, the dirty flag compares
 * the document with the one last saved (content, not identity), and adopt / accept / markSaved
 * reset it as each says.
 */
import { act } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError, api } from "../../api/client";
import { emptyScenario, updateNode } from "../../lib/editor";
import { renderHook, settle, type Rendered } from "../../testing/renderHook";
import { record, smallDoc } from "./editorFixtures.test-data";
import { useEditHistory } from "./useEditHistory";
import { NEW_SCALE, useScenarioSource } from "./useScenarioSource";

function useHarness(id: string | null) {
  const edits = useEditHistory(() => emptyScenario());
  const source = useScenarioSource(id, edits);
  return { edits, source };
}

let r: Rendered<string | null, ReturnType<typeof useHarness>>;
afterEach(() => {
  r.unmount();
  vi.restoreAllMocks();
});

describe("useScenarioSource", () => {
  it("a new scenario: drawing scale at once, dirty once anything is drawn or changed", () => {
    r = renderHook(useHarness, null);
    const { source, edits } = r.result.current;
    expect(source.scale).toBe(NEW_SCALE);
    expect(source.item).toBeNull();
    expect(source.dirty).toBe(false);
    act(() => edits.push({ ...edits.doc, name: "Renamed" }));
    expect(r.result.current.source.dirty).toBe(true);
    act(() => r.result.current.edits.undo());
    expect(r.result.current.source.dirty).toBe(false);
    act(() => r.result.current.edits.push(smallDoc()));
    expect(r.result.current.source.dirty).toBe(true);
    act(() => r.result.current.source.markSaved(r.result.current.edits.doc));
    expect(r.result.current.source.dirty).toBe(false);
    expect(r.result.current.source.dirtyRef.current).toBe(false);
  });

  it("loads the scenario into the editor; dirty follows the content against the saved version", async () => {
    vi.spyOn(api, "getScenario").mockResolvedValue(record(smallDoc("Loaded"), 3));
    r = renderHook(useHarness, "s1");
    expect(r.result.current.source.scale).toBeNull();
    await settle();
    const { source, edits } = r.result.current;
    expect(source.item?.version).toBe(3);
    expect(edits.doc.name).toBe("Loaded");
    expect(source.scale).toBeGreaterThan(0);
    expect(source.dirty).toBe(false);
    expect(edits.canUndo).toBe(false);

    act(() => edits.push(updateNode(edits.doc, "ap1", { range_m: 300 })));
    expect(r.result.current.source.dirty).toBe(true);
    expect(r.result.current.source.dirtyRef.current).toBe(true);
    // the same content again, as a new object: not dirty
    act(() => r.result.current.edits.push(updateNode(r.result.current.edits.doc, "ap1", { range_m: 150 })));
    expect(r.result.current.source.dirty).toBe(false);
  });

  it("accept keeps the undo steps, adopt starts a fresh history; both make the server's copy the saved one", async () => {
    vi.spyOn(api, "getScenario").mockResolvedValue(record(smallDoc(), 1));
    r = renderHook(useHarness, "s1");
    await settle();
    const edited = updateNode(r.result.current.edits.doc, "ap1", { range_m: 90 });
    act(() => r.result.current.edits.push(edited));
    act(() => r.result.current.source.accept(record(edited, 2)));
    expect(r.result.current.source.item?.version).toBe(2);
    expect(r.result.current.source.dirty).toBe(false);
    expect(r.result.current.edits.canUndo).toBe(true);

    act(() => r.result.current.source.adopt(record(smallDoc("Restored"), 3)));
    expect(r.result.current.edits.doc.name).toBe("Restored");
    expect(r.result.current.source.dirty).toBe(false);
    expect(r.result.current.edits.canUndo).toBe(false);
  });

  it("a scenario that cannot be read gives the error's lines", async () => {
    vi.spyOn(api, "getScenario").mockRejectedValue(new ApiError(404, "Scenario not found"));
    r = renderHook(useHarness, "missing");
    await settle();
    expect(r.result.current.source.loadErrors).toEqual(["Scenario not found"]);
    expect(r.result.current.source.item).toBeNull();
    expect(r.result.current.source.scale).toBeNull();
  });
});
