import { useEffect, useState } from "react";
import { api, isAbort } from "../../api/client";
import type { ScenarioDocument, TimelinePublic } from "../../api/types";
import { errorLines } from "../../lib/errors";
import { isGeoScenario } from "../../lib/geo";
import { hasBudgets } from "../../lib/satcomAccess";
import { isActive } from "./useComparison";

export interface ScenarioTimeline {
  /** The scenario version the comparison ran on (null: not loaded yet). */
  doc: ScenarioDocument | null;
  /** Its `POST /api/timeline` answer when it is geographic or a node moves (null otherwise or not yet). */
  timeline: TimelinePublic | null;
  errors: string[];
}

/**
 * The scenario version whose map and timeline a comparison page shows: none while the comparison is queued or
 * running, so that neither the server's timeline (orbits, link budgets: a second or more of CPU) nor the browser's
 * map competes with the run on the same cores (naval-leo's Run to chart: 4.5 s with them, the benchmark's budget
 * is 3 s), nor when its stream has told the end but the record read again (with the result the charts draw) has
 * not arrived yet (`comparison.status` is still the earlier one); its `scenario_version` once it has ended
 * (succeeded, failed or cancelled) and the record says so.
 */
export function timelineVersion(comparison: { scenario_version: number; status: string } | null, status: string | undefined): number | null {
  if (!comparison || status === undefined || isActive(status) || isActive(comparison.status)) return null;
  return comparison.scenario_version;
}

/**
 * The scenario version a comparison ran on, and its timeline when it is geographic or a node moves, for the map,
 * the routes' drawing (stations where they are at the playback time) and the SATCOM capacity chart: one request
 * for the page, with `?access=true` (each pass's MODCOD and capacity steps, about a second of the server's time)
 * only when a link has a budget.
 */
export function useScenarioTimeline(scenarioId: string, version: number | null): ScenarioTimeline {
  const [doc, setDoc] = useState<ScenarioDocument | null>(null);
  const [timeline, setTimeline] = useState<TimelinePublic | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  useEffect(() => {
    if (version === null) return;
    const ctl = new AbortController();
    api
      .getVersion(scenarioId, version, ctl.signal)
      .then(async (v) => {
        // a stored version is a validated scenario document (the API types it as an object)
        const d = v.scenario as unknown as ScenarioDocument;
        setDoc(d);
        if (!isGeoScenario(d) && !d.nodes.some((n) => n.mobility)) return;
        setTimeline(await api.timeline(d, ctl.signal, { access: hasBudgets(d) }));
      })
      .catch((err) => {
        if (!isAbort(err)) setErrors(errorLines(err));
      });
    return () => ctl.abort();
  }, [scenarioId, version]);
  return { doc, timeline, errors };
}
