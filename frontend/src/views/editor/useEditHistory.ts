import { useMemo, useReducer } from "react";
import type { ScenarioDocument } from "../../api/types";
import { canRedo, canUndo, createHistory, push, redo, undo, type History } from "../../lib/history";

type HistoryAction =
  | { type: "reset"; doc: ScenarioDocument }
  | { type: "push"; doc: ScenarioDocument; coalesce?: string }
  | { type: "replace"; doc: ScenarioDocument }
  | { type: "undo" }
  | { type: "redo" };

function historyReducer(h: History<ScenarioDocument>, a: HistoryAction): History<ScenarioDocument> {
  switch (a.type) {
    case "reset":
      return createHistory(a.doc);
    case "push":
      return push(h, a.doc, a.coalesce ?? null);
    case "replace":
      return { ...h, present: a.doc };
    case "undo":
      return undo(h);
    case "redo":
      return redo(h);
  }
}

/** The ways to change the history; the same functions on every render. */
export interface EditActions {
  /** An edit: a new undo step, or the last one replaced when `coalesce` repeats (typing into one field). */
  push: (doc: ScenarioDocument, coalesce?: string) => void;
  /** The present document replaced, the steps kept (the server's copy of what was just saved). */
  replace: (doc: ScenarioDocument) => void;
  /** A fresh history holding only `doc` (a document read from the server). */
  reset: (doc: ScenarioDocument) => void;
  undo: () => void;
  redo: () => void;
}

export interface EditHistory extends EditActions {
  doc: ScenarioDocument;
  history: History<ScenarioDocument>;
  canUndo: boolean;
  canRedo: boolean;
}

/**
 * The scenario document being edited and its undo/redo history.
 *
 * Owns:
 * 1. the present document and the past and future documents (`lib/history`: coalescing, size limit);
 * 2. the actions that change them (push, replace, reset, undo, redo), stable across renders.
 */
export function useEditHistory(initial: () => ScenarioDocument): EditHistory {
  const [history, dispatch] = useReducer(historyReducer, undefined, () => createHistory(initial()));
  const actions = useMemo<EditActions>(
    () => ({
      push: (doc, coalesce) => dispatch({ type: "push", doc, coalesce }),
      replace: (doc) => dispatch({ type: "replace", doc }),
      reset: (doc) => dispatch({ type: "reset", doc }),
      undo: () => dispatch({ type: "undo" }),
      redo: () => dispatch({ type: "redo" }),
    }),
    [],
  );
  return { ...actions, doc: history.present, history, canUndo: canUndo(history), canRedo: canRedo(history) };
}
