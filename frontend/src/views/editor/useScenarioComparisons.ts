import { useEffect, useState } from "react";
import { api } from "../../api/client";
import type { ComparisonSummary } from "../../api/types";

/**
 * The comparisons already run on a scenario.
 *
 * Owns:
 * 1. the list read once when the editor opens (empty for a new scenario, or when the list cannot be read).
 */
export function useScenarioComparisons(id: string | null): ComparisonSummary[] {
  const [comparisons, setComparisons] = useState<ComparisonSummary[]>([]);
  useEffect(() => {
    if (!id) return;
    const ctl = new AbortController();
    api
      .listComparisons(id, ctl.signal)
      .then((p) => setComparisons(p.data))
      .catch(() => setComparisons([]));
    return () => ctl.abort();
  }, [id]);
  return comparisons;
}
