/**
 * One scenario in the list: its name (to the editor), version, project, description and last update, and
 * its actions: duplicate (a fork under a free name, in the same project) and delete (asked once more, inline).
 *
 * Owns:
 * 1. whether the delete is being confirmed, and the action under way.
 */
import { useState } from "react";
import { Link } from "react-router";
import { api } from "../../api/client";
import type { ScenarioSummary } from "../../api/types";
import { errorLines } from "../../lib/errors";
import { excerpt } from "../../lib/format";
import { shortTime } from "../../lib/identity";

interface ScenarioRowProps {
  s: ScenarioSummary;
  projectName: string | null;
  /** the name a duplicate gets */
  copyAs: string;
  /** after a duplicate or a delete: a note to show ("Deleted “x”.") and the list reloaded */
  onChanged: (note: string) => void;
  onError: (lines: string[]) => void;
}

export function ScenarioRow({ s, projectName, copyAs, onChanged, onError }: ScenarioRowProps) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const act = async (what: () => Promise<string>) => {
    setBusy(true);
    try {
      onChanged(await what());
    } catch (err) {
      onError(errorLines(err));
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  };
  const duplicate = () => act(async () => `Duplicated as “${(await api.forkScenario(s.id, { name: copyAs })).name}”.`);
  const remove = () => act(async () => {
    await api.deleteScenario(s.id);
    return `Deleted “${s.name}”.`;
  });
  return (
    <li className="card scenario-item" data-testid={`scenario-${s.name}`}>
      <div className="scenario-item-head">
        <Link to={`/scenarios/${encodeURIComponent(String(s.id))}`} className="scenario-name">
          {s.name}
        </Link>
        <span className="badge" title="Scenario version">
          v{s.version}
        </span>
      </div>
      {s.description ? <p className="scenario-desc">{excerpt(s.description, 220)}</p> : null}
      <p className="meta">
        {projectName ? `Project ${projectName} · ` : ""}Updated {shortTime(s.updated_at)}
      </p>
      <div className="actions scenario-actions">
        <button type="button" className="btn btn-small" disabled={busy} onClick={duplicate} aria-label={`Duplicate ${s.name}`}>
          Duplicate
        </button>
        {confirming ? (
          <span role="group" aria-label={`Delete ${s.name}?`} className="confirm">
            <span>Delete “{s.name}” with its versions and comparisons?</span>{" "}
            <button type="button" className="btn btn-small btn-danger" disabled={busy} onClick={remove}>
              Delete
            </button>{" "}
            <button type="button" className="btn btn-small" disabled={busy} onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </span>
        ) : (
          <button type="button" className="btn btn-small" disabled={busy} onClick={() => setConfirming(true)} aria-label={`Delete ${s.name}…`}>
            Delete…
          </button>
        )}
      </div>
    </li>
  );
}
