// @vitest-environment happy-dom
/**
 * useComparison mounted in happy-dom with the API client's getComparison replaced and a stand-in
 * EventSource (happy-dom has none that a test can drive): a finished comparison opens no stream;
 * a running one follows the stream's progress, closes it on a finished status and reads the
 * result; a stream closed for good and a refused read become lines; leaving closes the stream.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError, api } from "../../api/client";
import type { ComparisonPublic, ProgressEvent } from "../../api/types";
import { RESULT } from "../../lib/fixtures.test-data";
import { renderHook, settle, type Rendered } from "../../testing/renderHook";
import { StreamStandIn } from "../../testing/streamStandIn";
import { isActive, useComparison } from "./useComparison";


function comparison(status: string, extra: Partial<ComparisonPublic> = {}): ComparisonPublic {
  return { id: "c1", status, strategies: ["sptcp", "mptcp"], progress: status === "succeeded" ? 1 : 0.1, error: null, units_done: 0, units_total: 1, result: null, ...extra } as unknown as ComparisonPublic;
}

let r: Rendered<{ s: string; c: string }, ReturnType<typeof useComparison>>;
const mount = () => (r = renderHook((p: { s: string; c: string }) => useComparison(p.s, p.c), { s: "s1", c: "c1" }));
beforeEach(() => {
  StreamStandIn.opened = [];
  vi.stubGlobal("EventSource", StreamStandIn);
});
afterEach(() => {
  r.unmount();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe("useComparison", () => {
  it("a finished comparison: its record and progress, no stream", async () => {
    vi.spyOn(api, "getComparison").mockResolvedValue(comparison("succeeded", { result: RESULT }));
    mount();
    await settle();
    expect(r.result.current.comparison?.result).toBe(RESULT);
    expect(r.result.current.live).toMatchObject({ status: "succeeded", progress: 1 });
    expect(StreamStandIn.opened).toEqual([]);
  });

  it("a running comparison: progress from the stream, then the result once it has finished", async () => {
    const get = vi.spyOn(api, "getComparison").mockResolvedValueOnce(comparison("running"));
    mount();
    await settle();
    expect(StreamStandIn.opened.map((s) => s.url)).toEqual([api.comparisonEventsUrl("s1", "c1")]);
    const stream = StreamStandIn.opened[0]!;
    stream.send({ status: "running", progress: 0.5, units_done: 2, units_total: 4 } as ProgressEvent);
    expect(r.result.current.live).toMatchObject({ status: "running", progress: 0.5, units_done: 2 });
    expect(r.result.current.comparison?.result).toBeNull();

    get.mockResolvedValueOnce(comparison("succeeded", { result: RESULT }));
    stream.send({ status: "succeeded", progress: 1 } as ProgressEvent);
    expect(stream.readyState).toBe(StreamStandIn.CLOSED);
    await settle();
    expect(r.result.current.comparison?.status).toBe("succeeded");
    expect(r.result.current.comparison?.result).toBe(RESULT);
    expect(r.result.current.errors).toEqual([]);
  });

  it("a stream closed for good says so", async () => {
    vi.spyOn(api, "getComparison").mockResolvedValue(comparison("queued"));
    mount();
    await settle();
    StreamStandIn.opened[0]!.drop();
    expect(r.result.current.errors).toEqual(["Lost the progress stream; reload the page to follow the comparison."]);
  });

  it("leaving the page closes the stream", async () => {
    vi.spyOn(api, "getComparison").mockResolvedValue(comparison("running"));
    mount();
    await settle();
    const stream = StreamStandIn.opened[0]!;
    expect(stream.readyState).toBe(1);
    r.unmount();
    expect(stream.readyState).toBe(StreamStandIn.CLOSED);
  });

  it("a comparison that cannot be read gives the error's lines", async () => {
    vi.spyOn(api, "getComparison").mockRejectedValue(new ApiError(404, "Comparison not found"));
    mount();
    await settle();
    expect(r.result.current.errors).toEqual(["Comparison not found"]);
    expect(r.result.current.comparison).toBeNull();
  });

  it("queued and running are the active statuses", () => {
    expect(["queued", "running", "succeeded", "failed", "cancelled", undefined].map(isActive)).toEqual([true, true, false, false, false, false]);
  });
});
