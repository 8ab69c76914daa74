/**
 * Several finished comparisons side by side with the same axes: one column per
 * comparison (timelines per strategy, summary bars, CDF and, for a comparison with
 * udp, voice or video flows, their delay, jitter, loss and MOS charts and quality
 * summary), every chart of a kind on one shared domain.
 */
import { useCallback, useEffect, useMemo, useState } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { api } from "../api/client";
import type { ComparisonPublic } from "../api/types";
import { ErrorList } from "../components/ErrorList";
import { QualityChart } from "../components/QualityChart";
import { QualityTable } from "../components/QualityTable";
import { CdfChart, SummaryBars } from "../components/StatCharts";
import { ThroughputChart } from "../components/ThroughputChart";
import { TimeBrush } from "../components/TimeBrush";
import {
  allFlowIds,
  eventMarkers,
  flowMeanCdfs,
  flowSeries,
  flowStyles,
  sharedDomains,
  strategyOrder,
  summaryBars,
  unionDomains,
  valuesAt,
  type StrategySeries,
} from "../lib/chartData";
import { strategyColors, strategyDashes } from "../lib/colors";
import { errorLines } from "../lib/errors";
import { hasQuality, QUALITY_CHART_ORDER, qualityRows, sharedQualityDomains } from "../lib/flowQuality";
import { formatFixed3, formatSeconds } from "../lib/format";
import { comparisonLabel, fileStem } from "../lib/identity";
import { useScenarioName } from "./comparison/useScenarioName";
import { usePageTitle } from "./usePageTitle";

