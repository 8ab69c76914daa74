import { Link, Route, Routes } from "react-router";
import { ComparisonView } from "./views/ComparisonView";
import { ScenarioList } from "./views/ScenarioList";
import { ScenarioView } from "./views/ScenarioView";

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

export function App() {
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
        <Routes>
          <Route path="/" element={<ScenarioList />} />
          <Route path="/scenarios/:id" element={<ScenarioView />} />
          <Route path="/scenarios/:id/comparisons/:cid" element={<ComparisonView />} />
          <Route path="*" element={<NotFound />} />
        </Routes>
      </main>
    </div>
  );
}
