import { hasQuality, QUALITY_CHART_ORDER } from "../../lib/flowQuality";
import { QualityChart } from "../../components/QualityChart";
import type { ResultView } from "./useResultView";

/** Beside the throughput charts: the delay, jitter, loss and MOS of the flows that have them (each chart only if
 * some flow has a value), on the same time axis and window, following the same rule. */
export function QualityCharts({ view, timeWindow, ruleT, onHover, name }: { view: ResultView; timeWindow: readonly [number, number] | null; ruleT: number | null; onHover: (t: number | null) => void; name: string }) {
  if (!hasQuality(view.series)) return null;
  return (
    <>
      {QUALITY_CHART_ORDER.map((m) => (
        <QualityChart key={m} metric={m} series={view.series} colors={view.colors} styles={view.styles} domain={view.domains.x} view={timeWindow} ruleT={ruleT} onHover={onHover} filename={name} />
      ))}
    </>
  );
}
