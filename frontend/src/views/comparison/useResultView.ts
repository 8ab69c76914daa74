import { useMemo } from "react";
import type { ResultDocument } from "../../api/types";
import {
  allFlowIds,
  eventMarkers,
  flowMeanCdfs,
  flowSeries,
  flowStyles,
  sharedDomains,
  strategyOrder,
  subflowSeries,
  summaryBars,
  sweepLines,
  type StrategySeries,
} from "../../lib/chartData";
import { qualityRows } from "../../lib/flowQuality";
import { strategyColors, strategyDashes } from "../../lib/colors";
import { summaryRows } from "../../lib/summaryRows";

/**
 * Everything the results page draws, derived once per result document.
 *
 * Owns:
 * 1. the strategy order (requested first) and each strategy's per-flow series and event markers;
 * 2. the shared axes, flow styles, strategy colours and dashes, so that every chart reads alike;
 * 3. the summary rows and bars, the CDF of per-flow means, the sweep lines and the subflow series;
 * 4. the quality summary of the udp, voice and video flows (delay, jitter, loss, MOS, video frames).
 */
export function useResultView(result: ResultDocument, requested: string[]) {
  return useMemo(() => {
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
      quality: qualityRows(series),
      bars: summaryBars(result, requested),
      cdfs: flowMeanCdfs(result, requested),
      sweep: sweepLines(result),
      subflows: Object.fromEntries(order.map((s) => [s, subflowSeries(result.strategies[s]!)])),
    };
  }, [result, requested]);
}

export type ResultView = ReturnType<typeof useResultView>;
