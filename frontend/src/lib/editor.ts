/**
 * Pure operations on a scenario document for the editor. Every function returns
 * a new document (inputs are never mutated), so the editor's undo history is a
 * list of documents.
 */
import { LOITER_DEFAULTS, loiterAt } from "./geo";
import { norm } from "./topology";
import { satcomSatelliteOf } from "./satcomEditor";
import { documentPath } from "./docPath";
import type {
  Bounds,
  GeoPosition,
  Flow,
  Link,
  LinkEvent,
  Mobility,
  MobilityModel,
  NodeKind,
  Position,
  RateStep,
  ScenarioDocument,
  ScenarioNode,
  ValidationErrorItem,
  Waypoint,
} from "../api/types";

/** Prefix of generated ids per node kind: h1, sta1, ap1, sw1, sat1, r1. */
export const ID_PREFIX: Record<NodeKind, string> = {
  host: "h",
  station: "sta",
  access_point: "ap",
  switch: "sw",
  satellite: "sat",
  router: "r",
};

/** The first `<prefix><n>` (n = 1, 2, …) not in `taken`. */
export function nextId(prefix: string, taken: Iterable<string>): string {
  const set = new Set(taken);
  for (let i = 1; ; i++) if (!set.has(`${prefix}${i}`)) return `${prefix}${i}`;
}

export function emptyScenario(name = "New scenario"): ScenarioDocument {
  return { schema_version: 2, name, description: "", nodes: [], links: [], flows: [], run: { duration_s: 100, interval_s: 1, seed: 1 } };
}

/** A new node of `kind` at `position` with the schema's defaults that the editor shows. */
export function newNode(kind: NodeKind, id: string, position: Position): ScenarioNode {
  const base = { id, position: { x_m: position.x_m, y_m: position.y_m } };
  switch (kind) {
    case "access_point":
      return { ...base, kind, range_m: 100, wireless_bandwidth_mbps: 54, wireless_delay_ms: 1, wireless_loss: 0, queue_packets: 100, network: "wlan" };
    case "station":
      return { ...base, kind, mobility: { model: "static" } };
    case "satellite":
      return { ...base, kind, orbit: "geo" };
    default:
      return { ...base, kind };
  }
}

/**
 * Where a node placed from the keyboard goes (planar metres): 60 m east of the node `nearId`, else at the
 * centre of the placed nodes' bounding box (the origin without nodes), moved east in 60 m steps until no
 * node is within 30 m (so that repeated placements do not stack).
 */
export function keyboardSpot(doc: ScenarioDocument, nearId: string | null): Position {
  const placed = doc.nodes.map((n) => norm(n.position));
  const near = nearId ? doc.nodes.find((n) => n.id === nearId) : undefined;
  let at: Position;
  if (near) at = { x_m: norm(near.position).x_m + 60, y_m: norm(near.position).y_m };
  else if (placed.length) {
    const xs = placed.map((p) => p.x_m);
    const ys = placed.map((p) => p.y_m);
    at = { x_m: (Math.min(...xs) + Math.max(...xs)) / 2, y_m: (Math.min(...ys) + Math.max(...ys)) / 2 };
  } else at = { x_m: 0, y_m: 0 };
  while (placed.some((p) => Math.hypot(p.x_m - at.x_m, p.y_m - at.y_m) < 30)) at = { x_m: at.x_m + 60, y_m: at.y_m };
  return { x_m: Math.round(at.x_m), y_m: Math.round(at.y_m) };
}

export function addNode(doc: ScenarioDocument, kind: NodeKind, position: Position): { doc: ScenarioDocument; id: string } {
  const id = nextId(ID_PREFIX[kind], doc.nodes.map((n) => n.id));
  return { doc: { ...doc, nodes: [...doc.nodes, newNode(kind, id, position)] }, id };
}

/** Nodes and the links among them, copied from a selection (`copySelection`) to paste later. */
export interface NodeClipboard {
  nodes: ScenarioNode[];
  links: Link[];
}

