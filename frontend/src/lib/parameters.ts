/**
 * Human names of sweep parameters (pure): `links.l3.delay_ms` → "Link l3 (uav–ship) delay, ms",
 * `nodes.ap1.range_m` → "Access point ap1 range, m", `run.duration_s` → "Run duration, s".
 * Paths follow lib/subflow/comparison/sweeps.py (dotted; list items addressed by id).
 */
import type { ScenarioDocument } from "../api/types";
import { kindName } from "./topology";
import { UNIT_SUFFIXES, isPercentField, unitOf } from "./fieldMessages";

/**
 * A field name without its unit suffix, in words, and the unit the editor shows it in (`unitOf`, one home
 * for units: a loss is shown in %, as in the editor's fields).
 */
export function fieldWords(field: string): { words: string; unit: string } {
  const suffix = UNIT_SUFFIXES.find(([s]) => field.endsWith(s) && field.length > s.length)?.[0];
  const words = suffix ? field.slice(0, -suffix.length) : field;
  return { words: words.replace(/_/g, " "), unit: unitOf(field) };
}

/** The unit of a parameter path ("" if it has none). */
export function parameterUnit(path: string): string {
  return unitOf(path);
}

/** Displayed value = stored value × this (100 for a fraction shown in %, else 1). */
export function parameterScale(path: string): number {
  return isPercentField(path) ? 100 : 1;
}

/** A swept value as the planner reads it, in the parameter's displayed unit (no float noise). */
export function displayValue(path: string, value: unknown): string {
  return typeof value === "number" ? String(Number((value * parameterScale(path)).toPrecision(12))) : String(value);
}

/** The name a planner reads for a sweep parameter path, with link endpoints, node kind and unit. */
export function parameterLabel(doc: ScenarioDocument | null | undefined, path: string): string {
  const parts = path.split(".");
  const field = parts[parts.length - 1] ?? path;
  const { words, unit } = fieldWords(field);
  const tail = `${words}${unit ? `, ${unit}` : ""}`;
  const [head, id] = parts;
  if (parts.length === 3 && head === "links") {
    const l = (doc?.links ?? []).find((x) => x.id === id);
    return `Link ${id}${l ? ` (${l.src}–${l.dst})` : ""} ${tail}`;
  }
  if (parts.length === 3 && head === "nodes") {
    const n = doc?.nodes.find((x) => x.id === id);
    return `${n ? kindName(n.kind) : "Node"} ${id} ${tail}`;
  }
  if (parts.length === 3 && head === "flows") {
    const f = (doc?.flows ?? []).find((x) => x.id === id);
    return `Flow ${id}${f ? ` (${f.src} → ${f.dst})` : ""} ${tail}`;
  }
  if (parts.length === 2 && head) return `${head.charAt(0).toUpperCase()}${head.slice(1)} ${tail}`;
  return path;
}
