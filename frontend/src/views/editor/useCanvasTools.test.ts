// @vitest-environment happy-dom
/**
 * useCanvasTools with the edit history and the selection, mounted in happy-dom: each canvas
 * callback changes the latest document and the selection as the tool says, deleting empties the
 * selection, the drawing tools fall back to Select when the selection no longer fits them, and
 * the selection setter keeps its object when the ids are the same.
 */
import { act } from "react";
import { afterEach, describe, expect, it } from "vitest";
import type { ScenarioDocument } from "../../api/types";
import { renderHook, type Rendered } from "../../testing/renderHook";
import { smallDoc } from "./editorFixtures.test-data";
import { canMove, useCanvasTools } from "./useCanvasTools";
import { useEditHistory } from "./useEditHistory";
import { useSelection } from "./useSelection";

function useHarness(initial: ScenarioDocument) {
  const edits = useEditHistory(() => initial);
  const [selection, setSelection] = useSelection();
  const tools = useCanvasTools(edits.doc, selection, setSelection, edits.push);
  return { edits, selection, setSelection, tools };
}

let r: Rendered<ScenarioDocument, ReturnType<typeof useHarness>>;
const h = () => r.result.current;
const node = (id: string) => h().edits.doc.nodes.find((n) => n.id === id);
afterEach(() => r.unmount());

describe("useCanvasTools", () => {
  it("adds nodes and links and selects what was added; the callbacks keep their identity", () => {
    r = renderHook(useHarness, smallDoc());
    const { onAddNode, onAddLink } = h().tools.canvas;
    act(() => onAddNode("switch", { x_m: 50, y_m: 60 }));
    const added = h().edits.doc.nodes.at(-1)!;
    expect(added).toMatchObject({ kind: "switch", position: { x_m: 50, y_m: 60 } });
    expect(h().selection).toEqual({ nodes: [added.id], links: [] });
    // the stable callback read the latest document: a link to the node just added
    expect(h().tools.canvas.onAddLink).toBe(onAddLink);
    act(() => onAddLink("h1", added.id));
    const link = h().edits.doc.links!.at(-1)!;
    expect([link.src, link.dst]).toEqual(["h1", added.id]);
    expect(h().selection).toEqual({ nodes: [], links: [link.id] });
    // a second link between the same nodes is refused: nothing changes
    const before = h().edits.doc;
    act(() => onAddLink(added.id, "h1"));
    expect(h().edits.doc).toBe(before);
  });

  it("moves nodes", () => {
    r = renderHook(useHarness, smallDoc());
    act(() => h().tools.canvas.onMoveNodes({ h1: { x_m: -10, y_m: 20 } }));
    expect(node("h1")!.position).toEqual({ x_m: -10, y_m: 20 });
  });

  it("draws a station's path: the first point moves the station there, the drawing is one undo step", () => {
    r = renderHook(useHarness, smallDoc());
    act(() => h().setSelection({ nodes: ["sta1"], links: [] }));
    act(() => h().tools.setTool({ name: "waypoints" }));
    act(() => h().tools.canvas.onPoint({ x_m: 10, y_m: 10 }));
    act(() => h().tools.canvas.onPoint({ x_m: 110, y_m: 10 }));
    const sta = node("sta1")!;
    expect(sta.position).toEqual({ x_m: 10, y_m: 10 });
    expect(sta.mobility?.model).toBe("waypoints");
    expect(sta.mobility && "points" in sta.mobility ? sta.mobility.points.length : 0).toBe(2);
    act(() => h().edits.undo());
    expect(node("sta1")!.mobility).toBeUndefined();
    expect(h().tools.tool).toEqual({ name: "waypoints" });
  });

  it("the drawing tools fall back to Select when no movable node is selected", () => {
    r = renderHook(useHarness, smallDoc());
    act(() => h().setSelection({ nodes: ["sta1"], links: [] }));
    act(() => h().tools.setTool({ name: "bounds" }));
    expect(h().tools.tool).toEqual({ name: "bounds" });
    act(() => h().setSelection({ nodes: [], links: [] }));
    expect(h().tools.tool).toEqual({ name: "select" });
    // the add tools stay on whatever is selected
    act(() => h().tools.setTool({ name: "add", kind: "host" }));
    act(() => h().setSelection({ nodes: ["h1", "ap1"], links: [] }));
    expect(h().tools.tool).toEqual({ name: "add", kind: "host" });
    expect(canMove("satellite")).toBe(false);
    expect(canMove("station")).toBe(true);
  });

  it("deletes the selection with its links and empties it; nothing selected, nothing done", () => {
    r = renderHook(useHarness, smallDoc());
    let done = true;
    act(() => {
      done = h().tools.deleteSelection();
    });
    expect(done).toBe(false);
    expect(h().edits.canUndo).toBe(false);
    act(() => h().setSelection({ nodes: ["ap1"], links: [] }));
    act(() => {
      done = h().tools.deleteSelection();
    });
    expect(done).toBe(true);
    expect(h().edits.doc.nodes.map((n) => n.id)).toEqual(["h1", "sta1"]);
    expect(h().edits.doc.links).toEqual([]);
    expect(h().selection).toEqual({ nodes: [], links: [] });
  });

  it("the selection keeps its object when set to the same ids", () => {
    r = renderHook(useHarness, smallDoc());
    act(() => h().setSelection({ nodes: ["h1"], links: [] }));
    const first = h().selection;
    act(() => h().setSelection({ nodes: ["h1"], links: [] }));
    expect(h().selection).toBe(first);
    act(() => h().setSelection({ nodes: ["h1", "sta1"], links: [] }));
    expect(h().selection).not.toBe(first);
  });
});
