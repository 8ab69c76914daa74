import { useEffect, useState } from "react";
import { api, isAbort } from "../../api/client";
import { followProgress, progressOf } from "../../api/progress";
import type { ComparisonPublic, ProgressEvent } from "../../api/types";
import { errorLines } from "../../lib/errors";

export function isActive(status: string | undefined): boolean {
  return status === "queued" || status === "running";
}

/**
 * The comparison, followed live.
 *
 * Owns:
 * 1. the comparison record: one GET, then one GET more for the result once it has finished;
 * 2. its progress: from that GET, then from server-sent events while it is queued or running (no polling),
 *    the stream closed once a finished status arrives or the page is left;
 * 3. the lines to show when it cannot be read or the stream is lost for good.
 */
export function useComparison(scenarioId: string, comparisonId: string) {
  const [comparison, setComparison] = useState<ComparisonPublic | null>(null);
  const [live, setLive] = useState<ProgressEvent | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    const ctl = new AbortController();
    let stop: (() => void) | null = null;
    setErrors([]);
    api
      .getComparison(scenarioId, comparisonId, ctl.signal)
      .then((c) => {
        setComparison(c);
        setLive(progressOf(c));
        if (!isActive(c.status)) return;
        stop = followProgress<ProgressEvent>(
          api.comparisonEventsUrl(scenarioId, comparisonId),
          setLive,
          () => setReload((n) => n + 1),
          () => setErrors(["Lost the progress stream; reload the page to follow the comparison."]),
        );
      })
      .catch((err) => {
        if (!isAbort(err)) setErrors(errorLines(err));
      });
    return () => {
      ctl.abort();
      stop?.();
    };
  }, [scenarioId, comparisonId]);

  // the final state with the result document
  useEffect(() => {
    if (!reload) return;
    const ctl = new AbortController();
    api
      .getComparison(scenarioId, comparisonId, ctl.signal)
      .then((c) => {
        setComparison(c);
        setLive(progressOf(c));
      })
      .catch((err) => {
        if (!isAbort(err)) setErrors(errorLines(err));
      });
    return () => ctl.abort();
  }, [reload, scenarioId, comparisonId]);

  return { comparison, live, errors };
}
