/**
 * Scenario document → cytoscape element definitions (pure; no cytoscape import).
 *
 * Model coordinates (metres, y up) are mapped to graph coordinates by a uniform
 * scale so that the drawing spans about {@link TARGET_EXTENT} units whatever the
 * scenario's size, and y is flipped so that north is up on screen.
 *
 * Element ids: scenario node ids are used as they are (they cannot contain ':');
 * every derived element has a prefixed id: `link:<id>`, `range:<ap>`,
 * `bounds:<station>`, `wp:<station>:<i>` and `path:<station>:<i>`.
 */
import type { NodeKind, Position, ScenarioDocument, ScenarioNode } from "../api/types";

export const TARGET_EXTENT = 500;

export interface TopoElement {
  group: "nodes" | "edges";
  data: {
    id: string;
    label?: string;
    kind?: NodeKind;
    source?: string;
    target?: string;
    /** width/height in graph units, for range circles and mobility bounds */
    w?: number;
    h?: number;
    owner?: string;
    tooltip?: string;
  };
  position?: { x: number; y: number };
  classes: string;
}

export interface Topology {
  elements: TopoElement[];
  /** graph units per metre */
  scale: number;
}

interface Box {
  xMin: number;
  xMax: number;
  yMin: number;
  yMax: number;
}

function pos(n: ScenarioNode): Position {
  return norm(n.position);
}

const isWired = (n: ScenarioNode) => n.kind !== "station" && n.kind !== "access_point";

/**
 * Wired nodes (router, switch, host, satellite) the document does not place: without a `position`,
 * or at exactly (0, 0) (the stored default of an import without coordinates) when the other wired
 * nodes all lie well away from the origin (outside their bounding box grown by 10 % per side).
 * They are drawn where a layout puts them, not at the origin. Radio nodes keep their position,
 * which the engines use.
 */
export function unplacedIds(doc: ScenarioDocument): Set<string> {
  const out = new Set<string>();
  const atOrigin = (n: ScenarioNode) => !n.position || ((n.position.x_m ?? 0) === 0 && (n.position.y_m ?? 0) === 0);
  const others = doc.nodes.filter((n) => isWired(n) && !atOrigin(n));
  let originOutlier = false;
  if (others.length >= 3) {
    const xs = others.map((n) => n.position!.x_m ?? 0);
    const ys = others.map((n) => n.position!.y_m ?? 0);
    const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
    const dx = (x1 - x0) * 0.1;
    const dy = (y1 - y0) * 0.1;
    originOutlier = 0 < x0 - dx || 0 > x1 + dx || 0 < y0 - dy || 0 > y1 + dy;
  }
  for (const n of doc.nodes) {
    if (!isWired(n)) continue;
    if (!n.position || (originOutlier && atOrigin(n))) out.add(n.id);
  }
  return out;
}

/** Label priority of a node for decluttering: radio nodes and satellites first, then by degree. */
export function labelPriority(kind: NodeKind, degree: number): number {
  const k = kind === "access_point" || kind === "satellite" ? 1000 : kind === "station" ? 500 : 0;
  return k + degree;
}

export interface LabelBox {
  id: string;
  /** centre and size of the label, screen pixels */
  x: number;
  y: number;
  w: number;
  h: number;
  priority: number;
}

/**
 * Labels that can be shown without overlapping: greedily by priority (highest first, then id),
 * each kept if its box meets no kept box (a uniform grid finds the neighbours).
 */
