/**
 * The cytoscape owner of one topology drawing (Kibana service-map style: one owner per instance).
 *
 * {@link TopologyCy} creates the cytoscape instance once, keeps its elements in line with the
 * scenario by id ({@link syncElements}), applies the tool, the selection and the overlays, and on
 * {@link TopologyCy.destroy} removes every listener it registered, the edge-handles extension and
 * the instance. React code ({@link TopologyGraph}) only forwards props to it; callbacks, the tool
 * and the scale are read through getters at event time, so listeners are registered once.
 *
 * Without a container the instance is headless (unit tests): no renderer, no resize observer and no
 * edge-handles extension (which needs the DOM); every listener is still registered.
 */
import cytoscape, { type Core, type ElementDefinition, type EventObject, type NodeSingular, type StylesheetJson } from "cytoscape";
import edgehandles from "cytoscape-edgehandles";
import fcose from "cytoscape-fcose";
import type { NodeKind, Position } from "../api/types";
import { declutter, fromGraph, labelPriority, toGraph, type LabelBox, type TopoElement } from "../lib/topology";
import { KIND_STYLES, MOBILITY_COLOR, RANGE_COLOR } from "./nodeStyles";
import { iconStyles } from "./nodeIcons";

cytoscape.use(edgehandles);
cytoscape.use(fcose);

const NODE_SIZE = 24;
/** Link label size on screen (routes, utilisation, bandwidths), pixels, at every zoom (up to DECLUTTER_ABOVE nodes). */
const EDGE_LABEL_PX = 11;
/** Node label size on screen, pixels, at every zoom (the style is divided by the zoom). */
export const LABEL_PX = 12;
/** Up to this many nodes every label is shown; above, labels are decluttered by zoom and priority. */
const DECLUTTER_ABOVE = 30;

export type Tool =
  | { name: "select" }
  | { name: "add"; kind: NodeKind }
  | { name: "link" }
  | { name: "waypoints" }
  | { name: "bounds" };

export interface Selection {
  nodes: string[];
  links: string[];
}

export const EMPTY_SELECTION: Selection = { nodes: [], links: [] };

/** Time-scrubber overlay: where stations are at t and which access point they use. */
export interface Ghosts {
  positions: Record<string, Position>;
  associations: { station: string; access_point: string; state: "associating" | "associated" }[];
}

/** Route / utilisation overlay: classes and colours per link id and node id. */
export interface Highlight {
  links: Record<string, { color?: string; width?: number; label?: string; classes?: string }>;
  /** wireless hops to draw (no wired link joins a station and its access point): a dashed edge each */
  air?: { station: string; access_point: string; color: string; label: string }[];
  nodes: Record<string, string>;
  /** dim everything not highlighted */
  dim?: boolean;
}

/** What the canvas shows: zoom, pan (pixels) and size (pixels) of the view. */
export interface Viewport {
  zoom: number;
  pan: { x: number; y: number };
  w: number;
  h: number;
}

/** The parent's callbacks (positions in metres, link ids without the `link:` prefix). */
export interface TopologyCallbacks {
  onSelect?: (sel: Selection) => void;
  /** read-only: a node was tapped (null: the background) */
  onSelectNode?: (nodeId: string | null) => void;
  onAddNode?: (kind: NodeKind, at: Position) => void;
  onMoveNodes?: (moves: Record<string, Position>) => void;
  /** a path corner dragged to `at` (a linear path's start 0 / end 1, or waypoint i) */
  onMoveWaypoint?: (node: string, index: number, at: Position) => void;
  onAddLink?: (src: string, dst: string) => void;
  /** a tap on the canvas in the waypoints tool */
  onPoint?: (at: Position) => void;
  /** a rectangle drawn in the bounds tool (two corners, metres) */
  onRectangle?: (a: Position, b: Position) => void;
}

export interface TopologyCyOptions {
  /** Where to draw; null or absent: a headless instance. */
  container?: HTMLElement | null;
  /** Editor canvas (nodes grabbable, tools) or read-only drawing; fixed for the instance's life. */
  editable: boolean;
  /** The current callbacks, read at event time. */
  callbacks: () => TopologyCallbacks;
  /** The current tool, read at event time. */
  tool: () => Tool;
  /** The current scale (graph units per metre), read at event time. */
  scale: () => number;
  /** The view changed (at most once per animation frame). */
  onViewport?: (v: Viewport) => void;
  /** The first frame was drawn. */
  onRendered?: () => void;
}

