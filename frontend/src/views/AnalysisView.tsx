/**
 * What-if analysis of a saved scenario: single failures re-planned (table worst first,
 * the selected failure on the topology), a capacity search (worker job followed over server-sent
 * events: runs done / total; its trace as a chart) and a 2-D sweep (a comparison whose sweep has
 * two parameters, followed over its event stream; a heatmap with each cell's 95 % CI).
 */
import { useEffect, useMemo, useRef, useState } from "react";
import { Link, useParams } from "react-router";
import {
  analysisApi,
  followProgress,
  type CapacityResult,
  type ComparisonProgress,
  type FailureCase,
  type FailureReport,
  type JobPublic,
} from "../api/analysis";
import { api, isAbort } from "../api/client";
import type { ComparisonPublic, ScenarioPublic } from "../api/types";
import { CapacityTraceChart, SweepHeatmap } from "../components/AnalysisCharts";
import { ErrorList } from "../components/ErrorList";
import { ProgressBar } from "../components/ProgressBar";
import { TopologyGraph } from "../components/TopologyGraph";
import { parseNumberList, sweepParameters } from "../lib/editor";
import { errorLines } from "../lib/errors";
import { formatFixed3 } from "../lib/format";
import { failureHighlight, heatmapCells, tracePoints } from "../lib/whatIf";
import { usePageTitle } from "./usePageTitle";
import { ParameterSelect, StrategySelect } from "../components/pickers";
import { parameterLabel, parameterScale, parameterUnit } from "../lib/parameters";

const METRICS = ["delay", "hop", "loss", "tcpbp", "tcpbp-greedy"] as const;

function num(v: number | null | undefined, digits = 2): string {
  return v === null || v === undefined ? "—" : v.toFixed(digits);
}

