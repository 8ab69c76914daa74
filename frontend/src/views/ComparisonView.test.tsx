// @vitest-environment happy-dom
/**
 * The comparison page of a geographic scenario with a moving station, followed from running to succeeded against a
 * fake fetch and a stand-in event stream: the charts are committed with the result, and the page asks for the
 * scenario's timeline once (`POST /api/timeline`, for its map and the routes' drawing both), only after the frame
 * that paints them. The maps are stand-ins (Leaflet does not run in happy-dom).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act } from "react";
import type { ComparisonPublic, ProgressEvent, ResultDocument } from "../api/types";
import { RESULT } from "../lib/fixtures.test-data";
import { installFakeFetch, type FakeFetch } from "../testing/fakeFetch";
import { fakeUser, renderPage, type RenderedPage } from "../testing/renderPage";
import { settle } from "../testing/renderHook";
import { StreamStandIn } from "../testing/streamStandIn";
import { ComparisonView } from "./ComparisonView";

vi.mock("../components/GeoMap", () => ({ GeoMap: ({ label }: { label: string }) => <div data-testid="map">{label}</div> }));
vi.mock("../components/TopologyGraph", () => ({ TopologyGraph: () => <div data-testid="drawing" /> }));

const SCENARIO = {
  name: "geo",
  links: [{ id: "l1", src: "ship", dst: "shore", bandwidth_mbps: 10 }],
  nodes: [
    { id: "shore", kind: "host", position: { lat_deg: 51.1, lon_deg: 1.3 } },
    { id: "ship", kind: "station", position: { lat_deg: 51.0, lon_deg: 1.5 },
      mobility: { model: "linear", start: { lat_deg: 51.0, lon_deg: 1.5 }, end: { lat_deg: 51.0, lon_deg: 1.6 }, speed_mps: 6 } },
  ],
  run: { duration_s: 4 },
};
const RESULT_GEO = { ...RESULT, scenario: SCENARIO } as unknown as ResultDocument;
const TIMELINE = {
  duration_s: 4, trajectories: { ship: [[0, 0, 0], [4, 24, 0]], shore: [[0, 0, 0], [4, 0, 0]] },
  geo_trajectories: { ship: [[0, 51.0, 1.5, 0], [4, 51.0, 1.50034, 0]], shore: [[0, 51.1, 1.3, 0], [4, 51.1, 1.3, 0]] },
  origin: [51.05, 1.4], associations: [], events: [], satcom: [], isl: [], access: [], ground_tracks: {}, windows: [[0, 4]],
};

function record(status: string, result: ResultDocument | null): ComparisonPublic {
  return { id: "c1", scenario_id: "s1", scenario_version: 1, status, strategies: ["sptcp", "mptcp"], engine: "fluid", seed: null,
           progress: status === "succeeded" ? 1 : 0.4, error: null, units_done: 0, units_total: 1, repetitions: 1, sweep: null,
           created_at: "2026-11-29T10:00:00Z", finished_at: null, result } as unknown as ComparisonPublic;
}

let page: RenderedPage;
let fetched: FakeFetch;
let frames: FrameRequestCallback[] = [];
let finished = false;
const timelineRequests = () => fetched.requests.filter((r) => r.method === "POST" && r.path === "/api/timeline");
const charts = () => page.host.querySelectorAll('[data-testid="chart-sptcp"], [data-testid="chart-mptcp"]').length;
async function nextFrame() {
  await act(async () => {
    for (const f of frames.splice(0)) f(16);
    await new Promise((r) => setTimeout(r, 0));
  });
  await settle();
}

beforeEach(() => {
  frames = [];
  StreamStandIn.opened = [];
  vi.stubGlobal("EventSource", StreamStandIn);
  vi.stubGlobal("requestAnimationFrame", (cb: FrameRequestCallback) => frames.push(cb));
  vi.stubGlobal("cancelAnimationFrame", () => undefined);
  finished = false;
  fetched = installFakeFetch({
    "GET /api/scenarios/s1/comparisons/c1": () => [200, finished ? record("succeeded", RESULT_GEO) : record("running", null)],
    "GET /api/scenarios/s1": () => [200, { id: "s1", name: "geo" }],
    "GET /api/strategies": () => [200, []],
    "GET /api/scenarios/s1/versions/1": () => [200, { version: 1, scenario: SCENARIO }],
    "GET /api/scenarios/s1/comparisons/c1/captures": () => [200, { data: [], count: 0 }],
    "POST /api/timeline": () => [200, TIMELINE],
  });
});
afterEach(() => {
  page.unmount();
  vi.unstubAllGlobals();
});

describe("ComparisonView", () => {
  it("asks for the timeline once, for the map and the routes both, after the charts' frame", async () => {
    page = await renderPage(<ComparisonView />, fakeUser(), "/scenarios/s1/comparisons/c1", "/scenarios/:id/comparisons/:cid");
    expect(StreamStandIn.opened).toHaveLength(1);
    finished = true;
    StreamStandIn.opened[0]!.send({ status: "succeeded", progress: 1, error: null, units_done: 0, units_total: 1 } as ProgressEvent);
    await settle();
    await settle();
    // the result is there and its charts are committed; nothing of the timeline yet
    expect(charts()).toBe(2);
    expect(fetched.requests.filter((r) => r.path === "/api/scenarios/s1/versions/1")).toHaveLength(0);
    expect(timelineRequests()).toHaveLength(0);
    // the frame that paints the charts, then the routes' drawing and the map
    await nextFrame();
    await nextFrame();
    await nextFrame();
    expect(timelineRequests()).toHaveLength(1);
    expect(timelineRequests()[0]!.body).toEqual(SCENARIO);
    expect(page.host.querySelector('[data-testid="route-map"] [data-testid="map"]')).not.toBeNull();
    expect(page.host.textContent).toContain("Map of geo at");
    expect(page.host.textContent).not.toContain("not available");
  });
});
