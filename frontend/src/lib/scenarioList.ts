/**
 * The scenario list as the planner narrows it (pure): a search over name and description, a project,
 * and an order (by name, or most recently updated first).
 *
 * Owns:
 * 1. `filterScenarios` — which scenarios are shown, in which order;
 * 2. `copyName` — the name of a duplicate that no listed scenario has ("X (copy)", "X (copy 2)", …).
 */
import type { ScenarioSummary } from "../api/types";

/** One collator for the whole sort (`localeCompare` with options builds one per call). */
const BY_NAME_BASE = new Intl.Collator(undefined, { sensitivity: "base", numeric: true });

export type ScenarioSort = "name" | "updated";

export interface ScenarioFilter {
  query: string;
  projectId: string | null;
  sort: ScenarioSort;
}

/** The scenarios matching every word of `query` (name or description, any case), in `projectId`, sorted. */
export function filterScenarios(items: readonly ScenarioSummary[], f: ScenarioFilter): ScenarioSummary[] {
  const words = f.query.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = items.filter(
    (s) =>
      (f.projectId === null || s.project_id === f.projectId) &&
      words.every((w) => s.name.toLowerCase().includes(w) || (s.description ?? "").toLowerCase().includes(w)),
  );
  return shown.sort((a, b) =>
    f.sort === "updated"
      ? Date.parse(b.updated_at) - Date.parse(a.updated_at) || a.name.localeCompare(b.name)
      : BY_NAME_BASE.compare(a.name, b.name),
  );
}

/** "name (copy)", or "name (copy N)" with the smallest N ≥ 2 no scenario in `taken` has. */
export function copyName(name: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  if (!used.has(`${name} (copy)`)) return `${name} (copy)`;
  for (let n = 2; ; n++) if (!used.has(`${name} (copy ${n})`)) return `${name} (copy ${n})`;
}
