// @vitest-environment happy-dom
/**
 * useSaveActions with the hooks it works with (history, stored scenario, validation, selection),
 * mounted in happy-dom with the API client's calls replaced. Each case follows what the user sees:
 * the version, the note, the problems, the conflict, the selected element, the dirty flag, and the
 * page navigated to.
 */
import { act } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError, api } from "../../api/client";
import type { ScenarioDocument, ValidationErrorItem } from "../../api/types";
import { emptyScenario, updateNode } from "../../lib/editor";
import { renderHook, settle, type Rendered } from "../../testing/renderHook";
import { record, smallDoc } from "./editorFixtures.test-data";
import { useEditHistory } from "./useEditHistory";
import { useSaveActions } from "./useSaveActions";
import { useScenarioSource } from "./useScenarioSource";
import { useSelection } from "./useSelection";
import { useValidation } from "./useValidation";

/** Where the hook navigated, in order. */
let visited: { to: string; replace: boolean }[] = [];

function useHarness(id: string | null) {
  const edits = useEditHistory(() => emptyScenario());
  const source = useScenarioSource(id, edits);
  const validation = useValidation(id, source.item, edits.doc);
  const [selection, setSelection] = useSelection();
  const navigate = (to: string, opts?: { replace?: boolean }) => visited.push({ to, replace: !!opts?.replace });
  const store = useSaveActions({ id, doc: edits.doc, source, validation, setSelection, navigate });
  return { edits, source, validation, selection, store };
}

let r: Rendered<string | null, ReturnType<typeof useHarness>>;
const edit = (f: (d: ScenarioDocument) => ScenarioDocument) => act(() => r.result.current.edits.push(f(r.result.current.edits.doc)));
const run = async (f: (h: ReturnType<typeof useHarness>) => Promise<void> | void) => {
  await act(async () => {
    await f(r.result.current);
  });
  await settle();
};

async function openSaved(version = 1) {
  vi.spyOn(api, "getScenario").mockResolvedValue(record(smallDoc(), version));
  vi.spyOn(api, "scenarioChecks").mockResolvedValue({ warnings: [] } as never);
  vi.spyOn(api, "listVersions").mockResolvedValue({ data: [] } as never);
  r = renderHook(useHarness, "s1");
  await settle();
}

afterEach(() => {
  r.unmount();
  visited = [];
  vi.restoreAllMocks();
});