export function AnalysisView() {
  const { id = "" } = useParams();
  const [item, setItem] = useState<ScenarioPublic | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  usePageTitle("Analysis", item?.name);
  useEffect(() => {
    const ctl = new AbortController();
    api.getScenario(id, ctl.signal).then(setItem).catch((err) => {
      if (!isAbort(err)) setErrors(errorLines(err));
    });
    return () => ctl.abort();
  }, [id]);
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

function FailuresSection({ scenario }: { scenario: ScenarioPublic }) {
  const doc = scenario.scenario;
  const [metric, setMetric] = useState<(typeof METRICS)[number]>("delay");
  const [nodes, setNodes] = useState(false);
  const [sharedRisk, setSharedRisk] = useState(false);
  const [report, setReport] = useState<FailureReport | null>(null);
  const [selected, setSelected] = useState<number>(0);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<string[]>([]);
  const run = async () => {
    setBusy(true);
    setErrors([]);
    try {
      setReport(await analysisApi.failures(String(scenario.id), { metric, nodes, shared_risk: sharedRisk }));
      setSelected(0);
    } catch (err) {
      setErrors(errorLines(err));
    } finally {
      setBusy(false);
    }
  };
  const chosen: FailureCase | null = report?.cases[selected] ?? null;
  const highlight = useMemo(() => (chosen ? failureHighlight(chosen, doc.links ?? []) : null), [chosen, doc.links]);
  return (
    <section className="card" aria-labelledby="failures-title">
      <div className="card-head">
        <h2 id="failures-title">Failure analysis</h2>
      </div>
      <p className="muted">Every single link (and node) failure, and on request the shared-risk groups: routes and rates re-planned on the run&apos;s network without them, each flow against the intact plan. No engine runs.</p>
      <div className="run-options">
        <div className="field">
          <label htmlFor="failures-metric">Routing metric</label>
          <select id="failures-metric" value={metric} onChange={(e) => setMetric(e.currentTarget.value as (typeof METRICS)[number])}>
            {METRICS.map((m) => <option key={m} value={m}>{m}</option>)}
          </select>
        </div>
        <label className="field">
          <span><input type="checkbox" checked={nodes} onChange={(e) => setNodes(e.currentTarget.checked)} /> Also fail each node</span>
        </label>
        <label className="field">
          <span><input type="checkbox" checked={sharedRisk} onChange={(e) => setSharedRisk(e.currentTarget.checked)} /> Shared-risk groups (all SATCOM, each constellation)</span>
        </label>
        <button type="button" className="btn btn-primary" onClick={run} disabled={busy}>{busy ? "Analysing…" : "Analyse failures"}</button>
      </div>
      <ErrorList title="The analysis was refused:" items={errors} />
      {report ? (
        <div className="analysis-grid">
          <div>
            <table className="summary" data-testid="failure-table">
              <caption>
                Worst first, on the run&apos;s network {report.t_s != null ? `at t = ${report.t_s} s` : "over the whole run, each failure at the time it hurts most (column “at”)"};
                intact plan delivers {formatFixed3(report.intact_delivered_mbps)} Mbit/s at the start (bulk flows: their fair share). Select a row to see it on the topology.
              </caption>
              <thead>
                <tr><th>failure</th><th>at s</th><th>lost Mbit/s</th><th>flows cut</th><th>paths changed</th><th>max +delay ms</th></tr>
              </thead>
              <tbody>
                {report.cases.map((c, i) => (
                  <tr key={`${c.kind}:${c.element}`} data-testid="failure-row" data-kind={c.kind} data-element={c.element}
                      data-lost={c.lost_mbps} aria-selected={i === selected} className={i === selected ? "selected" : undefined}
                      onClick={() => setSelected(i)}>
                    <td><button type="button" className="link-button" onClick={() => setSelected(i)}>{c.kind} {c.element}</button></td>
                    <td data-testid="failure-at">{num(c.t_s, 1)}</td>
                    <td>{formatFixed3(c.lost_mbps)}</td>
                    <td>{c.flows_cut}</td>
                    <td>{c.paths_changed}</td>
                    <td>{num(c.max_delay_change_ms, 1)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div>
            <TopologyGraph doc={doc} label="Topology with the selected failure" highlight={highlight} className="topology-small" />
            {chosen ? (
              <table className="summary" data-testid="failure-flows">
                <caption>{chosen.kind} {chosen.element} failed: per flow (red dashed: failed; blue: re-planned routes)</caption>
                <thead><tr><th>flow</th><th>delivered / intact Mbit/s</th><th>route</th><th>delay change ms</th></tr></thead>
                <tbody>
                  {chosen.flows.map((f) => (
                    <tr key={f.flow} data-flow={f.flow}>
                      <td>{f.flow}</td>
                      <td>{f.requested_mbps === null ? "bulk" : `${num(f.delivered_mbps)} / ${num(f.intact_delivered_mbps)}`}</td>
                      <td>{f.reachable ? `${f.path.join(" → ")}${f.path_changed ? " (changed)" : ""}` : "cut off"}</td>
                      <td>{num(f.delay_change_ms, 1)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : null}
          </div>
        </div>
      ) : null}
      {report ? <SimulatedFailures scenarioId={String(scenario.id)} links={report.cases.filter((c) => c.kind === "link").map((c) => c.element)} /> : null}
    </section>
  );
}

/**
 * A simulated run per link failure: a comparison sweeping `failed_link` over "none" and each link
 * (the link down from t = 0), followed over its event stream; a table of mean ± 95 % CI per strategy.
 */
function SimulatedFailures({ scenarioId, links }: { scenarioId: string; links: string[] }) {
  const [strategies, setStrategies] = useState("sptcp, mptcp");
  const [live, setLive] = useState<ComparisonProgress | null>(null);
  const [comparison, setComparison] = useState<ComparisonPublic | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const stop = useRef<(() => void) | null>(null);
  useEffect(() => () => stop.current?.(), []);
  const names = strategies.split(",").map((s) => s.trim()).filter(Boolean);
  const start = async () => {
    setErrors([]);
    setComparison(null);
    try {
      const c = await api.startComparison(scenarioId, { strategies: names, sweep: { parameter: "failed_link", values: [null, ...links] } });
      setLive({ status: c.status, progress: c.progress, error: c.error, units_done: c.units_done, units_total: c.units_total });
      stop.current = followProgress<ComparisonProgress>(api.comparisonEventsUrl(scenarioId, String(c.id)), setLive, async (last) => {
        if (last.status !== "succeeded") {
          setErrors([last.error ?? `the simulation ${last.status}`]);
          return;
        }
        setComparison(await api.getComparison(scenarioId, String(c.id)));
      }, () => setErrors(["Lost the progress stream; open the comparison from the scenario page."]));
    } catch (err) {
      setErrors(errorLines(err));
    }
  };
  const sweep = comparison?.result?.sweep;
  const running = live !== null && (live.status === "queued" || live.status === "running");
  return (
    <div className="simulated-failures">
      <div className="run-options">
        <div className="field"><label htmlFor="sim-strategies">Strategies to simulate</label><input id="sim-strategies" value={strategies} onChange={(e) => setStrategies(e.currentTarget.value)} /></div>
        <button type="button" className="btn" onClick={start} disabled={running || !links.length}>{running ? "Simulating…" : "Simulate each link failure"}</button>
      </div>
      <ErrorList title="The simulation was refused or failed:" items={errors} />
      {live ? <RunsProgress label="Failure simulation progress" progress={live.progress} done={live.units_done} total={live.units_total} /> : null}
      {sweep ? (
        <table className="summary" data-testid="failure-sim-table">
          <caption>Simulated runs (engine): mean throughput, Mbit/s ± 95 % CI, with each link down from t = 0</caption>
          <thead><tr><th>failed link</th>{names.map((n) => <th key={n}>{n}</th>)}</tr></thead>
          <tbody>
            {sweep.points.map((p) => (
              <tr key={String(p.value)} data-element={p.value === null ? "" : String(p.value)}>
                <td>{p.value === null ? "none (intact)" : String(p.value)}</td>
                {names.map((n) => <td key={n}>{p.strategies[n] ? `${formatFixed3(p.strategies[n].mean_mbps)} ± ${formatFixed3(p.strategies[n].ci95_mbps)}` : "—"}</td>)}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}

/** Progress of a job or comparison as a bar and "runs done / total". */
function RunsProgress({ label, progress, done, total }: { label: string; progress: number; done?: number | null; total?: number | null }) {
  return (
    <div className="runs-progress" data-testid="runs-progress">
      <ProgressBar progress={progress} label={label} />
      <span className="muted" data-testid="runs-count">{done !== null && done !== undefined && total ? `${done} / ${total} runs` : `${Math.round(progress * 100)} %`}</span>
    </div>
  );
}

function defaultBackhaul(params: string[]): string {
  return params.find((p) => /uav/.test(p) && p.endsWith("bandwidth_mbps") && p.startsWith("links.")) ??
    params.find((p) => p.startsWith("links.") && p.endsWith("bandwidth_mbps")) ?? params[0] ?? "";
}

/** " (Mbit/s)" after a bound's label: the parameter's displayed unit, or nothing. */
function unitSuffix(path: string): string {
  const u = parameterUnit(path);
  return u ? ` (${u})` : "";
}

function CapacitySection({ scenario }: { scenario: ScenarioPublic }) {
  const doc = scenario.scenario;
  const params = useMemo(() => sweepParameters(doc), [doc]);
  const [parameter, setParameter] = useState(() => defaultBackhaul(params));
  const [low, setLow] = useState("0.5");
  const [high, setHigh] = useState("10");
  const [minMean, setMinMean] = useState("2.5");
  const [maxZero, setMaxZero] = useState("");
  const [strategy, setStrategy] = useState("mptcp");
  const [repetitions, setRepetitions] = useState("1");
  const [tolerance, setTolerance] = useState("0.25");
  const [windowFrom, setWindowFrom] = useState("");
  const [windowTo, setWindowTo] = useState("");
  const [job, setJob] = useState<JobPublic | null>(null);
  const [result, setResult] = useState<CapacityResult | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const stop = useRef<(() => void) | null>(null);
  useEffect(() => () => stop.current?.(), []);
  const start = async () => {
    setErrors([]);
    setResult(null);
    try {
      const accepted = await analysisApi.startCapacitySearch(String(scenario.id), {
        parameter, low: Number(low) / parameterScale(parameter), high: Number(high) / parameterScale(parameter), min_mean_mbps: Number(minMean),
        max_zero_s: maxZero.trim() ? Number(maxZero) : null, strategy, engine: "fluid",
        repetitions: Number(repetitions), tolerance: Number(tolerance), max_steps: 12, integer: false,
        window_s: windowFrom.trim() || windowTo.trim()
          ? [Number(windowFrom.trim() || "0"), Number(windowTo.trim() || String(doc.run?.duration_s ?? 100))]
          : null,
      });
      setJob({ job_id: accepted.job_id, status: "queued", progress: 0, result: null, error: null });
      stop.current = followProgress<JobPublic>(analysisApi.jobEventsUrl(accepted.job_id), setJob, async (last) => {
        if (last.status !== "succeeded") {
          setErrors([last.error ?? "the search failed"]);
          return;
        }
        const full = await analysisApi.job(accepted.job_id);
        setJob(full);
        setResult(full.result as CapacityResult);
      }, () => setErrors(["Lost the progress stream; start the search again."]));
    } catch (err) {
      setErrors(errorLines(err));
    }
  };
  const running = job !== null && (job.status === "queued" || job.status === "running");
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
        <div className="field"><label htmlFor="cap-low">From{unitSuffix(parameter)}</label><input id="cap-low" type="number" value={low} onChange={(e) => setLow(e.currentTarget.value)} /></div>
        <div className="field"><label htmlFor="cap-high">To{unitSuffix(parameter)}</label><input id="cap-high" type="number" value={high} onChange={(e) => setHigh(e.currentTarget.value)} /></div>
        <div className="field"><label htmlFor="cap-mean">Every flow's mean ≥ (Mbit/s)</label><input id="cap-mean" type="number" value={minMean} onChange={(e) => setMinMean(e.currentTarget.value)} /></div>
        <div className="field"><label htmlFor="cap-zero">Time at zero ≤ (s, optional)</label><input id="cap-zero" type="number" value={maxZero} onChange={(e) => setMaxZero(e.currentTarget.value)} /></div>
        <div className="field"><label htmlFor="cap-strategy">Strategy</label><StrategySelect id="cap-strategy" value={strategy} onChange={setStrategy} /></div>
        <div className="field"><label htmlFor="cap-reps">Repetitions per step</label><input id="cap-reps" type="number" min={1} value={repetitions} onChange={(e) => setRepetitions(e.currentTarget.value)} /></div>
        <div className="field"><label htmlFor="cap-tol">Tolerance</label><input id="cap-tol" type="number" value={tolerance} onChange={(e) => setTolerance(e.currentTarget.value)} /></div>
        <div className="field"><label htmlFor="cap-from">Judged from (s, optional)</label><input id="cap-from" type="number" min={0} value={windowFrom} onChange={(e) => setWindowFrom(e.currentTarget.value)} /></div>
        <div className="field"><label htmlFor="cap-to">to (s, optional)</label><input id="cap-to" type="number" min={0} value={windowTo} onChange={(e) => setWindowTo(e.currentTarget.value)} /></div>
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

function GridSweepSection({ scenario }: { scenario: ScenarioPublic }) {
  const doc = scenario.scenario;
  const params = useMemo(() => sweepParameters(doc), [doc]);
  const [px, setPx] = useState(() => defaultBackhaul(params));
  const [py, setPy] = useState(() => params.find((p) => p !== defaultBackhaul(params) && p.endsWith("bandwidth_mbps")) ?? params[1] ?? "");
  const [vx, setVx] = useState("1, 4");
  const [vy, setVy] = useState("1, 3");
  const [strategy, setStrategy] = useState("mptcp");
  const [repetitions, setRepetitions] = useState("2");
  const [live, setLive] = useState<ComparisonProgress | null>(null);
  const [comparison, setComparison] = useState<ComparisonPublic | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const stop = useRef<(() => void) | null>(null);
  useEffect(() => () => stop.current?.(), []);
  const start = async () => {
    setErrors([]);
    setComparison(null);
    const xs = parseNumberList(vx);
    const ys = parseNumberList(vy);
    if (!xs || !ys) {
      setErrors(["Values: numbers separated by commas, on both axes."]);
      return;
    }
    try {
      const c = await api.startComparison(String(scenario.id), {
        strategies: [strategy], repetitions: Number(repetitions),
        sweep: { parameter: px, values: xs.map((v) => v / parameterScale(px)), parameter_y: py, values_y: ys.map((v) => v / parameterScale(py)) },
      });
      setLive({ status: c.status, progress: c.progress, error: c.error, units_done: c.units_done, units_total: c.units_total });
      stop.current = followProgress<ComparisonProgress>(api.comparisonEventsUrl(String(scenario.id), String(c.id)), setLive, async (last) => {
        if (last.status !== "succeeded") {
          setErrors([last.error ?? `the sweep ${last.status}`]);
          return;
        }
        setComparison(await api.getComparison(String(scenario.id), String(c.id)));
      }, () => setErrors(["Lost the progress stream; open the comparison from the scenario page."]));
    } catch (err) {
      setErrors(errorLines(err));
    }
  };
  const heat = comparison?.result ? heatmapCells(comparison.result, strategy) : null;
  const running = live !== null && (live.status === "queued" || live.status === "running");
  return (
    <section className="card" aria-labelledby="grid-title">
      <div className="card-head"><h2 id="grid-title">Sweep over two parameters</h2></div>
      <div className="run-options">
        <div className="field">
          <label htmlFor="grid-px">Parameter (x)</label>
          <ParameterSelect id="grid-px" doc={doc} params={params} value={px} onChange={setPx} />
        </div>
        <div className="field"><label htmlFor="grid-vx">Values (x)</label><input id="grid-vx" value={vx} onChange={(e) => setVx(e.currentTarget.value)} /><p className="field-hint">in {parameterUnit(px) || "the parameter's unit"}</p></div>
        <div className="field">
          <label htmlFor="grid-py">Parameter (y)</label>
          <ParameterSelect id="grid-py" doc={doc} params={params} value={py} onChange={setPy} />
        </div>
        <div className="field"><label htmlFor="grid-vy">Values (y)</label><input id="grid-vy" value={vy} onChange={(e) => setVy(e.currentTarget.value)} /><p className="field-hint">in {parameterUnit(py) || "the parameter's unit"}</p></div>
        <div className="field"><label htmlFor="grid-strategy">Strategy</label><StrategySelect id="grid-strategy" value={strategy} onChange={setStrategy} /></div>
        <div className="field"><label htmlFor="grid-reps">Repetitions</label><input id="grid-reps" type="number" min={1} value={repetitions} onChange={(e) => setRepetitions(e.currentTarget.value)} /></div>
        <button type="button" className="btn btn-primary" onClick={start} disabled={running}>{running ? "Sweeping…" : "Run the grid"}</button>
      </div>
      <ErrorList title="The sweep was refused or failed:" items={errors} />
      {live ? <RunsProgress label="Sweep progress" progress={live.progress} done={live.units_done} total={live.units_total} /> : null}
      {comparison ? (
        <p><Link to={`/scenarios/${encodeURIComponent(String(scenario.id))}/comparisons/${encodeURIComponent(String(comparison.id))}`}>Open the comparison</Link></p>
      ) : null}
      {heat && comparison?.result?.sweep ? (
        <SweepHeatmap xs={heat.xs} ys={heat.ys} cells={heat.cells} parameter={parameterLabel(doc, comparison.result.sweep.parameter)}
                      parameterY={parameterLabel(doc, comparison.result.sweep.parameter_y ?? "")} strategy={strategy} />
      ) : null}
    </section>
  );
}