export function declutter(boxes: readonly LabelBox[], cell = 80): Set<string> {
  const order = [...boxes].sort((a, b) => b.priority - a.priority || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const grid = new Map<string, LabelBox[]>();
  const kept = new Set<string>();
  for (const b of order) {
    const x0 = Math.floor((b.x - b.w / 2) / cell);
    const x1 = Math.floor((b.x + b.w / 2) / cell);
    const y0 = Math.floor((b.y - b.h / 2) / cell);
    const y1 = Math.floor((b.y + b.h / 2) / cell);
    let free = true;
    for (let gx = x0; gx <= x1 && free; gx++) {
      for (let gy = y0; gy <= y1 && free; gy++) {
        for (const o of grid.get(`${gx},${gy}`) ?? []) {
          if (Math.abs(o.x - b.x) * 2 < o.w + b.w && Math.abs(o.y - b.y) * 2 < o.h + b.h) {
            free = false;
            break;
          }
        }
      }
    }
    if (!free) continue;
    kept.add(b.id);
    for (let gx = x0; gx <= x1; gx++) {
      for (let gy = y0; gy <= y1; gy++) {
        const k = `${gx},${gy}`;
        const list = grid.get(k);
        if (list) list.push(b);
        else grid.set(k, [b]);
      }
    }
  }
  return kept;
}

/** A document point with its defaults applied. */
export function norm(p: { x_m?: number | null; y_m?: number | null } | null | undefined): Position {
  return { x_m: p?.x_m ?? 0, y_m: p?.y_m ?? 0 };
}

/** Bounding box (metres) of every node, mobility path and radio range. */
export function modelExtent(doc: ScenarioDocument): Box {
  const box: Box = { xMin: Infinity, xMax: -Infinity, yMin: Infinity, yMax: -Infinity };
  const add = (x: number, y: number, r = 0) => {
    box.xMin = Math.min(box.xMin, x - r);
    box.xMax = Math.max(box.xMax, x + r);
    box.yMin = Math.min(box.yMin, y - r);
    box.yMax = Math.max(box.yMax, y + r);
  };
  // nodes without coordinates are laid out around the others, not counted at the origin
  const unplaced = unplacedIds(doc);
  const anyPlaced = unplaced.size < doc.nodes.length;
  for (const n of doc.nodes) {
    if (anyPlaced && unplaced.has(n.id)) continue;
    const p = pos(n);
    add(p.x_m, p.y_m);
    if (n.kind === "access_point") add(p.x_m, p.y_m, n.range_m);
    if (n.mobility) {
      const m = n.mobility;
      if (m.model === "linear") {
        add(norm(m.start).x_m, norm(m.start).y_m);
        add(norm(m.end).x_m, norm(m.end).y_m);
      } else if (m.model === "waypoints") {
        for (const w of m.points.map(norm)) add(w.x_m, w.y_m);
      } else if (m.model === "random_walk" || m.model === "random_waypoint" || m.model === "gauss_markov") {
        add(m.bounds.x_min_m, m.bounds.y_min_m);
        add(m.bounds.x_max_m, m.bounds.y_max_m);
      }
    }
  }
  if (!Number.isFinite(box.xMin)) return { xMin: 0, xMax: 0, yMin: 0, yMax: 0 };
  return box;
}

/** Graph units per metre so that the larger side of the extent is {@link TARGET_EXTENT}. */
export function scaleFor(box: Box): number {
  const side = Math.max(box.xMax - box.xMin, box.yMax - box.yMin);
  return side > 0 ? TARGET_EXTENT / side : 1;
}

export function toGraph(p: { x_m: number; y_m: number }, scale: number): { x: number; y: number } {
  // `+ 0` turns -0 into 0 (y = 0 flipped)
  return { x: p.x_m * scale + 0, y: -p.y_m * scale + 0 };
}

const KIND_NAMES: Record<NodeKind, string> = {
  host: "Host",
  station: "Station",
  access_point: "Access point",
  switch: "Switch",
  satellite: "Satellite",
  router: "Router",
};

/** A link label number: at most 4 significant digits ("10.53", "10000"). */
export function short(v: number): string {
  return Math.abs(v) >= 1e4 ? String(Math.round(v)) : String(Number(v.toPrecision(4)));
}

export function kindName(kind: NodeKind): string {
  return KIND_NAMES[kind] ?? kind;
}

/**
 * Element definitions of `doc`; `fixedScale` (graph units per metre) keeps the
 * drawing's scale while a scenario is edited (default: fit {@link TARGET_EXTENT}).
 */
export function topologyElements(doc: ScenarioDocument, fixedScale?: number): Topology {
  const scale = fixedScale ?? scaleFor(modelExtent(doc));
  const unplaced = unplacedIds(doc);
  const els: TopoElement[] = [];
  const ids = new Set(doc.nodes.map((n) => n.id));

  for (const n of doc.nodes) {
    const p = pos(n);
    if (n.kind === "access_point") {
      els.push({
        group: "nodes",
        data: { id: `range:${n.id}`, owner: n.id, w: 2 * n.range_m * scale, h: 2 * n.range_m * scale },
        position: toGraph(p, scale),
        classes: "range",
      });
    }
    if (n.mobility) {
      const m = n.mobility;
      let pts: Position[] = [];
      if (m.model === "linear") pts = [norm(m.start), norm(m.end)];
      else if (m.model === "waypoints") pts = m.points.map(norm);
      else if (m.model === "random_walk" || m.model === "random_waypoint" || m.model === "gauss_markov") {
        const b = m.bounds;
        els.push({
          group: "nodes",
          data: {
            id: `bounds:${n.id}`,
            owner: n.id,
            w: (b.x_max_m - b.x_min_m) * scale,
            h: (b.y_max_m - b.y_min_m) * scale,
          },
          position: toGraph({ x_m: (b.x_min_m + b.x_max_m) / 2, y_m: (b.y_min_m + b.y_max_m) / 2 }, scale),
          classes: "bounds",
        });
      }
      pts.forEach((pt, i) => {
        els.push({
          group: "nodes",
          data: { id: `wp:${n.id}:${i}`, owner: n.id },
          position: toGraph(pt, scale),
          classes: "waypoint",
        });
        if (i > 0) {
          els.push({
            group: "edges",
            data: { id: `path:${n.id}:${i}`, owner: n.id, source: `wp:${n.id}:${i - 1}`, target: `wp:${n.id}:${i}` },
            classes: i === pts.length - 1 ? "mobility last" : "mobility",
          });
        }
      });
    }
  }

  for (const n of doc.nodes) {
    els.push({
      group: "nodes",
      data: {
        id: n.id,
        // satellites show their orbit: "relay · GEO"
        label: n.kind === "satellite" ? `${n.label || n.id} · ${(n.orbit ?? "geo").toUpperCase()}` : n.label || n.id,
        kind: n.kind,
        tooltip: `${kindName(n.kind)} ${n.id}`,
      },
      // unplaced nodes get no position here: the layout places them and later syncs leave them there
      position: unplaced.has(n.id) ? undefined : toGraph(pos(n), scale),
      classes: `${n.kind === "satellite" ? `node kind-satellite orbit-${n.orbit ?? "geo"}` : `node kind-${n.kind}`}${n.icon ? ` icon-${n.icon}` : ""}${unplaced.has(n.id) ? " unplaced" : ""}`,
    });
  }

  for (const l of doc.links ?? []) {
    if (!ids.has(l.src) || !ids.has(l.dst)) continue;
    els.push({
      group: "edges",
      data: {
        id: `link:${l.id}`,
        source: l.src,
        target: l.dst,
        label: `${short(l.bandwidth_mbps)} Mb/s · ${short(l.delay_ms ?? 0)} ms`,
      },
      classes: "link",
    });
  }
  return { elements: els, scale };
}

/** Inverse of {@link toGraph}: graph coordinates → metres (rounded to 0.1 m). */
export function fromGraph(p: { x: number; y: number }, scale: number): { x_m: number; y_m: number } {
  const r = (v: number) => Math.round(v * 10) / 10 + 0;
  return { x_m: r(p.x / scale), y_m: r(-p.y / scale) };
}

/** A node as a planner names it: "Label (id)" when it has a label other than its id, else its id. */
export function nodeText(doc: ScenarioDocument, id: string): string {
  const n = doc.nodes.find((x) => x.id === id);
  return n?.label && n.label !== id ? `${n.label} (${id})` : id;
}

/**
 * Names in natural order ("n2" before "n10"). One collator for every comparison: `localeCompare` with
 * options builds a collator per call, which sorting Kdl's 754 nodes took ~0.7 s of the editor's open
 * on a loaded 2-core machine (bench "Kdl (754 nodes): editor open", CPU profile).
 */
export const byName = new Intl.Collator(undefined, { numeric: true });

/**
 * The nodes as a planner names them, sorted by that name: "Label (id)" when a node has a label
 * other than its id, else its id (flow endpoints, node search).
 */
export function nodeChoices(doc: ScenarioDocument): { id: string; text: string }[] {
  return doc.nodes
    .map((n) => ({ id: n.id, text: n.label && n.label !== n.id ? `${n.label} (${n.id})` : n.id }))
    .sort((a, b) => byName.compare(a.text, b.text) || (a.id < b.id ? -1 : 1));
}