function stylesheet(): StylesheetJson {
  const kindRules = Object.entries(KIND_STYLES).map(([kind, s]) => ({
    selector: `node.kind-${kind}`,
    style: { shape: s.shape, "background-color": s.color },
  }));
  return [
    {
      selector: "node.node",
      style: {
        width: NODE_SIZE,
        height: NODE_SIZE,
        label: "data(label)",
        "font-size": 12,
        "font-family": "Inter, system-ui, sans-serif",
        color: "#1e293b",
        "text-valign": "bottom",
        "text-margin-y": 4,
        "text-background-color": "#ffffff",
        "text-background-opacity": 0.8,
        "text-background-padding": "2px",
        "border-width": 2,
        "border-color": "#ffffff",
        "z-index": 30,
      },
    },
    ...kindRules,
    { selector: "node.node.label-hidden", style: { label: "" } },
    { selector: "node.node.label-hidden:selected", style: { label: "data(label)" } },
    // orbit: GEO large, MEO medium, LEO small star
    { selector: "node.orbit-geo", style: { width: 30, height: 30 } },
    { selector: "node.orbit-meo", style: { width: 24, height: 24 } },
    { selector: "node.orbit-leo", style: { width: 18, height: 18, "background-color": "#06b6d4" } },
    {
      selector: "node.range",
      style: {
        shape: "ellipse",
        width: "data(w)",
        height: "data(h)",
        "background-color": RANGE_COLOR,
        "background-opacity": 0.12,
        "border-width": 1,
        "border-style": "dashed",
        "border-color": RANGE_COLOR,
        "border-opacity": 0.7,
        events: "no",
        "z-index": 0,
      },
    },
    {
      selector: "node.bounds, node.bounds-preview",
      style: {
        shape: "rectangle",
        width: "data(w)",
        height: "data(h)",
        "background-opacity": 0,
        "border-width": 1.5,
        "border-style": "dashed",
        "border-color": MOBILITY_COLOR,
        events: "no",
        "z-index": 1,
      },
    },
    { selector: "node.bounds-preview", style: { "background-color": MOBILITY_COLOR, "background-opacity": 0.08 } },
    {
      selector: "node.waypoint",
      style: {
        width: 9,
        height: 9,
        shape: "ellipse",
        "background-color": MOBILITY_COLOR,
        "background-opacity": 0.9,
        "z-index": 2,
      },
    },
    {
      selector: "edge.mobility",
      style: {
        width: 2,
        "line-color": MOBILITY_COLOR,
        "line-style": "dashed",
        "line-dash-pattern": [6, 4],
        "curve-style": "straight",
        opacity: 0.8,
        events: "no",
        "z-index": 3,
      },
    },
    {
      selector: "edge.mobility.last",
      style: { "target-arrow-shape": "triangle", "target-arrow-color": MOBILITY_COLOR, "arrow-scale": 0.9 },
    },
    {
      selector: "edge.link",
      style: {
        width: 2.5,
        "line-color": "#64748b",
        "curve-style": "straight",
        label: "data(label)",
        "font-size": 10,
        color: "#475569",
        "text-rotation": "autorotate",
        "text-background-color": "#ffffff",
        "text-background-opacity": 0.85,
        "text-background-padding": "1px",
        "min-zoomed-font-size": 8,
        "z-index": 10,
      },
    },
    { selector: "edge.link:selected", style: { "line-color": "#2563eb", width: 4.5 } },
    { selector: "node.node:selected", style: { "border-color": "#0f172a", "border-width": 3.5 } },
    {
      selector: "node.ghost",
      style: {
        width: 16,
        height: 16,
        shape: "ellipse",
        "background-color": "#16a34a",
        "background-opacity": 0.55,
        "border-width": 2,
        "border-color": "#14532d",
        label: "data(label)",
        "font-size": 10,
        "text-valign": "top",
        "text-margin-y": -3,
        events: "no",
        "z-index": 40,
      },
    },
    {
      selector: "edge.air",
      style: {
        width: 4,
        "line-color": "data(color)",
        "line-style": "dashed",
        "curve-style": "straight",
        label: "data(label)",
        "font-size": 11,
        color: "#0f172a",
        "text-rotation": "autorotate",
        "text-background-color": "#ffffff",
        "text-background-opacity": 0.9,
        events: "no",
        "z-index": 30,
      },
    },
    {
      selector: "edge.assoc",
      style: {
        width: 2,
        "line-color": "#ea580c",
        "line-style": "dashed",
        "curve-style": "straight",
        events: "no",
        "z-index": 35,
      },
    },
    { selector: "edge.assoc.associating", style: { "line-style": "dotted", "line-color": "#f59e0b" } },
    { selector: "edge.util", style: { "line-color": "data(color)", width: "data(width)" } },
    { selector: "edge.route", style: { "line-color": "data(color)", width: "data(width)", "z-index": 20 } },
    { selector: "node.route", style: { "border-color": "#1d4ed8", "border-width": 4 } },
    { selector: "edge.failed", style: { "line-color": "data(color)", width: "data(width)", "line-style": "dashed", "z-index": 21 } },
    { selector: "node.failed", style: { "border-color": "#dc2626", "border-width": 4, "border-style": "dashed" } },
    { selector: ".dimmed", style: { opacity: 0.3 } },
    // edge handles (link drawing)
    { selector: ".eh-handle", style: { "background-color": "#2563eb", width: 10, height: 10, shape: "ellipse", "overlay-opacity": 0, "border-width": 0 } },
    { selector: ".eh-hover", style: { "background-color": "#2563eb" } },
    { selector: "node.link-source", style: { "border-width": 4, "border-color": "#2563eb", "border-style": "double" } },
    { selector: ".eh-source", style: { "border-width": 3, "border-color": "#2563eb" } },
    { selector: ".eh-target", style: { "border-width": 3, "border-color": "#2563eb" } },
    { selector: ".eh-preview, .eh-ghost-edge", style: { "background-color": "#2563eb", "line-color": "#2563eb", "line-style": "dashed", width: 2 } },
    { selector: ".eh-ghost-edge.eh-preview-active", style: { opacity: 0 } },
    ...iconStyles(),
  ] as unknown as StylesheetJson;
}