/** The selected nodes and the links joining two of them; null when no node is selected. */
export function copySelection(doc: ScenarioDocument, nodeIds: readonly string[]): NodeClipboard | null {
  const ids = new Set(nodeIds);
  const nodes = doc.nodes.filter((n) => ids.has(n.id));
  if (!nodes.length) return null;
  const links = (doc.links ?? []).filter((l) => ids.has(l.src) && ids.has(l.dst));
  return structuredClone({ nodes, links });
}

/** Shift of a pasted copy: planar metres, or degrees for a node placed by latitude/longitude (~ 55 m north-east). */
const PASTE_SHIFT_M = 60;
const PASTE_SHIFT_DEG = 0.0005;

/**
 * Paste a copy: each node gets a fresh id of its kind, its label + " (copy)", its position shifted (60 m east and
 * north, or 0.0005° in latitude and longitude); the links among them come too, with fresh ids; an access point's
 * `uplink` follows the copy when its uplink was copied, else stays. Mobility is copied as it is (a path starts
 * where it did).
 */
export function pasteClipboard(doc: ScenarioDocument, clip: NodeClipboard): { doc: ScenarioDocument; nodeIds: string[]; linkIds: string[] } {
  const taken = doc.nodes.map((n) => n.id);
  const rename = new Map<string, string>();
  for (const n of clip.nodes) {
    const id = nextId(ID_PREFIX[n.kind], [...taken, ...rename.values()]);
    rename.set(n.id, id);
  }
  const shift = (p: ScenarioNode["position"]) => {
    if (!p) return p;
    const g = p as { lat_deg?: number; lon_deg?: number };
    if (typeof g.lat_deg === "number" && typeof g.lon_deg === "number")
      return { ...p, lat_deg: g.lat_deg + PASTE_SHIFT_DEG, lon_deg: g.lon_deg + PASTE_SHIFT_DEG };
    const q = norm(p);
    return { ...p, x_m: q.x_m + PASTE_SHIFT_M, y_m: q.y_m + PASTE_SHIFT_M };
  };
  const nodes = clip.nodes.map((n) => {
    const copy = structuredClone(n) as ScenarioNode & { uplink?: string | null };
    copy.id = rename.get(n.id)!;
    copy.label = n.label ? `${n.label} (copy)` : undefined;
    copy.position = shift(n.position);
    if (copy.uplink && rename.has(copy.uplink)) copy.uplink = rename.get(copy.uplink)!;
    return copy;
  });
  const linkIds: string[] = [];
  const linkTaken = (doc.links ?? []).map((l) => l.id);
  const links = clip.links.map((l) => {
    const id = nextId("l", [...linkTaken, ...linkIds]);
    linkIds.push(id);
    return { ...structuredClone(l), id, src: rename.get(l.src)!, dst: rename.get(l.dst)! };
  });
  return { doc: { ...doc, nodes: [...doc.nodes, ...nodes], links: [...(doc.links ?? []), ...links] }, nodeIds: nodes.map((n) => n.id), linkIds };
}

/**
 * Move corner `index` of a node's path to `at` (metres): a linear path's start (0) or end (1), or waypoint `index`
 * (its time kept; the node's position follows a moved first corner). Other mobility models are left alone.
 */
export function moveWaypoint(doc: ScenarioDocument, nodeId: string, index: number, at: Position): ScenarioDocument {
  const n = doc.nodes.find((x) => x.id === nodeId);
  const m = n && "mobility" in n ? (n.mobility as Mobility | null | undefined) : null;
  if (!n || !m) return doc;
  const p = { x_m: Math.round(at.x_m * 10) / 10, y_m: Math.round(at.y_m * 10) / 10 };
  if (m.model === "linear" && (index === 0 || index === 1)) {
    const next = index === 0 ? { ...m, start: { ...m.start, ...p } } : { ...m, end: { ...m.end, ...p } };
    return updateNode(doc, nodeId, index === 0 ? { mobility: next, position: p } : { mobility: next });
  }
  if (m.model === "waypoints" && index >= 0 && index < m.points.length) {
    const points = m.points.map((w, i) => (i === index ? { ...w, ...p } : w));
    return updateNode(doc, nodeId, index === 0 ? { mobility: { ...m, points }, position: p } : { mobility: { ...m, points } });
  }
  return doc;
}

