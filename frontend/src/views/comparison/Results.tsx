import type { ReactNode } from "react";
import type { ResultDocument } from "../../api/types";
import { RouteOverlay, type SharedTimeline } from "../../components/RouteOverlay";
import { RepetitionsSection, SummarySection } from "./SummarySection";
import { SweepSection } from "./SweepSection";
import { ThroughputSection, type SatcomPasses } from "./ThroughputSection";
import { useChartSelection } from "./useChartSelection";
import { useResultView } from "./useResultView";

export interface ResultsProps {
  result: ResultDocument;
  requested: string[];
  descriptions: Record<string, string>;
  name: string;
  /** A sweep: the point whose run the per-flow charts show (0-based; default 0) and the control choosing it. */
  point?: number;
  pointPicker?: ReactNode;
  /** The scenario's SATCOM passes, for the capacity chart beside the throughput charts (null: none). */
  satcom?: SatcomPasses | null;
  /** The page's timeline of `result.scenario`, for the routes' drawing (absent: the drawing asks for its own). */
  timeline?: SharedTimeline;
}

/** Every view of one result document: throughput charts beside the routes, summary, repetitions, sweep. */
export function Results({ result, requested, descriptions, name, point = 0, pointPicker, satcom, timeline }: ResultsProps) {
  const view = useResultView(result, requested);
  const selection = useChartSelection();
  return (
    <>
      {/* the charts and the routes on the network side by side on a wide screen (one column below 1400 px) */}
      <div className="workbench">
        <div className="workbench-main">
          <ThroughputSection result={result} view={view} selection={selection} descriptions={descriptions} name={name} point={point} pointPicker={pointPicker} satcom={satcom} />
        </div>
        <div className="workbench-side">
          <RouteOverlay result={result} strategies={view.order} timeline={timeline} />
        </div>
      </div>
      <SummarySection view={view} name={name} />
      {result.repetitions ? <RepetitionsSection repetitions={result.repetitions} /> : null}
      {view.sweep.length && result.sweep ? <SweepSection result={result} sweep={result.sweep} view={view} name={name} point={point} /> : null}
    </>
  );
}
