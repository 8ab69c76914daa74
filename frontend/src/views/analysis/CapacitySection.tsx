import { useMemo, useState } from "react";
import type { ScenarioPublic } from "../../api/types";
import { CapacityTraceChart } from "../../components/AnalysisCharts";
import { ErrorList } from "../../components/ErrorList";
import { ParameterSelect, StrategySelect } from "../../components/pickers";
import { sweepParameters } from "../../lib/editor";
import { formatFixed3 } from "../../lib/format";
import { parameterLabel, parameterScale, parameterUnit } from "../../lib/parameters";
import { tracePoints } from "../../lib/whatIf";
import { useCapacitySearch, useFields } from "./hooks";
import { RunsProgress } from "./RunsProgress";

export function defaultBackhaul(params: string[]): string {
  return params.find((p) => /uav/.test(p) && p.endsWith("bandwidth_mbps") && p.startsWith("links.")) ??
    params.find((p) => p.startsWith("links.") && p.endsWith("bandwidth_mbps")) ?? params[0] ?? "";
}

/** " (Mbit/s)" after a bound's label: the parameter's displayed unit, or nothing. */
export function unitSuffix(path: string): string {
  const u = parameterUnit(path);
  return u ? ` (${u})` : "";
}

/** "Capacity planning": the smallest value of a parameter meeting the target, found by bisection on the worker; its trace as a chart. */
export function CapacitySection({ scenario }: { scenario: ScenarioPublic }) {
  const doc = scenario.scenario;
  const params = useMemo(() => sweepParameters(doc), [doc]);
  const [parameter, setParameter] = useState(() => defaultBackhaul(params));
  const [form, set] = useFields({ low: "0.5", high: "10", minMean: "2.5", maxZero: "", strategy: "mptcp", repetitions: "1", tolerance: "0.25", windowFrom: "", windowTo: "" });
  const { low, high, minMean, maxZero, strategy, repetitions, tolerance, windowFrom, windowTo } = form;
  const { job, result, errors, running, start: search } = useCapacitySearch(String(scenario.id));
  const start = () =>
    search({
        parameter, low: Number(low) / parameterScale(parameter), high: Number(high) / parameterScale(parameter), min_mean_mbps: Number(minMean),
        max_zero_s: maxZero.trim() ? Number(maxZero) : null, strategy, engine: "fluid",
        repetitions: Number(repetitions), tolerance: Number(tolerance), max_steps: 12, integer: false,
        window_s: windowFrom.trim() || windowTo.trim()
          ? [Number(windowFrom.trim() || "0"), Number(windowTo.trim() || String(doc.run?.duration_s ?? 100))]
          : null,
    });
  /** a found value in the parameter's displayed unit */
  const shown = (v: number | null | undefined) => (v === null || v === undefined ? "—" : formatFixed3(v * parameterScale(result?.parameter ?? parameter)));
  return (
    <section className="card" aria-labelledby="capacity-title">
      <div className="card-head"><h2 id="capacity-title">Capacity planning</h2></div>
      <p className="muted">The smallest value of a parameter at which every flow's mean is at least the target (and its time at zero at most the bound): bisection, each step a set of runs on the worker.</p>
      <div className="run-options">
        <div className="field">
          <label htmlFor="cap-param">Parameter</label>
          <ParameterSelect id="cap-param" doc={doc} params={params} value={parameter} onChange={setParameter} />
        </div>
        <div className="field"><label htmlFor="cap-low">From{unitSuffix(parameter)}</label><input id="cap-low" type="number" value={low} onChange={(e) => set("low")(e.currentTarget.value)} /></div>
        <div className="field"><label htmlFor="cap-high">To{unitSuffix(parameter)}</label><input id="cap-high" type="number" value={high} onChange={(e) => set("high")(e.currentTarget.value)} /></div>
        <div className="field"><label htmlFor="cap-mean">Every flow's mean ≥ (Mbit/s)</label><input id="cap-mean" type="number" value={minMean} onChange={(e) => set("minMean")(e.currentTarget.value)} /></div>
        <div className="field"><label htmlFor="cap-zero">Time at zero ≤ (s, optional)</label><input id="cap-zero" type="number" value={maxZero} onChange={(e) => set("maxZero")(e.currentTarget.value)} /></div>
        <div className="field"><label htmlFor="cap-strategy">Strategy</label><StrategySelect id="cap-strategy" value={strategy} onChange={set("strategy")} /></div>
        <div className="field"><label htmlFor="cap-reps">Repetitions per step</label><input id="cap-reps" type="number" min={1} value={repetitions} onChange={(e) => set("repetitions")(e.currentTarget.value)} /></div>
        <div className="field"><label htmlFor="cap-tol">Tolerance</label><input id="cap-tol" type="number" value={tolerance} onChange={(e) => set("tolerance")(e.currentTarget.value)} /></div>
        <div className="field"><label htmlFor="cap-from">Judged from (s, optional)</label><input id="cap-from" type="number" min={0} value={windowFrom} onChange={(e) => set("windowFrom")(e.currentTarget.value)} /></div>
        <div className="field"><label htmlFor="cap-to">to (s, optional)</label><input id="cap-to" type="number" min={0} value={windowTo} onChange={(e) => set("windowTo")(e.currentTarget.value)} /></div>
        <button type="button" className="btn btn-primary" onClick={start} disabled={running}>{running ? "Searching…" : "Find capacity"}</button>
      </div>
      <ErrorList title="The search was refused or failed:" items={errors} />
      {job ? <RunsProgress label="Capacity search progress" progress={job.progress} done={job.runs_done} total={job.runs_total} /> : null}
      {result ? (
        <>
          <p data-testid="capacity-answer-text" data-status={result.status} data-value={result.value ?? ""}>
            {result.status === "not_found"
              ? `Not found: even ${parameterLabel(doc, result.parameter)} = ${high} misses the target.`
              : `${parameterLabel(doc, result.parameter)} = ${shown(result.value)} is enough (${result.status === "low_passes" ? "already at the lower end" : `between ${shown(result.bracket?.[0])} and ${shown(result.bracket?.[1])}`}); ${result.runs} runs.`}
            {` Each flow judged over ${result.window_s[0]}–${result.window_s[1]} s of the run.`}
          </p>
          <CapacityTraceChart points={tracePoints(result)} target={result.min_mean_mbps} parameter={parameterLabel(doc, result.parameter)} answer={result.value ?? null} />
        </>
      ) : null}
    </section>
  );
}

