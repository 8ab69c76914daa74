/**
 * `/admin/audit` (admins): the audit log, newest first, a page at a time, filtered by what the API
 * filters on (`action`, `username`). A non-admin who opens the page sees the API's refusal.
 *
 * Owns:
 * 1. the filters being typed and the ones applied (applied on submit, so each key is not a request);
 * 2. the page shown (`skip`).
 */
import { useId, useState, type FormEvent } from "react";
import { api, type AuditQuery } from "../../api/client";
import type { AuditEntryPublic } from "../../api/types";
import { ErrorList } from "../../components/ErrorList";
import { shortTime } from "../../lib/identity";
import { usePageTitle } from "../usePageTitle";
import { useResource } from "./useResource";

/** Entries per page. */
export const AUDIT_PAGE = 50;

/** An entry's detail as text: `role=editor, user=alice` (keys sorted; empty when none). */
export function detailText(detail: AuditEntryPublic["detail"]): string {
  if (!detail) return "";
  return Object.keys(detail)
    .sort()
    .map((k) => `${k}=${typeof detail[k] === "string" ? detail[k] : JSON.stringify(detail[k])}`)
    .join(", ");
}

/** An entry's target as people read it: a project's name (for `project_*` and `member_*` entries) when known. */
export function targetText(entry: AuditEntryPublic, projectNames: ReadonlyMap<string, string>): string {
  const name = entry.target && /^(project|member)_/.test(entry.action) ? projectNames.get(entry.target) : undefined;
  return name ? `project ${name}` : (entry.target ?? "");
}

export function AuditView() {
  usePageTitle("Audit log", "Admin");
  const id = useId();
  const [action, setAction] = useState("");
  const [username, setUsername] = useState("");
  const [applied, setApplied] = useState<AuditQuery>({});
  const [skip, setSkip] = useState(0);
  const page = useResource((signal) => api.listAudit({ ...applied, skip, limit: AUDIT_PAGE }, signal), [applied, skip]);
  // project entries name their project by id: shown by its name (admins see every project)
  const projects = useResource((signal) => api.listProjects(signal), []);
  const projectNames = new Map((projects.data?.data ?? []).map((p) => [p.id, p.name]));

  const apply = (e: FormEvent) => {
    e.preventDefault();
    setApplied({ action: action.trim() || undefined, username: username.trim() || undefined });
    setSkip(0);
  };
  const count = page.data?.count ?? 0;
  const rows = page.data?.data ?? [];

  return (
    <section className="card admin-page">
      <h1>Audit log</h1>
      <ErrorList title="Could not load the audit log:" items={page.errors} />
      {page.status === 403 ? null : (
        <>
          <form onSubmit={apply} className="admin-form" role="search" aria-label="Filter the audit log">
            <div className="field">
              <label htmlFor={`${id}-action`}>Action</label>
              <input id={`${id}-action`} value={action} onChange={(e) => setAction(e.currentTarget.value)} maxLength={40} placeholder="e.g. member_set" />
            </div>
            <div className="field">
              <label htmlFor={`${id}-user`}>Username</label>
              <input id={`${id}-user`} value={username} onChange={(e) => setUsername(e.currentTarget.value)} maxLength={64} />
            </div>
            <button type="submit" className="btn">
              Filter
            </button>
          </form>
          <p className="muted small" aria-live="polite">
            {page.data ? (count ? `Entries ${skip + 1}–${skip + rows.length} of ${count}` : "No entries.") : "Loading…"}
          </p>
          {rows.length ? (
            <table className="compact admin-table" aria-label="Audit log">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">User</th>
                  <th scope="col">Action</th>
                  <th scope="col">Target</th>
                  <th scope="col">Address</th>
                  <th scope="col">Detail</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.id}>
                    <td>{shortTime(r.at)}</td>
                    <td>{r.username ?? ""}</td>
                    <td>
                      <code>{r.action}</code>
                    </td>
                    <td>{targetText(r, projectNames)}</td>
                    <td>{r.ip ?? ""}</td>
                    <td>{detailText(r.detail)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
          <div className="actions">
            <button type="button" className="btn btn-small" disabled={skip === 0} onClick={() => setSkip(Math.max(0, skip - AUDIT_PAGE))}>
              Newer
            </button>{" "}
            <button type="button" className="btn btn-small" disabled={skip + AUDIT_PAGE >= count} onClick={() => setSkip(skip + AUDIT_PAGE)}>
              Older
            </button>
          </div>
        </>
      )}
    </section>
  );
}