/** Move nodes to new positions (metres); unknown ids are ignored. */
export function moveNodes(doc: ScenarioDocument, moves: Record<string, Position>): ScenarioDocument {
  let changed = false;
  const nodes = doc.nodes.map((n) => {
    const p = moves[n.id];
    if (!p || (n.position && n.position.x_m === p.x_m && n.position.y_m === p.y_m)) return n;
    changed = true;
    return { ...n, position: { x_m: p.x_m, y_m: p.y_m } };
  });
  return changed ? { ...doc, nodes } : doc;
}

/**
 * Delete nodes and links. Links touching a deleted node, flows from or to one,
 * and link events and the packet capture of a deleted link go too (they would no longer validate).
 */
export function deleteElements(doc: ScenarioDocument, nodeIds: readonly string[], linkIds: readonly string[]): ScenarioDocument {
  const nodes = new Set(nodeIds);
  const links = new Set(linkIds);
  if (!nodes.size && !links.size) return doc;
  const keptLinks = (doc.links ?? []).filter((l) => !links.has(l.id) && !nodes.has(l.src) && !nodes.has(l.dst));
  const keptLinkIds = new Set(keptLinks.map((l) => l.id));
  return {
    ...doc,
    nodes: doc.nodes.filter((n) => !nodes.has(n.id)),
    links: keptLinks,
    flows: (doc.flows ?? []).filter((f) => !nodes.has(f.src) && !nodes.has(f.dst)),
    link_events: doc.link_events ? doc.link_events.filter((e) => keptLinkIds.has(e.link)) : doc.link_events,
    capture: doc.capture ? doc.capture.filter((id) => keptLinkIds.has(id)) : doc.capture,
    ...satcomWithout(doc, nodes, keptLinkIds),
  };
}

/** The SATCOM references left once `nodes` and every link not in `keptLinks` are gone: gateways, beams and their
 * members, and the budgets' gateway links (a beam of a deleted satellite or with no member left goes too). */
function satcomWithout(doc: ScenarioDocument, nodes: ReadonlySet<string>, keptLinks: ReadonlySet<string>): Partial<ScenarioDocument> {
  const sc = doc.satcom;
  if (!sc) return {};
  const beams = sc.beams
    ?.filter((b) => !nodes.has(b.satellite))
    .map((b) => ({ ...b, links: b.links.filter((id) => keptLinks.has(id)) }))
    .filter((b) => b.links.length > 0);
  return {
    satcom: { ...sc, gateways: sc.gateways?.filter((g) => !nodes.has(g)), beams },
    links: (doc.links ?? [])
      .filter((l) => keptLinks.has(l.id))
      .map((l) => (l.budget?.gateway_link && !keptLinks.has(l.budget.gateway_link) ? { ...l, budget: { ...l.budget, gateway_link: null } } : l)),
  };
}

export function linkBetween(doc: ScenarioDocument, a: string, b: string): Link | undefined {
  return (doc.links ?? []).find((l) => (l.src === a && l.dst === b) || (l.src === b && l.dst === a));
}

/**
 * A new wired link a–b (100 Mbit/s, 1 ms; a link to a satellite on an orbit: 0 ms of its own, its delay comes from
 * the orbit); null if a = b, either is unknown or they are already joined.
 */
export function addLink(doc: ScenarioDocument, src: string, dst: string): { doc: ScenarioDocument; id: string } | null {
  const ids = new Set(doc.nodes.map((n) => n.id));
  if (src === dst || !ids.has(src) || !ids.has(dst) || linkBetween(doc, src, dst)) return null;
  const id = nextId("l", (doc.links ?? []).map((l) => l.id));
  const delay_ms = satcomSatelliteOf(doc, { src, dst }) ? 0 : 1;
  const link: Link = { id, src, dst, bandwidth_mbps: 100, delay_ms, loss: 0, jitter_ms: 0, queue_packets: 100 };
  return { doc: { ...doc, links: [...(doc.links ?? []), link] }, id };
}

