/**
 * Validation messages in the units and names the user sees (pure).
 *
 * The server answers 422 with pydantic's messages on document paths
 * (`links.3.loss`: "Input should be less than 1"); the editor shows the loss
 * as a percent, references elements by id or label (never a 0-based index)
 * and puts the unit next to every limit ("must be ≤ 86,400 s").
 */
import type { ScenarioDocument, ValidationErrorItem } from "../api/types";
import { documentPath } from "./docPath";
import { canonicalJson } from "./editor";

/** Fields stored as a fraction in [0, 1) and shown in percent. */
const PERCENT_FIELDS = new Set(["loss", "wireless_loss"]);

/** Unit suffixes of field names → the unit the UI prints (the one table of units: parameters.ts reads it too). */
export const UNIT_SUFFIXES: readonly [string, string][] = [
  ["_mbps", "Mbit/s"],
  ["_mps", "m/s"],
  ["_ms", "ms"],
  ["_s", "s"],
  ["_m", "m"],
  ["_deg", "°"],
  ["_rad", "rad"],
  ["_packets", "packets"],
  ["_bytes", "bytes"],
];

function lastField(path: string): string {
  const parts = path.split(".").filter((p) => !/^\d+$/.test(p));
  return parts[parts.length - 1] ?? "";
}

/** True if the field at `path` is a fraction the UI shows in percent (`links.0.loss`). */
export function isPercentField(path: string): boolean {
  return PERCENT_FIELDS.has(lastField(path));
}

/** The unit the UI shows for the field at `path`: "Mbit/s", "s", "%"…; "" when it has none. */
export function unitOf(path: string): string {
  const f = lastField(path);
  if (PERCENT_FIELDS.has(f)) return "%";
  for (const [suffix, unit] of UNIT_SUFFIXES) if (f.endsWith(suffix)) return unit;
  return "";
}

/** 10000 → "10,000"; 0.5 → "0.5" (no float noise). */
export function formatLimit(value: number): string {
  return Number(value.toPrecision(12)).toLocaleString("en-US", { maximumFractionDigits: 6 });
}

const BOUND = /^Input should be (less than or equal to|less than|greater than or equal to|greater than) (-?[\d.eE+-]+)$/;
const SYMBOL: Record<string, string> = {
  "less than or equal to": "≤",
  "less than": "<",
  "greater than or equal to": "≥",
  "greater than": ">",
};

/**
 * A server message for the field at `path` in the user's units: pydantic's bounds
 * ("Input should be less than or equal to 86400") become "must be ≤ 86,400 s", and a
 * fraction shown in percent has its bound in percent ("less than 1" on a loss → "must be < 100 %").
 * Other messages are returned unchanged.
 */
export function humanMessage(path: string, msg: string): string {
  const m = BOUND.exec(msg.trim());
  if (!m) return msg;
  let value = Number(m[2]);
  if (!Number.isFinite(value)) return msg;
  const unit = unitOf(path);
  if (unit === "%") value *= 100;
  return `must be ${SYMBOL[m[1]!]} ${formatLimit(value)}${unit ? ` ${unit}` : ""}`;
}

function nodeName(doc: ScenarioDocument, id: string): string {
  const n = doc.nodes.find((x) => x.id === id);
  const label = (n as { label?: string | null } | undefined)?.label;
  return label && label !== id ? `${label}` : id;
}

/** Singular names of the indexed lists inside an element, for "waypoint 3", "rate step 2". */
const ITEM_NAMES: Record<string, string> = {
  points: "waypoint",
  rate_table: "rate step",
  link_events: "link event",
  values: "value",
  strategies: "strategy",
};

/**
 * A document path as the user reads it: elements by id (with label or endpoints), list items 1-based.
 * `links.3.loss` → "Link l4 (Ship A – UAV) › loss"; `nodes.1.mobility.points.4.t_s` →
 * "Station sta1 (Ship A) › mobility › waypoint 5 › t_s"; `link_events.0.t_s` → "Link event 1 › t_s";
 * `sweep.values.1.links.3.loss` → "Sweep value 2 › Link l4 (Ship A – UAV) › loss".
 */
