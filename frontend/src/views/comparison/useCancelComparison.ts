import { useState } from "react";
import { ApiError, api } from "../../api/client";
import { errorLines } from "../../lib/errors";

/**
 * Cancelling a queued or running comparison.
 *
 * Owns:
 * 1. the cancel request (POST .../cancel) and whether one was sent: the button stays disabled after a
 *    successful request, until the progress stream reports the comparison cancelled;
 * 2. why it was refused, in words (a server without the cancel endpoint says so).
 */
export function useCancelComparison(scenarioId: string, comparisonId: string) {
  const [cancelError, setCancelError] = useState<string[]>([]);
  const [cancelling, setCancelling] = useState(false);

  const cancel = async () => {
    setCancelling(true);
    setCancelError([]);
    try {
      await api.cancelComparison(scenarioId, comparisonId);
    } catch (err) {
      setCancelError(err instanceof ApiError && (err.status === 404 || err.status === 405) ? ["This server cannot cancel comparisons (no cancel endpoint)."] : errorLines(err));
      setCancelling(false);
    }
  };

  return { cancel, cancelling, cancelError };
}
