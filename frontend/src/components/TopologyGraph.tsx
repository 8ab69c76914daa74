/**
 * The scenario topology drawn with cytoscape.js, read-only or as the editor's canvas.
 *
 * The cytoscape instance has one owner, {@link TopologyCy} (`topologyCy.ts`): this component
 * creates it once on mount (the `useTopologyCy` hook), forwards each prop to it in its own effect
 * (scenario elements by id, link labels, tool, selection, scrubber and route overlays) and destroys
 * it on unmount, which removes every listener, the edge-handles extension and the instance.
 * Callbacks are read through refs, so listeners are registered once.
 *
 * Editing (when `editable`): the `tool` decides what a tap on the canvas does
 * (add a node of a kind, append a waypoint, draw mobility bounds, draw links by
 * dragging from node to node with cytoscape-edgehandles); nodes are moved by
 * dragging (several at once when selected: ctrl/shift-click or shift-drag a
 * box), and the parent is told of the new positions in metres.
 */
import { useEffect, useMemo, useRef, useState, type RefObject } from "react";
import type { ScenarioDocument } from "../api/types";
import { gridSpacing, niceLength } from "../lib/scaleBar";
import { topologyElements } from "../lib/topology";
import { isGeoScenario, planarView } from "../lib/geo";
import { mercatorMetres } from "./geoProject";
import { TopologyCy, type Ghosts, type Highlight, type Selection, type Tool, type TopologyCallbacks, type Viewport } from "./topologyCy";

export { EMPTY_SELECTION, type Ghosts, type Highlight, type Selection, type Tool } from "./topologyCy";

export interface TopologyGraphProps extends TopologyCallbacks {
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
}

/**
 * Create the owner of the cytoscape instance once, in `containerRef`'s element, and destroy it on
 * unmount. `editable` is fixed for a mounted graph; props, tool and scale are read through refs.
 */
function useTopologyCy(
  containerRef: RefObject<HTMLDivElement | null>,
  editable: boolean,
  propsRef: RefObject<TopologyGraphProps>,
  toolRef: RefObject<Tool>,
  scaleRef: RefObject<number>,
  setViewport: (v: Viewport) => void,
  setRendered: (r: boolean) => void,
): RefObject<TopologyCy | null> {
  const ownerRef = useRef<TopologyCy | null>(null);
  useEffect(() => {
    const container = containerRef.current;
    if (!container) return;
    const owner = new TopologyCy({
      container,
      editable,
      callbacks: () => propsRef.current,
      tool: () => toolRef.current,
      scale: () => scaleRef.current,
      onViewport: setViewport,
      onRendered: () => setRendered(true),
    });
    ownerRef.current = owner;
    return () => {
      owner.destroy();
      ownerRef.current = null;
    };
    // the instance is created once; `editable` is fixed for a mounted graph
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return ownerRef;
}

export function TopologyGraph(props: TopologyGraphProps) {
  const { doc, label, editable = false, tool = { name: "select" }, selection, ghosts, highlight, showGrid = editable } = props;
  const containerRef = useRef<HTMLDivElement | null>(null);
  const propsRef = useRef(props);
  propsRef.current = props;
  const toolRef = useRef<Tool>(tool);
  toolRef.current = tool;
  const [rendered, setRendered] = useState(false);
  const [viewport, setViewport] = useState<Viewport | null>(null);

  // a geographic scenario is drawn in Web Mercator metres here (the map shows it on the Earth)
  const topo = useMemo(() => topologyElements(isGeoScenario(doc) ? planarView(doc, mercatorMetres) : doc, props.scale), [doc, props.scale]);
  const scale = topo.scale;
  const scaleRef = useRef(scale);
  scaleRef.current = scale;

  const ownerRef = useTopologyCy(containerRef, editable, propsRef, toolRef, scaleRef, setViewport, setRendered);

  // scenario elements by id
  useEffect(() => {
    ownerRef.current?.syncScenario(topo.elements, doc.nodes.length);
  }, [ownerRef, topo, editable, doc.nodes.length]);

  // link labels: off by default on large topologies, where they would hide everything
  const linkLabels = props.linkLabels ?? (doc.links ?? []).length <= 150;
  useEffect(() => {
    ownerRef.current?.setLinkLabels(linkLabels);
  }, [ownerRef, linkLabels]);

  // tool: link drawing mode, panning and box selection
  useEffect(() => {
    const owner = ownerRef.current;
    if (!owner || !editable) return;
    const crosshair = owner.setTool(tool);
    const c = containerRef.current;
    if (c) c.style.cursor = crosshair ? "crosshair" : "";
  }, [ownerRef, tool, editable]);

  // selection from the parent (lists, undo) → canvas
  useEffect(() => {
    if (selection) ownerRef.current?.setSelection(selection);
  }, [ownerRef, selection, topo]);

  // scrubber overlay
  useEffect(() => {
    ownerRef.current?.setGhosts(ghosts, scale);
  }, [ownerRef, ghosts, scale, topo]);

  // route / utilisation overlay
  useEffect(() => {
    ownerRef.current?.setHighlight(highlight);
  }, [ownerRef, highlight, topo]);

  const fit = () => ownerRef.current?.fit();

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
