import { useCallback, useEffect, useMemo, useState, type ReactNode } from "react";
import { Link, useParams } from "react-router";
import { ApiError, api, isAbort } from "../api/client";
import { FINISHED_STATUSES, type ComparisonPublic, type ProgressEvent, type ResultDocument, type StrategyInfo, type SweepPointRunPublic, type SweepPointRunSummary } from "../api/types";
import { ErrorList } from "../components/ErrorList";
import { GeoTimelineMap } from "../components/GeoTimelineMap";
import { PlannedVsMeasured } from "../components/PlannedVsMeasured";
import { ProgressBar } from "../components/ProgressBar";
import { RouteOverlay } from "../components/RouteOverlay";
import { CdfChart, SummaryBars, SweepChart } from "../components/StatCharts";
import { SummaryTable } from "../components/SummaryTable";
import { LegendSwatch, MARKER_STYLE } from "../components/chartKit";
import { ThroughputChart } from "../components/ThroughputChart";
import { TimeBrush } from "../components/TimeBrush";
import {
  allFlowIds,
  eventMarkers,
  EVENT_MARKER_KINDS,
  flowMeanCdfs,
  flowSeries,
  flowStyles,
  sharedDomains,
  strategyOrder,
  subflowSeries,
  summaryBars,
  sweepLines,
  valuesAt,
  type StrategySeries,
} from "../lib/chartData";
import { strategyColors, strategyDashes } from "../lib/colors";
import { parameterLabel } from "../lib/parameters";
import { errorLines } from "../lib/errors";
import { formatFixed3, formatSeconds } from "../lib/format";
import { summaryRows } from "../lib/summaryRows";

function isActive(status: string | undefined): boolean {
  return status === "queued" || status === "running";
}

/**
 * The comparison, followed live: one GET, then server-sent events while it is
 * queued or running (no polling), then one GET for the result once finished.
 */
export function useComparison(scenarioId: string, comparisonId: string) {
  const [comparison, setComparison] = useState<ComparisonPublic | null>(null);
  const [live, setLive] = useState<ProgressEvent | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    const ctl = new AbortController();
    let source: EventSource | null = null;
    setErrors([]);
    api
      .getComparison(scenarioId, comparisonId, ctl.signal)
      .then((c) => {
        setComparison(c);
        setLive({ status: c.status, progress: c.progress, error: c.error, units_done: c.units_done, units_total: c.units_total });
        if (!isActive(c.status)) return;
        source = new EventSource(api.comparisonEventsUrl(scenarioId, comparisonId));
        source.onmessage = (msg) => {
          const ev = JSON.parse(msg.data as string) as ProgressEvent;
          setLive(ev);
          if (FINISHED_STATUSES.includes(ev.status)) {
            source?.close();
            source = null;
            setReload((n) => n + 1);
          }
        };
        source.onerror = () => {
          // the browser reconnects by itself; a closed source will not come back
          if (source && source.readyState === EventSource.CLOSED) setErrors(["Lost the progress stream; reload the page to follow the comparison."]);
        };
      })
      .catch((err) => {
        if (!isAbort(err)) setErrors(errorLines(err));
      });
    return () => {
      ctl.abort();
      source?.close();
    };
  }, [scenarioId, comparisonId]);

  // the final state with the result document
  useEffect(() => {
    if (!reload) return;
    const ctl = new AbortController();
    api
      .getComparison(scenarioId, comparisonId, ctl.signal)
      .then((c) => {
        setComparison(c);
        setLive({ status: c.status, progress: c.progress, error: c.error, units_done: c.units_done, units_total: c.units_total });
      })
      .catch((err) => {
        if (!isAbort(err)) setErrors(errorLines(err));
      });
    return () => ctl.abort();
  }, [reload, scenarioId, comparisonId]);

  return { comparison, live, errors };
}

