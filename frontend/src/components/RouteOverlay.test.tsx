// @vitest-environment happy-dom
/**
 * RouteOverlay beside the throughput charts: its drawing (Leaflet or cytoscape, the costly part) is
 * set up only after the first paint, so that the charts are painted first (naval-leo: the route map's
 * projection work sat between the result arriving and the charts' first frame); its time is the
 * page's playback. The drawing components are stand-ins here.
 */
import { act } from "react";
import { createRoot } from "react-dom/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RESULT } from "../lib/fixtures.test-data";
import { RouteOverlay } from "./RouteOverlay";

vi.mock("./TopologyGraph", () => ({ TopologyGraph: () => <div data-testid="drawing" /> }));
vi.mock("./GeoMap", () => ({ GeoMap: () => <div data-testid="drawing" /> }));

let frames: FrameRequestCallback[] = [];
beforeEach(() => {
  frames = [];
  vi.stubGlobal("requestAnimationFrame", (cb: FrameRequestCallback) => frames.push(cb));
  vi.stubGlobal("cancelAnimationFrame", () => undefined);
});
afterEach(() => vi.unstubAllGlobals());

describe("RouteOverlay", () => {
  it("sets its drawing up after the first paint, not in the same frame as the charts", async () => {
    (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
    const host = document.createElement("div");
    document.body.append(host);
    const root = createRoot(host);
    act(() => root.render(<RouteOverlay result={RESULT} strategies={["sptcp", "mptcp"]} />));
    expect(host.querySelector('[data-testid="drawing"]')).toBeNull();
    expect(host.querySelector(".route-pending")).not.toBeNull();
    await act(async () => {
      for (const f of frames.splice(0)) f(16);
      await new Promise((r) => setTimeout(r, 0));
    });
    expect(host.querySelector('[data-testid="drawing"]')).not.toBeNull();
    expect(host.querySelector(".route-pending")).toBeNull();
    act(() => root.unmount());
    host.remove();
  });
});
