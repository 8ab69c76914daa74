import { useCallback, useEffect, useId, useState, type ChangeEvent } from "react";
import { Link } from "react-router";
import { ApiError, api, isAbort } from "../api/client";
import type { ScenarioPublic, ScenarioSummary } from "../api/types";
import { ErrorList } from "../components/ErrorList";
import { errorLines } from "../lib/errors";
import { excerpt } from "../lib/format";
import { usePageTitle } from "./usePageTitle";

function formatDate(iso: string | null | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

export function ScenarioList() {
  usePageTitle("Scenarios");
  const inputId = useId();
  const [items, setItems] = useState<ScenarioSummary[] | null>(null);
  const [loadError, setLoadError] = useState<string[]>([]);
  const [importErrors, setImportErrors] = useState<string[]>([]);
  const [imported, setImported] = useState<ScenarioPublic | null>(null);
  const [busy, setBusy] = useState(false);
  const [importName, setImportName] = useState("");

  const load = useCallback(async (signal?: AbortSignal) => {
    try {
      const page = await api.listScenarios(signal);
      setItems(page.data);
      setLoadError([]);
    } catch (err) {
      if (!isAbort(err)) setLoadError(errorLines(err));
    }
  }, []);

  useEffect(() => {
    const ctl = new AbortController();
    void load(ctl.signal);
    return () => ctl.abort();
  }, [load]);

  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const input = e.currentTarget;
    const file = input.files?.[0];
    if (!file) return;
    setImportErrors([]);
    setImported(null);
    setBusy(true);
    try {
      let created: ScenarioPublic;
      if (/\.json$/i.test(file.name)) {
        // scenario JSON: validated and stored as it is
        let doc: unknown;
        try {
          doc = JSON.parse(await file.text());
        } catch (err) {
          setImportErrors([`${file.name} is not valid JSON: ${(err as Error).message}`]);
          return;
        }
        created = await api.createScenario(doc);
      } else {
        // Topology Zoo GraphML or SNDlib native: converted by the server
        try {
          created = await api.importFile(file, importName.trim() || undefined);
        } catch (err) {
          if (err instanceof ApiError && (err.status === 404 || err.status === 405)) {
            setImportErrors([`This server cannot import ${file.name}: it has no import endpoint (POST /api/imports).`]);
            return;
          }
          throw err;
        }
      }
      setImported(created);
      await load();
    } catch (err) {
      setImportErrors(errorLines(err));
    } finally {
      setBusy(false);
      input.value = "";
    }
  };

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Scenarios</h1>
          <p className="muted">Topologies, mobility and flows to compare transport strategies on.</p>
        </div>
        <div className="head-actions">
          <Link to="/scenarios/new" className="btn btn-primary">
            New scenario
          </Link>
        </div>
      </div>

      <section className="card import-box" aria-labelledby={`${inputId}-title`}>
        <h2 id={`${inputId}-title`} className="small-heading">
          Import a scenario
        </h2>
        <div className="import">
          <div className="field">
            <label htmlFor={`${inputId}-name`}>Name for the imported scenario</label>
            <input
              id={`${inputId}-name`}
              type="text"
              className="import-name"
              placeholder="optional; GraphML / SNDlib only"
              value={importName}
              onChange={(e) => setImportName(e.currentTarget.value)}
            />
          </div>
          <input
            id={inputId}
            type="file"
            accept=".json,application/json,.graphml,.xml,.txt"
            className="visually-hidden"
            onChange={onFile}
            disabled={busy}
          />
          <label htmlFor={inputId} className={`btn${busy ? " disabled" : ""}`} title="Scenario JSON, Topology Zoo GraphML or SNDlib native (.txt)">
            Import scenario file
          </label>
        </div>
        <p className="muted small">A scenario document (JSON, see <code>examples/</code>), a Topology Zoo GraphML or an SNDlib native file.</p>
      </section>

      {imported ? (
        <div className="alert alert-success" role="status">
          Imported <Link to={`/scenarios/${encodeURIComponent(String(imported.id))}`}>{imported.name}</Link>{" "}
          (version {imported.version}).
        </div>
      ) : null}
      <ErrorList title="The scenario was not imported:" items={importErrors} />
      <ErrorList title="Could not load the scenarios:" items={loadError} />

      {items === null && !loadError.length ? <p className="muted">Loading…</p> : null}
      {items && items.length === 0 ? (
        <div className="card empty">
          <p>No scenarios yet. Draw a new one, or import a scenario document (see <code>examples/</code>), a Topology Zoo GraphML or an SNDlib file.</p>
        </div>
      ) : null}
      {items && items.length > 0 ? (
        <ul className="scenario-list" aria-label="Scenarios">
          {items.map((s) => (
            <li key={String(s.id)} className="card scenario-item">
              <div className="scenario-item-head">
                <Link to={`/scenarios/${encodeURIComponent(String(s.id))}`} className="scenario-name">
                  {s.name}
                </Link>
                <span className="badge" title="Scenario version">
                  v{s.version}
                </span>
              </div>
              {s.description ? <p className="scenario-desc">{excerpt(s.description, 220)}</p> : null}
              <p className="meta">Updated {formatDate(s.updated_at)}</p>
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}
