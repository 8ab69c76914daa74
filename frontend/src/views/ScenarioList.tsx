import { useCallback, useEffect, useId, useMemo, useState, type ChangeEvent } from "react";
import { Link } from "react-router";
import { ApiError, api, isAbort } from "../api/client";
import type { ProjectPublic, ScenarioPublic, ScenarioSummary } from "../api/types";
import { ErrorList } from "../components/ErrorList";
import { errorLines } from "../lib/errors";
import { copyName, filterScenarios, type ScenarioSort } from "../lib/scenarioList";
import { ScenarioRow } from "./scenarios/ScenarioRow";
import { usePageTitle } from "./usePageTitle";

export function ScenarioList() {
  usePageTitle("Scenarios");
  const inputId = useId();
  const [items, setItems] = useState<ScenarioSummary[] | null>(null);
  const [loadError, setLoadError] = useState<string[]>([]);
  const [importErrors, setImportErrors] = useState<string[]>([]);
  const [imported, setImported] = useState<ScenarioPublic | null>(null);
  const [busy, setBusy] = useState(false);
  const [importName, setImportName] = useState("");
  const [projects, setProjects] = useState<ProjectPublic[]>([]);
  const [query, setQuery] = useState("");
  const [projectId, setProjectId] = useState<string | null>(null);
  const [sort, setSort] = useState<ScenarioSort>("name");
  const [note, setNote] = useState<string | null>(null);
  const [total, setTotal] = useState(0);
  const [rowErrors, setRowErrors] = useState<string[]>([]);
  const shown = useMemo(() => (items ? filterScenarios(items, { query, projectId, sort }) : null), [items, query, projectId, sort]);
  const projectName = (id: string) => projects.find((p) => p.id === id)?.name ?? null;

  const load = useCallback(async (signal?: AbortSignal) => {
    try {
      const page = await api.listScenarios(signal);
      setItems(page.data);
      setTotal(page.count);
      setLoadError([]);
    } catch (err) {
      if (!isAbort(err)) setLoadError(errorLines(err));
    }
  }, []);

  useEffect(() => {
    const ctl = new AbortController();
    void load(ctl.signal);
    api
      .listProjects(ctl.signal)
      .then((p) => setProjects(p.data))
      .catch(() => undefined);
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
        // GraphML, SNDlib native, CORE session XML or an ns-2 trace: converted by the server (GET /api/formats)
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
              placeholder="optional; not for scenario JSON"
              value={importName}
              onChange={(e) => setImportName(e.currentTarget.value)}
            />
          </div>
          <input
            id={inputId}
            type="file"
            accept=".json,application/json,.graphml,.xml,.txt,.ns_movements,.ns2,.scen"
            className="visually-hidden"
            onChange={onFile}
            disabled={busy}
          />
          <label htmlFor={inputId} className={`btn${busy ? " disabled" : ""}`} title="Scenario JSON, GraphML, SNDlib native (.txt), CORE session XML or an ns-2 mobility trace">
            Import scenario file
          </label>
        </div>
        <p className="muted small">A scenario document (JSON, see <code>examples/</code>), a Topology Zoo GraphML, an SNDlib native file, a CORE session (XML) or an ns-2 <code>setdest</code> mobility trace.</p>
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
        <div className="list-controls" role="search" aria-label="Find a scenario">
          <div className="field">
            <label htmlFor={`${inputId}-q`}>Search</label>
            <input id={`${inputId}-q`} type="search" value={query} placeholder="name or description" onChange={(e) => setQuery(e.currentTarget.value)} />
          </div>
          <div className="field">
            <label htmlFor={`${inputId}-project`}>Project</label>
            <select id={`${inputId}-project`} value={projectId ?? ""} onChange={(e) => setProjectId(e.currentTarget.value || null)}>
              <option value="">All projects</option>
              {projects.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={`${inputId}-sort`}>Order</label>
            <select id={`${inputId}-sort`} value={sort} onChange={(e) => setSort(e.currentTarget.value as ScenarioSort)}>
              <option value="name">By name</option>
              <option value="updated">Recently updated first</option>
            </select>
          </div>
          <p className="muted small" aria-live="polite">
            {shown?.length === items.length ? `${items.length} scenarios` : `${shown?.length ?? 0} of ${items.length} scenarios`}
            {total > items.length ? ` (the first ${items.length} of ${total} by name)` : ""}
          </p>
        </div>
      ) : null}
      {note ? (
        <div className="alert alert-success" role="status">
          {note}
        </div>
      ) : null}
      <ErrorList title="That did not work:" items={rowErrors} />
      {shown && shown.length > 0 ? (
        <ul className="scenario-list" aria-label="Scenarios">
          {shown.map((s) => (
            <ScenarioRow
              key={String(s.id)}
              s={s}
              projectName={projects.length > 1 ? projectName(s.project_id) : null}
              copyAs={copyName(s.name, (items ?? []).map((x) => x.name))}
              onChanged={(text) => {
                setNote(text);
                setRowErrors([]);
                void load();
              }}
              onError={(lines) => {
                setNote(null);
                setRowErrors(lines);
              }}
            />
          ))}
        </ul>
      ) : null}
    </>
  );
}
