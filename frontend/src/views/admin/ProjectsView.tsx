/**
 * `/projects`: the projects you have a role in (admins: all) with your role, each a link to its
 * members; a new project (you become its owner). Any signed-in user with a write credential may
 * create one; the API refuses what a role may not do, and the page shows its message.
 *
 * Owns:
 * 1. the new-project form and its field messages.
 */
import { TextField } from "../../components/fields";
import { useState, type FormEvent } from "react";
import { Link } from "react-router";
import { api } from "../../api/client";
import { ErrorList } from "../../components/ErrorList";
import { shortTime } from "../../lib/identity";
import { usePageTitle } from "../usePageTitle";
import { useApiErrors } from "./useApiErrors";
import { useResource } from "./useResource";

export function ProjectsView() {
  usePageTitle("Projects");
  const projects = useResource((signal) => api.listProjects(signal), []);
  const formErrors = useApiErrors();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [note, setNote] = useState<string | null>(null);

  const create = async (e: FormEvent) => {
    e.preventDefault();
    formErrors.clear();
    setNote(null);
    try {
      const p = await api.createProject({ name, description });
      setNote(`Created project ${p.name}; you are its owner.`);
      setName("");
      setDescription("");
      await projects.reload();
    } catch (err) {
      formErrors.show(err);
    }
  };

  return (
    <section className="card admin-page">
      <h1>Projects</h1>
      <p className="muted">
        A project holds scenarios; its members are <em>viewers</em> (read), <em>editors</em> (also change and run) or{" "}
        <em>owners</em> (also rename the project and manage its members). Admins act as owners everywhere.
      </p>
      <ErrorList title="Could not load the projects:" items={projects.errors} />
      {note ? (
        <div className="alert alert-success" role="status">
          {note}
        </div>
      ) : null}
      {projects.data && projects.data.data.length ? (
        <table className="compact admin-table" aria-label="Your projects">
          <thead>
            <tr>
              <th scope="col">Project</th>
              <th scope="col">Your role</th>
              <th scope="col">Description</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {projects.data.data.map((p) => (
              <tr key={p.id} data-testid={`project-${p.name}`}>
                <th scope="row">
                  <Link to={`/projects/${encodeURIComponent(p.id)}`}>{p.name}</Link>
                </th>
                <td>{p.role}</td>
                <td>{p.description}</td>
                <td>{shortTime(p.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : projects.data ? (
        <p className="muted">You are a member of no project yet.</p>
      ) : projects.errors.length ? null : (
        <p className="muted">Loading…</p>
      )}
      <form onSubmit={create} className="admin-form" aria-label="New project">
        <h2 className="small-heading">New project</h2>
        <TextField label="Name" value={name} onChange={setName} required maxLength={120} error={formErrors.fields.name} />
        <TextField label="Description" value={description} onChange={setDescription} maxLength={10000} />
        <button type="submit" className="btn btn-primary">
          Create project
        </button>
        <ErrorList title="The project was not created:" items={formErrors.lines} />
      </form>
    </section>
  );
}
