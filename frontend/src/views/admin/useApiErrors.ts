/**
 * What a form shows when the API refuses a request: the banner's lines (`errorLines`: every field and
 * message of a 422, or the API's message of a 403/404/409) and, per field, the message next to the
 * control (`humanFieldErrors`, the same helper as the editor's: `password` → "must be …").
 *
 * Owns:
 * 1. the last refusal's lines and field messages, until `clear` or the next `show`.
 */
import { useCallback, useMemo, useState } from "react";
import { ApiError } from "../../api/client";
import { errorLines } from "../../lib/errors";
import { humanFieldErrors } from "../../lib/fieldMessages";

export interface ApiErrors {
  lines: string[];
  /** field name (the body's, e.g. `username`) → message */
  fields: Record<string, string>;
  show: (err: unknown) => void;
  clear: () => void;
}

export function useApiErrors(): ApiErrors {
  const [err, setErr] = useState<unknown>(null);
  const lines = useMemo(() => (err === null ? [] : errorLines(err)), [err]);
  const fields = useMemo(() => (err instanceof ApiError && err.validation ? humanFieldErrors(err.validation) : {}), [err]);
  const show = useCallback((e: unknown) => setErr(e), []);
  const clear = useCallback(() => setErr(null), []);
  return { lines, fields, show, clear };
}
