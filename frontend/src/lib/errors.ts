/** Turn anything thrown by the API client into lines to show (pure). */
import { ApiError } from "../api/client";
import { formatValidationErrors } from "./format";

export function errorLines(err: unknown): string[] {
  if (err instanceof ApiError && err.validation) return formatValidationErrors(err.validation);
  if (err instanceof Error) return [err.message];
  return [String(err)];
}