export function SideBySideView() {
  const { id = "" } = useParams();
  const [params] = useSearchParams();
  const ids = (params.get("ids") ?? "").split(",").filter(Boolean);
  const [items, setItems] = useState<ComparisonPublic[] | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const [hoverT, setHoverT] = useState<number | null>(null);
  const [timeWindow, setTimeWindow] = useState<[number, number] | null>(null);
  const key = ids.join(",");
  const scenarioName = useScenarioName(id);
  usePageTitle("Side by side", scenarioName);

  useEffect(() => {
    const ctl = new AbortController();
    Promise.all(key.split(",").filter(Boolean).map((cid) => api.getComparison(id, cid, ctl.signal)))
      .then(setItems)
      .catch((err) => setErrors(errorLines(err)));
    return () => ctl.abort();
  }, [id, key]);

  const view = useMemo(() => {
    if (!items) return null;
    const done = items.filter((c) => c.status === "succeeded" && c.result);
    const columns = done.map((c) => {
      const order = strategyOrder(c.strategies, c.result!);
      const series: StrategySeries[] = order.map((s) => {
        const r = c.result!.strategies[s]!;
        return { strategy: s, engine: r.engine, flows: flowSeries(r), markers: eventMarkers(r.events) };
      });
      return { c, series, bars: summaryBars(c.result!, c.strategies), cdfs: flowMeanCdfs(c.result!, c.strategies), quality: hasQuality(series), qualityRows: qualityRows(series) };
    });
    const allSeries = columns.flatMap((col) => col.series);
    const names = [...new Set(allSeries.map((s) => s.strategy))];
    return {
      columns,
      skipped: items.length - done.length,
      domains: unionDomains(columns.map((col) => sharedDomains(col.series))),
      qualityDomains: sharedQualityDomains(columns.map((col) => col.series)),
      styles: flowStyles(allFlowIds(allSeries)),
      colors: strategyColors(names),
      dashes: strategyDashes(names),
      barMax: Math.max(1e-9, ...columns.flatMap((col) => col.bars.map((b) => b.mean_mbps + (Number.isFinite(b.std_mbps) ? b.std_mbps : 0)))) * 1.15,
      cdfMax: Math.max(1e-9, ...columns.flatMap((col) => col.cdfs.flatMap((c) => c.points.map((p) => p.mbps)))) * 1.05,
    };
  }, [items]);

  const readout = useCallback(
    (t: number) => (
      <>
        <strong>t ≈ {formatSeconds(t)} s</strong>
        {(view?.columns ?? []).map((col) => (
          <span key={String(col.c.id)} className="hover-item">
            {comparisonLabel(col.c.strategies, col.c.created_at)}:{" "}
            {valuesAt(col.series, t)
              .map((h) => `${h.strategy}/${h.flowId} ${formatFixed3(h.mbps)}`)
              .join(", ")}
          </span>
        ))}
      </>
    ),
    [view],
  );

  return (
    <>
      <nav className="breadcrumbs" aria-label="Breadcrumb">
        <Link to="/">Scenarios</Link>
        <span aria-hidden="true"> / </span>
        <Link to={`/scenarios/${encodeURIComponent(id)}`}>{scenarioName ?? "Scenario"}</Link>
        <span aria-hidden="true"> / </span>
        <span aria-current="page">Side by side</span>
      </nav>
      <h1>Comparisons side by side</h1>
      <ErrorList title="Could not load the comparisons:" items={errors} />
      {!view && !errors.length ? <p className="muted">Loading…</p> : null}
      {view && view.skipped ? <p className="muted">{view.skipped} comparison(s) not finished successfully are left out.</p> : null}
      {view ? (
        <>
          <p className="muted small">All charts share their axes and their time window. Hover a timeline to read every comparison at that time, at the cursor.</p>
          {view.columns[0]?.series[0] ? (
            <TimeBrush series={view.columns[0].series[0]} domains={view.domains} styles={view.styles} view={timeWindow} onView={setTimeWindow} />
          ) : null}
          <div className="side-by-side" style={{ gridTemplateColumns: `repeat(${Math.max(1, view.columns.length)}, minmax(0, 1fr))` }}>
            {view.columns.map((col) => (
              <div key={String(col.c.id)} className="column" data-testid={`column-${col.c.id}`}>
                <h2 className="section-title">
                  <Link to={`/scenarios/${encodeURIComponent(id)}/comparisons/${encodeURIComponent(String(col.c.id))}`}>{col.c.strategies.join(" vs ")}</Link>
                </h2>
                <p className="muted small">
                  v{col.c.scenario_version} · {col.c.engine} · {new Date(col.c.created_at).toLocaleString()}
                </p>
                {col.series.map((s) => (
                  <ThroughputChart
                    key={s.strategy}
                    series={s}
                    domains={view.domains}
                    styles={view.styles}
                    hoverT={hoverT}
                    onHover={setHoverT}
                    view={timeWindow}
                    onView={setTimeWindow}
                    readout={readout}
                    filename={fileStem(scenarioName, comparisonLabel(col.c.strategies, col.c.created_at))}
                    testId={`chart-${col.c.id}-${s.strategy}`}
                  />
                ))}
                {col.quality
                  ? QUALITY_CHART_ORDER.map((m) => (
                      <QualityChart
                        key={m}
                        id={`${m}-${col.c.id}`}
                        metric={m}
                        series={col.series}
                        colors={view.colors}
                        styles={view.styles}
                        domain={view.domains.x}
                        yDomain={view.qualityDomains[m]}
                        view={timeWindow}
                        ruleT={hoverT}
                        onHover={setHoverT}
                        filename={fileStem(scenarioName, comparisonLabel(col.c.strategies, col.c.created_at))}
                      />
                    ))
                  : null}
                <SummaryBars bars={col.bars} colors={view.colors} yMax={view.barMax} filename={fileStem(scenarioName, comparisonLabel(col.c.strategies, col.c.created_at), "summary")} />
                <CdfChart cdfs={col.cdfs} colors={view.colors} dashes={view.dashes} xMax={view.cdfMax} filename={fileStem(scenarioName, comparisonLabel(col.c.strategies, col.c.created_at), "cdf")} />
                <QualityTable rows={col.qualityRows} />
              </div>
            ))}
          </div>
        </>
      ) : null}
    </>
  );
}
