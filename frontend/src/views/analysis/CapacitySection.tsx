import { useMemo, useState } from "react";
import type { CapacityRequest, CapacityResult } from "../../api/analysis";
import type { ScenarioPublic, ValidationErrorItem } from "../../api/types";
import { CapacityTraceChart } from "../../components/AnalysisCharts";
import { ErrorList } from "../../components/ErrorList";
import { ParameterSelect, StrategySelect } from "../../components/pickers";
import { sweepParameters } from "../../lib/editor";
import { documentPath } from "../../lib/docPath";
import { formatFixed3, formatValidationErrors } from "../../lib/format";
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

/** The search's targets: request field → the form's input id. */
export const TARGET_FIELDS = { min_mean_mbps: "cap-mean", max_zero_s: "cap-zero", min_mos: "cap-mos", max_delay_ms: "cap-delay", max_loss: "cap-loss" } as const;

/** The form's target fields as typed (strings; empty = no such bound), in the displayed units. */
export interface CapacityTargets {
  minMean: string;
  maxZero: string;
  minMos: string;
  maxDelay: string;
  /** % of the bits sent */
  maxLoss: string;
  /** % of the judged intervals */
  allowed: string;
}

/** A typed number or null when empty; `factor`: stored = typed / factor (100 for a percentage sent as a fraction), without float noise. */
function optionalNumber(text: string, factor = 1): number | null {
  return text.trim() === "" ? null : Number((Number(text) / factor).toPrecision(12));
}

/**
 * The request's targets from the form (pure): Mbit/s, seconds, MOS and ms as typed; loss and the allowed
 * fraction typed in % and sent as fractions (lib/subflow/analysis/capacity.py `CapacityRequest`); null when
 * the field is empty. `none`: no target given (the server refuses such a request).
 */
export function capacityTargets(t: CapacityTargets): { targets: Pick<CapacityRequest, "min_mean_mbps" | "max_zero_s" | "min_mos" | "max_delay_ms" | "max_loss" | "allowed_fraction">; none: boolean } {
  const targets = {
    min_mean_mbps: optionalNumber(t.minMean),
    max_zero_s: optionalNumber(t.maxZero),
    min_mos: optionalNumber(t.minMos),
    max_delay_ms: optionalNumber(t.maxDelay),
    max_loss: optionalNumber(t.maxLoss, 100),
    allowed_fraction: optionalNumber(t.allowed, 100) ?? 0,
  };
  const none = Object.keys(TARGET_FIELDS).every((k) => targets[k as keyof typeof TARGET_FIELDS] === null);
  return { targets, none };
}

/**
 * A 422's details split (pure): those naming a target or the allowed fraction, keyed by that field (the
 * request-level "give at least one target" under "targets"), and the rest as lines for the alert.
 */
export function placeRefusal(refusal: readonly ValidationErrorItem[]): { onFields: Record<string, string>; lines: string[] } {
  const onFields: Record<string, string> = {};
  const rest: ValidationErrorItem[] = [];
  for (const d of refusal) {
    const path = documentPath(d.loc);
    const key = path in TARGET_FIELDS || path === "allowed_fraction" ? path : path === "" && /target/i.test(d.msg) ? "targets" : null;
    if (key === null) rest.push(d);
    else onFields[key] = onFields[key] ? `${onFields[key]}; ${d.msg}` : d.msg;
  }
  return { onFields, lines: formatValidationErrors(rest) };
}

/** The step whose flows the table shows: the one at the answer, or (not found) the highest value tried. */
export function answerStep(result: CapacityResult): CapacityResult["trace"][number] | null {
  if (!result.trace.length) return null;
  if (result.value !== null) {
    const at = result.trace.find((s) => s.value === result.value);
    if (at) return at;
  }
  return result.trace.reduce((a, b) => (b.value > a.value ? b : a));
}

const dash = (v: number | null | undefined, f: (x: number) => string) => (v === null || v === undefined ? "—" : f(v));

