/**
 * Human names of sweep parameters (pure): `links.l3.delay_ms` → "Link l3 (uav–ship) delay, ms",
 * `nodes.ap1.range_m` → "Access point ap1 range, m", `run.duration_s` → "Run duration, s".
 * Paths follow lib/subflow/comparison/sweeps.py (dotted; list items addressed by id).
 */
import type { ScenarioDocument } from "../api/types";
import { kindName } from "./topology";

/** Unit suffixes of scenario field names (BRIEF: units in names) and how they read. */
const UNIT_SUFFIXES: readonly [string, string][] = [
  ["_mbps", "Mbit/s"],
  ["_ms", "ms"],
  ["_s", "s"],
  ["_m", "m"],
  ["_deg", "°"],
  ["_bytes", "bytes"],
  ["_packets", "packets"],
];

/** A field name without its unit suffix, in words, and the unit ("" if none; `loss` is a fraction). */
export function fieldWords(field: string): { words: string; unit: string } {
  for (const [suffix, unit] of UNIT_SUFFIXES) {
    if (field.endsWith(suffix) && field.length > suffix.length) return { words: field.slice(0, -suffix.length).replace(/_/g, " "), unit };
  }
  if (field === "loss" || field.endsWith("_loss")) return { words: field.replace(/_/g, " "), unit: "fraction" };
  return { words: field.replace(/_/g, " "), unit: "" };
}

/** The unit of a parameter path ("" if it has none). */
export function parameterUnit(path: string): string {
  return fieldWords(path.split(".").pop() ?? "").unit;
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
