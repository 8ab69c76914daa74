import { useState } from "react";
import { Link, useNavigate } from "react-router";
import type { ComparisonSummary } from "../../api/types";
import { comparisonLabel } from "../../lib/identity";

/** The scenario's comparisons, each linked to its page; two or more finished ones can be opened side by side. */
export function ComparisonsPanel({ id, comparisons }: { id: string; comparisons: ComparisonSummary[] }) {
  const navigate = useNavigate();
  const [compareIds, setCompareIds] = useState<string[]>([]);
  return (
    <section className="card" aria-labelledby="history-title">
      <div className="card-head">
        <h2 id="history-title">Comparisons</h2>
        <button
          type="button"
          className="btn btn-small"
          disabled={compareIds.length < 2}
          onClick={() => navigate(`/scenarios/${encodeURIComponent(id)}/compare?ids=${compareIds.map(encodeURIComponent).join(",")}`)}
        >
          Side by side
        </button>
      </div>
      {comparisons.length ? (
        <ul className="history">
          {comparisons.map((c) => (
            <li key={String(c.id)}>
              <input
                type="checkbox"
                aria-label={`Select ${comparisonLabel(c.strategies, c.created_at)} (version ${c.scenario_version}) for side-by-side`}
                data-testid={`select-comparison-${c.id}`}
                disabled={c.status !== "succeeded"}
                checked={compareIds.includes(String(c.id))}
                onChange={(e) => {
                  const cid = String(c.id);
                  const on = e.currentTarget.checked;
                  setCompareIds((ids) => (on ? [...ids, cid] : ids.filter((x) => x !== cid)));
                }}
              />
              <Link to={`/scenarios/${encodeURIComponent(id)}/comparisons/${encodeURIComponent(String(c.id))}`}>{c.strategies.join(" vs ")}</Link>
              <span className={`status status-${c.status}`}>{c.status}</span>
              <span className="muted small">
                v{c.scenario_version} · {new Date(c.created_at).toLocaleString()}
              </span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted small">None yet. Save, then press Compare to run one.</p>
      )}
    </section>
  );
}
