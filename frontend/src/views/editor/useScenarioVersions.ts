import { useEffect, useState } from "react";
import { api } from "../../api/client";
import type { ScenarioPublic, ScenarioVersionSummary } from "../../api/types";
import { errorLines } from "../../lib/errors";
import { changedFields, type FieldChange } from "../../lib/versionDiff";

export interface VersionDiff {
  from: number;
  to: number;
  changes: FieldChange[];
}

/**
 * The scenario's saved versions.
 *
 * Owns:
 * 1. the list of versions (newest first), read again whenever the server returns a new version of the scenario;
 * 2. the fields that differ between an old version and the current one, cleared when the current version changes.
 *
 * A failed read of an old version goes to `onError` as lines to show.
 */
export function useScenarioVersions(id: string | null, item: ScenarioPublic | null, onError: (lines: string[]) => void) {
  const [versions, setVersions] = useState<ScenarioVersionSummary[]>([]);
  const [versionDiff, setVersionDiff] = useState<VersionDiff | null>(null);
  const version = item?.version;

  useEffect(() => {
    if (!id || version === undefined) return;
    const ctl = new AbortController();
    api
      .listVersions(id, ctl.signal)
      .then((page) => setVersions(page.data))
      .catch(() => setVersions([]));
    return () => ctl.abort();
  }, [id, version]);
  useEffect(() => setVersionDiff(null), [id, version]);

  const showChanges = async (from: number) => {
    if (!id || !item) return;
    try {
      const old = await api.getVersion(id, from);
      setVersionDiff({ from, to: item.version, changes: changedFields(old.scenario, item.scenario) });
    } catch (err) {
      onError(errorLines(err));
    }
  };

  return { versions, versionDiff, showChanges };
}
