import { useEffect, useMemo, useState } from "react";
import { Link, useParams } from "react-router";
import { ApiError, api, isAbort } from "../api/client";
import type { ComparisonPublic, StrategyInfo } from "../api/types";
import { ErrorList } from "../components/ErrorList";
import { ProgressBar } from "../components/ProgressBar";
import { SummaryTable } from "../components/SummaryTable";
import { ThroughputChart } from "../components/ThroughputChart";
import { allFlowIds, comparisonSeries, flowStyles, sharedDomains } from "../lib/chartData";
import { errorLines } from "../lib/errors";
import { summaryRows } from "../lib/summaryRows";

const POLL_MS = 1000;

function isActive(c: ComparisonPublic | null): boolean {
  return c !== null && (c.status === "queued" || c.status === "running");
}

/** Polls the comparison about once per second while it is queued or running. */
function useComparison(scenarioId: string, comparisonId: string) {
  const [comparison, setComparison] = useState<ComparisonPublic | null>(null);
  const [errors, setErrors] = useState<string[]>([]);

  useEffect(() => {
    const ctl = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    setComparison(null);
    setErrors([]);
    const tick = async () => {
      try {
        const c = await api.getComparison(scenarioId, comparisonId, ctl.signal);
        failures = 0;
        setComparison(c);
        setErrors([]);
        if (isActive(c)) timer = setTimeout(tick, POLL_MS);
      } catch (err) {
        if (isAbort(err)) return;
        setErrors(errorLines(err));
        // a missing comparison will not appear; anything else is retried, more slowly
        if (err instanceof ApiError && (err.status === 404 || err.status === 422)) return;
        failures += 1;
        timer = setTimeout(tick, Math.min(10_000, POLL_MS * 2 ** failures));
      }
    };
    void tick();
    return () => {
      ctl.abort();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [scenarioId, comparisonId]);

  return { comparison, errors };
}

function useStrategyDescriptions(): Record<string, string> {
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
};

export function ComparisonView() {
  const { id = "", cid = "" } = useParams();
  const { comparison: c, errors } = useComparison(id, cid);
  const descriptions = useStrategyDescriptions();
  const [scenarioName, setScenarioName] = useState<string | null>(null);

  useEffect(() => {
    const ctl = new AbortController();
    api
      .getScenario(id, ctl.signal)
      .then((s) => setScenarioName(s.name))
      .catch(() => undefined);
    return () => ctl.abort();
  }, [id]);

  const view = useMemo(() => {
    if (!c || c.status !== "succeeded" || !c.result) return null;
    const series = comparisonSeries(c.result, c.strategies);
    return {
      series,
      domains: sharedDomains(series),
      styles: flowStyles(allFlowIds(series)),
      rows: summaryRows(c.result, c.strategies),
    };
  }, [c]);

  const scenarioPath = `/scenarios/${encodeURIComponent(id)}`;

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
              {c.seed !== null && c.seed !== undefined ? ` · seed ${c.seed}` : ""} · started{" "}
              {new Date(c.created_at).toLocaleString()}
              {c.finished_at ? ` · finished ${new Date(c.finished_at).toLocaleString()}` : ""}
            </p>
          ) : null}
        </div>
        {c ? (
          <span className={`status status-${c.status}`} data-testid="comparison-status">
            {c.status}
          </span>
        ) : null}
      </div>

      <ErrorList title="Could not load the comparison:" items={errors} />
      {!c && !errors.length ? <p className="muted">Loading…</p> : null}

      {c && isActive(c) ? (
        <section className="card progress-card" aria-live="polite">
          <p className="status-text">
            {STATUS_TEXT[c.status]} — {Math.round((c.progress ?? 0) * 100)}%
          </p>
          <ProgressBar progress={c.progress ?? 0} label="Comparison progress" />
        </section>
      ) : null}

      {c && c.status === "failed" ? (
        <div className="alert alert-error" role="alert">
          <strong>The comparison failed.</strong>
          <pre className="error-text">{c.error || "No error message was recorded."}</pre>
        </div>
      ) : null}

      {c && c.status === "succeeded" && !view ? (
        <div className="alert alert-error" role="alert">
          The comparison finished but holds no result document.
        </div>
      ) : null}

      {view ? (
        <>
          <section aria-labelledby="charts-title">
            <h2 id="charts-title" className="section-title">
              Throughput per flow
            </h2>
            <p className="muted small">
              Same axes in every chart. Vertical lines mark handovers (dashed: handover start, solid: association).
            </p>
            <div className="charts">
              {view.series.map((s) => (
                <ThroughputChart
                  key={s.strategy}
                  series={s}
                  domains={view.domains}
                  styles={view.styles}
                  description={descriptions[s.strategy]}
                />
              ))}
            </div>
          </section>
          <section aria-labelledby="summary-title">
            <h2 id="summary-title" className="section-title">
              Summary
            </h2>
            <SummaryTable rows={view.rows} />
            <p className="muted small">
              “At zero”: seconds with throughput below 1 kbit/s. On “all flows” rows, mean / std / min are over the
              per-flow means, “at zero” is the total over flows, and the longest zero run is the longest of any flow.
            </p>
          </section>
        </>
      ) : null}
    </>
  );
}
