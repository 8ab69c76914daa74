import type { NodeKind, ScenarioDocument } from "../../api/types";
import { NODE_KINDS } from "../../api/types";
import { shapePath } from "../../components/Legend";
import { KIND_STYLES } from "../../components/nodeStyles";
import { NodeSearch } from "../../components/NodeSearch";
import type { Selection, Tool } from "../../components/TopologyGraph";
import { kindName } from "../../lib/topology";
import type { EditHistory } from "./useEditHistory";
import type { CanvasOverlays } from "./useCanvasOverlays";

export interface EditorToolbarProps {
  doc: ScenarioDocument;
  edits: Pick<EditHistory, "undo" | "redo" | "canUndo" | "canRedo">;
  tool: Tool;
  setTool: (t: Tool) => void;
  selection: Selection;
  deleteSelection: () => void;
  overlays: Pick<CanvasOverlays, "geo" | "placeOnMap" | "linkLabels" | "setLinkLabels">;
  onHelp: () => void;
  /** A node found by its label: select it and bring it into view. */
  onFind: (nodeId: string) => void;
}

/** The editing tools above the topology: tools, undo / redo / delete, map placement, link labels, shortcuts, node search. */
export function EditorToolbar({ doc, edits, tool, setTool, selection, deleteSelection, overlays, onHelp, onFind }: EditorToolbarProps) {
  const toolButton = (t: Tool, label: string, icon?: NodeKind) => {
    const active = t.name === tool.name && (t.name !== "add" || (tool.name === "add" && tool.kind === t.kind));
    return (
      <button
        key={label}
        type="button"
        className={`btn btn-tool${active ? " active" : ""}`}
        aria-pressed={active}
        // a tool stays on until another is chosen, Select is pressed or Esc
        onClick={() => setTool(t)}
        title={label}
      >
        {icon ? (
          <svg width="14" height="14" viewBox="0 0 16 16" aria-hidden="true">
            <path d={shapePath(KIND_STYLES[icon].shape)} fill={KIND_STYLES[icon].color} />
          </svg>
        ) : null}
        {label}
      </button>
    );
  };

  return (
    <div className="toolbar" role="toolbar" aria-label="Editing tools">
      {toolButton({ name: "select" }, "Select")}
      {NODE_KINDS.map((k) => toolButton({ name: "add", kind: k }, `Add ${kindName(k).toLowerCase()}`, k))}
      {toolButton({ name: "link" }, "Draw links")}
      <span className="toolbar-sep" />
      <button type="button" className="btn btn-tool" onClick={edits.undo} disabled={!edits.canUndo} title="Undo (Ctrl+Z)">
        Undo
      </button>
      <button type="button" className="btn btn-tool" onClick={edits.redo} disabled={!edits.canRedo} title="Redo (Ctrl+Shift+Z)">
        Redo
      </button>
      <button
        type="button"
        className="btn btn-tool"
        disabled={!selection.nodes.length && !selection.links.length}
        onClick={deleteSelection}
        title="Delete the selection (Delete key)"
      >
        Delete
      </button>
      <span className="toolbar-sep" />
      {!overlays.geo ? (
        <button
          type="button"
          className="btn btn-tool"
          onClick={() => {
            overlays.placeOnMap();
            setTool({ name: "select" });
          }}
          title="Place the nodes by latitude and longitude on a map (a geographic scenario)"
        >
          Place on a map
        </button>
      ) : null}
      {!overlays.geo ? (
        <label className="toggle">
          <input
            type="checkbox"
            checked={overlays.linkLabels ?? (doc.links ?? []).length <= 150}
            onChange={(e) => overlays.setLinkLabels(e.currentTarget.checked)}
          />{" "}
          Link labels
        </label>
      ) : null}
      <button type="button" className="btn btn-tool" onClick={onHelp} title="Keyboard shortcuts (?)" aria-haspopup="dialog">
        Shortcuts <kbd>?</kbd>
      </button>
      <NodeSearch doc={doc} onPick={onFind} />
    </div>
  );
}
