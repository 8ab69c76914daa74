/**
 * `/projects/:id`: one project — its members and their roles for every member; for its owners (and
 * admins) also rename, delete (refused by the API while it holds scenarios), add a member by username
 * with a role, change a role and remove a member (the API refuses leaving it without an owner, and the
 * page shows why). A project you are not a member of is "not found", as the API says.
 *
 * Owns:
 * 1. the rename and add-member forms, the delete being confirmed, the note of the last change.
 */
import { TextField } from "../../components/fields";
import { useId, useState, type FormEvent } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { api } from "../../api/client";
import type { MemberPublic, ProjectPublic, ProjectRole } from "../../api/types";
import { ErrorList } from "../../components/ErrorList";
import { usePageTitle } from "../usePageTitle";
import { useApiErrors } from "./useApiErrors";
import { useResource } from "./useResource";

const ROLES: readonly ProjectRole[] = ["viewer", "editor", "owner"];

export function ProjectView() {
  const { id: projectId = "" } = useParams();
  const project = useResource((signal) => api.getProject(projectId, signal), [projectId]);
  const members = useResource((signal) => api.listMembers(projectId, signal), [projectId]);
  usePageTitle(project.data?.name ?? "Project", "Projects");
  const p = project.data;
  return (
    <section className="card admin-page">
      <nav className="breadcrumbs" aria-label="Breadcrumb">
        <Link to="/projects">Projects</Link>
        <span aria-hidden="true"> / </span>
        <span aria-current="page">{p?.name ?? "Project"}</span>
      </nav>
      <h1>{p ? `Project ${p.name}` : "Project"}</h1>
      <ErrorList title="Could not load the project:" items={project.errors} />
      {p ? (
        <>
          <p className="muted">
            {p.description ? `${p.description} · ` : ""}Your role: <strong>{p.role}</strong>
          </p>
          {p.role === "owner" ? <ProjectSettings project={p} onChanged={project.reload} /> : null}
          <Members projectId={projectId} owner={p.role === "owner"} list={members.data?.data ?? null} errors={members.errors} reload={members.reload} />
        </>
      ) : null}
    </section>
  );
}

function ProjectSettings({ project, onChanged }: { project: ProjectPublic; onChanged: () => Promise<void> }) {
  const navigate = useNavigate();
  const errors = useApiErrors();
  const [name, setName] = useState(project.name);
  const [description, setDescription] = useState(project.description);
  const [note, setNote] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    errors.clear();
    setNote(null);
    try {
      const p = await api.updateProject(project.id, { name, description });
      setNote(`Saved: ${p.name}.`);
      await onChanged();
    } catch (err) {
      errors.show(err);
    }
  };
  const remove = async () => {
    errors.clear();
    try {
      await api.deleteProject(project.id);
      navigate("/projects");
    } catch (err) {
      errors.show(err);
      setConfirming(false);
    }
  };
  return (
    <form onSubmit={save} className="admin-form" aria-label="Project settings">
      <h2 className="small-heading">Settings</h2>
      <TextField label="Name" value={name} onChange={setName} required maxLength={120} error={errors.fields.name} />
      <TextField label="Description" value={description} onChange={setDescription} maxLength={10000} />
      <button type="submit" className="btn btn-primary">
        Save
      </button>
      {confirming ? (
        <span role="group" aria-label={`Delete project ${project.name}?`} className="confirm">
          <span>Delete project {project.name}? (only an empty project can be deleted)</span>{" "}
          <button type="button" className="btn btn-small btn-danger" onClick={() => void remove()}>
            Delete project
          </button>{" "}
          <button type="button" className="btn btn-small" onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </span>
      ) : (
        <button type="button" className="btn" onClick={() => setConfirming(true)}>
          Delete project…
        </button>
      )}
      {note ? (
        <div className="alert alert-success" role="status">
          {note}
        </div>
      ) : null}
      <ErrorList title="That did not work:" items={errors.lines} />
    </form>
  );
}

interface MembersProps {
  projectId: string;
  owner: boolean;
  list: MemberPublic[] | null;
  errors: string[];
  reload: () => Promise<void>;
}

function Members({ projectId, owner, list, errors: loadErrors, reload }: MembersProps) {
  const id = useId();
  const errors = useApiErrors();
  const addErrors = useApiErrors();
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [username, setUsername] = useState("");
  const [role, setRole] = useState<ProjectRole>("viewer");

  const act = async (what: () => Promise<string>, errs = errors) => {
    setBusy(true);
    errors.clear();
    addErrors.clear();
    setNote(null);
    try {
      setNote(await what());
      await reload();
      return true;
    } catch (err) {
      errs.show(err);
      return false;
    } finally {
      setBusy(false);
    }
  };
  const add = async (e: FormEvent) => {
    e.preventDefault();
    const ok = await act(async () => {
      const m = await api.addMember(projectId, { username: username.trim(), role });
      return `${m.username} is now ${m.role}.`;
    }, addErrors);
    if (ok) setUsername("");
  };

  return (
    <>
      <h2 className="small-heading">Members</h2>
      <ErrorList title="Could not load the members:" items={loadErrors} />
      {note ? (
        <div className="alert alert-success" role="status">
          {note}
        </div>
      ) : null}
      <ErrorList title="That did not work:" items={errors.lines} />
      {list ? (
        <table className="compact admin-table" aria-label="Members">
          <thead>
            <tr>
              <th scope="col">User</th>
              <th scope="col">Role</th>
              {owner ? (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {list.map((m) => (
              <tr key={m.user_id} data-testid={`member-${m.username}`}>
                <th scope="row">{m.username}</th>
                <td>
                  {owner ? (
                    <select
                      aria-label={`Role of ${m.username}`}
                      value={m.role}
                      disabled={busy}
                      onChange={(e) => {
                        const r = e.currentTarget.value as ProjectRole;
                        void act(async () => `${(await api.setMemberRole(projectId, m.user_id, r)).username} is now ${r}.`);
                      }}
                    >
                      {ROLES.map((r) => (
                        <option key={r} value={r}>
                          {r}
                        </option>
                      ))}
                    </select>
                  ) : (
                    m.role
                  )}
                </td>
                {owner ? (
                  <td>
                    <button
                      type="button"
                      className="btn btn-small btn-danger"
                      disabled={busy}
                      onClick={() =>
                        void act(async () => {
                          await api.removeMember(projectId, m.user_id);
                          return `Removed ${m.username}.`;
                        })
                      }
                    >
                      Remove {m.username}
                    </button>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {owner ? (
        <form onSubmit={add} className="admin-form" aria-label="Add a member">
          <TextField label="Username" value={username} onChange={setUsername} required maxLength={64} autoComplete="off" error={addErrors.fields.username} />
          <div className="field">
            <label htmlFor={`${id}-role`}>Role</label>
            <select id={`${id}-role`} value={role} onChange={(e) => setRole(e.currentTarget.value as ProjectRole)}>
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            Add member
          </button>
          <ErrorList title="The member was not added:" items={addErrors.lines} />
        </form>
      ) : null}
    </>
  );
}
