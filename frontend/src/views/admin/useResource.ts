/**
 * One API read that a page shows and reads again after a change: the answer, or the lines of the
 * refusal (a non-admin on an admin page sees the API's own 403 message, "only an admin may do this").
 *
 * Owns:
 * 1. the latest answer and error of `read` (an aborted read changes neither);
 * 2. `reload` — reads again (after a create, a change or a delete).
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { ApiError, isAbort } from "../../api/client";
import { errorLines } from "../../lib/errors";

export interface Resource<T> {
  data: T | null;
  /** the refusal's lines; empty when the last read succeeded */
  errors: string[];
  /** the HTTP status of the refusal (403, 404…), null when none */
  status: number | null;
  reload: () => Promise<void>;
}

export function useResource<T>(read: (signal?: AbortSignal) => Promise<T>, deps: readonly unknown[]): Resource<T> {
  const [data, setData] = useState<T | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const [status, setStatus] = useState<number | null>(null);
  const readRef = useRef(read);
  readRef.current = read;
  const run = useCallback(async (signal?: AbortSignal) => {
    try {
      const answer = await readRef.current(signal);
      if (signal?.aborted) return;
      setData(answer);
      setErrors([]);
      setStatus(null);
    } catch (err) {
      if (isAbort(err) || signal?.aborted) return;
      setData(null);
      setErrors(errorLines(err));
      setStatus(err instanceof ApiError ? err.status : null);
    }
  }, []);
  useEffect(() => {
    const ctl = new AbortController();
    void run(ctl.signal);
    return () => ctl.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  const reload = useCallback(() => run(), [run]);
  return { data, errors, status, reload };
}