/** Per-flow figures of one step: mean and time at zero, and MOS, delay and loss where the search judged them. */
export function CapacityFlowsTable({ step, caption }: { step: CapacityResult["trace"][number]; caption: string }) {
  const flows = step.flows;
  const has = (k: "mos" | "delay_ms" | "loss") => flows.some((f) => f[k] !== null && f[k] !== undefined);
  const [mos, delay, loss] = [has("mos"), has("delay_ms"), has("loss")];
  const quality = mos || delay || loss;
  return (
    <div className="table-wrap">
      <table className="summary" data-testid="capacity-flows">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th>flow</th><th>kind</th><th>mean Mbit/s</th><th>time at zero s</th>
            {mos ? <th>MOS</th> : null}{delay ? <th>delay ms</th> : null}{loss ? <th>loss %</th> : null}
            {quality ? <th>intervals (silent)</th> : null}<th>meets the target</th>
          </tr>
        </thead>
        <tbody>
          {flows.map((f) => (
            <tr key={f.flow} data-flow={f.flow} data-passed={f.passed ? "true" : "false"}>
              <td>{f.flow}</td>
              <td>{f.kind ?? "tcp"}</td>
              <td>{formatFixed3(f.mean_mbps)}</td>
              <td>{formatFixed3(f.zero_s)}</td>
              {mos ? <td>{dash(f.mos, (x) => x.toFixed(2))}</td> : null}
              {delay ? <td>{dash(f.delay_ms, (x) => x.toFixed(1))}</td> : null}
              {loss ? <td>{dash(f.loss, (x) => String(Number((x * 100).toPrecision(12))))}</td> : null}
              {quality ? <td>{f.intervals ? `${f.intervals} (${f.silent_intervals ?? 0})` : "—"}</td> : null}
              <td>{f.passed ? "yes" : "no"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** "Capacity planning": the smallest value of a parameter meeting the target, found by bisection on the worker; its trace as a chart. */
export function CapacitySection({ scenario }: { scenario: ScenarioPublic }) {
  const doc = scenario.scenario;
  const params = useMemo(() => sweepParameters(doc), [doc]);
  const [parameter, setParameter] = useState(() => defaultBackhaul(params));
  const [form, set] = useFields({ low: "0.5", high: "10", minMean: "2.5", maxZero: "", minMos: "", maxDelay: "", maxLoss: "", allowed: "0", strategy: "mptcp", repetitions: "1", tolerance: "0.25", windowFrom: "", windowTo: "" });
  const { low, high, minMean, maxZero, minMos, maxDelay, maxLoss, allowed, strategy, repetitions, tolerance, windowFrom, windowTo } = form;
  const { job, result, errors, refusal, running, start: search } = useCapacitySearch(String(scenario.id));
  const [noTarget, setNoTarget] = useState(false);
  const start = () => {
    const { targets, none } = capacityTargets({ minMean, maxZero, minMos, maxDelay, maxLoss, allowed });
    setNoTarget(none);
    if (none) return;
    void search({
        parameter, low: Number(low) / parameterScale(parameter), high: Number(high) / parameterScale(parameter), ...targets,
        strategy, engine: "fluid",
        repetitions: Number(repetitions), tolerance: Number(tolerance), max_steps: 12, integer: false,
        window_s: windowFrom.trim() || windowTo.trim()
          ? [Number(windowFrom.trim() || "0"), Number(windowTo.trim() || String(doc.run?.duration_s ?? 100))]
          : null,
    });
  };
  const placed = refusal ? placeRefusal(refusal) : { onFields: {} as Record<string, string>, lines: errors };
  const fieldError = placed.onFields;
  const targetsError = noTarget ? "Give at least one target: a mean, a time at zero, a MOS, a delay or a loss." : fieldError.targets;
  const step = result ? answerStep(result) : null;
  const targetInput = (id: string, key: string, label: string, value: string, name: "minMean" | "maxZero" | "minMos" | "maxDelay" | "maxLoss" | "allowed", extra: { min?: number; max?: number } = {}) => (
    <div className={`field${fieldError[key] ? " field-invalid" : ""}`}>
      <label htmlFor={id}>{label}</label>
      <input id={id} type="number" step="any" {...extra} value={value} aria-invalid={fieldError[key] ? true : undefined}
        aria-describedby={fieldError[key] ? `${id}-err` : undefined} onChange={(e) => set(name)(e.currentTarget.value)} />
      {fieldError[key] ? <p id={`${id}-err`} className="field-error">{fieldError[key]}</p> : null}
    </div>
  );
  /** a found value in the parameter's displayed unit */
  const shown = (v: number | null | undefined) => (v === null || v === undefined ? "—" : formatFixed3(v * parameterScale(result?.parameter ?? parameter)));
  return (
    <section className="card" aria-labelledby="capacity-title">
      <div className="card-head"><h2 id="capacity-title">Capacity planning</h2></div>
      <p className="muted">The smallest value of a parameter at which every flow meets the targets given (empty: no such bound): every tcp flow's mean at least the target, every flow's time at zero at most the bound, every voice flow's MOS (ITU-T G.107) at least the target and every udp, voice and video flow's one-way delay and loss at most the bounds in every judged interval but the allowed share. Bisection, each step a set of runs on the worker.</p>
      <div className="run-options">
        <div className="field">
          <label htmlFor="cap-param">Parameter</label>
          <ParameterSelect id="cap-param" doc={doc} params={params} value={parameter} onChange={setParameter} />
        </div>
        <div className="field"><label htmlFor="cap-low">From{unitSuffix(parameter)}</label><input id="cap-low" type="number" value={low} onChange={(e) => set("low")(e.currentTarget.value)} /></div>
        <div className="field"><label htmlFor="cap-high">To{unitSuffix(parameter)}</label><input id="cap-high" type="number" value={high} onChange={(e) => set("high")(e.currentTarget.value)} /></div>
        <fieldset className="run-options capacity-targets" aria-label="Targets" aria-invalid={targetsError ? true : undefined} aria-describedby={targetsError ? "cap-targets-err" : undefined}>
          <legend>Targets (at least one)</legend>
          {targetInput("cap-mean", "min_mean_mbps", "Every flow's mean ≥ (Mbit/s)", minMean, "minMean", { min: 0 })}
          {targetInput("cap-zero", "max_zero_s", "Time at zero ≤ (s)", maxZero, "maxZero", { min: 0 })}
          {targetInput("cap-mos", "min_mos", "Voice MOS ≥", minMos, "minMos", { min: 1, max: 4.5 })}
          {targetInput("cap-delay", "max_delay_ms", "Delay ≤ (ms)", maxDelay, "maxDelay", { min: 0 })}
          {targetInput("cap-loss", "max_loss", "Loss ≤ (%)", maxLoss, "maxLoss", { min: 0, max: 100 })}
          {targetInput("cap-allowed", "allowed_fraction", "Intervals allowed to miss (%)", allowed, "allowed", { min: 0, max: 100 })}
          {targetsError ? <p id="cap-targets-err" className="field-wide field-error">{targetsError}</p> : null}
        </fieldset>
        <div className="field"><label htmlFor="cap-strategy">Strategy</label><StrategySelect id="cap-strategy" value={strategy} onChange={set("strategy")} /></div>
        <div className="field"><label htmlFor="cap-reps">Repetitions per step</label><input id="cap-reps" type="number" min={1} value={repetitions} onChange={(e) => set("repetitions")(e.currentTarget.value)} /></div>
        <div className="field"><label htmlFor="cap-tol">Tolerance</label><input id="cap-tol" type="number" value={tolerance} onChange={(e) => set("tolerance")(e.currentTarget.value)} /></div>
        <div className="field"><label htmlFor="cap-from">Judged from (s, optional)</label><input id="cap-from" type="number" min={0} value={windowFrom} onChange={(e) => set("windowFrom")(e.currentTarget.value)} /></div>
        <div className="field"><label htmlFor="cap-to">to (s, optional)</label><input id="cap-to" type="number" min={0} value={windowTo} onChange={(e) => set("windowTo")(e.currentTarget.value)} /></div>
        <button type="button" className="btn btn-primary" onClick={start} disabled={running}>{running ? "Searching…" : "Find capacity"}</button>
      </div>
      <ErrorList title="The search was refused or failed:" items={placed.lines} />
      {job ? <RunsProgress label="Capacity search progress" progress={job.progress} done={job.runs_done} total={job.runs_total} /> : null}
      {result ? (
        <>
          <p data-testid="capacity-answer-text" data-status={result.status} data-value={result.value ?? ""}>
            {result.status === "not_found"
              ? `Not found: even ${parameterLabel(doc, result.parameter)} = ${high} misses the target.`
              : `${parameterLabel(doc, result.parameter)} = ${shown(result.value)} is enough (${result.status === "low_passes" ? "already at the lower end" : `between ${shown(result.bracket?.[0])} and ${shown(result.bracket?.[1])}`}); ${result.runs} runs.`}
            {` Each flow judged over ${result.window_s[0]}–${result.window_s[1]} s of the run.`}
          </p>
          <CapacityTraceChart points={tracePoints(result)} target={result.min_mean_mbps > 0 ? result.min_mean_mbps : null} parameter={parameterLabel(doc, result.parameter)} answer={result.value ?? null} />
          {step ? <CapacityFlowsTable step={step} caption={`Per flow at ${parameterLabel(doc, result.parameter)} = ${shown(step.value)} (step ${step.step}, ${step.runs} runs)`} /> : null}
        </>
      ) : null}
    </section>
  );
}

