import { useEffect, useState } from "react";
import { api } from "../../api/client";
import type { StrategyInfo } from "../../api/types";

/**
 * What each strategy is, for the charts' captions.
 *
 * Owns:
 * 1. the map strategy name → description from GET /api/strategies, read once (empty until then, or if it fails).
 */
export function useStrategyDescriptions(): Record<string, string> {
  const [map, setMap] = useState<Record<string, string>>({});
  useEffect(() => {
    const ctl = new AbortController();
    api
      .listStrategies(ctl.signal)
      .then((list: StrategyInfo[]) => setMap(Object.fromEntries(list.map((s) => [s.name, s.description]))))
      .catch(() => undefined);
    return () => ctl.abort();
  }, []);
  return map;
}
