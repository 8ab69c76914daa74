import type { ScenarioWarning } from "../../api/types";
import { ErrorList } from "../../components/ErrorList";

interface SaveStatusProps {
  savedNote: string | null;
  /** Lines of the refused save: field errors still standing, then other problems. */
  problems: string[];
  /** Warnings about the saved version, shown while there are no unsaved changes. */
  warnings: ScenarioWarning[];
  dirty: boolean;
  conflict: boolean;
  onReload: () => void;
  onSaveAsCopy: () => void;
}

/** What the last save (or reload, restore, import) came to: the note, the problems, the warnings, the conflict's two ways out. */
export function SaveStatus({ savedNote, problems, warnings, dirty, conflict, onReload, onSaveAsCopy }: SaveStatusProps) {
  return (
    <>
      {savedNote ? (
        <div className="alert alert-success" role="status">
          {savedNote}
        </div>
      ) : null}
      <ErrorList title="Not saved:" items={problems} />
      {warnings.length && !dirty ? (
        <div className="alert alert-warn" role="status" data-testid="save-warnings">
          <strong>Saved, with warnings:</strong>
          <ul>
            {warnings.map((w, i) => (
              <li key={i}>{w.message}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {conflict ? (
        <div className="conflict-actions">
          <button type="button" className="btn" onClick={onReload}>
            Reload the saved version (drop my edits)
          </button>
          <button type="button" className="btn btn-primary" onClick={onSaveAsCopy}>
            Save my edits as a new scenario
          </button>
        </div>
      ) : null}
    </>
  );
}