function toDefinition(e: TopoElement, editable: boolean): ElementDefinition {
  const isNode = e.classes.split(" ").includes("node");
  return {
    group: e.group,
    data: { ...e.data },
    position: e.position ? { ...e.position } : undefined,
    classes: e.classes,
    selectable: isNode || e.classes.includes("link"),
    grabbable: editable && (isNode || e.classes.split(" ").includes("waypoint")),
  };
}

/** Bring `cy`'s elements of `scope` in line with `next`: add new ids, remove missing ids, update the rest. */
export function syncElements(cy: Core, next: TopoElement[], editable: boolean, scope: (id: string) => boolean): void {
  if (cy.elements().filter((el) => scope(el.id())).empty()) {
    // first drawing: one add of everything (nodes first, so that edges find their ends)
    const ordered = [...next].sort((a, b) => (a.group === b.group ? 0 : a.group === "nodes" ? -1 : 1));
    if (ordered.length) cy.add(ordered.map((e) => toDefinition(e, editable)));
    return;
  }
  const wanted = new Map(next.map((e) => [e.data.id, e]));
  cy.batch(() => {
    cy.elements().forEach((el) => {
      const id = el.id();
      if (!scope(id) || el.hasClass("eh-preview") || el.hasClass("eh-ghost") || el.hasClass("eh-handle") || el.hasClass("eh-ghost-edge")) return;
      if (!wanted.has(id)) el.remove();
    });
    const ordered = [...next].sort((a, b) => (a.group === b.group ? 0 : a.group === "nodes" ? -1 : 1));
    for (const e of ordered) {
      const el = cy.getElementById(e.data.id);
      const endpointsChanged =
        el.nonempty() && el.isEdge() && (el.data("source") !== e.data.source || el.data("target") !== e.data.target);
      if (el.empty() || endpointsChanged) {
        if (endpointsChanged) el.remove();
        cy.add(toDefinition(e, editable));
        continue;
      }
      el.data({ ...e.data });
      const selected = el.selected();
      el.classes(e.classes);
      if (selected) el.select();
      if (e.position && el.isNode() && !el.grabbed()) {
        const p = el.position();
        if (p.x !== e.position.x || p.y !== e.position.y) el.position({ ...e.position });
      }
    }
  });
}
const isOverlayId = (id: string) => id.startsWith("ghost:") || id.startsWith("assoc:");
const isAirId = (id: string) => id.startsWith("air:");
const isScenarioId = (id: string) => !isOverlayId(id) && id !== "bounds-preview";
const isLinkEdge = (el: cytoscape.SingularElementArgument) => el.isEdge() && el.hasClass("link");
const linkIdOf = (edgeId: string) => edgeId.slice("link:".length);

