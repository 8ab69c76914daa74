// @vitest-environment happy-dom
/**
 * useScenarioVersions mounted in happy-dom with the API client's version calls replaced: the list
 * is read for each new version of the scenario, the changes since an old version are the fields
 * that differ from the current one, they are cleared when the current version changes, and a
 * failed read reaches the page as lines.
 */
import { act, useState } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError, api } from "../../api/client";
import type { ScenarioPublic } from "../../api/types";
import { updateNode } from "../../lib/editor";
import { renderHook, settle, type Rendered } from "../../testing/renderHook";
import { record, smallDoc } from "./editorFixtures.test-data";
import { useScenarioVersions } from "./useScenarioVersions";

function useHarness(item: ScenarioPublic | null) {
  const [problems, setProblems] = useState<string[]>([]);
  return { problems, ...useScenarioVersions(item ? "s1" : null, item, setProblems) };
}

const summary = (n: number) => Array.from({ length: n }, (_, i) => ({ version: n - i, saved_at: "2024-01-01T00:00:00Z", saved_by: "admin", current: i === 0 }));

let r: Rendered<ScenarioPublic | null, ReturnType<typeof useHarness>>;
afterEach(() => {
  r.unmount();
  vi.restoreAllMocks();
});

describe("useScenarioVersions", () => {
  it("lists the versions again for each new version; none for a scenario not saved yet", async () => {
    let current = 2;
    vi.spyOn(api, "listVersions").mockImplementation(async () => ({ data: summary(current) }) as never);
    r = renderHook(useHarness, null);
    await settle();
    expect(r.result.current.versions).toEqual([]);
    r.rerender(record(smallDoc(), 2));
    await settle();
    expect(r.result.current.versions.map((v) => v.version)).toEqual([2, 1]);
    current = 3;
    r.rerender(record(smallDoc(), 3));
    await settle();
    expect(r.result.current.versions.map((v) => v.version)).toEqual([3, 2, 1]);
  });

  it("shows the fields changed since an old version, until the current version changes", async () => {
    vi.spyOn(api, "listVersions").mockResolvedValue({ data: summary(2) } as never);
    vi.spyOn(api, "getVersion").mockResolvedValue({ version: 1, scenario: smallDoc() } as never);
    const current = record(updateNode(smallDoc(), "ap1", { range_m: 250 }), 2);
    r = renderHook(useHarness, current);
    await settle();
    await act(async () => {
      await r.result.current.showChanges(1);
    });
    expect(r.result.current.versionDiff?.from).toBe(1);
    expect(r.result.current.versionDiff?.to).toBe(2);
    expect(r.result.current.versionDiff?.changes.map((c) => [c.before, c.after])).toEqual([[150, 250]]);

    // the same version again (a new object): the diff stays; a new version clears it
    r.rerender({ ...current });
    await settle();
    expect(r.result.current.versionDiff).not.toBeNull();
    r.rerender(record(current.scenario, 3));
    await settle();
    expect(r.result.current.versionDiff).toBeNull();
  });

  it("an old version that cannot be read gives its message as lines", async () => {
    vi.spyOn(api, "listVersions").mockResolvedValue({ data: summary(2) } as never);
    vi.spyOn(api, "getVersion").mockRejectedValue(new ApiError(404, "No such version"));
    r = renderHook(useHarness, record(smallDoc(), 2));
    await settle();
    await act(async () => {
      await r.result.current.showChanges(1);
    });
    expect(r.result.current.problems).toEqual(["No such version"]);
    expect(r.result.current.versionDiff).toBeNull();
  });
});
