// @vitest-environment happy-dom
/**
 * useEditorShortcuts wired as the editor wires it (history, selection, tools), mounted in
 * happy-dom, with key presses dispatched on the window: each key's effect on the tool, the
 * document, the selection and the help dialog; keys typed into a text field stay there except
 * Ctrl+S; nothing is listened to after unmount.
 */
import { act } from "react";
import { afterEach, describe, expect, it } from "vitest";
import type { ScenarioDocument } from "../../api/types";
import { renderHook, type Rendered } from "../../testing/renderHook";
import { keyboardSpot } from "../../lib/editor";
import { smallDoc } from "./editorFixtures.test-data";
import { useCanvasTools } from "./useCanvasTools";
import { useEditHistory } from "./useEditHistory";
import { useEditorShortcuts } from "./useEditorShortcuts";
import { useSelection } from "./useSelection";

let saves: string[] = [];

function useHarness(initial: ScenarioDocument) {
  const edits = useEditHistory(() => initial);
  const [selection, setSelection] = useSelection();
  const tools = useCanvasTools(edits.doc, selection, setSelection, edits.push);
  // what Save would store: the document of the latest render
  const keys = useEditorShortcuts({
    save: () => saves.push(edits.doc.name), undo: edits.undo, redo: edits.redo, deleteSelection: tools.deleteSelection, setTool: tools.setTool,
    placeNode: () => {
      if (tools.tool.name === "add") tools.canvas.onAddNode(tools.tool.kind, keyboardSpot(edits.doc, selection.nodes[0] ?? null));
    },
  });
  return { edits, selection, setSelection, tools, keys };
}

let r: Rendered<ScenarioDocument, ReturnType<typeof useHarness>>;
const h = () => r.result.current;
function press(key: string, opts: KeyboardEventInit = {}, target: EventTarget = window): KeyboardEvent {
  const e = new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true, ...opts });
  act(() => {
    target.dispatchEvent(e);
  });
  return e;
}
afterEach(() => {
  r.unmount();
  saves = [];
  document.body.innerHTML = "";
});

describe("useEditorShortcuts", () => {
  it("N places a node of the active tool from the keyboard, beside the selected node, never on top of one", () => {
    r = renderHook(useHarness, smallDoc());
    const before = h().edits.doc.nodes.length;
    press("N"); // the Select tool: nothing to place
    expect(h().edits.doc.nodes.length).toBe(before);
    press("4"); // switch
    press("N");
    const placed = h().edits.doc.nodes.at(-1)!;
    expect(placed.kind).toBe("switch");
    expect(h().selection.nodes).toEqual([placed.id]);
    // no selection: the centre of h1 (0), sta1 (100), ap1 (200) is x = 100, taken by sta1: one step east, 160
    expect(placed.position).toEqual({ x_m: 160, y_m: 0 });
    press("N"); // beside the one just placed (selected): 220, 20 m from ap1, so one more step: 280
    const next = h().edits.doc.nodes.at(-1)!;
    expect(next.position!.x_m! - placed.position!.x_m!).toBe(120);
    expect(next.position!.y_m).toBe(placed.position!.y_m);
    for (const n of h().edits.doc.nodes.slice(0, -1))
      expect(Math.hypot(n.position!.x_m! - next.position!.x_m!, n.position!.y_m! - next.position!.y_m!)).toBeGreaterThanOrEqual(30);
  });

  it("V, L, 1–6 and Escape choose the tool", () => {
    r = renderHook(useHarness, smallDoc());
    press("2");
    expect(h().tools.tool).toEqual({ name: "add", kind: "station" });
    press("6");
    expect(h().tools.tool).toEqual({ name: "add", kind: "router" });
    press("L");
    expect(h().tools.tool).toEqual({ name: "link" });
    press("Escape");
    expect(h().tools.tool).toEqual({ name: "select" });
    press("l");
    press("v");
    expect(h().tools.tool).toEqual({ name: "select" });
    press("7");
    expect(h().tools.tool).toEqual({ name: "select" });
  });

  it("Delete removes the selection, Ctrl+Z brings it back, Ctrl+Y and Ctrl+Shift+Z redo", () => {
    r = renderHook(useHarness, smallDoc());
    const idle = press("Delete");
    expect(idle.defaultPrevented).toBe(false);
    act(() => h().setSelection({ nodes: ["h1"], links: [] }));
    expect(press("Delete").defaultPrevented).toBe(true);
    expect(h().edits.doc.nodes.map((n) => n.id)).toEqual(["sta1", "ap1"]);
    expect(h().selection).toEqual({ nodes: [], links: [] });
    press("z", { ctrlKey: true });
    expect(h().edits.doc.nodes.map((n) => n.id)).toEqual(["h1", "sta1", "ap1"]);
    press("y", { ctrlKey: true });
    expect(h().edits.doc.nodes).toHaveLength(2);
    press("z", { metaKey: true });
    press("Z", { ctrlKey: true, shiftKey: true });
    expect(h().edits.doc.nodes).toHaveLength(2);
  });

  it("? opens the shortcuts dialog", () => {
    r = renderHook(useHarness, smallDoc());
    expect(h().keys.helpOpen).toBe(false);
    expect(press("?").defaultPrevented).toBe(true);
    expect(h().keys.helpOpen).toBe(true);
    act(() => h().keys.setHelpOpen(false));
    expect(h().keys.helpOpen).toBe(false);
  });

  it("in a text field only Ctrl+S acts, and it saves the latest document", () => {
    r = renderHook(useHarness, smallDoc("first"));
    act(() => h().edits.push(smallDoc("second")));
    const input = document.createElement("input");
    document.body.append(input);
    press("l", {}, input);
    press("?", {}, input);
    press("Backspace", {}, input);
    act(() => h().setSelection({ nodes: ["h1"], links: [] }));
    press("Delete", {}, input);
    press("z", { ctrlKey: true }, input);
    expect(h().tools.tool).toEqual({ name: "select" });
    expect(h().keys.helpOpen).toBe(false);
    expect(h().edits.doc.name).toBe("second");
    expect(h().edits.doc.nodes).toHaveLength(3);
    const save = press("s", { ctrlKey: true }, input);
    expect(save.defaultPrevented).toBe(true);
    expect(saves).toEqual(["second"]);
  });

  it("listens no more once unmounted", () => {
    r = renderHook(useHarness, smallDoc());
    press("s", { ctrlKey: true });
    expect(saves).toHaveLength(1);
    r.unmount();
    expect(press("s", { ctrlKey: true }).defaultPrevented).toBe(false);
    expect(saves).toHaveLength(1);
  });
});
