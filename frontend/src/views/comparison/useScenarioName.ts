import { useEffect, useState } from "react";
import { api } from "../../api/client";

/**
 * The name of the scenario a page belongs to, for its breadcrumbs.
 *
 * Owns:
 * 1. the name read once from GET /api/scenarios/{id} (null until then, and if it cannot be read).
 */
export function useScenarioName(id: string): string | null {
  const [name, setName] = useState<string | null>(null);
  useEffect(() => {
    const ctl = new AbortController();
    api
      .getScenario(id, ctl.signal)
      .then((s) => setName(s.name))
      .catch(() => undefined);
    return () => ctl.abort();
  }, [id]);
  return name;
}
