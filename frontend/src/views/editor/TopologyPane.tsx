import type { GroundTracks, ScenarioDocument } from "../../api/types";
import { GeoEditorMap } from "../../components/GeoEditorMap";
import { Legend } from "../../components/Legend";
import { TopologyGraph, type Selection, type Tool } from "../../components/TopologyGraph";
import { kindName } from "../../lib/topology";
import { EditorToolbar, type EditorToolbarProps } from "./EditorToolbar";
import type { CanvasOverlays } from "./useCanvasOverlays";
import type { useCanvasTools } from "./useCanvasTools";

interface TopologyPaneProps extends Omit<EditorToolbarProps, "onFind" | "deleteSelection" | "tool" | "setTool"> {
  title: string;
  scale: number;
  tools: ReturnType<typeof useCanvasTools>;
  overlays: CanvasOverlays;
  onSelect: (sel: Selection) => void;
  onChange: (next: ScenarioDocument, coalesce?: string) => void;
  /** Satellites' ground tracks to draw on the map (`POST /api/timeline` `ground_tracks`). */
  groundTracks?: GroundTracks | null;
  /** Each new value (> 0) zooms the map out to the ground tracks. */
  fitGroundTracks?: number;
}

function toolHint(tool: Tool): string {
  switch (tool.name) {
    case "add":
      return `Click on the canvas to place a ${kindName(tool.kind).toLowerCase()}; click again for more, Esc to stop.`;
    case "link":
      return "Click a node, then another (or drag from one to the other), to join them with a wired link; Esc to stop.";
    case "waypoints":
      return "Click on the canvas to add waypoints to the selected station's path.";
    case "bounds":
      return "Drag a rectangle: the station's mobility area.";
    default:
      return "Click to select, ctrl/shift-click or shift-drag to select several, drag to move; Delete removes the selection.";
  }
}

/** The Topology card: counts, toolbar, then the map (geographic scenarios) or the x/y canvas, and the legend. */
export function TopologyPane({ doc, title, scale, edits, tools, overlays, selection, onSelect, onChange, onHelp, groundTracks, fitGroundTracks }: TopologyPaneProps) {
  const { tool, setTool } = tools;
  const kinds = [...new Set(doc.nodes.map((n) => n.kind))];
  return (
    <section className="card topology-card" aria-labelledby="topology-title">
      <div className="card-head">
        <h2 id="topology-title">Topology</h2>
        <span className="muted small" data-testid="counts">
          {doc.nodes.length} nodes · {(doc.links ?? []).length} links · {(doc.flows ?? []).length} flows
        </span>
      </div>
      <EditorToolbar
        doc={doc}
        edits={edits}
        tool={tool}
        setTool={setTool}
        selection={selection}
        deleteSelection={tools.deleteSelection}
        overlays={overlays}
        onHelp={onHelp}
        onFind={(nid) => {
          onSelect({ nodes: [nid], links: [] });
          overlays.setFocus({ nodeId: nid });
        }}
      />
      {overlays.geo ? (
        <GeoEditorMap
          doc={doc}
          label={`Map of ${title}`}
          tool={tool}
          setTool={setTool}
          selection={selection}
          focus={overlays.focus}
          onSelect={onSelect}
          onChange={onChange}
          waypointSpeed={tools.waypointSpeed}
          positions={overlays.geoPositions}
          tracks={overlays.geoTracks}
          groundTracks={groundTracks}
          fitGroundTracks={fitGroundTracks}
          highlight={overlays.planningOverlay}
        />
      ) : null}
      {!overlays.geo ? (
        <p className="muted small tool-hint" aria-live="polite">
          {toolHint(tool)}
        </p>
      ) : null}
      {!overlays.geo ? (
        <TopologyGraph
          doc={doc}
          label={`Topology of ${title}`}
          scale={scale}
          editable
          tool={tool}
          selection={selection}
          ghosts={overlays.ghosts}
          highlight={overlays.planningOverlay}
          linkLabels={overlays.linkLabels ?? undefined}
          onSelect={onSelect}
          {...tools.canvas}
        />
      ) : null}
      <Legend kinds={kinds.length ? kinds : undefined} />
    </section>
  );
}
