/**
 * The editor's canvas for a geographic scenario: the {@link GeoMap} with the editor's tools.
 *
 * Select (click a node or link; shift/ctrl-click adds to the selection; drag a node to move it),
 * add a node of a kind (click on the map), draw links (click one node, then another), draw a
 * waypoint track for the selected node (click points), pick a loiter centre for the selected
 * node, place a node that has no latitude/longitude yet, and measure a distance (two clicks).
 * Every change goes through `onChange` (the editor's undo history).
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { GeoCorner, GroundTracks, NodeKind, ScenarioDocument, Waypoint } from "../api/types";
import { addLink, addNode, updateNode } from "../lib/editor";
import { formatDistance, geoPoint, isGeoPoint, loiterAt, placeNodes, unplacedNodes } from "../lib/geo";
import { kindName } from "../lib/topology";
import { distanceMetres, type LatLon } from "./geoLeaflet";
import { GeoMap } from "./GeoMap";
import { MapSettings } from "./MapSettings";
import type { Highlight, Selection, Tool } from "./TopologyGraph";

/** Tools the map adds to the editor's (select, add, link, waypoints). */
export type GeoTool = "loiter" | "place" | "measure" | null;

export interface GeoEditorMapProps {
  doc: ScenarioDocument;
  label: string;
  tool: Tool;
  setTool: (t: Tool) => void;
  selection: Selection;
  /** Centre the map on this node (found by its label). */
  focus?: { nodeId: string } | null;
  onSelect: (s: Selection) => void;
  onChange: (next: ScenarioDocument, coalesce?: string) => void;
  /** Waypoint drawing speed (m/s) for the waypoints tool. */
  waypointSpeed: number;
  positions?: Record<string, LatLon> | null;
  tracks?: Record<string, readonly GeoCorner[]> | null;
  /** Satellites' ground tracks (`POST /api/timeline` `ground_tracks`). */
  groundTracks?: GroundTracks | null;
  /** Each new value (> 0) zooms the map out to the ground tracks. */
  fitGroundTracks?: number;
  /** Route / utilisation overlay of the planning panels. */
  highlight?: Highlight | null;
}

/** Append a geographic waypoint timed at `speed_mps` from the last one (distance from the map library). */
function appendGeoWaypoint(points: readonly Waypoint[], at: LatLon, speed_mps: number): Waypoint[] {
  const p = geoPoint(at.lat_deg, at.lon_deg);
  const last = points[points.length - 1];
  if (!last || !isGeoPoint(last)) return [{ t_s: 0, ...p }];
  const dt = distanceMetres(last, p) / speed_mps;
  const t = Math.max(Math.round((last.t_s + dt) * 1000) / 1000, last.t_s + 0.001);
  return [...points, { t_s: Number(t.toFixed(3)), ...p }];
}

