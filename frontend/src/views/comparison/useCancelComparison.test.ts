// @vitest-environment happy-dom
/**
 * useCancelComparison mounted in happy-dom with the API client's cancelComparison replaced: a sent
 * cancel keeps the button disabled, a server without the endpoint is named as such, another
 * refusal gives its message and lets the user try again.
 */
import { act } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError, api } from "../../api/client";
import { renderHook, type Rendered } from "../../testing/renderHook";
import { useCancelComparison } from "./useCancelComparison";

let r: Rendered<null, ReturnType<typeof useCancelComparison>>;
const cancel = () =>
  act(async () => {
    await r.result.current.cancel();
  });
afterEach(() => {
  r.unmount();
  vi.restoreAllMocks();
});

describe("useCancelComparison", () => {
  it("a cancel that went through stays cancelling", async () => {
    vi.spyOn(api, "cancelComparison").mockResolvedValue(undefined as never);
    r = renderHook(() => useCancelComparison("s1", "c1"), null);
    expect(r.result.current.cancelling).toBe(false);
    await cancel();
    expect(r.result.current.cancelling).toBe(true);
    expect(r.result.current.cancelError).toEqual([]);
  });

  it("no cancel endpoint (404 / 405) is said in words", async () => {
    vi.spyOn(api, "cancelComparison").mockRejectedValue(new ApiError(405, "Method Not Allowed"));
    r = renderHook(() => useCancelComparison("s1", "c1"), null);
    await cancel();
    expect(r.result.current.cancelError).toEqual(["This server cannot cancel comparisons (no cancel endpoint)."]);
    expect(r.result.current.cancelling).toBe(false);
  });

  it("another refusal gives its message; a new try clears it", async () => {
    const post = vi.spyOn(api, "cancelComparison").mockRejectedValueOnce(new ApiError(409, "Already finished"));
    r = renderHook(() => useCancelComparison("s1", "c1"), null);
    await cancel();
    expect(r.result.current.cancelError).toEqual(["Already finished"]);
    post.mockResolvedValueOnce(undefined as never);
    await cancel();
    expect(r.result.current.cancelError).toEqual([]);
    expect(r.result.current.cancelling).toBe(true);
  });
});