/** The test hook (`window.__subflowCy`), compiled in only by the e2e build (`VITE_E2E_HOOKS=1`). */
const E2E_HOOKS = import.meta.env.VITE_E2E_HOOKS === "1";
/** Scratch key of the link tool's pending source node (click-click link drawing). */
const LINK_SOURCE = "_subflowLinkSource";

function clearLinkSource(cy: Core) {
  cy.removeScratch(LINK_SOURCE);
  cy.$("node.link-source").removeClass("link-source");
}
type HookWindow = { __subflowCy?: Core };

type Listener = { events: string; selector?: string; handler: cytoscape.EventHandler };

/**
 * Register the canvas' event handlers on `cy`: taps (tool actions, read-only node selection),
 * selection reports, drags (one report per gesture), range circles following their access point,
 * rectangle drawing (bounds tool), links drawn with edge handles (`ehcomplete`), viewport changes.
 *
 * Returns the function that removes every handler registered here (and clears pending timers).
 */
export function attachHandlers(cy: Core, opts: TopologyCyOptions): () => void {
  const { editable } = opts;
  const listeners: Listener[] = [];
  const on = (events: string, selectorOrHandler: string | cytoscape.EventHandler, maybeHandler?: cytoscape.EventHandler) => {
    if (typeof selectorOrHandler === "string") {
      cy.on(events, selectorOrHandler, maybeHandler!);
      listeners.push({ events, selector: selectorOrHandler, handler: maybeHandler! });
    } else {
      cy.on(events, selectorOrHandler);
      listeners.push({ events, handler: selectorOrHandler });
    }
  };
  const metres = (p: { x: number; y: number }) => fromGraph(p, opts.scale());

  on("tap", (evt: EventObject) => {
    const t = opts.tool();
    const target = evt.target as Core | cytoscape.SingularElementArgument;
    const cb = opts.callbacks();
    if (!editable) {
      if (target === cy) cb.onSelectNode?.(null);
      else if ((target as NodeSingular).hasClass?.("node")) cb.onSelectNode?.((target as NodeSingular).id());
      return;
    }
    // (the add tool stays on: a tap on an existing node selects it instead of stacking a new one on it)
    if (t.name === "add") {
      if (target === cy || !(target as NodeSingular).hasClass?.("node")) cb.onAddNode?.(t.kind, metres(evt.position));
    }
    else if (t.name === "waypoints") cb.onPoint?.(metres(evt.position));
    else if (t.name === "link") clickLink(target);
  });

  // links by click-click: the first tapped node is the source (marked), the second the target;
  // a tap on the background or on the source again cancels
  const clickLink = (target: Core | cytoscape.SingularElementArgument) => {
    const pending = cy.scratch(LINK_SOURCE) as string | undefined;
    const node = target !== cy && (target as NodeSingular).hasClass?.("node") ? (target as NodeSingular) : null;
    if (!node || (pending && node.id() === pending)) {
      clearLinkSource(cy);
      return;
    }
    if (!pending) {
      cy.scratch(LINK_SOURCE, node.id());
      node.addClass("link-source");
      return;
    }
    clearLinkSource(cy);
    opts.callbacks().onAddLink?.(pending, node.id());
  };

  // selection → parent (coalesced: one report per burst of select/unselect events)
  let selTimer: ReturnType<typeof setTimeout> | undefined;
  on("select unselect", () => {
    if (selTimer !== undefined) return;
    selTimer = setTimeout(() => {
      selTimer = undefined;
      const sel = cy.$(":selected");
      opts.callbacks().onSelect?.({
        nodes: sel.filter((el) => el.isNode() && el.hasClass("node")).map((el) => el.id()),
        links: sel.filter((el) => isLinkEdge(el)).map((el) => linkIdOf(el.id())),
      });
    }, 0);
  });

  // drags → parent, once per gesture with every moved node
  const moved = new Set<string>();
  let moveTimer: ReturnType<typeof setTimeout> | undefined;
  on("dragfree", "node.node", (evt: EventObject) => {
    moved.add((evt.target as NodeSingular).id());
    if (moveTimer !== undefined) clearTimeout(moveTimer);
    moveTimer = setTimeout(() => {
      moveTimer = undefined;
      const moves: Record<string, Position> = {};
      for (const id of moved) {
        const n = cy.getElementById(id);
        if (n.nonempty()) moves[id] = metres(n.position());
      }
      moved.clear();
      opts.callbacks().onMoveNodes?.(moves);
    }, 0);
  });
  // a path corner (waypoint, or a linear path's start or end) dragged → parent
  on("dragfree", "node.waypoint", (evt: EventObject) => {
    const n = evt.target as NodeSingular;
    const [, owner, index] = n.id().split(":");
    if (owner !== undefined && index !== undefined) opts.callbacks().onMoveWaypoint?.(owner, Number(index), metres(n.position()));
  });
  // range circles follow their access point while it is dragged
  on("drag", "node.kind-access_point", (evt: EventObject) => {
    const n = evt.target as NodeSingular;
    const r = cy.getElementById(`range:${n.id()}`);
    if (r.nonempty()) r.position(n.position());
  });

  // rectangle drawing (bounds tool)
  let rectStart: { x: number; y: number } | null = null;
  on("tapstart", (evt: EventObject) => {
    if (opts.tool().name !== "bounds") return;
    rectStart = { ...evt.position };
  });
  on("tapdrag", (evt: EventObject) => {
    if (!rectStart || opts.tool().name !== "bounds") return;
    const a = rectStart;
    const b = evt.position;
    const data = { id: "bounds-preview", w: Math.abs(b.x - a.x), h: Math.abs(b.y - a.y) };
    const pos = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
    const el = cy.getElementById("bounds-preview");
    if (el.empty()) cy.add({ group: "nodes", data, position: pos, classes: "bounds-preview", selectable: false, grabbable: false });
    else {
      el.data(data);
      el.position(pos);
    }
  });
  on("tapend", (evt: EventObject) => {
    if (!rectStart) return;
    const a = rectStart;
    rectStart = null;
    cy.getElementById("bounds-preview").remove();
    if (opts.tool().name !== "bounds") return;
    const b = evt.position;
    if (Math.abs(b.x - a.x) < 2 || Math.abs(b.y - a.y) < 2) return;
    opts.callbacks().onRectangle?.(metres(a), metres(b));
  });

  // links by dragging from node to node (edge handles emit `ehcomplete` with the drawn edge)
  if (editable) {
    on("ehcomplete", ((_evt: EventObject, source: NodeSingular, target: NodeSingular, added: cytoscape.Collection) => {
      added.remove();
      opts.callbacks().onAddLink?.(source.id(), target.id());
    }) as unknown as cytoscape.EventHandler);
  }

  // viewport → grid and scale bar (once per frame)
  let frame = 0;
  on("viewport resize", () => {
    if (frame || !opts.onViewport) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      opts.onViewport?.(viewportOf(cy));
    });
  });

  return () => {
    if (frame) cancelAnimationFrame(frame);
    if (selTimer !== undefined) clearTimeout(selTimer);
    if (moveTimer !== undefined) clearTimeout(moveTimer);
    for (const l of listeners) {
      if (l.selector !== undefined) cy.removeListener(l.events, l.selector, l.handler);
      else cy.removeListener(l.events, l.handler);
    }
    listeners.length = 0;
  };
}

