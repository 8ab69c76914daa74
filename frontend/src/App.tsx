import { useEffect, useState } from "react";
import { Link, Outlet, createBrowserRouter } from "react-router";
import { api, isAbort, onUnauthorized } from "./api/client";
import type { UserPublic } from "./api/types";
import { MainNav } from "./components/MainNav";
import { AccountView } from "./views/AccountView";
import { AnalysisView } from "./views/AnalysisView";
import { BenchView } from "./views/BenchView";
import { SideBySideView } from "./views/SideBySideView";
import { ComparisonView } from "./views/ComparisonView";
import { ScenarioEditorRoute } from "./views/ScenarioEditorView";
import { ScenarioList } from "./views/ScenarioList";
import { SignIn } from "./views/SignIn";
import { AuditView } from "./views/admin/AuditView";
import { ProjectView } from "./views/admin/ProjectView";
import { ProjectsView } from "./views/admin/ProjectsView";
import { UsersView } from "./views/admin/UsersView";
import { SignedInUser } from "./views/signedInUser";

function NotFound() {
  return (
    <section className="card">
      <h1>Page not found</h1>
      <p>
        <Link to="/">Back to the scenarios</Link>
      </p>
    </section>
  );
}

/**
 * The signed-in user: `undefined` while checking, `null` when signed out. Any 401 from the API
 * signs the page out; if that happens while a page is open, the sign-in form is shown over it
 * so unsaved edits survive.
 */
function useUser(): [UserPublic | null | undefined, (u: UserPublic | null) => void, boolean] {
  const [user, setUser] = useState<UserPublic | null | undefined>(undefined);
  const [wasSignedIn, setWasSignedIn] = useState(false);
  useEffect(() => {
    const ctl = new AbortController();
    api
      .me(ctl.signal)
      .then((u) => {
        setUser(u);
        setWasSignedIn(true);
      })
      .catch((err) => {
        if (!isAbort(err)) setUser(null);
      });
    const off = onUnauthorized(() => setUser(null));
    return () => {
      ctl.abort();
      off();
    };
  }, []);
  const set = (u: UserPublic | null) => {
    setUser(u);
    if (u) setWasSignedIn(true);
  };
  return [user, set, wasSignedIn];
}

export function Layout() {
  const [user, setUser, wasSignedIn] = useUser();
  const signOut = async () => {
    try {
      await api.logout();
    } finally {
      setUser(null);
      window.location.assign("/");
    }
  };
  let body;
  if (user === undefined) body = <p className="muted">Loading…</p>;
  else if (user === null && !wasSignedIn) body = <SignIn onSignedIn={setUser} />;
  else
    body = (
      <>
        <Outlet />
        {user === null ? <SignIn onSignedIn={setUser} modal /> : null}
      </>
    );
  return (
    <div className="app">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand" aria-label="Subflow home">
          <svg width="26" height="26" viewBox="0 0 26 26" aria-hidden="true">
            <path d="M3 19 C9 19 9 7 15 7 H23" stroke="#60a5fa" strokeWidth="2.5" fill="none" />
            <path d="M3 19 H23" stroke="#34d399" strokeWidth="2.5" fill="none" />
            <circle cx="3" cy="19" r="2.5" fill="#e2e8f0" />
          </svg>
          Subflow
        </Link>
        <span className="tagline">Transport strategy planning for mobile wireless networks</span>
        {user ? <MainNav user={user} /> : null}
        {user ? (
          <span className="account">
            <Link to="/account" className="account-name" data-testid="account-name" title="Your API tokens">
              {user.username}
            </Link>
            <button type="button" className="btn btn-small" onClick={signOut}>
              Sign out
            </button>
          </span>
        ) : null}
      </header>
      <main className="content" id="main" tabIndex={-1}>
        <SignedInUser.Provider value={user ?? null}>{body}</SignedInUser.Provider>
      </main>
    </div>
  );
}

/** A data router (needed for the unsaved-changes blocker). */
export const router = createBrowserRouter([
  {
    element: <Layout />,
    children: [
      { path: "/", element: <ScenarioList /> },
      { path: "/scenarios/new", element: <ScenarioEditorRoute /> },
      { path: "/scenarios/:id", element: <ScenarioEditorRoute /> },
      { path: "/scenarios/:id/comparisons/:cid", element: <ComparisonView /> },
      { path: "/scenarios/:id/compare", element: <SideBySideView /> },
      { path: "/scenarios/:id/analysis", element: <AnalysisView /> },
      { path: "/account", element: <AccountView /> },
      { path: "/projects", element: <ProjectsView /> },
      { path: "/projects/:id", element: <ProjectView /> },
      { path: "/admin/users", element: <UsersView /> },
      { path: "/admin/audit", element: <AuditView /> },
      { path: "/bench/chart", element: <BenchView /> },
      { path: "*", element: <NotFound /> },
    ],
  },
]);
