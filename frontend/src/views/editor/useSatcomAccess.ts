import { useCallback, useEffect, useState } from "react";
import { api, isAbort } from "../../api/client";
import type { ScenarioDocument, TimelinePublic } from "../../api/types";
import { errorLines } from "../../lib/errors";
import { isGeoScenario } from "../../lib/geo";
import { hasOrbits } from "../../lib/satcomEditor";

const DEBOUNCE_MS = 800;

export interface SatcomAccess {
  /** The scenario is geographic with satellites on orbits: the report applies. */
  applies: boolean;
  on: boolean;
  setOn: (on: boolean) => void;
  /** The last answer of `POST /api/timeline?access=true` for the document (null: none yet or off). */
  timeline: TimelinePublic | null;
  loading: boolean;
  error: string | null;
  /** Incremented by `showTracks`: the map zooms out to the ground tracks at each new value. */
  fitTracks: number;
  showTracks: () => void;
}

/**
 * The access report and ground tracks of the document being edited (saved or not).
 *
 * Owns:
 * 1. whether they are computed: off until asked for (a report costs the server one to two seconds of CPU per
 *    edit, which a comparison started from the editor would compete with);
 * 2. the request `POST /api/timeline?access=true` for the current document, debounced and the stale one aborted
 *    (a budgeted scenario costs about a second of the server's time);
 * 3. its answer (passes in `access`, sub-satellite points in `ground_tracks`) or its error;
 * 4. the requests to zoom the map out to the ground tracks.
 */
export function useSatcomAccess(doc: ScenarioDocument): SatcomAccess {
  const applies = isGeoScenario(doc) && hasOrbits(doc);
  const [on, setOn] = useState(false);
  const [timeline, setTimeline] = useState<TimelinePublic | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fitTracks, setFitTracks] = useState(0);
  const showTracks = useCallback(() => setFitTracks((n) => n + 1), []);
  useEffect(() => {
    if (!applies || !on) {
      setTimeline(null);
      setLoading(false);
      return;
    }
    const ctl = new AbortController();
    setLoading(true);
    const timer = setTimeout(() => {
      api
        .timeline(doc, ctl.signal, { access: true })
        .then((tl) => {
          setTimeline(tl);
          setError(null);
          setLoading(false);
        })
        .catch((err) => {
          if (isAbort(err)) return;
          setError(errorLines(err).join("; "));
          setLoading(false);
        });
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      ctl.abort();
    };
  }, [doc, applies, on]);
  return { applies, on, setOn, timeline: applies && on ? timeline : null, loading, error: applies && on ? error : null, fitTracks, showTracks };
}