describe("useSaveActions", () => {
  it("saving a new scenario creates it and replaces the page with the scenario's own, nothing left unsaved", async () => {
    vi.spyOn(api, "createScenario").mockImplementation(async (doc) => record(doc as ScenarioDocument, 1, "42"));
    r = renderHook(useHarness, null);
    edit(() => smallDoc("Drawn"));
    expect(r.result.current.source.dirty).toBe(true);
    await run((h) => h.store.save());
    expect(visited).toEqual([{ to: "/scenarios/42", replace: true }]);
    expect(r.result.current.source.dirty).toBe(false);
    expect(r.result.current.store.saving).toBe(false);
  });

  it("saving an edited scenario stores a new version, says so, and keeps undo", async () => {
    await openSaved(1);
    const put = vi.spyOn(api, "updateScenario").mockImplementation(async (_id, doc, version) => record(doc, version + 1));
    edit((d) => updateNode(d, "ap1", { range_m: 80 }));
    await run((h) => h.store.save());
    expect(put.mock.calls[0]![2]).toBe(1);
    expect(r.result.current.source.item?.version).toBe(2);
    expect(r.result.current.store.savedNote).toBe("Saved version 2.");
    expect(r.result.current.source.dirty).toBe(false);
    expect(r.result.current.edits.canUndo).toBe(true);
    expect(visited).toEqual([]);
  });

  it("a second save while one is under way sends nothing", async () => {
    await openSaved(1);
    let answer: (v: unknown) => void = () => undefined;
    const put = vi.spyOn(api, "updateScenario").mockImplementation(() => new Promise((res) => (answer = res)) as never);
    edit((d) => updateNode(d, "ap1", { range_m: 80 }));
    await run((h) => void h.store.save());
    expect(r.result.current.store.saving).toBe(true);
    await run((h) => h.store.save());
    expect(put).toHaveBeenCalledTimes(1);
    await run(() => answer(record(r.result.current.edits.doc, 2)));
    expect(r.result.current.store.saving).toBe(false);
    expect(r.result.current.source.item?.version).toBe(2);
  });

  it("a 422 puts the errors at their fields and selects the first element in trouble", async () => {
    await openSaved(1);
    const detail = [{ loc: ["body", "nodes", 2, "range_m"], msg: "Input should be greater than 0", type: "greater_than" }] as ValidationErrorItem[];
    vi.spyOn(api, "updateScenario").mockRejectedValue(new ApiError(422, "Unprocessable", detail));
    edit((d) => updateNode(d, "ap1", { range_m: -1 }));
    await run((h) => h.store.save());
    expect(Object.keys(r.result.current.validation.errors)).toEqual(["nodes.2.range_m"]);
    expect(r.result.current.selection).toEqual({ nodes: ["ap1"], links: [] });
    expect(r.result.current.store.problems).toEqual([]);
    expect(r.result.current.source.dirty).toBe(true);
    expect(r.result.current.source.item?.version).toBe(1);
  });

  it("a 412 is a conflict: reload drops the edits for the version saved meanwhile", async () => {
    await openSaved(1);
    vi.spyOn(api, "updateScenario").mockRejectedValue(new ApiError(412, "Version 2 is current."));
    edit((d) => updateNode(d, "ap1", { range_m: 80 }));
    await run((h) => h.store.save());
    expect(r.result.current.store.conflict).toBe(true);
    expect(r.result.current.store.problems).toEqual(["Someone else saved this scenario after you opened it. Version 2 is current."]);

    vi.spyOn(api, "getScenario").mockResolvedValue(record(smallDoc("Theirs"), 2));
    await run((h) => h.store.reloadSaved());
    expect(r.result.current.store.conflict).toBe(false);
    expect(r.result.current.store.problems).toEqual([]);
    expect(r.result.current.store.savedNote).toBe("Reloaded version 2.");
    expect(r.result.current.edits.doc.name).toBe("Theirs");
    expect(r.result.current.source.dirty).toBe(false);
  });

  it("a conflict kept as a copy creates a new scenario from the edits and opens it", async () => {
    await openSaved(1);
    vi.spyOn(api, "updateScenario").mockRejectedValue(new ApiError(412, "stale"));
    const post = vi.spyOn(api, "createScenario").mockImplementation(async (doc) => record(doc as ScenarioDocument, 1, "77"));
    edit((d) => updateNode(d, "ap1", { range_m: 80 }));
    await run((h) => h.store.save());
    await run((h) => h.store.saveAsCopy());
    expect((post.mock.calls[0]![0] as ScenarioDocument).name).toMatch(/^small \(copy \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\)$/);
    expect(visited).toEqual([{ to: "/scenarios/77", replace: false }]);
    expect(r.result.current.source.dirtyRef.current).toBe(false);
    expect(r.result.current.store.conflict).toBe(false);
  });

  it("restoring an old version makes it current with a fresh history; a failure shows its message", async () => {
    await openSaved(3);
    vi.spyOn(api, "restoreVersion").mockResolvedValueOnce(record(smallDoc("Old"), 4));
    await run((h) => h.store.restore(1));
    expect(r.result.current.store.savedNote).toBe("Restored version 1 as version 4.");
    expect(r.result.current.edits.doc.name).toBe("Old");
    expect(r.result.current.source.item?.version).toBe(4);

    vi.spyOn(api, "restoreVersion").mockRejectedValueOnce(new ApiError(404, "No version 9"));
    await run((h) => h.store.restore(9));
    expect(r.result.current.store.problems).toEqual(["No version 9"]);
    expect(r.result.current.source.item?.version).toBe(4);
  });

  it("an imported track's version becomes the document; clearNote hides the note", async () => {
    await openSaved(1);
    await run((h) => h.store.onTrackImported(record(smallDoc("With track"), 2)));
    expect(r.result.current.store.savedNote).toBe("Track imported: version 2.");
    expect(r.result.current.edits.doc.name).toBe("With track");
    act(() => r.result.current.store.clearNote());
    expect(r.result.current.store.savedNote).toBeNull();
  });
});

describe("useSaveActions with a refused value on screen", () => {
  it("does not save, and says which field holds a value that was not stored", async () => {
    vi.spyOn(api, "getScenario").mockResolvedValue(record(smallDoc(), 1));
    vi.spyOn(api, "scenarioChecks").mockResolvedValue({ warnings: [] } as never);
    vi.spyOn(api, "listVersions").mockResolvedValue({ data: [] } as never);
    const put = vi.spyOn(api, "updateScenario");
    const shown = [{ label: "Loss (%)", problem: "must be < 100 %", text: "150" }];
    function useRefusing(id: string | null) {
      const edits = useEditHistory(() => emptyScenario());
      const source = useScenarioSource(id, edits);
      const validation = useValidation(id, source.item, edits.doc);
      const [, setSelection] = useSelection();
      const store = useSaveActions({ id, doc: edits.doc, source, validation, setSelection, navigate: () => undefined, unstored: () => shown });
      return { edits, store };
    }
    const h = renderHook(useRefusing, "s1");
    r = h as unknown as typeof r; // unmounted by afterEach
    await settle();
    act(() => h.result.current.edits.push(updateNode(h.result.current.edits.doc, "ap1", { range_m: 80 })));
    await act(async () => {
      await h.result.current.store.save();
    });
    expect(put).not.toHaveBeenCalled();
    expect(h.result.current.store.problems).toEqual([
      "A field holds a value that was not stored (fix or undo it first):",
      "Loss (%): 150 must be < 100 %",
    ]);
  });
});
