/**
 * Fields that differ between two versions of a scenario document (pure).
 *
 * Objects are compared key by key; arrays of objects that all carry an `id` (nodes, links,
 * flows, ...) are matched by id, so moving an element is not a change and the path names the
 * element (`links[satcom-ship].loss`); other arrays are compared by index (`t_s[2]`). An element
 * or key present on one side only is one change (`before` or `after` is `undefined`).
 */
export interface FieldChange {
  /** where: `name`, `run.duration_s`, `links[satcom-ship].loss`, `waypoints[1]` */
  path: string;
  before: unknown;
  after: unknown;
}

type Json = unknown;

const isObject = (v: Json): v is Record<string, Json> => typeof v === "object" && v !== null && !Array.isArray(v);

function byId(items: Json[]): Map<string, Json> | null {
  const map = new Map<string, Json>();
  for (const item of items) {
    if (!isObject(item) || (typeof item.id !== "string" && typeof item.id !== "number")) return null;
    const key = String(item.id);
    if (map.has(key)) return null; // ids not unique: fall back to positions
    map.set(key, item);
  }
  return map;
}

function walk(path: string, a: Json, b: Json, out: FieldChange[]): void {
  if (Object.is(a, b)) return;
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const k of keys) walk(path ? `${path}.${k}` : k, a[k], b[k], out);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const ma = byId(a);
    const mb = byId(b);
    if (ma && mb) {
      const ids = [...ma.keys(), ...[...mb.keys()].filter((k) => !ma.has(k))];
      for (const k of ids) walk(`${path}[${k}]`, ma.get(k), mb.get(k), out);
      return;
    }
    for (let i = 0; i < Math.max(a.length, b.length); i++) walk(`${path}[${i}]`, a[i], b[i], out);
    return;
  }
  out.push({ path, before: a, after: b });
}

/** The changes that turn document `before` into document `after`, in document order. */
export function changedFields(before: Json, after: Json): FieldChange[] {
  const out: FieldChange[] = [];
  walk("", before, after, out);
  return out;
}

/** A value as shown in the diff list: JSON, cut to `max` characters; `undefined` is "—". */
export function formatValue(value: unknown, max = 60): string {
  if (value === undefined) return "—";
  const text = JSON.stringify(value);
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
