/**
 * Geographic scenarios on the map (pure; no map library import).
 *
 * A scenario is geographic when its nodes are placed by WGS84 `lat_deg`/`lon_deg` (or it has a
 * `geo` origin). The browser never projects, never measures on the ellipsoid and never moves a
 * node: distances come from the map library (Leaflet's `LatLng.distanceTo`), positions over time
 * from the `geo_trajectories` corners of `POST /api/timeline` (the domain library's mobility),
 * interpolated here between corners. Contract: docs/geography.md.
 */
import type { Feature, FeatureCollection, LineString, Point } from "geojson";
import type { GeoCorner, GeoPosition, LoiterMobility, NodeKind, ScenarioDocument, ScenarioNode } from "../api/types";
import { cornersAround } from "./timeline";

/** One international nautical mile, metres (exact, by definition). */
export const METRES_PER_NM = 1852;

/** Metres → nautical miles. */
export function metresToNm(m: number): number {
  return m / METRES_PER_NM;
}

function trim(v: number, digits: number): string {
  return String(Number(v.toFixed(digits)));
}

/** A distance in metres (or km) and nautical miles: "1.25 km · 0.675 NM", "350 m · 0.189 NM". */
export function formatDistance(m: number): string {
  if (!Number.isFinite(m) || m < 0) return "—";
  const metric = m >= 1000 ? `${trim(m / 1000, m >= 100_000 ? 1 : 2)} km` : `${trim(m, m >= 10 ? 0 : 1)} m`;
  const nm = metresToNm(m);
  const naut = `${trim(nm, nm >= 100 ? 1 : 3)} NM`;
  return `${metric} · ${naut}`;
}

/** True when `p` is a geographic point (`lat_deg` and `lon_deg` given). */
export function isGeoPoint<T extends { lat_deg?: number | null; lon_deg?: number | null }>(p: T | null | undefined): p is T & { lat_deg: number; lon_deg: number } {
  return !!p && typeof p.lat_deg === "number" && typeof p.lon_deg === "number";
}

/** True when the scenario is drawn on the map: it has a `geo` origin or a node placed by lat/lon. */
export function isGeoScenario(doc: ScenarioDocument): boolean {
  return !!doc.geo || doc.nodes.some((n) => isGeoPoint(n.position));
}

/** Nodes of a geographic scenario that have no lat/lon yet (to be placed on the map). */
export function unplacedNodes(doc: ScenarioDocument): ScenarioNode[] {
  return doc.nodes.filter((n) => !isGeoPoint(n.position));
}

/** A geographic position rounded to 1e-6 degrees (~0.1 m), keeping `alt_m`. */
export function geoPoint(lat_deg: number, lon_deg: number, alt_m?: number | null): GeoPosition {
  const r = (v: number) => Math.round(v * 1e6) / 1e6 + 0;
  const p: GeoPosition = { lat_deg: r(lat_deg), lon_deg: r(wrapLon(lon_deg)) };
  if (alt_m) p.alt_m = alt_m;
  return p;
}

/** Longitude wrapped into [-180, 180]. */
export function wrapLon(lon: number): number {
  if (lon >= -180 && lon <= 180) return lon;
  const w = ((((lon + 180) % 360) + 360) % 360) - 180;
  return w === -180 && lon > 0 ? 180 : w;
}

/** Move nodes to geographic positions (keeping each node's altitude); unknown ids are ignored. */
export function placeNodes(doc: ScenarioDocument, moves: Record<string, { lat_deg: number; lon_deg: number }>): ScenarioDocument {
  let changed = false;
  const nodes = doc.nodes.map((n) => {
    const m = moves[n.id];
    if (!m) return n;
    const next = geoPoint(m.lat_deg, m.lon_deg, n.position?.alt_m);
    if (isGeoPoint(n.position) && n.position.lat_deg === next.lat_deg && n.position.lon_deg === next.lon_deg) return n;
    changed = true;
    return { ...n, position: next } as ScenarioNode;
  });
  return changed ? { ...doc, nodes } : doc;
}

/** Defaults of a new loiter pattern drawn on the map (a UAV relay: 500 m circle at 25 m/s, 300 m up). */
export const LOITER_DEFAULTS = { radius_m: 500, speed_mps: 25, alt_m: 300 } as const;

/** A loiter mobility centred on `center`, keeping the pattern parameters of `prev` when it was one. */
export function loiterAt(center: { lat_deg: number; lon_deg: number }, prev?: ScenarioNode["mobility"]): LoiterMobility {
  const base: LoiterMobility =
    prev && prev.model === "loiter"
      ? { ...prev }
      : { model: "loiter", center: geoPoint(0, 0), radius_m: LOITER_DEFAULTS.radius_m, speed_mps: LOITER_DEFAULTS.speed_mps, alt_m: LOITER_DEFAULTS.alt_m, pattern: "circle" };
  return { ...base, center: geoPoint(center.lat_deg, center.lon_deg) };
}