export function GeoEditorMap(props: GeoEditorMapProps) {
  const { doc, tool, selection } = props;
  const [geoTool, setGeoTool] = useState<GeoTool>(null);
  const [linkFrom, setLinkFrom] = useState<string | null>(null);
  const [measure, setMeasure] = useState<{ a: LatLon | null; b: LatLon | null }>({ a: null, b: null });
  const ref = useRef(props);
  ref.current = props;
  const geoToolRef = useRef(geoTool);
  geoToolRef.current = geoTool;
  const linkFromRef = useRef(linkFrom);
  linkFromRef.current = linkFrom;

  // an editor tool ends a map tool and the other way round
  useEffect(() => {
    if (tool.name !== "select") setGeoTool(null);
    if (tool.name !== "link") setLinkFrom(null);
  }, [tool]);
  // Escape ends a map tool as it ends the editor's
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      setGeoTool(null);
      setLinkFrom(null);
      setMeasure({ a: null, b: null });
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  const pickGeoTool = (t: GeoTool) => {
    setGeoTool((cur) => (cur === t ? null : t));
    props.setTool({ name: "select" });
    if (t !== "measure") setMeasure({ a: null, b: null });
  };

  const single = selection.nodes.length === 1 ? doc.nodes.find((n) => n.id === selection.nodes[0]) ?? null : null;
  const unplaced = useMemo(() => unplacedNodes(doc), [doc]);

  const onMapClick = useCallback((at: LatLon) => {
    const p = ref.current;
    const d = p.doc;
    const gt = geoToolRef.current;
    const sel = p.selection.nodes.length === 1 ? p.selection.nodes[0]! : null;
    if (gt === "measure") {
      setMeasure((m) => (m.a && !m.b ? { a: m.a, b: at } : { a: at, b: null }));
      return;
    }
    if (gt === "loiter" && sel) {
      const n = d.nodes.find((x) => x.id === sel);
      if (!n) return;
      p.onChange(updateNode(d, sel, { mobility: loiterAt(at, n.mobility) }));
      setGeoTool(null);
      return;
    }
    if (gt === "place" && sel) {
      p.onChange(placeNodes(d, { [sel]: at }));
      // next unplaced node, so that a converted scenario is placed click after click
      const next = unplacedNodes(d).find((n) => n.id !== sel);
      if (next) p.onSelect({ nodes: [next.id], links: [] });
      else setGeoTool(null);
      return;
    }
    if (p.tool.name === "add") {
      const kind: NodeKind = p.tool.kind;
      const r = addNode(d, kind, { x_m: 0, y_m: 0 });
      p.onChange(placeNodes(r.doc, { [r.id]: at }));
      p.onSelect({ nodes: [r.id], links: [] });
      // the tool stays active: several nodes in a row (Esc returns to Select)
      return;
    }
    if (p.tool.name === "waypoints" && sel) {
      const n = d.nodes.find((x) => x.id === sel);
      if (!n) return;
      const prev = n.mobility?.model === "waypoints" ? n.mobility.points : [];
      const points = appendGeoWaypoint(prev, at, p.waypointSpeed);
      let next = updateNode(d, sel, { mobility: { model: "waypoints", points } });
      // the node starts where its path starts
      if (points.length === 1) next = placeNodes(next, { [sel]: at });
      p.onChange(next, `${sel}.draw`);
      return;
    }
    if (p.tool.name === "select") p.onSelect({ nodes: [], links: [] });
  }, []);

  const onNodeClick = useCallback((id: string, additive: boolean) => {
    const p = ref.current;
    if (p.tool.name === "link") {
      const from = linkFromRef.current;
      if (!from || from === id) {
        setLinkFrom(id);
        p.onSelect({ nodes: [id], links: [] });
        return;
      }
      const r = addLink(p.doc, from, id);
      setLinkFrom(null);
      if (r) {
        p.onChange(r.doc);
        p.onSelect({ nodes: [], links: [r.id] });
      }
      return;
    }
    const cur = p.selection.nodes;
    if (additive) p.onSelect({ nodes: cur.includes(id) ? cur.filter((x) => x !== id) : [...cur, id], links: p.selection.links });
    else p.onSelect({ nodes: [id], links: [] });
  }, []);

  const onLinkClick = useCallback((id: string) => ref.current.onSelect({ nodes: [], links: [id] }), []);
  const onNodeDrag = useCallback((id: string, at: LatLon) => {
    const p = ref.current;
    p.onChange(placeNodes(p.doc, { [id]: at }));
  }, []);

  // distance readout: the selected link, or two selected nodes
  const readout = useMemo(() => {
    const at = (id: string) => {
      const n = doc.nodes.find((x) => x.id === id);
      return n && isGeoPoint(n.position) ? n.position : null;
    };
    let pair: [string, string] | null = null;
    if (selection.links.length === 1 && !selection.nodes.length) {
      const l = (doc.links ?? []).find((x) => x.id === selection.links[0]);
      if (l) pair = [l.src, l.dst];
    } else if (selection.nodes.length === 2 && !selection.links.length) pair = [selection.nodes[0]!, selection.nodes[1]!];
    if (!pair) return null;
    const a = at(pair[0]);
    const b = at(pair[1]);
    return a && b ? { text: `${pair[0]} ↔ ${pair[1]}: ${formatDistance(distanceMetres(a, b))}`, metres: distanceMetres(a, b) } : null;
  }, [doc, selection]);
  const measured = measure.a && measure.b ? distanceMetres(measure.a, measure.b) : null;

  const hint =
    geoTool === "measure"
      ? "Click two points on the map to measure the distance between them."
      : geoTool === "loiter"
        ? single
          ? `Click the centre of ${single.id}'s loiter pattern on the map; set radius, speed and pattern in the side panel.`
          : "Select one node first (a UAV relay), then click the loiter centre."
        : geoTool === "place"
          ? single
            ? `Click on the map where ${single.id} is.`
            : "Select a node to place from the list."
          : tool.name === "link"
            ? linkFrom
              ? `Click the node to join to ${linkFrom}.`
              : "Click a node, then another, to join them with a wired link."
            : tool.name === "add"
              ? `Click on the map to place a ${kindName(tool.kind).toLowerCase()}; click again for more, Esc to stop.`
              : tool.name === "waypoints"
                ? "Click points on the map in the order the node visits them."
                : null;

  return (
    <>
      <div className="toolbar" role="toolbar" aria-label="Map tools">
        <button type="button" className={`btn btn-tool${geoTool === "loiter" ? " active" : ""}`} aria-pressed={geoTool === "loiter"} disabled={!single} onClick={() => pickGeoTool("loiter")} title="Pick the loiter centre of the selected node on the map">
          Draw loiter
        </button>
        <button type="button" className={`btn btn-tool${geoTool === "measure" ? " active" : ""}`} aria-pressed={geoTool === "measure"} onClick={() => pickGeoTool("measure")} title="Measure a distance">
          Measure
        </button>
        {unplaced.length ? (
          <button type="button" className={`btn btn-tool${geoTool === "place" ? " active" : ""}`} aria-pressed={geoTool === "place"} onClick={() => {
            pickGeoTool("place");
            if (!single || isGeoPoint(single.position)) props.onSelect({ nodes: [unplaced[0]!.id], links: [] });
          }}>
            Place nodes ({unplaced.length} not on the map)
          </button>
        ) : null}
      </div>
      {hint ? (
        <p className="muted small tool-hint" aria-live="polite">
          {hint}
        </p>
      ) : null}
      <GeoMap
        doc={doc}
        label={props.label}
        editable
        draggable={tool.name === "select" && geoTool === null}
        selection={selection}
        positions={props.positions}
        tracks={props.tracks}
        groundTracks={props.groundTracks}
        fitGroundTracks={props.fitGroundTracks}
        measure={measure}
        focus={props.focus}
        highlight={props.highlight}
        onMapClick={onMapClick}
        onNodeClick={onNodeClick}
        onLinkClick={onLinkClick}
        onNodeDrag={onNodeDrag}
      />
      <p className="muted small geo-readout" aria-live="polite" data-testid="geo-distance" data-metres={measured ?? readout?.metres ?? ""}>
        {measured !== null ? `Measured: ${formatDistance(measured)}` : readout ? readout.text : "Select a link or two nodes to read their distance."}
      </p>
      <MapSettings />
    </>
  );
}