/** The view of `cy` (zoom, pan and size in pixels). */
export function viewportOf(cy: Core): Viewport {
  return { zoom: cy.zoom(), pan: { ...cy.pan() }, w: cy.width(), h: cy.height() };
}

/** Scrubber overlay elements: a ghost per station position and an edge per association with a drawn access point. */
export function ghostElements(cy: Core, ghosts: Ghosts | null | undefined, scale: number): TopoElement[] {
  const els: TopoElement[] = [];
  if (!ghosts) return els;
  for (const [id, p] of Object.entries(ghosts.positions)) {
    els.push({ group: "nodes", data: { id: `ghost:${id}`, label: id }, position: toGraph(p, scale), classes: "ghost" });
  }
  for (const a of ghosts.associations) {
    if (!ghosts.positions[a.station] || cy.getElementById(a.access_point).empty()) continue;
    els.push({
      group: "edges",
      data: { id: `assoc:${a.station}:${a.access_point}`, source: `ghost:${a.station}`, target: a.access_point },
      classes: `assoc ${a.state}`,
    });
  }
  return els;
}

/** The single owner of one cytoscape instance of a topology drawing (see the module comment). */
export class TopologyCy {
  readonly cy: Core;
  private readonly opts: TopologyCyOptions;
  private eh: ReturnType<Core["edgehandles"]> | null = null;
  private readonly detach: () => void;
  private readonly resize: ResizeObserver | null = null;
  private fitted = false;
  private onRender: (() => void) | null = null;

