// @vitest-environment happy-dom
/**
 * useSweepPointRun mounted in happy-dom with the API client's sweep-point calls replaced: the kept
 * runs are listed, choosing a point loads its run (loading until it arrives), a refused read gives
 * its lines and ends loading, and point 0 shows the result document's own run.
 */
import { act } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError, api } from "../../api/client";
import type { SweepPointRunPublic } from "../../api/types";
import { renderHook, settle, type Rendered } from "../../testing/renderHook";
import { useSweepPointRun } from "./useSweepPointRun";

const runOf = (point: number) => ({ point, value: 100 * (point + 1), seed: 1, scenario: { name: `point ${point}`, nodes: [] }, strategies: {} }) as unknown as SweepPointRunPublic;

let r: Rendered<null, ReturnType<typeof useSweepPointRun>>;
afterEach(() => {
  r.unmount();
  vi.restoreAllMocks();
});

describe("useSweepPointRun", () => {
  it("lists the kept runs and loads the chosen point's run", async () => {
    vi.spyOn(api, "listSweepPointRuns").mockResolvedValue({ data: [0, 1, 2].map((p) => ({ point: p, value: 100 * (p + 1), seed: 1 })) } as never);
    let answer: (run: SweepPointRunPublic) => void = () => undefined;
    vi.spyOn(api, "getSweepPointRun").mockImplementation(() => new Promise((res) => (answer = res)));
    r = renderHook(() => useSweepPointRun("s1", "c1"), null);
    await settle();
    expect(r.result.current.runs.map((x) => x.point)).toEqual([0, 1, 2]);
    expect([r.result.current.point, r.result.current.shownRun, r.result.current.loading]).toEqual([0, null, false]);

    act(() => r.result.current.setPoint(2));
    expect(r.result.current.loading).toBe(true);
    expect(r.result.current.shownRun).toBeNull();
    await act(async () => answer(runOf(2)));
    expect(r.result.current.loading).toBe(false);
    expect(r.result.current.shownRun?.scenario.name).toBe("point 2");

    // another point: the run shown so far is not taken for it while its own loads
    act(() => r.result.current.setPoint(1));
    expect(r.result.current.shownRun).toBeNull();
    expect(r.result.current.loading).toBe(true);
    await act(async () => answer(runOf(1)));
    expect(r.result.current.shownRun?.scenario.name).toBe("point 1");

    // back to the first point: the result document's own run
    act(() => r.result.current.setPoint(0));
    expect(r.result.current.shownRun).toBeNull();
    expect(r.result.current.loading).toBe(false);
  });

  it("a run that cannot be read: its lines, not loading; another point clears them", async () => {
    vi.spyOn(api, "listSweepPointRuns").mockResolvedValue({ data: [] } as never);
    const get = vi.spyOn(api, "getSweepPointRun").mockRejectedValueOnce(new ApiError(404, "No run kept for point 2"));
    r = renderHook(() => useSweepPointRun("s1", "c1"), null);
    await settle();
    act(() => r.result.current.setPoint(1));
    await settle();
    expect(r.result.current.problems).toEqual(["No run kept for point 2"]);
    expect(r.result.current.loading).toBe(false);
    expect(r.result.current.shownRun).toBeNull();

    get.mockResolvedValueOnce(runOf(2));
    act(() => r.result.current.setPoint(2));
    await settle();
    expect(r.result.current.problems).toEqual([]);
    expect(r.result.current.shownRun?.point).toBe(2);
  });

  it("no list of kept runs: an empty list", async () => {
    vi.spyOn(api, "listSweepPointRuns").mockRejectedValue(new ApiError(500, "boom"));
    r = renderHook(() => useSweepPointRun("s1", "c1"), null);
    await settle();
    expect(r.result.current.runs).toEqual([]);
  });
});
