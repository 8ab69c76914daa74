/**
 * The scenario topology drawn with cytoscape.js, read-only or as the editor's canvas.
 *
 * This component is the single owner of its cytoscape instance: it creates it
 * once on mount, updates elements by id when `doc` (or the overlays) change,
 * and removes every listener, the edge-handles extension and the instance on
 * unmount. Callbacks are read through refs, so listeners are registered once.
 *
 * Editing (when `editable`): the `tool` decides what a tap on the canvas does
 * (add a node of a kind, append a waypoint, draw mobility bounds, draw links by
 * dragging from node to node with cytoscape-edgehandles); nodes are moved by
 * dragging (several at once when selected: ctrl/shift-click or shift-drag a
 * box), and the parent is told of the new positions in metres.
 */
import cytoscape, { type Core, type ElementDefinition, type EventObject, type NodeSingular, type StylesheetJson } from "cytoscape";
import edgehandles from "cytoscape-edgehandles";
import { useEffect, useMemo, useRef, useState } from "react";
import type { NodeKind, Position, ScenarioDocument } from "../api/types";
import { gridSpacing, niceLength } from "../lib/scaleBar";
import { fromGraph, toGraph, topologyElements, type TopoElement } from "../lib/topology";
import { KIND_STYLES, MOBILITY_COLOR, RANGE_COLOR } from "./nodeStyles";

cytoscape.use(edgehandles);

const NODE_SIZE = 24;

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
  nodes: Record<string, string>;
  /** dim everything not highlighted */
  dim?: boolean;
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
        "min-zoomed-font-size": 7,
      },
    },
    ...kindRules,
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
        width: 7,
        height: 7,
        shape: "ellipse",
        "background-color": MOBILITY_COLOR,
        "background-opacity": 0.9,
        events: "no",
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
    { selector: ".dimmed", style: { opacity: 0.3 } },
    // edge handles (link drawing)
    { selector: ".eh-handle", style: { "background-color": "#2563eb", width: 10, height: 10, shape: "ellipse", "overlay-opacity": 0, "border-width": 0 } },
    { selector: ".eh-hover", style: { "background-color": "#2563eb" } },
    { selector: ".eh-source", style: { "border-width": 3, "border-color": "#2563eb" } },
    { selector: ".eh-target", style: { "border-width": 3, "border-color": "#2563eb" } },
    { selector: ".eh-preview, .eh-ghost-edge", style: { "background-color": "#2563eb", "line-color": "#2563eb", "line-style": "dashed", width: 2 } },
    { selector: ".eh-ghost-edge.eh-preview-active", style: { opacity: 0 } },
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
    grabbable: editable && isNode,
  };
}

