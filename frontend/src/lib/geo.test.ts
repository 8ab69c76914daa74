import { describe, expect, it } from "vitest";
import type { GeoCorner, ScenarioDocument } from "../api/types";
import { mobilityOf } from "./editor";
import {
  formatDistance,
  splitAtAntimeridian,
  geoBounds,
  geoPositionAt,
  geoPositionsAt,
  isGeoScenario,
  loiterAt,
  metresToNm,
  niceNauticalLength,
  placeNodes,
  planarView,
  scenarioGeoJson,
  unplacedNodes,
  wrapLon,
} from "./geo";
import { loadTileUrl, saveTileUrl, TILE_URL_KEY, validTileUrl } from "./mapSettings";

/** Two ships in the English Channel, a UAV relay loitering over them, a shore host. */
function naval(): ScenarioDocument {
  return {
    schema_version: 2,
    name: "channel",
    nodes: [
      { id: "shore", kind: "host", position: { lat_deg: 50.8, lon_deg: -1.1 } },
      { id: "uav", kind: "access_point", range_m: 5000, position: { lat_deg: 50.5, lon_deg: -1.0, alt_m: 300 }, mobility: loiterAt({ lat_deg: 50.5, lon_deg: -1.0 }) },
      {
        id: "ship1",
        kind: "station",
        position: { lat_deg: 50.4, lon_deg: -1.4 },
        mobility: {
          model: "waypoints",
          points: [
            { t_s: 0, lat_deg: 50.4, lon_deg: -1.4 },
            { t_s: 100, lat_deg: 50.45, lon_deg: -0.6 },
          ],
        },
      },
    ],
    links: [{ id: "l1", src: "shore", dst: "uav", bandwidth_mbps: 10 }],
  };
}

describe("nautical miles", () => {
  it("converts by the international definition (1 NM = 1852 m)", () => {
    expect(metresToNm(1852)).toBe(1);
    expect(metresToNm(9260)).toBe(5);
  });
  it("formats metres, kilometres and nautical miles", () => {
    expect(formatDistance(1852)).toBe("1.85 km · 1 NM");
    expect(formatDistance(350)).toBe("350 m · 0.189 NM");
    expect(formatDistance(2.5)).toBe("2.5 m · 0.001 NM");
    expect(formatDistance(370_400)).toBe("370.4 km · 200 NM");
    expect(formatDistance(-1)).toBe("—");
    expect(formatDistance(Number.NaN)).toBe("—");
  });
  it("picks a 1/2/5 × 10^k NM scale bar no longer than the space", () => {
    // 120 px = 3 NM → a 2 NM bar of 80 px
    const ppm = 120 / (3 * 1852);
    const bar = niceNauticalLength(ppm, 120);
    expect(bar.nm).toBe(2);
    expect(bar.px).toBeCloseTo(80, 9);
    expect(bar.label).toBe("2 NM");
    // 120 px = 0.3 NM → 0.2 NM
    expect(niceNauticalLength(120 / (0.3 * 1852), 120).nm).toBeCloseTo(0.2, 12);
    expect(niceNauticalLength(0).px).toBe(0);
  });
});

describe("geoPositionAt (interpolating timeline corners)", () => {
  const corners: GeoCorner[] = [
    [0, 50, -1, 0],
    [10, 50.1, -1, 100],
    [30, 50.1, -0.8, 100],
  ];
  it("is linear between corners", () => {
    expect(geoPositionAt(corners, 5)).toEqual({ lat_deg: 50.05, lon_deg: -1, alt_m: 50 });
    const p = geoPositionAt(corners, 20)!;
    expect(p.lat_deg).toBeCloseTo(50.1, 12);
    expect(p.lon_deg).toBeCloseTo(-0.9, 12);
    expect(p.alt_m).toBe(100);
  });
  it("hits every corner and clamps to the ends", () => {
    for (const c of corners) expect(geoPositionAt(corners, c[0])).toEqual({ lat_deg: c[1], lon_deg: c[2], alt_m: c[3] });
    expect(geoPositionAt(corners, -5)).toEqual({ lat_deg: 50, lon_deg: -1, alt_m: 0 });
    expect(geoPositionAt(corners, 99)).toEqual({ lat_deg: 50.1, lon_deg: -0.8, alt_m: 100 });
    expect(geoPositionAt([], 1)).toBeNull();
  });
  it("crosses the antimeridian the short way", () => {
    const across: GeoCorner[] = [
      [0, 0, 179.5, 0],
      [10, 0, -179.5, 0],
    ];
    expect(Math.abs(geoPositionAt(across, 5)!.lon_deg)).toBeCloseTo(180, 9);
    expect(geoPositionAt(across, 2.5)!.lon_deg).toBeCloseTo(179.75, 9);
    expect(geoPositionAt(across, 7.5)!.lon_deg).toBeCloseTo(-179.75, 9);
  });
  it("places every node that has corners", () => {
    const at = geoPositionsAt({ a: corners, b: [[0, 1, 2, 3]] }, 10);
    expect(at).toEqual({ a: { lat_deg: 50.1, lon_deg: -1, alt_m: 100 }, b: { lat_deg: 1, lon_deg: 2, alt_m: 3 } });
    expect(geoPositionsAt(null, 1)).toEqual({});
  });
  it("wraps longitudes into [-180, 180]", () => {
    expect(wrapLon(190)).toBe(-170);
    expect(wrapLon(-190)).toBe(170);
    expect(wrapLon(540)).toBe(180);
    expect(wrapLon(12.5)).toBe(12.5);
  });
});

