import type { ScenarioVersionSummary } from "../../api/types";
import { formatValue } from "../../lib/versionDiff";
import type { VersionDiff } from "./useScenarioVersions";

interface VersionsPanelProps {
  versions: ScenarioVersionSummary[];
  versionDiff: VersionDiff | null;
  /** Restoring needs the edits saved first. */
  dirty: boolean;
  onShowChanges: (version: number) => void;
  onRestore: (version: number) => void;
}

/** The saved versions with who saved them, the changes since an old one, and restoring it. */
export function VersionsPanel({ versions, versionDiff, dirty, onShowChanges, onRestore }: VersionsPanelProps) {
  return (
    <section className="card" aria-labelledby="versions-title">
      <div className="card-head">
        <h2 id="versions-title">Versions</h2>
      </div>
      <ul className="history" aria-label="Versions">
        {versions.map((v) => (
          <li key={v.version}>
            <strong>v{v.version}</strong>
            <span className="muted small">
              {new Date(v.saved_at).toLocaleString()} · {v.saved_by ?? "before accounts"}
            </span>
            {v.current ? (
              <span className="badge">current</span>
            ) : (
              <>
                <button type="button" className="btn btn-small" onClick={() => onShowChanges(v.version)}>
                  Changes since v{v.version}
                </button>
                <button type="button" className="btn btn-small" onClick={() => onRestore(v.version)} disabled={dirty}>
                  Restore v{v.version}
                </button>
              </>
            )}
          </li>
        ))}
      </ul>
      {versionDiff ? (
        <div className="version-diff">
          <h3 className="small">
            Changes from v{versionDiff.from} to v{versionDiff.to}
            {versionDiff.changes.length ? "" : ": none"}
          </h3>
          {versionDiff.changes.length ? (
            <ul aria-label={`Changes from v${versionDiff.from} to v${versionDiff.to}`} className="small">
              {versionDiff.changes.map((c) => (
                <li key={c.path}>
                  <code>{c.path}</code>: {formatValue(c.before)} → {formatValue(c.after)}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