  constructor(opts: TopologyCyOptions) {
    this.opts = opts;
    const { container, editable } = opts;
    const cy = cytoscape({
      ...(container ? { container } : { headless: true, styleEnabled: true }),
      elements: [],
      style: stylesheet(),
      layout: { name: "preset" },
      autoungrabify: !editable,
      boxSelectionEnabled: editable,
      selectionType: "single",
      minZoom: 0.01,
      maxZoom: 20,
      textureOnViewport: false,
      hideEdgesOnViewport: false,
      motionBlur: false,
    });
    this.cy = cy;
    if (E2E_HOOKS) (window as unknown as HookWindow).__subflowCy = cy;
    this.detach = attachHandlers(cy, opts);
    if (container) {
      if (editable) {
        this.eh = cy.edgehandles({
          canConnect: (s, t) => s.hasClass("node") && t.hasClass("node") && s.id() !== t.id(),
          edgeParams: () => ({ group: "edges", data: {}, classes: "eh-new" }),
          hoverDelay: 50,
          snap: true,
          snapThreshold: 30,
          noEdgeEventsInDraw: true,
          disableBrowserGestures: true,
        });
      }
      const onRender = () => opts.onRendered?.();
      this.onRender = onRender;
      cy.one("render", onRender);
      this.resize = new ResizeObserver(() => cy.resize());
      this.resize.observe(container);
    }
    // labels keep their screen size at every zoom and are decluttered (once per frame / after a pause)
    const onZoom = () => {
      if (typeof requestAnimationFrame !== "function") return this.sizeLabels(); // headless
      if (this.labelFrame) return;
      this.labelFrame = requestAnimationFrame(() => {
        this.labelFrame = 0;
        this.sizeLabels();
      });
    };
    const onView = () => {
      if (this.declutterTimer !== undefined) clearTimeout(this.declutterTimer);
      this.declutterTimer = setTimeout(() => {
        this.declutterTimer = undefined;
        this.declutterLabels();
      }, 80);
    };
    cy.on("zoom", onZoom);
    cy.on("viewport resize", onView);
    this.detachLabels = () => {
      cy.removeListener("zoom", onZoom);
      cy.removeListener("viewport resize", onView);
      if (this.labelFrame) cancelAnimationFrame(this.labelFrame);
      if (this.declutterTimer !== undefined) clearTimeout(this.declutterTimer);
    };
  }

  private labelFrame = 0;
  private declutterTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly detachLabels: () => void;
  private labelZoom = 0;

  /** Node label font, margin and padding divided by the zoom, so that labels stay {@link LABEL_PX} on screen. */
  sizeLabels(): void {
    const z = this.cy.zoom();
    if (Math.abs(z - this.labelZoom) < 1e-6) return;
    this.labelZoom = z;
    this.cy
      .style()
      .selector("node.node")
      .style({ "font-size": LABEL_PX / z, "text-margin-y": 4 / z, "text-background-padding": `${2 / z}px` })
      // link labels keep their screen size on small topologies; on large ones they appear as one zooms in
      .selector(this.cy.nodes(".node").length <= DECLUTTER_ABOVE ? "edge.link, edge.air" : "edge.air")
      .style({ "font-size": EDGE_LABEL_PX / z, "text-background-padding": `${1 / z}px` })
      .update();
  }