describe("scenario GeoJSON", () => {
  it("has a [lon, lat] point per node, a range per access point, a line per link and track, the loiter centre", () => {
    const fc = scenarioGeoJson(naval());
    const by = (role: string) => fc.features.filter((f) => f.properties.role === role);
    expect(by("node").map((f) => [f.properties.id, f.geometry.coordinates])).toEqual([
      ["shore", [-1.1, 50.8]],
      ["uav", [-1.0, 50.5]],
      ["ship1", [-1.4, 50.4]],
    ]);
    expect(by("range")).toHaveLength(1);
    expect(by("range")[0]!.properties).toMatchObject({ id: "uav", radius_m: 5000 });
    expect(by("link")[0]!.geometry.coordinates).toEqual([
      [-1.1, 50.8],
      [-1.0, 50.5],
    ]);
    expect(by("track")[0]!.geometry.coordinates).toEqual([
      [-1.4, 50.4],
      [-0.6, 50.45],
    ]);
    expect(by("loiter")[0]!.properties).toMatchObject({ id: "uav", radius_m: 500, pattern: "circle" });
  });
  it("leaves out planar nodes and links to them", () => {
    const doc = naval();
    doc.nodes[0] = { id: "shore", kind: "host", position: { x_m: 10, y_m: 20 } };
    const fc = scenarioGeoJson(doc);
    expect(fc.features.filter((f) => f.properties.role === "node").map((f) => f.properties.id)).toEqual(["uav", "ship1"]);
    expect(fc.features.filter((f) => f.properties.role === "link")).toHaveLength(0);
    expect(unplacedNodes(doc).map((n) => n.id)).toEqual(["shore"]);
  });
  it("bounds every placed point and track", () => {
    expect(geoBounds(naval())).toEqual([
      [50.4, -1.4],
      [50.8, -0.6],
    ]);
    expect(geoBounds({ name: "x", nodes: [{ id: "a", kind: "host", position: { x_m: 0, y_m: 0 } }] })).toBeNull();
  });
  it("bounds the ground nodes, not a GEO satellite over the equator or its links", () => {
    const doc = naval();
    doc.nodes.push({ id: "geosat", kind: "satellite", position: { lat_deg: 0, lon_deg: 9 } } as (typeof doc.nodes)[number]);
    doc.links = [...(doc.links ?? []), { id: "ship1-geo", src: "ship1", dst: "geosat", delay_ms: 0, bandwidth_mbps: 10 } as NonNullable<typeof doc.links>[number]];
    expect(geoBounds(doc)).toEqual([
      [50.4, -1.4],
      [50.8, -0.6],
    ]);
    // satellites alone: bounded by them
    expect(geoBounds({ name: "sky", nodes: [{ id: "geosat", kind: "satellite", position: { lat_deg: 0, lon_deg: 9 } }] } as Parameters<typeof geoBounds>[0])).toEqual([
      [0, 9],
      [0, 9],
    ]);
  });
});

describe("geographic scenarios in the editor", () => {
  it("tells geographic scenarios from planar ones", () => {
    expect(isGeoScenario(naval())).toBe(true);
    expect(isGeoScenario({ name: "p", nodes: [{ id: "a", kind: "host", position: { x_m: 1, y_m: 2 } }] })).toBe(false);
    expect(isGeoScenario({ name: "o", nodes: [], geo: { origin_lat_deg: 50, origin_lon_deg: -1 } })).toBe(true);
  });
  it("places nodes (rounded to 1e-6°), keeps altitude, returns the same document when nothing moves", () => {
    const doc = naval();
    const moved = placeNodes(doc, { uav: { lat_deg: 50.60000004, lon_deg: -0.9 } });
    expect(moved.nodes[1]!.position).toEqual({ lat_deg: 50.6, lon_deg: -0.9, alt_m: 300 });
    expect(doc.nodes[1]!.position).toEqual({ lat_deg: 50.5, lon_deg: -1.0, alt_m: 300 });
    expect(placeNodes(moved, { uav: { lat_deg: 50.6, lon_deg: -0.9 } })).toBe(moved);
    expect(placeNodes(doc, { nobody: { lat_deg: 1, lon_deg: 1 } })).toBe(doc);
    // a planar node becomes geographic
    const conv = placeNodes({ name: "p", nodes: [{ id: "a", kind: "host", position: { x_m: 1, y_m: 2 } }] }, { a: { lat_deg: 10, lon_deg: 200 } });
    expect(conv.nodes[0]!.position).toEqual({ lat_deg: 10, lon_deg: -160 });
  });
  it("draws a loiter at a centre, keeping an existing pattern's parameters", () => {
    const l = loiterAt({ lat_deg: 50, lon_deg: -1 });
    expect(l).toEqual({ model: "loiter", center: { lat_deg: 50, lon_deg: -1 }, radius_m: 500, speed_mps: 25, alt_m: 300, pattern: "circle" });
    const race = { ...l, pattern: "racetrack" as const, length_m: 2000, heading_deg: 90, radius_m: 800 };
    expect(loiterAt({ lat_deg: 51, lon_deg: 0 }, race)).toEqual({ ...race, center: { lat_deg: 51, lon_deg: 0 } });
  });
  it("starts a geographic node's new mobility where it is", () => {
    const at = { lat_deg: 50.5, lon_deg: -1 };
    expect(mobilityOf("loiter", { x_m: 0, y_m: 0 }, undefined, at)).toMatchObject({ model: "loiter", center: at });
    expect(mobilityOf("waypoints", { x_m: 0, y_m: 0 }, undefined, at)).toEqual({ model: "waypoints", points: [{ t_s: 0, ...at }] });
    expect(mobilityOf("loiter", { x_m: 5, y_m: 6 })).toMatchObject({ model: "loiter", center: { x_m: 5, y_m: 6 } });
    expect(mobilityOf("linear", { x_m: 0, y_m: 0 }, undefined, at)).toMatchObject({ model: "linear", start: at, end: at });
  });
});

