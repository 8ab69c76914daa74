// @vitest-environment happy-dom
/**
 * The what-if page's state hooks, each mounted alone in happy-dom with the API client replaced and a
 * stand-in EventSource: the failure analysis keeps its report and selection, a followed comparison
 * reads the result once its stream says it succeeded (and names what failed otherwise), the capacity
 * search reads its job's result, a form's fields change one at a time, and leaving closes a stream.
 */
import { act } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { analysisApi, type FailureReport } from "../../api/analysis";
import { ApiError, api } from "../../api/client";
import type { ComparisonPublic } from "../../api/types";
import { renderHook, settle, type Rendered } from "../../testing/renderHook";
import { StreamStandIn } from "../../testing/streamStandIn";
import { useCapacitySearch, useFailureAnalysis, useFields, useFollowedComparison } from "./hooks";


let r: Rendered<null, any>;
beforeEach(() => {
  StreamStandIn.opened = [];
  vi.stubGlobal("EventSource", StreamStandIn);
});
afterEach(() => {
  r.unmount();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

const comparison = (status: string, extra: object = {}) =>
  ({ id: "c1", status, progress: 0, error: null, units_done: 0, units_total: 3, result: null, ...extra }) as unknown as ComparisonPublic;

describe("useFailureAnalysis", () => {
  it("keeps the report with its first case selected; a refusal gives its lines", async () => {
    const report = { cases: [{ kind: "link", element: "l1" }, { kind: "link", element: "l2" }] } as unknown as FailureReport;
    const post = vi.spyOn(analysisApi, "failures").mockResolvedValueOnce(report);
    r = renderHook(() => useFailureAnalysis("s1"), null);
    await act(() => r.result.current.run({ metric: "hop", nodes: true, shared_risk: false }));
    expect(post).toHaveBeenCalledWith("s1", { metric: "hop", nodes: true, shared_risk: false });
    act(() => r.result.current.setSelected(1));
    expect(r.result.current.chosen.element).toBe("l2");
    post.mockRejectedValueOnce(new ApiError(422, "No flows"));
    await act(() => r.result.current.run({ metric: "hop" }));
    expect([r.result.current.errors, r.result.current.busy, r.result.current.report]).toEqual([["No flows"], false, report]);
  });
});

describe("useFollowedComparison", () => {
  it("follows the comparison's stream and reads it once it succeeded", async () => {
    vi.spyOn(api, "startComparison").mockResolvedValue(comparison("queued"));
    const get = vi.spyOn(api, "getComparison").mockResolvedValue(comparison("succeeded", { result: { sweep: {} } }));
    r = renderHook(() => useFollowedComparison("s1", "the sweep"), null);
    await act(() => r.result.current.start({ strategies: ["mptcp"] }));
    expect(r.result.current.running).toBe(true);
    const stream = StreamStandIn.opened[0]!;
    expect(stream.url).toBe(api.comparisonEventsUrl("s1", "c1"));
    stream.send({ status: "running", progress: 0.5, units_done: 1, units_total: 3 });
    expect(r.result.current.live).toMatchObject({ progress: 0.5, units_done: 1 });
    stream.send({ status: "succeeded", progress: 1 });
    await settle();
    expect(get).toHaveBeenCalledWith("s1", "c1");
    expect([r.result.current.running, r.result.current.comparison?.status, stream.readyState]).toEqual([false, "succeeded", StreamStandIn.CLOSED]);
  });
  it("names what failed; leaving the page closes the stream", async () => {
    vi.spyOn(api, "startComparison").mockResolvedValue(comparison("queued"));
    r = renderHook(() => useFollowedComparison("s1", "the simulation"), null);
    await act(() => r.result.current.start({ strategies: ["sptcp"] }));
    StreamStandIn.opened[0]!.send({ status: "cancelled", progress: 0.2 });
    expect(r.result.current.errors).toEqual(["the simulation cancelled"]);
    await act(() => r.result.current.start({ strategies: ["sptcp"] }));
    expect(r.result.current.errors).toEqual([]);
    r.unmount();
    expect(StreamStandIn.opened[1]!.readyState).toBe(StreamStandIn.CLOSED);
  });
});

describe("useCapacitySearch", () => {
  it("follows the job and reads its result once it succeeded", async () => {
    vi.spyOn(analysisApi, "startCapacitySearch").mockResolvedValue({ job_id: "j1" } as never);
    const result = { status: "found", value: 4 };
    vi.spyOn(analysisApi, "job").mockResolvedValue({ job_id: "j1", status: "succeeded", progress: 1, result, error: null } as never);
    r = renderHook(() => useCapacitySearch("s1"), null);
    await act(() => r.result.current.start({ parameter: "links.l1.bandwidth_mbps" } as never));
    expect([r.result.current.job.status, r.result.current.running]).toEqual(["queued", true]);
    expect(StreamStandIn.opened[0]!.url).toBe(analysisApi.jobEventsUrl("j1"));
    StreamStandIn.opened[0]!.send({ job_id: "j1", status: "succeeded", progress: 1 });
    await settle();
    expect([r.result.current.result, r.result.current.running, r.result.current.errors]).toEqual([result, false, []]);
  });
});

describe("useFields", () => {
  it("changes one field and keeps the others", () => {
    r = renderHook(() => useFields({ low: "0.5", high: "10", nodes: false as boolean }), null);
    act(() => r.result.current[1]("high")("20"));
    act(() => r.result.current[1]("nodes")(true));
    expect(r.result.current[0]).toEqual({ low: "0.5", high: "20", nodes: true });
  });
});
