import { useCallback, useState } from "react";
import { EMPTY_SELECTION, type Selection } from "../../components/TopologyGraph";

function sameSelection(a: Selection, b: Selection): boolean {
  return a.nodes.join("\u0000") === b.nodes.join("\u0000") && a.links.join("\u0000") === b.links.join("\u0000");
}

/**
 * The selected nodes and links of the editor.
 *
 * Owns:
 * 1. the selection shared by the canvas or map, the inspector and the toolbar;
 * 2. its setter, which keeps the same object when the ids do not change (no re-render, no loop with the canvas).
 */
export function useSelection(): [Selection, (sel: Selection) => void] {
  const [selection, setSelectionState] = useState<Selection>(EMPTY_SELECTION);
  const setSelection = useCallback((sel: Selection) => setSelectionState((cur) => (sameSelection(cur, sel) ? cur : sel)), []);
  return [selection, setSelection];
}
