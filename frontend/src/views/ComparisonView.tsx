/**
 * One comparison at `/scenarios/:id/comparisons/:cid`: its progress while it is queued or running
 * (with Cancel), then its results, the planned-vs-measured check, its packet captures and the map over time.
 *
 * This file only composes; the parts are in `comparison/`: following the comparison
 * (`useComparison`), the scenario version's timeline for the map, the routes' drawing and the SATCOM capacity chart
 * (`useScenarioTimeline`, asked once the results are painted), one playback time for charts, routes and map (`PlaybackProvider`), the header, status and cancel (`ComparisonHeader`, `ComparisonStatus`),
 * the results (`Results`: `useResultView`, `useChartSelection`, `ThroughputSection`,
 * `SummarySection`, `SweepSection`), a sweep's chosen point (`SweepRunResults`, `useSweepPointRun`) and the
 * packet captures' downloads (`CaptureDownloads`).
 */
import { useMemo } from "react";
import { useParams } from "react-router";
import { ErrorList } from "../components/ErrorList";
import { GeoTimelineMap } from "../components/GeoTimelineMap";
import { PlannedVsMeasured } from "../components/PlannedVsMeasured";
import { CaptureDownloads } from "./comparison/CaptureDownloads";
import { ComparisonHeader } from "./comparison/ComparisonHeader";
import { ComparisonStatus } from "./comparison/ComparisonStatus";
import { Results } from "./comparison/Results";
import { SweepRunResults } from "./comparison/SweepRunResults";
import { useComparison } from "./comparison/useComparison";
import { useScenarioName } from "./comparison/useScenarioName";
import { timelineVersion, useScenarioTimeline } from "./comparison/useScenarioTimeline";
import { useStrategyDescriptions } from "./comparison/useStrategyDescriptions";
import { comparisonLabel, fileStem } from "../lib/identity";
import { PlaybackProvider } from "../lib/playback";
import { useAfterPaint } from "../lib/useAfterPaint";

export function ComparisonView() {
  const { id = "", cid = "" } = useParams();
  const { comparison: c, live, errors } = useComparison(id, cid);
  const descriptions = useStrategyDescriptions();
  const scenarioName = useScenarioName(id);
  const status = live?.status ?? c?.status;
  // the scenario version's timeline, once for the map, the routes' drawing and the SATCOM capacity chart, after the
  // run has ended and what came with its end (the result's charts) has been painted
  const version = timelineVersion(c, status);
  const afterResults = useAfterPaint(version !== null);
  const geo = useScenarioTimeline(id, afterResults ? version : null);
  const satcom = useMemo(() => (geo.doc && geo.timeline?.access?.length ? { doc: geo.doc, passes: geo.timeline.access } : null), [geo.doc, geo.timeline]);

  const progress = live?.progress ?? c?.progress ?? 0;
  const result = c && c.status === "succeeded" ? c.result : null;
  const stem = fileStem(scenarioName, c ? comparisonLabel(c.strategies, c.created_at) : "comparison");

  // one playback time for the charts, the routes and the map (lib/playback)
  const duration = result?.scenario.run?.duration_s ?? c?.result?.scenario.run?.duration_s ?? 100;
  return (
    <PlaybackProvider duration={duration}>
      <ComparisonHeader scenarioId={id} scenarioName={scenarioName} comparison={c} status={status} />

      <ErrorList title="Could not load the comparison:" items={errors} />
      {!c && !errors.length ? <p className="muted">Loading…</p> : null}

      <ComparisonStatus scenarioId={id} comparisonId={cid} comparison={c} live={live} status={status} progress={progress} />

      {c && result ? (
        result.sweep ? (
          <SweepRunResults scenarioId={id} comparisonId={cid} result={result} requested={c.strategies} descriptions={descriptions} name={stem} />
        ) : (
          <Results result={result} requested={c.strategies} descriptions={descriptions} name={stem} satcom={satcom} timeline={geo} />
        )
      ) : null}
      {c && result ? <PlannedVsMeasured scenarioId={id} comparisonId={cid} result={result} /> : null}
      {c && result ? <CaptureDownloads scenarioId={id} comparisonId={cid} /> : null}
      {c ? <GeoTimelineMap doc={geo.doc} timeline={geo.timeline} errors={geo.errors} /> : null}
    </PlaybackProvider>
  );
}
