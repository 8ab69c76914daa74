/** The sign-in form: posts the OAuth2 password form to `/api/auth/login` (the answer sets the session cookie). */
import { useState, type FormEvent } from "react";
import { ApiError, api } from "../api/client";
import type { UserPublic } from "../api/types";

export function SignIn({ onSignedIn, modal = false }: { onSignedIn: (user: UserPublic) => void; modal?: boolean }) {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.login(username, password);
      onSignedIn(await api.me());
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) setError("Wrong username or password.");
      else setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  const form = (
    <section className="card signin" aria-labelledby="signin-title">
      <h1 id="signin-title">{modal ? "Your session ended — sign in again" : "Sign in to Subflow"}</h1>
      <form onSubmit={submit} className="signin-form">
        <label className="field">
          <span>Username</span>
          <input name="username" autoComplete="username" autoFocus value={username} onChange={(e) => setUsername(e.target.value)} required />
        </label>
        <label className="field">
          <span>Password</span>
          <input
            name="password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            required
          />
        </label>
        {error ? (
          <div className="alert alert-error" role="alert">
            {error}
          </div>
        ) : null}
        <button type="submit" className="btn btn-primary" disabled={busy}>
          Sign in
        </button>
      </form>
    </section>
  );
  return modal ? (
    <div className="signin-backdrop" role="dialog" aria-modal="true" aria-labelledby="signin-title">
      {form}
    </div>
  ) : (
    form
  );
}