/** Bring `cy`'s elements of `scope` in line with `next`: add new ids, remove missing ids, update the rest. */
function syncElements(cy: Core, next: TopoElement[], editable: boolean, scope: (id: string) => boolean): void {
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
const isLinkEdge = (el: cytoscape.SingularElementArgument) => el.isEdge() && el.hasClass("link");
const linkIdOf = (edgeId: string) => edgeId.slice("link:".length);

export interface TopologyGraphProps {
  doc: ScenarioDocument;
  /** Accessible name of the drawing. */
  label: string;
  /** Graph units per metre; fixed while editing so the drawing does not jump. Default: fit the scenario. */
  scale?: number;
  editable?: boolean;
  tool?: Tool;
  selection?: Selection;
  ghosts?: Ghosts | null;
  highlight?: Highlight | null;
  /** Show the metre grid and the scale bar. */
  showGrid?: boolean;
  /** Bandwidth/delay labels on links (default: when there are at most 150 links). */
  linkLabels?: boolean;
  className?: string;
  onSelect?: (sel: Selection) => void;
  /** read-only: a node was tapped (null: the background) */
  onSelectNode?: (nodeId: string | null) => void;
  onAddNode?: (kind: NodeKind, at: Position) => void;
  onMoveNodes?: (moves: Record<string, Position>) => void;
  onAddLink?: (src: string, dst: string) => void;
  /** a tap on the canvas in the waypoints tool */
  onPoint?: (at: Position) => void;
  /** a rectangle drawn in the bounds tool (two corners, metres) */
  onRectangle?: (a: Position, b: Position) => void;
}

interface Viewport {
  zoom: number;
  pan: { x: number; y: number };
  w: number;
  h: number;
}

export function TopologyGraph(props: TopologyGraphProps) {
  const { doc, label, editable = false, tool = { name: "select" }, selection, ghosts, highlight, showGrid = editable } = props;
  const containerRef = useRef<HTMLDivElement | null>(null);
  const cyRef = useRef<Core | null>(null);
  const ehRef = useRef<ReturnType<Core["edgehandles"]> | null>(null);
  const propsRef = useRef(props);
  propsRef.current = props;
  const toolRef = useRef<Tool>(tool);
  toolRef.current = tool;
  const fittedRef = useRef(false);
  const [rendered, setRendered] = useState(false);
  const [viewport, setViewport] = useState<Viewport | null>(null);

  const topo = useMemo(() => topologyElements(doc, props.scale), [doc, props.scale]);
  const scale = topo.scale;
  const scaleRef = useRef(scale);
  scaleRef.current = scale;

  // create once, destroy on unmount
  useEffect(() => {
    const container = containerRef.current;
    if (!container) return;
    const cy = cytoscape({
      container,
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
    cyRef.current = cy;
    (window as unknown as { __subflowCy?: Core }).__subflowCy = cy;

    const metres = (p: { x: number; y: number }) => fromGraph(p, scaleRef.current);

    const onTap = (evt: EventObject) => {
      const t = toolRef.current;
      const target = evt.target as Core | cytoscape.SingularElementArgument;
      const p = propsRef.current;
      if (!editable) {
        if (target === cy) p.onSelectNode?.(null);
        else if ((target as NodeSingular).hasClass?.("node")) p.onSelectNode?.((target as NodeSingular).id());
        return;
      }
      if (t.name === "add") p.onAddNode?.(t.kind, metres(evt.position));
      else if (t.name === "waypoints") p.onPoint?.(metres(evt.position));
    };
    cy.on("tap", onTap);

    // selection → parent (coalesced: one report per burst of select/unselect events)
    let selTimer: ReturnType<typeof setTimeout> | undefined;
    const reportSelection = () => {
      if (selTimer !== undefined) return;
      selTimer = setTimeout(() => {
        selTimer = undefined;
        const sel = cy.$(":selected");
        propsRef.current.onSelect?.({
          nodes: sel.filter((el) => el.isNode() && el.hasClass("node")).map((el) => el.id()),
          links: sel.filter((el) => isLinkEdge(el)).map((el) => linkIdOf(el.id())),
        });
      }, 0);
    };
    cy.on("select unselect", reportSelection);

    // drags → parent, once per gesture with every moved node
    const moved = new Set<string>();
    let moveTimer: ReturnType<typeof setTimeout> | undefined;
    const onDragFree = (evt: EventObject) => {
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
        propsRef.current.onMoveNodes?.(moves);
      }, 0);
    };
    cy.on("dragfree", "node.node", onDragFree);
    // range circles follow their access point while it is dragged
    const onDrag = (evt: EventObject) => {
      const n = evt.target as NodeSingular;
      const r = cy.getElementById(`range:${n.id()}`);
      if (r.nonempty()) r.position(n.position());
    };
    cy.on("drag", "node.kind-access_point", onDrag);

    // rectangle drawing (bounds tool)
    let rectStart: { x: number; y: number } | null = null;
    const onTapStart = (evt: EventObject) => {
      if (toolRef.current.name !== "bounds") return;
      rectStart = { ...evt.position };
    };
    const onTapDrag = (evt: EventObject) => {
      if (!rectStart || toolRef.current.name !== "bounds") return;
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
    };
    const onTapEnd = (evt: EventObject) => {
      if (!rectStart) return;
      const a = rectStart;
      rectStart = null;
      cy.getElementById("bounds-preview").remove();
      if (toolRef.current.name !== "bounds") return;
      const b = evt.position;
      if (Math.abs(b.x - a.x) < 2 || Math.abs(b.y - a.y) < 2) return;
      propsRef.current.onRectangle?.(metres(a), metres(b));
    };
    cy.on("tapstart", onTapStart);
    cy.on("tapdrag", onTapDrag);
    cy.on("tapend", onTapEnd);

    // links by dragging from node to node
    let onComplete: ((evt: EventObject, ...args: unknown[]) => void) | null = null;
    if (editable) {
      ehRef.current = cy.edgehandles({
        canConnect: (s, t) => s.hasClass("node") && t.hasClass("node") && s.id() !== t.id(),
        edgeParams: () => ({ group: "edges", data: {}, classes: "eh-new" }),
        hoverDelay: 50,
        snap: true,
        snapThreshold: 30,
        noEdgeEventsInDraw: true,
        disableBrowserGestures: true,
      });
      onComplete = (_evt, source, target, added) => {
        (added as cytoscape.Collection).remove();
        propsRef.current.onAddLink?.((source as NodeSingular).id(), (target as NodeSingular).id());
      };
      cy.on("ehcomplete", onComplete as unknown as cytoscape.EventHandler);
    }

    // viewport → grid and scale bar (once per frame)
    let frame = 0;
    const onViewport = () => {
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        setViewport({ zoom: cy.zoom(), pan: { ...cy.pan() }, w: cy.width(), h: cy.height() });
      });
    };
    cy.on("viewport resize", onViewport);
    const onRender = () => setRendered(true);
    cy.one("render", onRender);
    const resize = new ResizeObserver(() => cy.resize());
    resize.observe(container);
    return () => {
      resize.disconnect();
      if (frame) cancelAnimationFrame(frame);
      if (selTimer !== undefined) clearTimeout(selTimer);
      if (moveTimer !== undefined) clearTimeout(moveTimer);
      cy.removeListener("tap", onTap);
      cy.removeListener("select unselect", reportSelection);
      cy.removeListener("dragfree", "node.node", onDragFree);
      cy.removeListener("drag", "node.kind-access_point", onDrag);
      cy.removeListener("tapstart", onTapStart);
      cy.removeListener("tapdrag", onTapDrag);
      cy.removeListener("tapend", onTapEnd);
      cy.removeListener("viewport resize", onViewport);
      cy.removeListener("render", onRender);
      if (onComplete) cy.removeListener("ehcomplete", onComplete as unknown as cytoscape.EventHandler);
      ehRef.current?.destroy();
      ehRef.current = null;
      cy.removeAllListeners();
      cy.destroy();
      const w = window as unknown as { __subflowCy?: Core };
      if (w.__subflowCy === cy) delete w.__subflowCy;
      cyRef.current = null;
      fittedRef.current = false;
    };
    // the instance is created once; `editable` is fixed for a mounted graph
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // scenario elements by id
  useEffect(() => {
    const cy = cyRef.current;
    if (!cy) return;
    syncElements(cy, topo.elements, editable, (id) => !isOverlayId(id) && id !== "bounds-preview");
    if (!fittedRef.current) {
      if (doc.nodes.length > 0) cy.fit(undefined, 30);
      else {
        cy.zoom(1);
        cy.pan({ x: cy.width() / 2, y: cy.height() / 2 });
      }
      fittedRef.current = true;
      setViewport({ zoom: cy.zoom(), pan: { ...cy.pan() }, w: cy.width(), h: cy.height() });
    }
  }, [topo, editable, doc.nodes.length]);

  // link labels: off by default on large topologies, where they would hide everything
  const linkLabels = props.linkLabels ?? (doc.links ?? []).length <= 150;
  useEffect(() => {
    const cy = cyRef.current;
    if (!cy) return;
    cy.style().selector("edge.link").style("label", linkLabels ? "data(label)" : "").update();
  }, [linkLabels]);

  // tool: link drawing mode, panning and box selection
  useEffect(() => {
    const cy = cyRef.current;
    const eh = ehRef.current;
    if (!cy || !editable) return;
    if (tool.name === "link") eh?.enableDrawMode();
    else eh?.disableDrawMode();
    cy.userPanningEnabled(tool.name !== "bounds");
    // drawing a path or an area must not lose the station it is drawn for
    cy.autounselectify(tool.name === "waypoints" || tool.name === "bounds");
    cy.boxSelectionEnabled(tool.name === "select");
    const c = containerRef.current;
    if (c) c.style.cursor = tool.name === "select" ? "" : "crosshair";
  }, [tool, editable]);

  // selection from the parent (lists, undo) → canvas
  useEffect(() => {
    const cy = cyRef.current;
    if (!cy || !selection) return;
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
  }, [selection, topo]);

  // scrubber overlay
  useEffect(() => {
    const cy = cyRef.current;
    if (!cy) return;
    const els: TopoElement[] = [];
    if (ghosts) {
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
    }
    syncElements(cy, els, false, isOverlayId);
  }, [ghosts, scale, topo]);

  // route / utilisation overlay
  useEffect(() => {
    const cy = cyRef.current;
    if (!cy) return;
    cy.batch(() => {
      cy.elements(".util, .route, .dimmed").removeClass("util route dimmed");
      if (!highlight) return;
      if (highlight.dim) cy.elements(".node, .link").addClass("dimmed");
      for (const [id, h] of Object.entries(highlight.links)) {
        const e = cy.getElementById(`link:${id}`);
        if (e.empty()) continue;
        e.removeClass("dimmed");
        e.data({ color: h.color ?? "#2563eb", width: h.width ?? 4 });
        if (h.label !== undefined) e.data("label", h.label);
        e.addClass(h.classes ?? "route");
      }
      for (const [id, cls] of Object.entries(highlight.nodes)) {
        const n = cy.getElementById(id);
        n.removeClass("dimmed");
        if (cls) n.addClass(cls);
      }
    });
  }, [highlight, topo]);

  const fit = () => cyRef.current?.fit(undefined, 30);

  const pxPerMetre = viewport ? viewport.zoom * scale : 0;
  const bar = niceLength(pxPerMetre, 140);
  const grid = showGrid && viewport ? gridLines(viewport, scale) : null;

  return (
    <div className={`topology${props.className ? ` ${props.className}` : ""}`}>
      {grid ? (
        <svg className="topology-grid" aria-hidden="true">
          {grid.xs.map((x) => (
            <line key={`x${x.v}`} x1={x.px} x2={x.px} y1={0} y2={viewport!.h} className={x.major ? "major" : ""} />
          ))}
          {grid.ys.map((y) => (
            <line key={`y${y.v}`} y1={y.px} y2={y.px} x1={0} x2={viewport!.w} className={y.major ? "major" : ""} />
          ))}
        </svg>
      ) : null}
      <div
        ref={containerRef}
        className="topology-canvas"
        role="img"
        aria-label={label}
        tabIndex={editable ? 0 : undefined}
        data-testid="topology"
        data-rendered={rendered ? "true" : "false"}
        data-element-count={topo.elements.length}
        data-node-count={doc.nodes.length}
        data-link-count={(doc.links ?? []).length}
        data-tool={tool.name}
      />
      {bar.px > 0 ? (
        <div className="scale-bar" aria-label={`Scale: ${bar.label}`} role="note" data-metres={bar.metres}>
          <div className="scale-bar-line" style={{ width: `${bar.px}px` }} />
          <span>{bar.label}</span>
          {grid ? <span className="muted small"> · grid {formatGrid(grid.spacing)}</span> : null}
        </div>
      ) : null}
      <button type="button" className="btn btn-small topology-fit" onClick={fit} title="Fit the drawing to the view">
        Fit
      </button>
    </div>
  );
}

function formatGrid(m: number): string {
  return m >= 1000 ? `${m / 1000} km` : `${m} m`;
}

/** Vertical and horizontal grid lines (pixels) at a 1/2/5 × 10^k metre spacing. */
function gridLines(v: Viewport, scale: number) {
  const ppm = v.zoom * scale;
  const spacing = gridSpacing(ppm, 36);
  if (!spacing) return null;
  const toPxX = (m: number) => m * scale * v.zoom + v.pan.x;
  const toPxY = (m: number) => -m * scale * v.zoom + v.pan.y;
  const xMin = (0 - v.pan.x) / ppm;
  const xMax = (v.w - v.pan.x) / ppm;
  const yMax = v.pan.y / ppm;
  const yMin = (v.pan.y - v.h) / ppm;
  const xs: { v: number; px: number; major: boolean }[] = [];
  const ys: { v: number; px: number; major: boolean }[] = [];
  for (let k = Math.ceil(xMin / spacing); k * spacing <= xMax && xs.length < 400; k++) xs.push({ v: k, px: toPxX(k * spacing), major: k % 5 === 0 });
  for (let k = Math.ceil(yMin / spacing); k * spacing <= yMax && ys.length < 400; k++) ys.push({ v: k, px: toPxY(k * spacing), major: k % 5 === 0 });
  return { spacing, xs, ys };
}
