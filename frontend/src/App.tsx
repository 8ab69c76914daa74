import { Link, Outlet, createBrowserRouter } from "react-router";
import { BenchView } from "./views/BenchView";
import { CompareView } from "./views/CompareView";
import { ComparisonView } from "./views/ComparisonView";
import { ScenarioEditorRoute } from "./views/ScenarioEditorView";
import { ScenarioList } from "./views/ScenarioList";

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

export function Layout() {
  return (
    <div className="app">
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
      </header>
      <main className="content">
        <Outlet />
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
      { path: "/scenarios/:id/compare", element: <CompareView /> },
      { path: "/bench/chart", element: <BenchView /> },
      { path: "*", element: <NotFound /> },
    ],
  },
]);
