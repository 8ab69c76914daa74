/**
 * `/admin/users` (admins): every account with its flags — admin, active, may run the root engines
 * (`can_run_linux`) — each a checkbox that PATCHes the account at once; a new password for an account
 * (which ends its sessions); a new account; delete (asked once more). A non-admin who opens the page sees the API's refusal, not the list.
 *
 * Owns:
 * 1. the new-account form and its field messages;
 * 2. which account's delete is being confirmed, and the note of the last change.
 */
import { TextField } from "../../components/fields";
import { useId, useState, type FormEvent } from "react";
import { api } from "../../api/client";
import type { UserPublic, UserUpdate } from "../../api/types";
import { ErrorList } from "../../components/ErrorList";
import { shortTime } from "../../lib/identity";
import { usePageTitle } from "../usePageTitle";
import { useSignedInUser } from "../signedInUser";
import { useApiErrors } from "./useApiErrors";
import { useResource } from "./useResource";

type Flag = keyof Pick<UserUpdate, "is_admin" | "is_active" | "can_run_linux">;
const FLAGS: readonly [Flag, string][] = [
  ["is_admin", "Admin"],
  ["is_active", "Active"],
  ["can_run_linux", "May run root engines (linux, mininet-wifi)"],
];

export function UsersView() {
  usePageTitle("Users", "Admin");
  const me = useSignedInUser();
  const users = useResource((signal) => api.listUsers(signal), []);
  const rowErrors = useApiErrors();
  const formErrors = useApiErrors();
  const [note, setNote] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  /** a flag being changed, shown as asked until the API answers (then as the API has it) */
  const [pending, setPending] = useState<{ user: string; flag: Flag; value: boolean } | null>(null);
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [isAdmin, setIsAdmin] = useState(false);
  const [canRunLinux, setCanRunLinux] = useState(false);

  const act = async (what: () => Promise<string>) => {
    setBusy(true);
    rowErrors.clear();
    setNote(null);
    try {
      setNote(await what());
      await users.reload();
    } catch (err) {
      rowErrors.show(err);
    } finally {
      setBusy(false);
      setConfirming(null);
      setPending(null);
    }
  };
  const toggle = (u: UserPublic, flag: Flag, value: boolean) => {
    setPending({ user: u.id, flag, value });
    return act(async () => {
      await api.updateUser(u.id, { [flag]: value });
      return `${u.username}: ${FLAGS.find(([f]) => f === flag)![1].toLowerCase()} ${value ? "on" : "off"}.`;
    });
  };
  const remove = (u: UserPublic) =>
    act(async () => {
      await api.deleteUser(u.id);
      return `Deleted ${u.username}.`;
    });

  const create = async (e: FormEvent) => {
    e.preventDefault();
    formErrors.clear();
    setNote(null);
    try {
      const u = await api.createUser({ username, password, is_admin: isAdmin, can_run_linux: canRunLinux });
      setNote(`Created ${u.username}.`);
      setUsername("");
      setPassword("");
      setIsAdmin(false);
      setCanRunLinux(false);
      await users.reload();
    } catch (err) {
      formErrors.show(err);
    }
  };
  return (
    <section className="card admin-page">
      <h1>Users</h1>
      <ErrorList title="Could not load the users:" items={users.errors} />
      {users.status === 403 ? null : (
        <>
          <p className="muted">
            Accounts of this service. New users belong to no project until a project owner adds them; only users who may run
            root engines can start comparisons on <code>linux</code> or <code>mininet-wifi</code>.
          </p>
          {note ? (
            <div className="alert alert-success" role="status">
              {note}
            </div>
          ) : null}
          <ErrorList title="That did not work:" items={rowErrors.lines} />
          {users.data ? (
            <table className="compact admin-table" aria-label="Users">
              <thead>
                <tr>
                  <th scope="col">Username</th>
                  {FLAGS.map(([f, label]) => (
                    <th scope="col" key={f}>
                      {label}
                    </th>
                  ))}
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {users.data.data.map((u) => (
                  <tr key={u.id} data-testid={`user-${u.username}`}>
                    <th scope="row">{u.username}</th>
                    {FLAGS.map(([f, label]) => (
                      <td key={f}>
                        <input
                          type="checkbox"
                          aria-label={`${label}: ${u.username}`}
                          checked={pending?.user === u.id && pending.flag === f ? pending.value : u[f]}
                          disabled={busy}
                          onChange={(e) => void toggle(u, f, e.currentTarget.checked)}
                        />
                      </td>
                    ))}
                    <td>{shortTime(u.created_at)}</td>
                    <td className="row-actions">
                      <PasswordReset user={u} onDone={(text) => setNote(text)} />{" "}
                      {confirming === u.id ? (
                        <span role="group" aria-label={`Delete ${u.username}?`} className="confirm">
                          <span>Delete {u.username} with their tokens and memberships?</span>{" "}
                          <button type="button" className="btn btn-small btn-danger" disabled={busy} onClick={() => void remove(u)}>
                            Delete
                          </button>{" "}
                          <button type="button" className="btn btn-small" onClick={() => setConfirming(null)}>
                            Keep
                          </button>
                        </span>
                      ) : (
                        <button
                          type="button"
                          className="btn btn-small"
                          disabled={busy || u.id === me?.id}
                          title={u.id === me?.id ? "You cannot delete your own account" : undefined}
                          onClick={() => setConfirming(u.id)}
                          aria-label={`Delete ${u.username}…`}
                        >
                          Delete…
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : users.errors.length ? null : (
            <p className="muted">Loading…</p>
          )}
          {users.data ? (
            <form onSubmit={create} className="admin-form" aria-label="New user">
              <h2 className="small-heading">New user</h2>
              <TextField label="Username" value={username} onChange={setUsername} required maxLength={64} autoComplete="off" error={formErrors.fields.username} />
              <TextField label="Password" type="password" value={password} onChange={setPassword} required autoComplete="new-password" error={formErrors.fields.password} />
              <label>
                <input type="checkbox" checked={isAdmin} onChange={(e) => setIsAdmin(e.currentTarget.checked)} /> Admin
              </label>
              <label>
                <input type="checkbox" checked={canRunLinux} onChange={(e) => setCanRunLinux(e.currentTarget.checked)} /> May run
                root engines
              </label>
              <button type="submit" className="btn btn-primary">
                Create user
              </button>
              <ErrorList title="The user was not created:" items={formErrors.lines} />
            </form>
          ) : null}
        </>
      )}
    </section>
  );
}

/** "Set password…" for one account: a labelled field, Save and Cancel; the API's refusal named at the field. */
function PasswordReset({ user, onDone }: { user: UserPublic; onDone: (note: string) => void }) {
  const id = useId();
  const errors = useApiErrors();
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState("");
  if (!open)
    return (
      <button type="button" className="btn btn-small" onClick={() => setOpen(true)} aria-label={`Set password of ${user.username}…`}>
        Set password…
      </button>
    );
  const save = async (e: FormEvent) => {
    e.preventDefault();
    errors.clear();
    try {
      await api.updateUser(user.id, { password });
      setOpen(false);
      setPassword("");
      onDone(`New password set for ${user.username}; their sessions ended.`);
    } catch (err) {
      errors.show(err);
    }
  };
  const message = errors.fields.password ?? errors.lines[0];
  return (
    <form onSubmit={save} className="inline-form" aria-label={`Set the password of ${user.username}`}>
      <label htmlFor={`${id}-pw`} className="visually-hidden">
        New password for {user.username}
      </label>
      <input
        id={`${id}-pw`}
        type="password"
        autoComplete="new-password"
        value={password}
        onChange={(e) => setPassword(e.currentTarget.value)}
        required
        aria-invalid={message ? true : undefined}
        aria-describedby={message ? `${id}-pw-error` : undefined}
      />{" "}
      <button type="submit" className="btn btn-small btn-primary">
        Save
      </button>{" "}
      <button type="button" className="btn btn-small" onClick={() => setOpen(false)}>
        Cancel
      </button>
      {message ? (
        <span className="field-error" id={`${id}-pw-error`} role="alert">
          {message}
        </span>
      ) : null}
    </form>
  );
}
