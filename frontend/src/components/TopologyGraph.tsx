/**
 * The scenario topology drawn with cytoscape.js.
 *
 * This component is the single owner of its cytoscape instance: it creates it
 * once on mount, updates elements by id when `doc` changes (add / remove /
 * move / relabel) and removes every listener and destroys it on unmount.
 */
import cytoscape, { type Core, type ElementDefinition, type StylesheetJson } from "cytoscape";
import { useEffect, useMemo, useRef, useState } from "react";
import type { ScenarioDocument } from "../api/types";
import { topologyElements, type TopoElement } from "../lib/topology";
import { KIND_STYLES, MOBILITY_COLOR, RANGE_COLOR } from "./nodeStyles";

const NODE_SIZE = 24;

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
      selector: "node.bounds",
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
    {
      selector: "node.waypoint",
      style: {
        width: 5,
        height: 5,
        shape: "ellipse",
        "background-color": MOBILITY_COLOR,
        "background-opacity": 0.8,
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
      style: {
        "target-arrow-shape": "triangle",
        "target-arrow-color": MOBILITY_COLOR,
        "arrow-scale": 0.9,
      },
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
        "z-index": 10,
      },
    },
    {
      selector: "node.node:selected",
      style: { "border-color": "#0f172a", "border-width": 3 },
    },
  ] as unknown as StylesheetJson;
}

function toDefinition(e: TopoElement): ElementDefinition {
  return {
    group: e.group,
    data: { ...e.data },
    position: e.position ? { ...e.position } : undefined,
    classes: e.classes,
    selectable: e.classes.startsWith("node"),
    grabbable: false,
  };
}

/** Bring `cy` in line with `next`: add new ids, remove missing ids, update the rest in place. */
function syncElements(cy: Core, next: TopoElement[]): void {
  const wanted = new Map(next.map((e) => [e.data.id, e]));
  cy.batch(() => {
    cy.elements().forEach((el) => {
      if (!wanted.has(el.id())) el.remove();
    });
    // nodes before edges so that new edges find their endpoints
    const ordered = [...next].sort((a, b) => (a.group === b.group ? 0 : a.group === "nodes" ? -1 : 1));
    for (const e of ordered) {
      const el = cy.getElementById(e.data.id);
      const endpointsChanged =
        el.nonempty() &&
        el.isEdge() &&
        (el.data("source") !== e.data.source || el.data("target") !== e.data.target);
      if (el.empty() || endpointsChanged) {
        if (endpointsChanged) el.remove();
        cy.add(toDefinition(e));
        continue;
      }
      el.data({ ...e.data });
      el.classes(e.classes);
      if (e.position && el.isNode()) el.position({ ...e.position });
    }
  });
}

export interface TopologyGraphProps {
  doc: ScenarioDocument;
  /** Accessible name of the drawing. */
  label: string;
  onSelectNode?: (nodeId: string | null) => void;
}

export function TopologyGraph({ doc, label, onSelectNode }: TopologyGraphProps) {
  const containerRef = useRef<HTMLDivElement | null>(null);
  const cyRef = useRef<Core | null>(null);
  const onSelectRef = useRef(onSelectNode);
  const fittedRef = useRef(false);
  const [rendered, setRendered] = useState(false);
  const { elements } = useMemo(() => topologyElements(doc), [doc]);

  useEffect(() => {
    onSelectRef.current = onSelectNode;
  }, [onSelectNode]);

  // create once, destroy on unmount
  useEffect(() => {
    const container = containerRef.current;
    if (!container) return;
    const cy = cytoscape({
      container,
      elements: [],
      style: stylesheet(),
      layout: { name: "preset" },
      autoungrabify: true,
      boxSelectionEnabled: false,
      minZoom: 0.05,
      maxZoom: 8,
    });
    cyRef.current = cy;
    const onTap = (evt: cytoscape.EventObject) => {
      const target = evt.target as cytoscape.Core | cytoscape.NodeSingular;
      if (target === cy) onSelectRef.current?.(null);
      else if ((target as cytoscape.NodeSingular).hasClass?.("node"))
        onSelectRef.current?.((target as cytoscape.NodeSingular).id());
    };
    const onRender = () => setRendered(true);
    cy.on("tap", onTap);
    cy.one("render", onRender);
    const resize = new ResizeObserver(() => {
      cy.resize();
    });
    resize.observe(container);
    return () => {
      resize.disconnect();
      cy.removeListener("tap", onTap);
      cy.removeListener("render", onRender);
      cy.removeAllListeners();
      cy.destroy();
      cyRef.current = null;
      fittedRef.current = false;
    };
  }, []);

  // update elements by id
  useEffect(() => {
    const cy = cyRef.current;
    if (!cy) return;
    syncElements(cy, elements);
    if (!fittedRef.current && cy.elements().nonempty()) {
      cy.fit(undefined, 30);
      fittedRef.current = true;
    }
  }, [elements]);

  const fit = () => cyRef.current?.fit(undefined, 30);

  return (
    <div className="topology">
      <div
        ref={containerRef}
        className="topology-canvas"
        role="img"
        aria-label={label}
        data-testid="topology"
        data-rendered={rendered ? "true" : "false"}
        data-element-count={elements.length}
      />
      <button type="button" className="btn btn-small topology-fit" onClick={fit} title="Fit the drawing to the view">
        Fit
      </button>
    </div>
  );
}
