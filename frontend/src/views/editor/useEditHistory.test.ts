// @vitest-environment happy-dom
/**
 * useEditHistory mounted in happy-dom: the present document follows push / undo / redo, coalesced
 * edits are one undo step, replace keeps the steps, reset starts afresh, and the actions keep their
 * identity across renders (the canvas callbacks depend on that).
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ScenarioDocument } from "../../api/types";
import { act } from "react";
import { renderHook, type Rendered } from "../../testing/renderHook";
import { useEditHistory, type EditHistory } from "./useEditHistory";

const named = (name: string): ScenarioDocument => ({ name, nodes: [] }) as unknown as ScenarioDocument;

let r: Rendered<null, EditHistory>;
afterEach(() => r.unmount());

describe("useEditHistory", () => {
  it("pushes, undoes and redoes, with canUndo / canRedo following", () => {
    r = renderHook(() => useEditHistory(() => named("a")), null);
    expect(r.result.current.doc.name).toBe("a");
    expect([r.result.current.canUndo, r.result.current.canRedo]).toEqual([false, false]);
    act(() => r.result.current.push(named("b")));
    act(() => r.result.current.push(named("c")));
    expect(r.result.current.doc.name).toBe("c");
    act(() => r.result.current.undo());
    expect(r.result.current.doc.name).toBe("b");
    expect([r.result.current.canUndo, r.result.current.canRedo]).toEqual([true, true]);
    act(() => r.result.current.undo());
    act(() => r.result.current.undo());
    expect(r.result.current.doc.name).toBe("a");
    expect(r.result.current.canUndo).toBe(false);
    act(() => r.result.current.redo());
    expect(r.result.current.doc.name).toBe("b");
    // a new edit drops what could be redone
    act(() => r.result.current.push(named("d")));
    expect(r.result.current.canRedo).toBe(false);
    expect(r.result.current.history.past.map((d) => d.name)).toEqual(["a", "b"]);
  });

  it("makes edits with the same coalescing key one undo step", () => {
    r = renderHook(() => useEditHistory(() => named("")), null);
    for (const name of ["N", "Na", "Nav"]) act(() => r.result.current.push(named(name), "name"));
    act(() => r.result.current.push(named("Nav2"), "other"));
    act(() => r.result.current.undo());
    expect(r.result.current.doc.name).toBe("Nav");
    act(() => r.result.current.undo());
    expect(r.result.current.doc.name).toBe("");
  });

  it("replace keeps the undo steps, reset forgets them", () => {
    r = renderHook(() => useEditHistory(() => named("a")), null);
    act(() => r.result.current.push(named("b")));
    act(() => r.result.current.replace(named("b (server)")));
    expect(r.result.current.doc.name).toBe("b (server)");
    expect(r.result.current.canUndo).toBe(true);
    act(() => r.result.current.reset(named("fresh")));
    expect(r.result.current.doc.name).toBe("fresh");
    expect([r.result.current.canUndo, r.result.current.canRedo]).toEqual([false, false]);
  });

  it("keeps the same action functions across renders", () => {
    r = renderHook(() => useEditHistory(() => named("a")), null);
    const { push, undo, redo, reset, replace } = r.result.current;
    act(() => push(named("b")));
    expect(r.result.current.push).toBe(push);
    expect(r.result.current.undo).toBe(undo);
    expect(r.result.current.redo).toBe(redo);
    expect(r.result.current.reset).toBe(reset);
    expect(r.result.current.replace).toBe(replace);
  });
});
