/**
 * Undo/redo history of documents (pure). Consecutive edits with the same
 * `coalesce` key (e.g. typing into one field) replace the last entry instead of
 * adding one, so one undo reverts the whole edit of a field.
 */
export interface History<T> {
  past: T[];
  present: T;
  future: T[];
  /** coalescing key of the last change */
  lastKey: string | null;
}

export const HISTORY_LIMIT = 200;

export function createHistory<T>(present: T): History<T> {
  return { past: [], present, future: [], lastKey: null };
}

export function push<T>(h: History<T>, next: T, coalesce: string | null = null): History<T> {
  if (next === h.present) return h;
  if (coalesce !== null && coalesce === h.lastKey && h.past.length) {
    return { past: h.past, present: next, future: [], lastKey: coalesce };
  }
  const past = [...h.past, h.present];
  if (past.length > HISTORY_LIMIT) past.shift();
  return { past, present: next, future: [], lastKey: coalesce };
}

export function undo<T>(h: History<T>): History<T> {
  if (!h.past.length) return h;
  const prev = h.past[h.past.length - 1]!;
  return { past: h.past.slice(0, -1), present: prev, future: [h.present, ...h.future], lastKey: null };
}

export function redo<T>(h: History<T>): History<T> {
  if (!h.future.length) return h;
  const [next, ...rest] = h.future;
  return { past: [...h.past, h.present], present: next!, future: rest, lastKey: null };
}

export const canUndo = <T>(h: History<T>) => h.past.length > 0;
export const canRedo = <T>(h: History<T>) => h.future.length > 0;
