import { useEffect, useState } from "react";
import { api, isAbort } from "../../api/client";
import type { SweepPointRunPublic, SweepPointRunSummary } from "../../api/types";
import { errorLines } from "../../lib/errors";

/**
 * Which sweep point's run the per-flow charts show.
 *
 * Owns:
 * 1. the list of points whose representative run the worker kept (GET .../sweep-points), read once;
 * 2. the chosen point (0: the run already in the result document) and its run, fetched when chosen;
 * 3. whether that run is still loading, and why it could not be read.
 */
export function useSweepPointRun(scenarioId: string, comparisonId: string) {
  const [runs, setRuns] = useState<SweepPointRunSummary[]>([]);
  const [point, setPoint] = useState(0);
  const [run, setRun] = useState<SweepPointRunPublic | null>(null);
  const [problems, setProblems] = useState<string[]>([]);

  useEffect(() => {
    const ctl = new AbortController();
    api
      .listSweepPointRuns(scenarioId, comparisonId, ctl.signal)
      .then((r) => setRuns(r.data))
      .catch((err) => {
        if (!isAbort(err)) setRuns([]);
      });
    return () => ctl.abort();
  }, [scenarioId, comparisonId]);

  useEffect(() => {
    setProblems([]);
    if (point === 0) {
      setRun(null);
      return;
    }
    const ctl = new AbortController();
    api
      .getSweepPointRun(scenarioId, comparisonId, point, ctl.signal)
      .then(setRun)
      .catch((err) => {
        if (!isAbort(err)) setProblems(errorLines(err));
      });
    return () => ctl.abort();
  }, [scenarioId, comparisonId, point]);

  /** The run of the chosen point, once it has arrived (null for point 0 and while loading). */
  const shownRun = run && run.point === point ? run : null;
  const loading = point !== 0 && !shownRun && !problems.length;
  return { runs, point, setPoint, shownRun, loading, problems };
}
