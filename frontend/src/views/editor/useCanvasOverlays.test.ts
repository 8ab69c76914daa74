// @vitest-environment happy-dom
/**
 * useCanvasOverlays mounted in happy-dom: when the pane is a map (a geographic scenario, or one
 * placed on a map), and the map's node positions at the scrubbed time, interpolated between the
 * timeline's corners.
 */
import { act } from "react";
import { afterEach, describe, expect, it } from "vitest";
import type { ScenarioDocument, TimelinePublic } from "../../api/types";
import { renderHook, type Rendered } from "../../testing/renderHook";
import { smallDoc } from "./editorFixtures.test-data";
import { useCanvasOverlays } from "./useCanvasOverlays";

let r: Rendered<ScenarioDocument, ReturnType<typeof useCanvasOverlays>>;
afterEach(() => r.unmount());

describe("useCanvasOverlays", () => {
  it("a planar scenario is drawn on the canvas until placed on a map", () => {
    r = renderHook(useCanvasOverlays, smallDoc());
    expect(r.result.current.geo).toBe(false);
    act(() => r.result.current.placeOnMap());
    expect(r.result.current.geo).toBe(true);
  });

  it("a geographic scenario is a map from the start", () => {
    const doc = { ...smallDoc(), nodes: [{ id: "ship", kind: "host", position: { lat_deg: 43, lon_deg: 5 } }] } as unknown as ScenarioDocument;
    r = renderHook(useCanvasOverlays, doc);
    expect(r.result.current.geo).toBe(true);
  });

  it("positions on the map follow the scrubbed time; the scrubber off, none", () => {
    r = renderHook(useCanvasOverlays, smallDoc());
    expect(r.result.current.geoPositions).toBeNull();
    const timeline = {
      geo_trajectories: {
        uav: [
          [0, 43, 5, 100],
          [10, 44, 6, 300],
        ],
      },
    } as unknown as TimelinePublic;
    act(() => r.result.current.onScrub(timeline, 5));
    expect(r.result.current.geoTracks).toEqual(timeline.geo_trajectories);
    const p = r.result.current.geoPositions!.uav!;
    expect([p.lat_deg, p.lon_deg].map((v) => Math.round(v * 10) / 10)).toEqual([43.5, 5.5]);
    act(() => r.result.current.onScrub(null, 0));
    expect(r.result.current.geoPositions).toBeNull();
    expect(r.result.current.geoTracks).toBeNull();
  });
});
