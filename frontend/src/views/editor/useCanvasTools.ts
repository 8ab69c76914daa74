import { useCallback, useEffect, useRef, useState } from "react";
import type { NodeKind, Position, ScenarioDocument } from "../../api/types";
import { EMPTY_SELECTION, type Selection, type Tool } from "../../components/TopologyGraph";
import { addLink, addNode, appendWaypoint, boundsFromCorners, deleteElements, moveNodes, moveWaypoint, updateNode } from "../../lib/editor";

/** Node kinds that may have a mobility model: every kind but satellites, which follow their orbits (`satcom`). */
export function canMove(kind: NodeKind | undefined): boolean {
  return !!kind && kind !== "satellite";
}

type Change = (next: ScenarioDocument, coalesce?: string) => void;

/**
 * The editing tool and what each tool does to the document.
 *
 * Owns:
 * 1. the active tool (select, add a kind of node, draw links, waypoints, bounds) and the waypoint drawing speed;
 * 2. the canvas callbacks, stable across renders, that turn a click, drag or rectangle into an edit of the latest document;
 * 3. deleting the selection;
 * 4. falling back to Select when the selection no longer fits a drawing tool.
 */
export function useCanvasTools(doc: ScenarioDocument, selection: Selection, setSelection: (sel: Selection) => void, change: Change) {
  const [tool, setTool] = useState<Tool>({ name: "select" });
  const [waypointSpeed, setWaypointSpeed] = useState(10);

  // the callbacks read the latest document, selection and speed through refs
  const docRef = useRef(doc);
  docRef.current = doc;
  const selectionRef = useRef(selection);
  selectionRef.current = selection;
  const speedRef = useRef(waypointSpeed);
  speedRef.current = waypointSpeed;
  const stationId = selection.nodes.length === 1 ? selection.nodes[0]! : null;
  const stationRef = useRef(stationId);
  stationRef.current = stationId;

  const onAddNode = useCallback(
    (kind: NodeKind, at: Position) => {
      const { doc: next, id: nid } = addNode(docRef.current, kind, at);
      change(next);
      setSelection({ nodes: [nid], links: [] });
      // the tool stays active: place several nodes in a row (Esc returns to Select)
    },
    [change, setSelection],
  );
  const onMoveNodes = useCallback((moves: Record<string, Position>) => change(moveNodes(docRef.current, moves)), [change]);
  const onMoveWaypoint = useCallback((node: string, index: number, at: Position) => change(moveWaypoint(docRef.current, node, index, at)), [change]);
  const onAddLink = useCallback(
    (a: string, b: string) => {
      const r = addLink(docRef.current, a, b);
      if (!r) return;
      change(r.doc);
      setSelection({ nodes: [], links: [r.id] });
    },
    [change, setSelection],
  );
  const onPoint = useCallback(
    (at: Position) => {
      const d = docRef.current;
      const st = d.nodes.find((n) => n.id === stationRef.current);
      if (!st || !canMove(st.kind)) return;
      const prev = st.mobility?.model === "waypoints" ? st.mobility.points : [];
      const points = appendWaypoint(prev, at, speedRef.current);
      let next = updateNode(d, st.id, { mobility: { model: "waypoints", points } });
      // the station starts where its path starts
      if (points.length === 1) next = updateNode(next, st.id, { position: { x_m: at.x_m, y_m: at.y_m }, mobility: { model: "waypoints", points } });
      change(next, `${st.id}.draw`);
    },
    [change],
  );
  const onRectangle = useCallback(
    (a: Position, b: Position) => {
      const d = docRef.current;
      const st = d.nodes.find((n) => n.id === stationRef.current);
      if (!st || !canMove(st.kind) || !st.mobility || !("bounds" in st.mobility)) return;
      change(updateNode(d, st.id, { mobility: { ...st.mobility, bounds: boundsFromCorners(a, b) } }));
      setTool({ name: "select" });
    },
    [change],
  );
  /** Removes the selected nodes and links; false (nothing done) when nothing is selected. */
  const deleteSelection = useCallback((): boolean => {
    const sel = selectionRef.current;
    if (!sel.nodes.length && !sel.links.length) return false;
    change(deleteElements(docRef.current, sel.nodes, sel.links));
    setSelection(EMPTY_SELECTION);
    return true;
  }, [change, setSelection]);

  // stop drawing when the selection no longer fits the tool
  useEffect(() => {
    if ((tool.name === "waypoints" || tool.name === "bounds") && (!stationId || !canMove(doc.nodes.find((n) => n.id === stationId)?.kind))) setTool({ name: "select" });
  }, [tool, stationId, doc]);

  return {
    tool,
    setTool,
    waypointSpeed,
    setWaypointSpeed,
    deleteSelection,
    canvas: { onAddNode, onMoveNodes, onMoveWaypoint, onAddLink, onPoint, onRectangle },
  };
}