export function updateNode(doc: ScenarioDocument, id: string, patch: Partial<Record<string, unknown>>): ScenarioDocument {
  return { ...doc, nodes: doc.nodes.map((n) => (n.id === id ? ({ ...n, ...patch } as ScenarioNode) : n)) };
}

/** Rename a node and every reference to it (links, flows). */
export function renameNode(doc: ScenarioDocument, from: string, to: string): ScenarioDocument {
  if (from === to) return doc;
  const r = (x: string) => (x === from ? to : x);
  return {
    ...doc,
    nodes: doc.nodes.map((n) => (n.id === from ? { ...n, id: to } : n)),
    links: (doc.links ?? []).map((l) => (l.src === from || l.dst === from ? { ...l, src: r(l.src), dst: r(l.dst) } : l)),
    flows: (doc.flows ?? []).map((f) => (f.src === from || f.dst === from ? { ...f, src: r(f.src), dst: r(f.dst) } : f)),
    ...(doc.satcom
      ? { satcom: { ...doc.satcom, gateways: doc.satcom.gateways?.map(r), beams: doc.satcom.beams?.map((b) => (b.satellite === from ? { ...b, satellite: to } : b)) } }
      : {}),
  };
}

export function updateLink(doc: ScenarioDocument, id: string, patch: Partial<Link>): ScenarioDocument {
  return { ...doc, links: (doc.links ?? []).map((l) => (l.id === id ? { ...l, ...patch } : l)) };
}

export function addFlow(doc: ScenarioDocument): { doc: ScenarioDocument; id: string } {
  const id = nextId("f", (doc.flows ?? []).map((f) => f.id));
  const ends = doc.nodes.filter((n) => n.kind === "station" || n.kind === "host");
  const src = ends.find((n) => n.kind === "station")?.id ?? doc.nodes[0]?.id ?? "";
  const dst = ends.find((n) => n.kind === "host" && n.id !== src)?.id ?? doc.nodes.find((n) => n.id !== src)?.id ?? "";
  const flow: Flow = { id, src, dst, rate_mbps: null, start_s: 0, stop_s: null };
  return { doc: { ...doc, flows: [...(doc.flows ?? []), flow] }, id };
}

export function updateFlow(doc: ScenarioDocument, index: number, patch: Partial<Flow>): ScenarioDocument {
  return { ...doc, flows: (doc.flows ?? []).map((f, i) => (i === index ? { ...f, ...patch } : f)) };
}

export function deleteFlow(doc: ScenarioDocument, index: number): ScenarioDocument {
  return { ...doc, flows: (doc.flows ?? []).filter((_, i) => i !== index) };
}

// ----------------------------------------------------------------------------- link events

/** A new link event: the first link goes down at half the run (the user edits it from there). */
export function addLinkEvent(doc: ScenarioDocument): ScenarioDocument {
  const link = doc.links?.[0]?.id ?? "";
  const half = (doc.run?.duration_s ?? 100) / 2;
  const ev: LinkEvent = { t_s: half, link, state: "down" };
  return { ...doc, link_events: [...(doc.link_events ?? []), ev] };
}

export function updateLinkEvent(doc: ScenarioDocument, index: number, patch: Partial<LinkEvent>): ScenarioDocument {
  return { ...doc, link_events: (doc.link_events ?? []).map((e, i) => (i === index ? { ...e, ...patch } : e)) };
}

export function deleteLinkEvent(doc: ScenarioDocument, index: number): ScenarioDocument {
  return { ...doc, link_events: (doc.link_events ?? []).filter((_, i) => i !== index) };
}

// ----------------------------------------------------------------------------- access point rate table

/** The table with one more row, 100 m beyond the last (metres; rates in Mbit/s). */
export function addRateStep(table: readonly RateStep[] | null | undefined, bandwidth_mbps = 54): RateStep[] {
  const rows = [...(table ?? [])];
  const last = rows[rows.length - 1];
  rows.push({ distance_m: last ? last.distance_m + 100 : 100, bandwidth_mbps: last ? last.bandwidth_mbps : bandwidth_mbps });
  return rows;
}

/** The table with row ``index`` patched. */
export function updateRateStep(table: readonly RateStep[], index: number, patch: Partial<RateStep>): RateStep[] {
  return table.map((r, i) => (i === index ? { ...r, ...patch } : r));
}

