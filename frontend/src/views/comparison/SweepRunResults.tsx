import { useMemo } from "react";
import type { ResultDocument } from "../../api/types";
import { ErrorList } from "../../components/ErrorList";
import { displayValue, parameterLabel } from "../../lib/parameters";
import { Results, type ResultsProps } from "./Results";
import { pointY } from "./ShownRun";
import { useSweepPointRun } from "./useSweepPointRun";

type SweepRunResultsProps = Omit<ResultsProps, "point" | "pointPicker"> & { scenarioId: string; comparisonId: string };

/**
 * A sweep's results with the per-flow charts, summary and routes of a chosen point: the
 * representative runs stored by the worker (GET .../sweep-points), fetched when picked; the
 * sweep statistics stay those of the whole comparison.
 */
export function SweepRunResults({ scenarioId, comparisonId, result, ...rest }: SweepRunResultsProps) {
  const { runs, point, setPoint, shownRun, loading, problems } = useSweepPointRun(scenarioId, comparisonId);
  const shown = useMemo<ResultDocument>(() => (shownRun ? { ...result, scenario: shownRun.scenario, strategies: shownRun.strategies } : result), [shownRun, result]);
  const sweep = result.sweep!;
  const label = parameterLabel(result.scenario, sweep.parameter);
  const picker = (
    <span className="field inline-field">
      <label htmlFor="shown-point-pick">Per-flow charts of</label>{" "}
      <select id="shown-point-pick" value={point} onChange={(e) => setPoint(Number(e.currentTarget.value))} disabled={runs.length < 2}>
        {(runs.length ? runs : [{ point: 0, value: sweep.values[0] ?? null, seed: result.scenario.run?.seed ?? 1 }]).map((r) => (
          <option key={r.point} value={r.point}>
            {`point ${r.point + 1} of ${sweep.points.length}: ${label} = ${displayValue(sweep.parameter, r.value)}${pointY(result, r.value_y)}`}
          </option>
        ))}
      </select>
      {runs.length && runs.length < sweep.points.length ? <span className="muted small"> (runs of {runs.length} of {sweep.points.length} points are kept)</span> : null}
      {loading ? <span className="muted small" role="status"> loading…</span> : null}
    </span>
  );
  return (
    <>
      <ErrorList title="Could not load the run of this sweep point:" items={problems} />
      <Results result={shown} {...rest} point={loading ? 0 : point} pointPicker={picker} />
    </>
  );
}