export function useStrategyDescriptions(): Record<string, string> {
  const [map, setMap] = useState<Record<string, string>>({});
  useEffect(() => {
    const ctl = new AbortController();
    api
      .listStrategies(ctl.signal)
      .then((list: StrategyInfo[]) => setMap(Object.fromEntries(list.map((s) => [s.name, s.description]))))
      .catch(() => undefined);
    return () => ctl.abort();
  }, []);
  return map;
}

const STATUS_TEXT: Record<string, string> = {
  queued: "Queued — waiting for a worker",
  running: "Running",
  succeeded: "Finished",
  failed: "Failed",
  cancelled: "Cancelled",
};

export function ComparisonView() {
  const { id = "", cid = "" } = useParams();
  const { comparison: c, live, errors } = useComparison(id, cid);
  const descriptions = useStrategyDescriptions();
  const [scenarioName, setScenarioName] = useState<string | null>(null);
  const [cancelError, setCancelError] = useState<string[]>([]);
  const [cancelling, setCancelling] = useState(false);

  useEffect(() => {
    const ctl = new AbortController();
    api
      .getScenario(id, ctl.signal)
      .then((s) => setScenarioName(s.name))
      .catch(() => undefined);
    return () => ctl.abort();
  }, [id]);

  const status = live?.status ?? c?.status;
  const progress = live?.progress ?? c?.progress ?? 0;
  const scenarioPath = `/scenarios/${encodeURIComponent(id)}`;

  const cancel = async () => {
    setCancelling(true);
    setCancelError([]);
    try {
      await api.cancelComparison(id, cid);
    } catch (err) {
      setCancelError(err instanceof ApiError && (err.status === 404 || err.status === 405) ? ["This server cannot cancel comparisons (no cancel endpoint)."] : errorLines(err));
      setCancelling(false);
    }
  };

  return (
    <>
      <nav className="breadcrumbs" aria-label="Breadcrumb">
        <Link to="/">Scenarios</Link>
        <span aria-hidden="true"> / </span>
        <Link to={scenarioPath}>{scenarioName ?? "Scenario"}</Link>
        <span aria-hidden="true"> / </span>
        <span aria-current="page">Comparison {cid}</span>
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

      <ErrorList title="Could not load the comparison:" items={errors} />
      {!c && !errors.length ? <p className="muted">Loading…</p> : null}

      {c && isActive(status) ? (
        <section className="card progress-card" aria-live="polite">
          <div className="card-head">
            <p className="status-text">
              {STATUS_TEXT[status ?? ""]} — {Math.round(progress * 100)}%
              {live && (live.units_total ?? 1) > 1 ? <span data-testid="units-count">{` (${live.units_done ?? 0} / ${live.units_total} runs)`}</span> : null}
            </p>
            <button type="button" className="btn btn-danger" onClick={cancel} disabled={cancelling}>
              {cancelling ? "Cancelling…" : "Cancel comparison"}
            </button>
          </div>
          <ProgressBar progress={progress} label="Comparison progress" />
          <ErrorList title="Not cancelled:" items={cancelError} />
        </section>
      ) : null}

      {status === "cancelled" ? (
        <div className="alert" role="status">
          The comparison was cancelled.
        </div>
      ) : null}

      {status === "failed" ? (
        <div className="alert alert-error" role="alert">
          <strong>The comparison failed.</strong>
          <pre className="error-text">{live?.error || c?.error || "No error message was recorded."}</pre>
        </div>
      ) : null}

      {c && c.status === "succeeded" && !c.result ? (
        <div className="alert alert-error" role="alert">
          The comparison finished but holds no result document.
        </div>
      ) : null}

      {c && c.status === "succeeded" && c.result ? (
        c.result.sweep ? (
          <SweepRunResults scenarioId={id} comparisonId={cid} result={c.result} requested={c.strategies} descriptions={descriptions} name={`comparison-${cid}`} />
        ) : (
          <Results result={c.result} requested={c.strategies} descriptions={descriptions} name={`comparison-${cid}`} />
        )
      ) : null}
      {c && c.status === "succeeded" && c.result ? <PlannedVsMeasured scenarioId={id} comparisonId={cid} result={c.result} /> : null}
      {c ? <GeoTimelineMap scenarioId={id} version={c.scenario_version} /> : null}
    </>
  );
}

