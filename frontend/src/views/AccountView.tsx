/**
 * `/account`: the signed-in user's personal API tokens — create one, optionally expiring after some days (shown once: only its hash is
 * stored), see when each was last used, revoke it.
 */
import { useEffect, useState, type FormEvent } from "react";
import { api, isAbort } from "../api/client";
import type { ApiTokenCreated, ApiTokenPublic } from "../api/types";
import { ErrorList } from "../components/ErrorList";
import { errorLines } from "../lib/errors";
import { usePageTitle } from "./usePageTitle";

function when(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : "never";
}

export function AccountView() {
  usePageTitle("API tokens");
  const [tokens, setTokens] = useState<ApiTokenPublic[] | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const [name, setName] = useState("");
  const [scope, setScope] = useState<"read" | "write">("read");
  const [days, setDays] = useState("");
  const [created, setCreated] = useState<ApiTokenCreated | null>(null);

  const load = (signal?: AbortSignal) =>
    api
      .listTokens(signal)
      .then((page) => setTokens(page.data))
      .catch((err) => {
        if (!isAbort(err)) setErrors(errorLines(err));
      });

  useEffect(() => {
    const ctl = new AbortController();
    load(ctl.signal);
    return () => ctl.abort();
  }, []);

  const create = async (e: FormEvent) => {
    e.preventDefault();
    setErrors([]);
    try {
      setCreated(await api.createToken({ name, scope, expires_days: days.trim() ? Number(days) : null }));
      setName("");
      setDays("");
      await load();
    } catch (err) {
      setErrors(errorLines(err));
    }
  };

  const revoke = async (id: string) => {
    setErrors([]);
    try {
      await api.revokeToken(id);
      await load();
    } catch (err) {
      setErrors(errorLines(err));
    }
  };

  return (
    <section className="card">
      <h1>API tokens</h1>
      <p className="muted">
        For scripts: send <code>Authorization: Bearer &lt;token&gt;</code>. A <em>read</em> token may read and compute; a{" "}
        <em>write</em> token may also change and run, within your project roles.
      </p>
      <form onSubmit={create} className="token-form" aria-label="New API token">
        <label className="field">
          <span>Name</span>
          <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} />
        </label>
        <label className="field">
          <span>Scope</span>
          <select value={scope} onChange={(e) => setScope(e.target.value as "read" | "write")}>
            <option value="read">read</option>
            <option value="write">write</option>
          </select>
        </label>
        <label className="field">
          <span>Expires after (days)</span>
          <input type="number" min={1} max={3650} step={1} value={days} placeholder="never" onChange={(e) => setDays(e.target.value)} />
        </label>
        <button type="submit" className="btn btn-primary">
          Create token
        </button>
      </form>
      {created ? (
        <div className="alert alert-success" role="status">
          Token <strong>{created.name}</strong> created. Copy it now; it is not shown again:{" "}
          <code data-testid="new-token">{created.token}</code>
        </div>
      ) : null}
      <ErrorList title="The request failed:" items={errors} />
      {tokens && tokens.length ? (
        <table className="compact" aria-label="Your API tokens">
          <thead>
            <tr>
              <th>Name</th>
              <th>Token</th>
              <th>Scope</th>
              <th>Created</th>
              <th>Expires</th>
              <th>Last used</th>
              <th>
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tokens.map((t) => (
              <tr key={t.id}>
                <td>{t.name}</td>
                <td>
                  <code>{t.prefix}…</code>
                </td>
                <td>{t.scope}</td>
                <td>{when(t.created_at)}</td>
                <td>{t.expires_at ? when(t.expires_at) : "never"}</td>
                <td>{when(t.last_used_at)}</td>
                <td>
                  <button type="button" className="btn btn-small btn-danger" onClick={() => revoke(t.id)}>
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : tokens ? (
        <p className="muted">No tokens yet.</p>
      ) : null}
    </section>
  );
}