/** Unwrap `lon` next to `ref` (so that a path across the antimeridian interpolates the short way). */
function unwrapNear(lon: number, ref: number): number {
  let l = lon;
  while (l - ref > 180) l -= 360;
  while (l - ref < -180) l += 360;
  return l;
}

/**
 * Position at `t` (seconds) on a path given by its `[t_s, lat_deg, lon_deg, alt_m]` corners
 * (`geo_trajectories` of `POST /api/timeline`), clamped to its ends. Between two corners the
 * position is linear in latitude, longitude (the short way round) and altitude: the server
 * places corners close enough that this stays on the computed path (loiter arcs: < 0.5 % of
 * the radius). Null for an empty path.
 */
export function geoPositionAt(corners: readonly GeoCorner[], t: number): { lat_deg: number; lon_deg: number; alt_m: number } | null {
  const seg = cornersAround(corners, t);
  if (!seg) return null;
  const { a, b, u } = seg;
  const lonB = unwrapNear(b[2], a[2]);
  return { lat_deg: a[1] + u * (b[1] - a[1]), lon_deg: wrapLon(a[2] + u * (lonB - a[2])), alt_m: a[3] + u * (b[3] - a[3]) };
}

/** Every node's position at `t` from `geo_trajectories` (nodes without corners are left out). */
export function geoPositionsAt(trajectories: Record<string, readonly GeoCorner[]> | null | undefined, t: number): Record<string, { lat_deg: number; lon_deg: number; alt_m: number }> {
  const out: Record<string, { lat_deg: number; lon_deg: number; alt_m: number }> = {};
  for (const [id, corners] of Object.entries(trajectories ?? {})) {
    const p = geoPositionAt(corners, t);
    if (p) out[id] = p;
  }
  return out;
}

// ----------------------------------------------------------------------------- GeoJSON of a scenario

type Props = { role: "node" | "link" | "range" | "track" | "loiter"; id: string; kind?: NodeKind; radius_m?: number; pattern?: "circle" | "racetrack"; src?: string; dst?: string };
export type ScenarioFeature = Feature<Point | LineString, Props>;

/** GeoJSON [lon, lat] of a geographic point. */
function lonLat(p: { lat_deg: number; lon_deg: number }): [number, number] {
  return [p.lon_deg, p.lat_deg];
}

/**
 * The scenario's geographic elements as GeoJSON (RFC 7946, [lon, lat] order): a Point per placed
 * node (`role: "node"`), a LineString per wired link between placed nodes (`"link"`), a Point
 * with `radius_m` per access point's radio range (`"range"`), a LineString per geographic
 * `waypoints` track (`"track"`, the waypoints as given) and a Point with `radius_m` and `pattern` per
 * loiter centre (`"loiter"`). Planar nodes and points are left out.
 */
export function scenarioGeoJson(doc: ScenarioDocument): FeatureCollection<Point | LineString, Props> {
  const features: ScenarioFeature[] = [];
  const at = new Map<string, GeoPosition>();
  for (const n of doc.nodes) if (isGeoPoint(n.position)) at.set(n.id, n.position);
  for (const n of doc.nodes) {
    const p = at.get(n.id);
    if (p) {
      features.push({ type: "Feature", geometry: { type: "Point", coordinates: lonLat(p) }, properties: { role: "node", id: n.id, kind: n.kind } });
      if (n.kind === "access_point") features.push({ type: "Feature", geometry: { type: "Point", coordinates: lonLat(p) }, properties: { role: "range", id: n.id, radius_m: n.range_m } });
    }
    const m = n.mobility;
    if (m?.model === "waypoints") {
      const pts = m.points.filter(isGeoPoint);
      if (pts.length >= 2) features.push({ type: "Feature", geometry: { type: "LineString", coordinates: pts.map(lonLat) }, properties: { role: "track", id: n.id } });
    } else if (m?.model === "loiter" && isGeoPoint(m.center)) {
      features.push({ type: "Feature", geometry: { type: "Point", coordinates: lonLat(m.center) }, properties: { role: "loiter", id: n.id, radius_m: m.radius_m, pattern: m.pattern ?? "circle" } });
    }
  }
  for (const l of doc.links ?? []) {
    const a = at.get(l.src);
    const b = at.get(l.dst);
    if (a && b) features.push({ type: "Feature", geometry: { type: "LineString", coordinates: [lonLat(a), lonLat(b)] }, properties: { role: "link", id: l.id, src: l.src, dst: l.dst } });
  }
  return { type: "FeatureCollection", features };
}