describe("map settings (tile URL)", () => {
  /** An in-memory stand-in for the browser's localStorage. */
  function fakeStorage() {
    const m = new Map<string, string>();
    return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), removeItem: (k: string) => void m.delete(k), m };
  }
  it("accepts http(s) or same-origin templates with {z}, {x} and {y}", () => {
    expect(validTileUrl("https://t.local/{z}/{x}/{y}.png")).toBeNull();
    expect(validTileUrl("/tiles/{z}/{x}/{y}.png")).toBeNull();
    expect(validTileUrl("")).toBeNull();
    expect(validTileUrl("javascript:alert(1)//{z}{x}{y}")).toMatch(/must start with/);
    expect(validTileUrl("https://t.local/{z}/{x}.png")).toMatch(/\{y\}/);
  });
  it("keeps a valid URL, clears with an empty one, refuses a bad one without storing it", () => {
    const s = fakeStorage();
    expect(loadTileUrl(s)).toBeNull();
    expect(saveTileUrl(" https://t.local/{z}/{x}/{y}.png ", s)).toBeNull();
    expect(loadTileUrl(s)).toBe("https://t.local/{z}/{x}/{y}.png");
    expect(saveTileUrl("ftp://x/{z}/{x}/{y}", s)).toMatch(/must start with/);
    expect(loadTileUrl(s)).toBe("https://t.local/{z}/{x}/{y}.png");
    expect(saveTileUrl("", s)).toBeNull();
    expect(s.m.has(TILE_URL_KEY)).toBe(false);
  });
});

describe("planarView (schematic x/y drawing of a geographic scenario)", () => {
  it("replaces every geographic point by the projector's metres, keeping altitude and planar points", () => {
    // a stand-in projector (the app passes Leaflet's Web Mercator): 1 km per degree
    const project = (p: { lat_deg: number; lon_deg: number }) => ({ x_m: p.lon_deg * 1000, y_m: p.lat_deg * 1000 });
    const doc = naval();
    const v = planarView(doc, project);
    expect(v.nodes[0]!.position).toEqual({ x_m: -1100, y_m: 50800 });
    expect(v.nodes[1]!.position).toEqual({ x_m: -1000, y_m: 50500, alt_m: 300 });
    expect(v.nodes[1]!.mobility).toMatchObject({ model: "loiter", center: { x_m: -1000, y_m: 50500 } });
    const m = v.nodes[2]!.mobility!;
    expect(m.model === "waypoints" && m.points).toEqual([
      { t_s: 0, x_m: -1400, y_m: 50400 },
      { t_s: 100, x_m: -600, y_m: 50450 },
    ]);
    expect(doc.nodes[0]!.position).toEqual({ lat_deg: 50.8, lon_deg: -1.1 });
    const planar: ScenarioDocument = { name: "p", nodes: [{ id: "a", kind: "host", position: { x_m: 1, y_m: 2 } }] };
    expect(planarView(planar, project).nodes[0]!.position).toEqual({ x_m: 1, y_m: 2 });
  });
});

describe("splitAtAntimeridian", () => {
  it("cuts a ground track where it jumps across ±180°, keeps it whole otherwise", () => {
    expect(splitAtAntimeridian([[0, 170], [5, 179], [10, -178], [15, -170]])).toEqual([[[0, 170], [5, 179]], [[10, -178], [15, -170]]]);
    expect(splitAtAntimeridian([[0, -10], [5, 10]])).toEqual([[[0, -10], [5, 10]]]);
    expect(splitAtAntimeridian([])).toEqual([]);
  });
});
