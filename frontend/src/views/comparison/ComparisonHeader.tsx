import { Link } from "react-router";
import type { ComparisonPublic } from "../../api/types";
import { parameterLabel } from "../../lib/parameters";
import { comparisonLabel } from "../../lib/identity";
import { usePageTitle } from "../usePageTitle";

interface ComparisonHeaderProps {
  scenarioId: string;
  scenarioName: string | null;
  comparison: ComparisonPublic | null;
  status: string | undefined;
}

/** Breadcrumbs, the strategies compared, how the comparison was run, and its status badge. */
export function ComparisonHeader({ scenarioId, scenarioName, comparison: c, status }: ComparisonHeaderProps) {
  usePageTitle(c ? comparisonLabel(c.strategies, c.created_at) : "Comparison", scenarioName);
  return (
    <>
      <nav className="breadcrumbs" aria-label="Breadcrumb">
        <Link to="/">Scenarios</Link>
        <span aria-hidden="true"> / </span>
        <Link to={`/scenarios/${encodeURIComponent(scenarioId)}`}>{scenarioName ?? "Scenario"}</Link>
        <span aria-hidden="true"> / </span>
        <span aria-current="page">{c ? comparisonLabel(c.strategies, c.created_at) : "Comparison"}</span>
      </nav>

      <div className="page-head">
        <div>
          <h1>{c ? c.strategies.join(" vs ") : "Comparison"}</h1>
          {c ? (
            <p className="muted">
              Engine <code>{c.engine}</code> · scenario version {c.scenario_version}
              {c.seed !== null && c.seed !== undefined ? ` · seed ${c.seed}` : ""}
              {c.repetitions && c.repetitions > 1 ? ` · ${c.repetitions} repetitions` : ""}
              {c.sweep ? ` · sweep of ${parameterLabel(c.result?.scenario, String((c.sweep as { parameter?: string }).parameter ?? ""))}` : ""} · started {new Date(c.created_at).toLocaleString()}
              {c.finished_at ? ` · finished ${new Date(c.finished_at).toLocaleString()}` : ""}
            </p>
          ) : null}
        </div>
        {status ? (
          <span className={`status status-${status}`} data-testid="comparison-status">
            {status}
          </span>
        ) : null}
      </div>
    </>
  );
}