  /**
   * Show the labels that fit without overlapping at the current view, by priority (radio nodes and
   * satellites, then by degree); every label on small topologies; selected nodes always.
   */
  declutterLabels(): void {
    const cy = this.cy;
    const nodes = cy.nodes(".node");
    if (nodes.length <= DECLUTTER_ABOVE) {
      cy.batch(() => nodes.removeClass("label-hidden"));
      return;
    }
    const w = cy.width();
    const h = cy.height();
    const boxes: LabelBox[] = [];
    const z = cy.zoom();
    nodes.forEach((n) => {
      const p = n.renderedPosition();
      if (p.x < -50 || p.y < -50 || p.x > w + 50 || p.y > h + 50) return;
      const label = String(n.data("label") ?? "");
      boxes.push({
        id: n.id(),
        x: p.x,
        // a little wider and taller than the drawn label (text, its background padding), to be safe
        y: p.y + (NODE_SIZE * z) / 2 + 4 + LABEL_PX / 2 + 3,
        w: label.length * LABEL_PX * 0.65 + 10,
        h: LABEL_PX + 10,
        priority: labelPriority(n.data("kind") as NodeKind, n.connectedEdges(".link").length) + (n.selected() ? 1e6 : 0),
      });
    });
    const kept = declutter(boxes);
    cy.batch(() => {
      nodes.forEach((n) => {
        if (kept.has(n.id())) n.removeClass("label-hidden");
        else n.addClass("label-hidden");
      });
    });
  }

  /**
   * Place the nodes the document gives no position (`unplaced`, e.g. an import without
   * coordinates) with the fCoSE force-directed layout, the placed nodes held where they are.
   */
  layoutUnplaced(): void {
    const cy = this.cy;
    const unplaced = cy.nodes(".node.unplaced");
    if (unplaced.empty()) return;
    const placed = cy.nodes(".node").not(".unplaced").nodes();
    const links = cy.edges(".link") as cytoscape.EdgeCollection;
    // ideal link length: the median length of links between placed nodes, else a fifth of the drawing
    const lengths: number[] = [];
    links.forEach((e) => {
      const a = e.source();
      const b = e.target();
      if (!a.hasClass("unplaced") && !b.hasClass("unplaced")) lengths.push(Math.hypot(a.position("x") - b.position("x"), a.position("y") - b.position("y")));
    });
    lengths.sort((a, b) => a - b);
    const ideal = lengths.length ? Math.max(20, lengths[Math.floor(lengths.length / 2)]!) : 80;
    // start every unplaced node next to its placed neighbours (or at the drawing's centre)
    const bb = placed.nonempty() ? placed.boundingBox() : { x1: 0, y1: 0, w: 0, h: 0 };
    unplaced.forEach((n, i) => {
      const nb = n.neighborhood(".node").not(".unplaced").nodes();
      const c = nb.nonempty()
        ? { x: nb.reduce((a, m) => a + m.position("x"), 0) / nb.length, y: nb.reduce((a, m) => a + m.position("y"), 0) / nb.length }
        : { x: bb.x1 + bb.w / 2, y: bb.y1 + bb.h / 2 };
      n.position({ x: c.x + Math.cos(i) * ideal * 0.5, y: c.y + Math.sin(i) * ideal * 0.5 });
    });
    cy.elements(".node, .link")
      .layout({
        name: "fcose",
        quality: "default",
        randomize: placed.empty(),
        animate: false,
        fit: false,
        nodeDimensionsIncludeLabels: false,
        idealEdgeLength: () => ideal,
        nodeRepulsion: () => ideal * ideal * 2,
        fixedNodeConstraint: placed.map((n) => ({ nodeId: n.id(), position: { ...n.position() } })),
      } as cytoscape.LayoutOptions)
      .run();
  }

  /** Bring the scenario's elements in line with `elements` (by id); the first call fits the view. */
  syncScenario(elements: TopoElement[], nodeCount: number): void {
    const cy = this.cy;
    const first = !this.fitted;
    syncElements(cy, elements, this.opts.editable, isScenarioId);
    if (first) this.layoutUnplaced();
    this.sizeLabels();
    this.declutterLabels();
    if (this.fitted) return;
    if (nodeCount > 0) cy.fit(undefined, 30);
    else {
      cy.zoom(1);
      cy.pan({ x: cy.width() / 2, y: cy.height() / 2 });
    }
    this.fitted = true;
    this.opts.onViewport?.(viewportOf(cy));
  }

  /** Bandwidth/delay labels on links on or off. */
  setLinkLabels(on: boolean): void {
    this.cy.style().selector("edge.link").style("label", on ? "data(label)" : "").update();
  }

