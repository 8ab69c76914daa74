import { useEffect, useState } from "react";
import { api, isAbort } from "../api/client";
import type { StrategyInfo } from "../api/types";

/**
 * The transport strategies the server offers (`GET /api/strategies`), for every chooser and caption.
 *
 * Owns:
 * 1. the list, read once per mount: `null` while it loads, `[]` if the request failed;
 * 2. the failure itself (`error`, for a component that shows it), `null` otherwise.
 */
export function useStrategies(): { strategies: StrategyInfo[] | null; error: unknown } {
  const [state, setState] = useState<{ strategies: StrategyInfo[] | null; error: unknown }>({ strategies: null, error: null });
  useEffect(() => {
    const ctl = new AbortController();
    api
      .listStrategies(ctl.signal)
      .then((strategies) => setState({ strategies, error: null }))
      .catch((error) => {
        if (!isAbort(error)) setState({ strategies: [], error });
      });
    return () => ctl.abort();
  }, []);
  return state;
}
