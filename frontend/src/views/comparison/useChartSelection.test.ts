// @vitest-environment happy-dom
/**
 * useChartSelection mounted in happy-dom: every marker kind is on at first, each kind toggles on
 * its own, and the time window and the subflow toggle hold what was set (the hover time is the
 * page's playback, lib/playback).
 */
import { act } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { EVENT_MARKER_KINDS } from "../../lib/chartData";
import { renderHook, type Rendered } from "../../testing/renderHook";
import { useChartSelection } from "./useChartSelection";

let r: Rendered<null, ReturnType<typeof useChartSelection>>;
afterEach(() => r.unmount());

describe("useChartSelection", () => {
  it("starts with the whole run, no subflows and every marker kind", () => {
    r = renderHook(useChartSelection, null);
    const s = r.result.current;
    expect([s.timeWindow, s.showSubflows]).toEqual([null, false]);
    expect(s.markerKinds).toEqual([...EVENT_MARKER_KINDS]);
  });

  it("toggles one marker kind at a time", () => {
    r = renderHook(useChartSelection, null);
    const [first, second] = EVENT_MARKER_KINDS;
    act(() => r.result.current.setMarkerKind(first!, false));
    act(() => r.result.current.setMarkerKind(second!, false));
    expect(r.result.current.markerKinds).toEqual(EVENT_MARKER_KINDS.filter((k) => k !== first && k !== second));
    act(() => r.result.current.setMarkerKind(first!, true));
    expect(r.result.current.markerKinds).toContain(first);
    expect(r.result.current.markerKinds).not.toContain(second);
  });

  it("holds the time window and the subflow toggle; the whole run again with null", () => {
    r = renderHook(useChartSelection, null);
    act(() => r.result.current.setTimeWindow([10, 20]));
    act(() => r.result.current.setShowSubflows(true));
    expect([r.result.current.timeWindow, r.result.current.showSubflows]).toEqual([[10, 20], true]);
    act(() => r.result.current.setTimeWindow(null));
    expect(r.result.current.timeWindow).toBeNull();
  });
});
