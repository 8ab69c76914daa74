import { useEffect, useState } from "react";
import { api, isAbort } from "../../api/client";
import { FINISHED_STATUSES, type ComparisonPublic, type ProgressEvent } from "../../api/types";
import { errorLines } from "../../lib/errors";

export function isActive(status: string | undefined): boolean {
  return status === "queued" || status === "running";
}

const progressOf = (c: ComparisonPublic): ProgressEvent => ({ status: c.status, progress: c.progress, error: c.error, units_done: c.units_done, units_total: c.units_total });

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
    let source: EventSource | null = null;
    setErrors([]);
    api
      .getComparison(scenarioId, comparisonId, ctl.signal)
      .then((c) => {
        setComparison(c);
        setLive(progressOf(c));
        if (!isActive(c.status)) return;
        source = new EventSource(api.comparisonEventsUrl(scenarioId, comparisonId));
        source.onmessage = (msg) => {
          const ev = JSON.parse(msg.data as string) as ProgressEvent;
          setLive(ev);
          if (FINISHED_STATUSES.includes(ev.status)) {
            source?.close();
            source = null;
            setReload((n) => n + 1);
          }
        };
        source.onerror = () => {
          // the browser reconnects by itself; a closed source will not come back
          if (source && source.readyState === EventSource.CLOSED) setErrors(["Lost the progress stream; reload the page to follow the comparison."]);
        };
      })
      .catch((err) => {
        if (!isAbort(err)) setErrors(errorLines(err));
      });
    return () => {
      ctl.abort();
      source?.close();
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
