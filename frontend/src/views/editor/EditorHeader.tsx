import { Link } from "react-router";
import type { ScenarioPublic } from "../../api/types";
import { ExportMenu } from "../../components/ExportMenu";

/** The breadcrumb trail: Scenarios, then the scenario's name when there is one. */
export function Breadcrumbs({ name }: { name?: string }) {
  return (
    <nav className="breadcrumbs" aria-label="Breadcrumb">
      <Link to="/">Scenarios</Link>
      {name ? (
        <>
          <span aria-hidden="true"> / </span>
          <span aria-current="page">{name}</span>
        </>
      ) : null}
    </nav>
  );
}

interface EditorHeaderProps {
  id: string | null;
  title: string;
  item: ScenarioPublic | null;
  dirty: boolean;
  saving: boolean;
  onSave: () => void;
  /** The run dialog is open. */
  picking: boolean;
  onTogglePicking: () => void;
}

/** Title with version and unsaved badges, description, and the actions: Save, Compare (run dialog), Analysis, Export. */
export function EditorHeader({ id, title, item, dirty, saving, onSave, picking, onTogglePicking }: EditorHeaderProps) {
  return (
    <div className="page-head">
      <div>
        <h1>
          {title} {item ? <span className="badge">v{item.version}</span> : null}
          {dirty ? (
            <span className="badge badge-warn" data-testid="unsaved">
              unsaved changes
            </span>
          ) : null}
        </h1>
        {item?.description ? <p className="description">{item.description}</p> : null}
      </div>
      <div className="head-actions">
        <button type="button" className="btn btn-primary" onClick={onSave} disabled={saving}>
          {saving ? "Saving…" : "Save"}
        </button>
        {id ? (
          <button
            type="button"
            className="btn"
            onClick={onTogglePicking}
            aria-expanded={picking}
            disabled={dirty}
            title={dirty ? "Save the scenario first" : "Run strategies on this scenario"}
          >
            Compare
          </button>
        ) : null}
        {id ? (
          <Link className="btn" to={`/scenarios/${encodeURIComponent(id)}/analysis`} title="Failures, capacity planning, 2-D sweeps">
            Analysis
          </Link>
        ) : null}
        {id ? <ExportMenu id={id} /> : null}
      </div>
    </div>
  );
}