export function describeLoc(doc: ScenarioDocument, path: string): string {
  const parts = path.split(".").filter((p) => p !== "");
  if (!parts.length) return "Scenario";
  // a sweep's point: "Sweep value 2", then the scenario's element it made invalid, named as in the editor
  if (parts[0] === "sweep" && parts[1] === "values" && parts[2] !== undefined && /^\d+$/.test(parts[2])) {
    const rest = parts.slice(3).join(".");
    return `Sweep value ${Number(parts[2]) + 1}${rest ? ` › ${describeLoc(doc, rest)}` : ""}`;
  }
  const out: string[] = [];
  let i = 0;
  const head = parts[0]!;
  const idx = parts.length > 1 && /^\d+$/.test(parts[1]!) ? Number(parts[1]) : null;
  if (head === "nodes" && idx !== null) {
    const n = doc.nodes[idx];
    out.push(n ? `${kindWord(n.kind)} ${n.id}${nodeName(doc, n.id) !== n.id ? ` (${nodeName(doc, n.id)})` : ""}` : `Node ${idx + 1}`);
    i = 2;
  } else if (head === "links" && idx !== null) {
    const l = doc.links?.[idx];
    out.push(l ? `Link ${l.id} (${nodeName(doc, l.src)} – ${nodeName(doc, l.dst)})` : `Link ${idx + 1}`);
    i = 2;
  } else if (head === "flows" && idx !== null) {
    const f = doc.flows?.[idx];
    out.push(f ? `Flow ${f.id} (${nodeName(doc, f.src)} → ${nodeName(doc, f.dst)})` : `Flow ${idx + 1}`);
    i = 2;
  }
  for (; i < parts.length; i++) {
    const p = parts[i]!;
    const next = parts[i + 1];
    if (next !== undefined && /^\d+$/.test(next)) {
      const name = ITEM_NAMES[p] ?? p;
      out.push(`${out.length ? name : name.charAt(0).toUpperCase() + name.slice(1)} ${Number(next) + 1}`);
      i++;
    } else if (/^\d+$/.test(p)) out.push(`item ${Number(p) + 1}`);
    else out.push(p);
  }
  return out.join(" › ");
}

function kindWord(kind: string): string {
  const w = kind.replace(/_/g, " ");
  return w.charAt(0).toUpperCase() + w.slice(1);
}

function keyOf(loc: readonly (string | number)[]): string {
  return documentPath(loc);
}

/** One banner line per 422 problem, named and in the user's units: "Link l4 (ship – uav) › loss: must be < 100 %". */
export function validationLines(doc: ScenarioDocument, detail: readonly ValidationErrorItem[]): string[] {
  return detail.map((d) => {
    const path = keyOf(d.loc);
    const msg = humanMessage(path, d.msg);
    return path ? `${describeLoc(doc, path)}: ${msg}` : msg;
  });
}

/** A model's own check naming one of its fields first ("Value error, packet_interval_ms: g729a packs whole 10 ms
 * frames" at `flows.0.voice`): the field (snake_case) and the message without pydantic's prefix. */
const FIELD_FIRST = /^(?:Value error, )?([a-z][a-z0-9]*(?:_[a-z0-9]+)+): (.+)$/s;

/** The field a 422 problem belongs to: its location, or the field its model's check names first. */
export function fieldErrorKey(d: ValidationErrorItem): string {
  const at = keyOf(d.loc);
  const named = FIELD_FIRST.exec(d.msg.trim());
  return named && at ? `${at}.${named[1]}` : at;
}

/** Like `fieldErrors` (path → message) with the messages in the user's units; a model's check that names one of
 * its fields first goes to that field (`flows.0.voice.packet_interval_ms`), so that it shows where it is fixed. */
export function humanFieldErrors(detail: readonly ValidationErrorItem[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of detail) {
    const key = fieldErrorKey(d);
    const named = key !== keyOf(d.loc) ? FIELD_FIRST.exec(d.msg.trim()) : null;
    const msg = humanMessage(key, named ? named[2]! : d.msg);
    out[key] = out[key] ? `${out[key]}; ${msg}` : msg;
  }
  return out;
}

/** The value at a dotted path of a document (undefined when absent). */
export function valueAt(doc: unknown, path: string): unknown {
  let cur: unknown = doc;
  for (const p of path.split(".")) {
    if (p === "") continue;
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

/**
 * The errors that still apply: an error is dropped as soon as the value at its path differs from
 * the value it had in `erred` (the document the server refused), so a corrected field clears at once.
 */
export function liveErrors(errors: Record<string, string>, erred: ScenarioDocument | null, doc: ScenarioDocument): Record<string, string> {
  if (!erred || erred === doc) return errors;
  const out: Record<string, string> = {};
  for (const [path, msg] of Object.entries(errors)) {
    if (canonicalJson(valueAt(erred, path)) === canonicalJson(valueAt(doc, path))) out[path] = msg;
  }
  return out;
}

/**
 * A value typed in a bounded field, checked before it is stored (displayed units): a message naming
 * the bound and unit, or null when it is within. `minExclusive` / `maxExclusive`: the bound itself is refused.
 */
export function rangeProblem(value: number, bounds: { min?: number; max?: number; minExclusive?: boolean; maxExclusive?: boolean }, unit = ""): string | null {
  const u = unit ? ` ${unit}` : "";
  if (bounds.min !== undefined && (bounds.minExclusive ? value <= bounds.min : value < bounds.min))
    return `must be ${bounds.minExclusive ? ">" : "≥"} ${formatLimit(bounds.min)}${u}`;
  if (bounds.max !== undefined && (bounds.maxExclusive ? value >= bounds.max : value > bounds.max))
    return `must be ${bounds.maxExclusive ? "<" : "≤"} ${formatLimit(bounds.max)}${u}`;
  return null;
}