  /** Editor tool: link drawing mode, panning, box selection; returns whether the canvas wants a crosshair. */
  setTool(tool: Tool): boolean {
    if (!this.opts.editable) return false;
    const cy = this.cy;
    clearLinkSource(cy);
    if (tool.name === "link") this.eh?.enableDrawMode();
    else this.eh?.disableDrawMode();
    cy.userPanningEnabled(tool.name !== "bounds");
    // drawing a path or an area must not lose the station it is drawn for
    cy.autounselectify(tool.name === "waypoints" || tool.name === "bounds");
    cy.boxSelectionEnabled(tool.name === "select");
    return tool.name !== "select";
  }

  /** Selection from the parent (lists, undo) → canvas; nothing changes when it is already shown. */
  setSelection(selection: Selection): void {
    const cy = this.cy;
    const want = new Set([...selection.nodes, ...selection.links.map((l) => `link:${l}`)]);
    const have = cy.$(":selected");
    const same = have.length === want.size && have.filter((el) => !want.has(el.id())).empty();
    if (same) return;
    cy.batch(() => {
      have.forEach((el) => {
        if (!want.has(el.id())) el.unselect();
      });
      for (const id of want) {
        const el = cy.getElementById(id);
        if (el.nonempty() && !el.selected()) el.select();
      }
    });
    // one node chosen elsewhere (search, lists) and out of view: bring it into view
    if (selection.nodes.length === 1 && !selection.links.length && this.opts.container) {
      const n = cy.getElementById(selection.nodes[0]!);
      const p = n.nonempty() ? n.renderedPosition() : null;
      if (p && (p.x < 0 || p.y < 0 || p.x > cy.width() || p.y > cy.height())) cy.center(n);
      this.declutterLabels();
    }
  }

  /** Scrubber overlay: ghosts of the stations at t and their associations (null: none). */
  setGhosts(ghosts: Ghosts | null | undefined, scale: number): void {
    syncElements(this.cy, ghostElements(this.cy, ghosts, scale), false, isOverlayId);
  }

  /** Route / utilisation overlay (null: none). */
  setHighlight(highlight: Highlight | null | undefined): void {
    const cy = this.cy;
    cy.batch(() => {
      // restore the scenario's own labels of links an earlier overlay relabelled
      cy.edges(".util, .route").forEach((e) => {
        const base = e.scratch("_baseLabel") as string | undefined;
        if (base !== undefined) e.data("label", base);
        e.removeScratch("_baseLabel");
      });
      cy.elements(".util, .route, .failed, .dimmed, .shared").removeClass("util route failed dimmed shared");
      cy.edges().filter((e) => isAirId(e.id())).remove();
      if (!highlight) return;
      for (const a of highlight.air ?? []) {
        if (cy.getElementById(a.station).empty() || cy.getElementById(a.access_point).empty()) continue;
        cy.add({ group: "edges", data: { id: `air:${a.station}:${a.access_point}`, source: a.station, target: a.access_point, color: a.color, label: a.label }, classes: "air" });
      }
      if (highlight.dim) cy.elements(".node, .link").addClass("dimmed");
      for (const [id, h] of Object.entries(highlight.links)) {
        const e = cy.getElementById(`link:${id}`);
        if (e.empty()) continue;
        e.removeClass("dimmed");
        e.data({ color: h.color ?? "#2563eb", width: h.width ?? 4 });
        if (h.label !== undefined) {
          if (e.scratch("_baseLabel") === undefined) e.scratch("_baseLabel", e.data("label") ?? "");
          e.data("label", h.label);
        }
        e.addClass(h.classes ?? "route");
      }
      for (const [id, cls] of Object.entries(highlight.nodes)) {
        const n = cy.getElementById(id);
        n.removeClass("dimmed");
        if (cls) n.addClass(cls);
      }
    });
  }

  /** Fit the drawing to the view. */
  fit(): void {
    this.cy.fit(undefined, 30);
  }

  /** Remove every listener, the edge-handles extension, the resize observer and the instance. */
  destroy(): void {
    const cy = this.cy;
    this.resize?.disconnect();
    this.detach();
    this.detachLabels();
    if (this.onRender) cy.removeListener("render", this.onRender);
    this.eh?.destroy();
    this.eh = null;
    cy.destroy();
    if (E2E_HOOKS) {
      const w = window as unknown as HookWindow;
      if (w.__subflowCy === cy) delete w.__subflowCy;
    }
  }
}