/** The table without row ``index``; null (no table: the constant wireless bandwidth) when none is left. */
export function deleteRateStep(table: readonly RateStep[], index: number): RateStep[] | null {
  const rows = table.filter((_, i) => i !== index);
  return rows.length ? rows : null;
}

// ----------------------------------------------------------------------------- mobility

export const MOBILITY_MODELS: readonly MobilityModel[] = ["static", "waypoints", "linear", "random_walk", "random_waypoint", "gauss_markov", "loiter"];

/** Bounds of `size_m` around `p`. */
export function boundsAround(p: Position, size_m = 200): Bounds {
  const h = size_m / 2;
  return { x_min_m: p.x_m - h, y_min_m: p.y_m - h, x_max_m: p.x_m + h, y_max_m: p.y_m + h };
}

/** Bounds from two corners of a drawn rectangle (any order), rounded to 0.1 m. */
export function boundsFromCorners(a: Position, b: Position): Bounds {
  const r = (v: number) => Math.round(v * 10) / 10;
  return {
    x_min_m: r(Math.min(a.x_m, b.x_m)),
    y_min_m: r(Math.min(a.y_m, b.y_m)),
    x_max_m: r(Math.max(a.x_m, b.x_m)),
    y_max_m: r(Math.max(a.y_m, b.y_m)),
  };
}

/**
 * A mobility of `model` for a node at `position` (metres), keeping what can be kept from `prev`;
 * `geoAt`: the node's geographic position in a geographic scenario (waypoints and loiter start there).
 */
export function mobilityOf(model: MobilityModel, position: Position, prev?: Mobility, geoAt?: GeoPosition | null): Mobility {
  const prevBounds = prev && "bounds" in prev ? prev.bounds : undefined;
  const bounds = prevBounds ?? boundsAround(position);
  switch (model) {
    case "static":
      return { model };
    case "waypoints":
      if (prev?.model === "waypoints") return { model, points: prev.points };
      return { model, points: [geoAt ? { t_s: 0, lat_deg: geoAt.lat_deg, lon_deg: geoAt.lon_deg } : { t_s: 0, x_m: position.x_m, y_m: position.y_m }] };
    case "loiter":
      if (geoAt) return loiterAt(geoAt, prev);
      return { model, center: { x_m: position.x_m, y_m: position.y_m }, radius_m: LOITER_DEFAULTS.radius_m, speed_mps: LOITER_DEFAULTS.speed_mps, alt_m: LOITER_DEFAULTS.alt_m, pattern: "circle" };
    case "linear":
      // geographic: start and end where the node is (the user sets the end's latitude/longitude)
      if (geoAt) return { model, start: { lat_deg: geoAt.lat_deg, lon_deg: geoAt.lon_deg }, end: { lat_deg: geoAt.lat_deg, lon_deg: geoAt.lon_deg }, speed_mps: 10, start_s: 0 };
      return { model, start: { ...position }, end: { x_m: position.x_m + 100, y_m: position.y_m }, speed_mps: 10, start_s: 0 };
    case "random_walk":
      return { model, bounds, speed_min_mps: 1, speed_max_mps: 5, step_s: 10, seed: 0 };
    case "random_waypoint":
      return { model, bounds, speed_min_mps: 1, speed_max_mps: 5, pause_s: 0, seed: 0 };
    case "gauss_markov":
      return { model, bounds, mean_speed_mps: 3, speed_std_mps: 1, heading_std_rad: 0.5, alpha: 0.75, step_s: 1, seed: 0 };
  }
}

/**
 * Times for waypoints travelled at `speed_mps`, the first at `t0_s`; rounded
 * to 1 ms, and strictly increasing even for repeated points.
 */
