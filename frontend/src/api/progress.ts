/**
 * Progress of a comparison or a worker job, followed over its server-sent event stream
 * (`GET .../comparisons/{cid}/events`, `GET /api/jobs/{id}/events`): one follower for every page.
 */
import { FINISHED_STATUSES, type ComparisonPublic, type ProgressEvent } from "./types";

/** A comparison record's progress fields, as its event stream sends them. */
export const progressOf = (c: ComparisonPublic): ProgressEvent => ({
  status: c.status, progress: c.progress, error: c.error, units_done: c.units_done, units_total: c.units_total,
});

/**
 * Follow a server-sent event stream of progress messages (`JobPublic` or `ProgressEvent`) until one reports a
 * finished status (`onEnd` with it, the stream closed); `onLost` when the browser gives the stream up for good.
 * Returns a function that stops following.
 */
export function followProgress<T extends { status: string }>(
  url: string,
  onMessage: (msg: T) => void,
  onEnd: (last: T) => void,
  onLost: () => void,
): () => void {
  let source: EventSource | null = new EventSource(url);
  source.onmessage = (ev) => {
    const msg = JSON.parse(ev.data as string) as T;
    onMessage(msg);
    if (FINISHED_STATUSES.includes(msg.status)) {
      source?.close();
      source = null;
      onEnd(msg);
    }
  };
  source.onerror = () => {
    // the browser reconnects by itself; a closed source will not come back
    if (source && source.readyState === EventSource.CLOSED) onLost();
  };
  return () => {
    source?.close();
    source = null;
  };
}
