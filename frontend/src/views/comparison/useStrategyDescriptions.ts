import { useMemo } from "react";
import { useStrategies } from "../../lib/useStrategies";

/**
 * What each strategy is, for the charts' captions.
 *
 * Owns:
 * 1. the map strategy name → description from the server's list (`useStrategies`; empty until then, or if it fails).
 */
export function useStrategyDescriptions(): Record<string, string> {
  const { strategies } = useStrategies();
  return useMemo(() => Object.fromEntries((strategies ?? []).map((s) => [s.name, s.description])), [strategies]);
}
