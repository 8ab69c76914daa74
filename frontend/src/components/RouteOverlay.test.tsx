// @vitest-environment happy-dom
/**
 * RouteOverlay beside the throughput charts: its drawing (Leaflet or cytoscape, the costly part) is
 * set up only after the first paint, so that the charts are painted first (naval-leo: the route map's
 * projection work sat between the result arriving and the charts' first frame); its time is the
 * page's playback; the stations' trajectories come from the page's timeline when it is given (no request of its
 * own), else from one `POST /api/timeline` of its own. The drawing components are stand-ins here.
 */
import { act } from "react";
import { createRoot } from "react-dom/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { api } from "../api/client";
import type { ResultDocument, TimelinePublic } from "../api/types";
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
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

// a station moving along a line: the overlay needs its trajectory
const MOVING = {
  ...RESULT,
  scenario: { name: "t", links: [], nodes: [{ id: "a", kind: "station", position: { x_m: 0, y_m: 0 }, mobility: { model: "linear", start: { x_m: 0, y_m: 0 }, end: { x_m: 30, y_m: 0 }, speed_mps: 10 } }] },
} as unknown as ResultDocument;
const TIMELINE = { duration_s: 3, trajectories: { a: [[0, 0, 0], [3, 30, 0]] }, associations: [], events: [], windows: [[0, 3]] } as unknown as TimelinePublic;

async function mount(el: React.ReactElement): Promise<{ host: HTMLElement; done: () => void }> {
  (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
  const host = document.createElement("div");
  document.body.append(host);
  const root = createRoot(host);
  await act(async () => root.render(el));
  return { host, done: () => { act(() => root.unmount()); host.remove(); } };
}

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

  it("takes a moving scenario's trajectories from the page's timeline without a request of its own", async () => {
    const asked = vi.spyOn(api, "timeline").mockResolvedValue(TIMELINE);
    const page = await mount(<RouteOverlay result={MOVING} strategies={["sptcp"]} timeline={{ timeline: TIMELINE, errors: [] }} />);
    expect(asked).not.toHaveBeenCalled();
    page.done();
  });

  it("shows the page's timeline error as its own", async () => {
    vi.spyOn(api, "timeline").mockResolvedValue(TIMELINE);
    const page = await mount(<RouteOverlay result={MOVING} strategies={["sptcp"]} timeline={{ timeline: null, errors: ["bad orbit"] }} />);
    expect(page.host.textContent).toContain("Station positions over time not available: bad orbit");
    page.done();
  });

  it("without the page's timeline asks for the scenario's once (a sweep point's run)", async () => {
    const asked = vi.spyOn(api, "timeline").mockResolvedValue(TIMELINE);
    const page = await mount(<RouteOverlay result={MOVING} strategies={["sptcp"]} />);
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0));
    });
    expect(asked).toHaveBeenCalledTimes(1);
    expect(asked.mock.calls[0]![0]).toBe(MOVING.scenario);
    page.done();
  });

  it("asks nothing for a scenario where nothing moves", async () => {
    const asked = vi.spyOn(api, "timeline").mockResolvedValue(TIMELINE);
    const page = await mount(<RouteOverlay result={RESULT} strategies={["sptcp"]} />);
    expect(asked).not.toHaveBeenCalled();
    page.done();
  });
});