interface ResultsProps {
  result: ResultDocument;
  requested: string[];
  descriptions: Record<string, string>;
  name: string;
  /** A sweep: the point whose run the per-flow charts show (0-based; default 0) and the control choosing it. */
  point?: number;
  pointPicker?: ReactNode;
}

/**
 * A sweep's results with the per-flow charts, summary and routes of a chosen point: the
 * representative runs stored by the worker (GET .../sweep-points), fetched when picked; the
 * sweep statistics stay those of the whole comparison.
 */
function SweepRunResults({ scenarioId, comparisonId, result, ...rest }: Omit<ResultsProps, "point" | "pointPicker"> & { scenarioId: string; comparisonId: string }) {
  const [runs, setRuns] = useState<SweepPointRunSummary[]>([]);
  const [point, setPoint] = useState(0);
  const [run, setRun] = useState<SweepPointRunPublic | null>(null);
  const [problems, setProblems] = useState<string[]>([]);
  useEffect(() => {
    const ctl = new AbortController();
    api
      .listSweepPointRuns(scenarioId, comparisonId, ctl.signal)
      .then((r) => setRuns(r.data))
      .catch((err) => {
        if (!isAbort(err)) setRuns([]);
      });
    return () => ctl.abort();
  }, [scenarioId, comparisonId]);
  useEffect(() => {
    setProblems([]);
    if (point === 0) {
      setRun(null);
      return;
    }
    const ctl = new AbortController();
    api
      .getSweepPointRun(scenarioId, comparisonId, point, ctl.signal)
      .then(setRun)
      .catch((err) => {
        if (!isAbort(err)) setProblems(errorLines(err));
      });
    return () => ctl.abort();
  }, [scenarioId, comparisonId, point]);
  const shown = useMemo<ResultDocument>(() => (run && run.point === point ? { ...result, scenario: run.scenario, strategies: run.strategies } : result), [run, point, result]);
  const sweep = result.sweep!;
  const label = parameterLabel(result.scenario, sweep.parameter);
  const loading = point !== 0 && (!run || run.point !== point) && !problems.length;
  const picker = (
    <span className="field inline-field">
      <label htmlFor="shown-point-pick">Per-flow charts of</label>{" "}
      <select id="shown-point-pick" value={point} onChange={(e) => setPoint(Number(e.currentTarget.value))} disabled={runs.length < 2}>
        {(runs.length ? runs : [{ point: 0, value: sweep.values[0] ?? null, seed: result.scenario.run?.seed ?? 1 }]).map((r) => (
          <option key={r.point} value={r.point}>
            {`point ${r.point + 1} of ${sweep.points.length}: ${label} = ${String(r.value)}${pointY(result, r.value_y)}`}
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

/** Every view of one result document. */
export function Results({ result, requested, descriptions, name, point = 0, pointPicker }: ResultsProps) {
  const [hoverT, setHoverT] = useState<number | null>(null);
  const [showSubflows, setShowSubflows] = useState(false);
  const [markerKinds, setMarkerKinds] = useState<string[]>([...EVENT_MARKER_KINDS]);
  const [timeWindow, setTimeWindow] = useState<[number, number] | null>(null);

  const view = useMemo(() => {
    const order = strategyOrder(requested, result);
    const series: StrategySeries[] = order.map((s) => {
      const r = result.strategies[s]!;
      return { strategy: s, engine: r.engine, flows: flowSeries(r), markers: eventMarkers(r.events) };
    });
    return {
      order,
      series,
      domains: sharedDomains(series),
      styles: flowStyles(allFlowIds(series)),
      colors: strategyColors(order),
      dashes: strategyDashes(order),
      rows: summaryRows(result, requested),
      bars: summaryBars(result, requested),
      cdfs: flowMeanCdfs(result, requested),
      sweep: sweepLines(result),
      subflows: Object.fromEntries(order.map((s) => [s, subflowSeries(result.strategies[s]!)])),
    };
  }, [result, requested]);

  const readout = useCallback(
    (t: number) => {
      const hover = valuesAt(view.series, t);
      return (
        <>
          <strong>t ≈ {formatSeconds(hover[0]?.t_s ?? t)} s</strong>
          {view.order.map((s) => (
            <span key={s} className="hover-item">
              <span className="swatch" style={{ background: view.colors[s] }} />
              {s}:{" "}
              {hover
                .filter((h) => h.strategy === s)
                .map((h) => `${h.flowId} ${formatFixed3(h.mbps)}`)
                .join(", ")}{" "}
              Mbit/s
            </span>
          ))}
        </>
      );
    },
    [view],
  );
  const presentKinds = EVENT_MARKER_KINDS.filter((k) => view.series.some((s) => s.markers.some((m) => m.kind === k)));

  return (
    <>
      <section aria-labelledby="charts-title">
        <h2 id="charts-title" className="section-title">
          Throughput per flow
        </h2>
        <ShownRun result={result} point={point} picker={pointPicker} />
        <div className="chart-controls">
          <label className="toggle">
            <input type="checkbox" checked={showSubflows} onChange={(e) => setShowSubflows(e.currentTarget.checked)} /> Show subflows
          </label>
          <fieldset className="marker-kinds">
            <legend>Markers</legend>
            {presentKinds.map((k) => (
              <label key={k} className="toggle">
                <input
                  type="checkbox"
                  checked={markerKinds.includes(k)}
                  onChange={(e) => {
                    const on = e.currentTarget.checked;
                    setMarkerKinds((ks) => (on ? [...ks, k] : ks.filter((x) => x !== k)));
                  }}
                />{" "}
                <LegendSwatch item={{ key: k, kind: "marker", label: k, color: MARKER_STYLE[k]?.color ?? "#64748b", glyph: MARKER_STYLE[k]?.glyph }} /> {MARKER_STYLE[k]?.label ?? k}
              </label>
            ))}
            {!presentKinds.length ? <span className="muted small">no events</span> : null}
          </fieldset>
        </div>
        <p className="muted small">Same axes in every chart. Hover a chart to read every strategy's values at that time, at the cursor.</p>
        {view.series[0] ? <TimeBrush series={view.series[0]} domains={view.domains} styles={view.styles} view={timeWindow} onView={setTimeWindow} /> : null}
        <div className="charts">
          {view.series.map((s) => (
            <ThroughputChart
              key={s.strategy}
              series={s}
              domains={view.domains}
              styles={view.styles}
              description={descriptions[s.strategy]}
              markerKinds={markerKinds}
              subflows={showSubflows ? view.subflows[s.strategy] : null}
              hoverT={hoverT}
              onHover={setHoverT}
              view={timeWindow}
              onView={setTimeWindow}
              readout={readout}
              filename={name}
            />
          ))}
        </div>
      </section>

      <section aria-labelledby="summary-title">
        <h2 id="summary-title" className="section-title">
          Summary
        </h2>
        <div className="charts">
          <SummaryBars bars={view.bars} colors={view.colors} filename={`${name}-summary`} />
          <CdfChart cdfs={view.cdfs} colors={view.colors} dashes={view.dashes} filename={`${name}-cdf`} />
        </div>
        <SummaryTable rows={view.rows} />
        <p className="muted small">
          “At zero”: seconds with throughput below 1 kbit/s. On “all flows” rows, mean / std / min are over the per-flow means, “at zero” is the total over flows, and the
          longest zero run is the longest of any flow.
        </p>
      </section>

      {result.repetitions ? (
        <section aria-labelledby="reps-title">
          <h2 id="reps-title" className="section-title">
            Repetitions
          </h2>
          <table className="compact" data-testid="repetitions-table">
            <thead>
              <tr>
                <th scope="col">Strategy</th>
                <th scope="col" className="num">
                  Mean (Mbit/s)
                </th>
                <th scope="col" className="num">
                  95 % CI (± Mbit/s)
                </th>
                <th scope="col" className="num">
                  Runs
                </th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(result.repetitions).map(([s, a]) => (
                <tr key={s}>
                  <td>{s}</td>
                  <td className="num">{formatFixed3(a.mean_mbps)}</td>
                  <td className="num">{formatFixed3(a.ci95_mbps)}</td>
                  <td className="num">{a.runs}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}

      {view.sweep.length && result.sweep ? (
        <section aria-labelledby="sweep-title">
          <h2 id="sweep-title" className="section-title">
            Sweep
          </h2>
          <div className="charts">
            <SweepChart
              parameter={parameterLabel(result.scenario, result.sweep.parameter)}
              lines={view.sweep}
              colors={view.colors}
              dashes={view.dashes}
              shownX={typeof result.sweep.values[point] === "number" ? result.sweep.values[point] : null}
              filename={`${name}-sweep`}
            />
          </div>
          <SweepPointTable result={result} order={view.order} />
        </section>
      ) : null}

      <RouteOverlay result={result} strategies={view.order} hoverT={hoverT} />
    </>
  );
}

/**
 * Which run the per-flow charts, the summary and the routes show when the comparison swept a
 * parameter or repeated: the first sweep point's first repetition (the result document keeps the
 * per-flow series of that run only; `ResultDocument.strategies`).
 */
function ShownRun({ result, point = 0, picker }: { result: ResultDocument; point?: number; picker?: ReactNode }) {
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
          {parameterLabel(result.scenario, sweep.parameter)} = <strong>{String(sweep.values[point])}</strong>
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

/** A sweep point's statistics per strategy, the point chosen by the user (default: the one the charts show). */
/** ", <second parameter> = <value>" for a point of a 2-D sweep; empty for a 1-D sweep. */
function pointY(result: ResultDocument, valueY: unknown): string {
  const parameterY = result.sweep?.parameter_y;
  return parameterY && valueY !== null && valueY !== undefined
    ? `, ${parameterLabel(result.scenario, parameterY)} = ${String(valueY)}`
    : "";
}

function SweepPointTable({ result, order }: { result: ResultDocument; order: string[] }) {
  const sweep = result.sweep!;
  const [index, setIndex] = useState(0);
  const point = sweep.points[index];
  const label = parameterLabel(result.scenario, sweep.parameter);
  return (
    <div className="sweep-point" data-testid="sweep-point">
      <div className="field">
        <label htmlFor="sweep-point-pick">Sweep point</label>
        <select id="sweep-point-pick" value={index} onChange={(e) => setIndex(Number(e.currentTarget.value))}>
          {sweep.points.map((p, i) => (
            <option key={i} value={i}>
              {`${i + 1} of ${sweep.points.length}: ${label} = ${String(p.value)}${pointY(result, p.value_y)}`}
            </option>
          ))}
        </select>
      </div>
      {point ? (
        <table className="compact" aria-label={`Statistics at sweep point ${index + 1}`}>
          <thead>
            <tr>
              <th scope="col">Strategy</th>
              <th scope="col" className="num">
                Mean (Mbit/s)
              </th>
              <th scope="col" className="num">
                95 % CI (± Mbit/s)
              </th>
              <th scope="col" className="num">
                Jain's index
              </th>
              <th scope="col" className="num">
                At zero (s)
              </th>
              <th scope="col" className="num">
                Runs
              </th>
            </tr>
          </thead>
          <tbody>
            {[...order, ...Object.keys(point.strategies).filter((s) => !order.includes(s))]
              .filter((s) => point.strategies[s])
              .map((s) => {
                const a = point.strategies[s]!;
                return (
                  <tr key={s} data-strategy={s}>
                    <td>{s}</td>
                    <td className="num">{formatFixed3(a.mean_mbps)}</td>
                    <td className="num">{formatFixed3(a.ci95_mbps)}</td>
                    <td className="num">{formatFixed3(a.jain_index)}</td>
                    <td className="num">{formatFixed3(a.zero_s)}</td>
                    <td className="num">{a.runs}</td>
                  </tr>
                );
              })}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
