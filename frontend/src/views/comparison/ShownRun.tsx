import type { ReactNode } from "react";
import type { ResultDocument } from "../../api/types";
import { displayValue, parameterLabel } from "../../lib/parameters";

/** ", <second parameter> = <value>" for a point of a 2-D sweep; empty for a 1-D sweep. */
export function pointY(result: ResultDocument, valueY: unknown): string {
  const parameterY = result.sweep?.parameter_y;
  return parameterY && valueY !== null && valueY !== undefined
    ? `, ${parameterLabel(result.scenario, parameterY)} = ${displayValue(parameterY, valueY)}`
    : "";
}

/**
 * Which run the per-flow charts, the summary and the routes show when the comparison swept a
 * parameter or repeated: the first sweep point's first repetition (the result document keeps the
 * per-flow series of that run only; `ResultDocument.strategies`).
 */
export function ShownRun({ result, point = 0, picker }: { result: ResultDocument; point?: number; picker?: ReactNode }) {
  const sweep = result.sweep;
  const reps = result.repetitions ? Object.values(result.repetitions)[0]?.runs ?? 1 : null;
  if (!sweep && !reps) return null;
  const seed = result.scenario.run?.seed;
  const runs = sweep ? Object.values(sweep.points[0]?.strategies ?? {})[0]?.runs ?? 1 : reps ?? 1;
  return (
    <p className="alert shown-run" role="note" data-testid="shown-run">
      {sweep ? (
        <>
          These charts, the summary and the routes show <strong>sweep point {point + 1} of {sweep.points.length}</strong>:{" "}
          {parameterLabel(result.scenario, sweep.parameter)} = <strong>{displayValue(sweep.parameter, sweep.values[point])}</strong>
          {runs > 1 ? `, repetition 1 of ${runs}` : ""}
          {seed !== undefined && seed !== null ? ` (seed ${seed})` : ""}. Every point's statistics are under “Sweep” below.
          {picker ? <span className="shown-run-picker"> {picker}</span> : null}
        </>
      ) : (
        <>
          These charts, the summary and the routes show <strong>repetition 1 of {runs}</strong>
          {seed !== undefined && seed !== null ? ` (seed ${seed})` : ""}; the statistics over all repetitions are under “Repetitions” below.
        </>
      )}
    </p>
  );
}