export function timesFromSpeed(points: readonly { x_m?: number | null; y_m?: number | null }[], speed_mps: number, t0_s = 0): Waypoint[] {
  const out: Waypoint[] = [];
  let t = t0_s;
  points.map(norm).forEach((p, i, all) => {
    if (i > 0) {
      const q = all[i - 1]!;
      const dt = Math.hypot(p.x_m - q.x_m, p.y_m - q.y_m) / speed_mps;
      t = Math.max(Math.round((t + dt) * 1000) / 1000, out[i - 1]!.t_s + 0.001);
    }
    out.push({ t_s: Number(t.toFixed(3)), x_m: p.x_m, y_m: p.y_m });
  });
  return out;
}

/** Append a point to a waypoint path, timed at `speed_mps` from the last point. */
export function appendWaypoint(points: readonly Waypoint[], p: Position, speed_mps: number): Waypoint[] {
  if (!points.length) return [{ t_s: 0, x_m: p.x_m, y_m: p.y_m }];
  const last = points[points.length - 1]!;
  const lp = norm(last);
  const dt = Math.hypot(p.x_m - lp.x_m, p.y_m - lp.y_m) / speed_mps;
  const t = Math.max(Math.round((last.t_s + dt) * 1000) / 1000, last.t_s + 0.001);
  return [...points, { t_s: Number(t.toFixed(3)), x_m: p.x_m, y_m: p.y_m }];
}

// ----------------------------------------------------------------------------- validation errors

/** 422 details → `{ "links.0.loss": "Input should be less than 1" }` (body prefix and union tags dropped, {@link documentPath}; messages of one path joined). */
export function fieldErrors(detail: readonly ValidationErrorItem[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of detail) {
    const key = documentPath(d.loc);
    out[key] = out[key] ? `${out[key]}; ${d.msg}` : d.msg;
  }
  return out;
}

/**
 * Errors at `path` or below it, with the rest of their path, e.g. errorsUnder(e, "links.0")
 * gives `{ "loss": "…" }`; the error of `path` itself has key "".
 */
export function errorsUnder(errors: Record<string, string>, path: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(errors)) {
    if (k === path) out[""] = v;
    else if (k.startsWith(`${path}.`)) out[k.slice(path.length + 1)] = v;
  }
  return out;
}

/** Which element a 422 location belongs to: node / link / flow id, or the scenario. */
export function errorTarget(doc: ScenarioDocument, path: string): { kind: "node" | "link" | "flow" | "scenario"; id: string | null } {
  const [head, index] = path.split(".");
  const i = Number(index);
  if (head === "nodes" && doc.nodes[i]) return { kind: "node", id: doc.nodes[i]!.id };
  if (head === "links" && doc.links?.[i]) return { kind: "link", id: doc.links[i]!.id };
  if (head === "flows" && doc.flows?.[i]) return { kind: "flow", id: doc.flows[i]!.id };
  return { kind: "scenario", id: null };
}

// ----------------------------------------------------------------------------- sweeps

/** Numeric fields a sweep can vary, as the dotted paths of the comparison contract. */
export function sweepParameters(doc: ScenarioDocument): string[] {
  const out: string[] = [];
  for (const n of doc.nodes) {
    if (n.kind === "access_point") {
      for (const f of ["range_m", "association_delay_s", "beacon_interval_ms", "wireless_bandwidth_mbps", "wireless_delay_ms", "wireless_loss", "queue_packets"]) out.push(`nodes.${n.id}.${f}`);
    }
  }
  for (const l of doc.links ?? []) for (const f of ["bandwidth_mbps", "delay_ms", "loss", "jitter_ms", "queue_packets"]) out.push(`links.${l.id}.${f}`);
  for (const f of doc.flows ?? []) for (const k of ["rate_mbps", "start_s"]) out.push(`flows.${f.id}.${k}`);
  out.push("run.duration_s", "run.seed", "transport.min_rto_s", "transport.initial_cwnd_packets", "transport.mss_bytes");
  return out;
}

/** "100, 200 ,300" → [100, 200, 300]; null if any item is not a finite number or the list is empty. */
export function parseNumberList(text: string): number[] | null {
  const items = text.split(/[,;\s]+/).filter((s) => s.length);
  if (!items.length) return null;
  const values = items.map(Number);
  return values.every(Number.isFinite) ? values : null;
}

/** Stable JSON of a document for "has it changed" checks (object keys sorted). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]]))
      : v,
  );
}
