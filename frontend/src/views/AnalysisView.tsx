/**
 * What-if analysis of a saved scenario: single failures re-planned (table worst first,
 * the selected failure on the topology), a capacity search (worker job followed over server-sent
 * events: runs done / total; its trace as a chart) and a 2-D sweep (a comparison whose sweep has
 * two parameters, followed over its event stream; a heatmap with each cell's 95 % CI).
 *
 * This file only composes; the parts are in `analysis/`: the state, one owner per concern, in
 * `hooks.ts` (the scenario, the failure analysis, a followed comparison, the capacity search, a
 * form's fields), and one component per section (`FailuresSection` with `SimulatedFailures`,
 * `CapacitySection`, `GridSweepSection`, with `RunsProgress` for the progress of each).
 */
import { Link, useParams } from "react-router";
import { ErrorList } from "../components/ErrorList";
import { CapacitySection } from "./analysis/CapacitySection";
import { FailuresSection } from "./analysis/FailuresSection";
import { GridSweepSection } from "./analysis/GridSweepSection";
import { useAnalysisScenario } from "./analysis/hooks";
import { usePageTitle } from "./usePageTitle";

export function AnalysisView() {
  const { id = "" } = useParams();
  const { item, errors } = useAnalysisScenario(id);
  usePageTitle("Analysis", item?.name);
  return (
    <>
      <nav className="breadcrumbs" aria-label="Breadcrumb">
        <Link to="/">Scenarios</Link>
        <span aria-hidden="true"> / </span>
        <Link to={`/scenarios/${encodeURIComponent(id)}`}>{item?.name ?? "Scenario"}</Link>
        <span aria-hidden="true"> / </span>
        <span aria-current="page">Analysis</span>
      </nav>
      <h1>What-if analysis{item ? `: ${item.name}` : ""}</h1>
      <ErrorList title="Could not load the scenario:" items={errors} />
      {item ? (
        <>
          <FailuresSection scenario={item} />
          <CapacitySection scenario={item} />
          <GridSweepSection scenario={item} />
        </>
      ) : null}
    </>
  );
}