/**
 * South-west and north-east corners ([lat, lon]) of every placed ground node and track point; null if none.
 * Satellites (a GEO satellite sits over the equator, tens of degrees from the ships) and their links are left
 * out, so the first view shows the area the ground nodes span; a scenario of satellites alone is bounded by them.
 */
export function geoBounds(doc: ScenarioDocument): [[number, number], [number, number]] | null {
  const sats = new Set(doc.nodes.filter((n) => n.kind === "satellite").map((n) => n.id));
  const all = scenarioGeoJson(doc).features;
  const ground = all.filter((f) => !sats.has(f.properties.id) && !sats.has(f.properties.src ?? "") && !sats.has(f.properties.dst ?? ""));
  let s = Infinity;
  let w = Infinity;
  let n = -Infinity;
  let e = -Infinity;
  for (const f of ground.length ? ground : all) {
    const coords = f.geometry.type === "Point" ? [f.geometry.coordinates] : f.geometry.coordinates;
    for (const [lon, lat] of coords) {
      s = Math.min(s, lat!);
      n = Math.max(n, lat!);
      w = Math.min(w, lon!);
      e = Math.max(e, lon!);
    }
  }
  return Number.isFinite(s) ? [[s, w], [n, e]] : null;
}

// ----------------------------------------------------------------------------- scale bar

const STEPS = [1, 2, 5];

/** The largest 1/2/5 × 10^k nautical miles not longer than `maxPx` pixels at `pxPerMetre`. */
export function niceNauticalLength(pxPerMetre: number, maxPx = 120): { nm: number; px: number; label: string } {
  if (!(pxPerMetre > 0) || !Number.isFinite(pxPerMetre)) return { nm: 0, px: 0, label: "" };
  const maxNm = maxPx / pxPerMetre / METRES_PER_NM;
  let best = 0;
  for (let k = Math.floor(Math.log10(maxNm)); best === 0; k--) {
    for (const s of STEPS) {
      const v = s * 10 ** k;
      if (v <= maxNm * (1 + 1e-9)) best = Math.max(best, v);
    }
  }
  return { nm: best, px: best * METRES_PER_NM * pxPerMetre, label: `${Number(best.toPrecision(6))} NM` };
}

// ----------------------------------------------------------------------------- schematic (x/y) view

/** A map projection to metres (supplied by the map library: this module projects nothing itself). */
export type Projector = (p: { lat_deg: number; lon_deg: number }) => { x_m: number; y_m: number };

/**
 * The document with every geographic point (node positions, waypoints, loiter centres) replaced
 * by `project`'s x/y metres: for the schematic x/y drawings (results' topology, route overlay) of
 * a geographic scenario. Planar points are kept; the input is not mutated.
 */
export function planarView(doc: ScenarioDocument, project: Projector): ScenarioDocument {
  const pt = <T extends { lat_deg?: number | null; lon_deg?: number | null; alt_m?: number }>(p: T): T => {
    if (!isGeoPoint(p)) return p;
    const { lat_deg: _lat, lon_deg: _lon, ...rest } = p;
    return { ...rest, ...project(p) } as unknown as T;
  };
  return {
    ...doc,
    nodes: doc.nodes.map((n) => {
      const m = n.mobility;
      const mobility = m?.model === "waypoints" ? { ...m, points: m.points.map(pt) } : m?.model === "loiter" ? { ...m, center: pt(m.center) } : m;
      return { ...n, position: n.position ? pt(n.position) : n.position, ...(m ? { mobility } : {}) } as ScenarioNode;
    }),
  };
}

const RADIO_KINDS = new Set(["access_point", "station", "satellite"]);

/**
 * Label priority of each node of `doc`: radio nodes (access points, stations, satellites) before
 * the others, then by degree (number of links), so the labels kept when space is short are those
 * of the nodes a planner looks for first.
 */
export function labelPriorities(doc: ScenarioDocument): Map<string, number> {
  const degree = new Map<string, number>();
  for (const l of doc.links ?? []) {
    degree.set(l.src, (degree.get(l.src) ?? 0) + 1);
    degree.set(l.dst, (degree.get(l.dst) ?? 0) + 1);
  }
  return new Map(doc.nodes.map((n) => [n.id, (RADIO_KINDS.has(n.kind) ? 1e6 : 0) + (degree.get(n.id) ?? 0)]));
}

/** A track's `[lat, lon]` points cut into runs that do not jump across the antimeridian (|Δlon| > 180°). */
export function splitAtAntimeridian(points: readonly [number, number][]): [number, number][][] {
  const out: [number, number][][] = [];
  let cur: [number, number][] = [];
  for (const p of points) {
    const last = cur[cur.length - 1];
    if (last && Math.abs(p[1] - last[1]) > 180) {
      out.push(cur);
      cur = [];
    }
    cur.push(p);
  }
  if (cur.length) out.push(cur);
  return out;
}
