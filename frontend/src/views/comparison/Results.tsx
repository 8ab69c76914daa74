import type { ReactNode } from "react";
import type { ResultDocument } from "../../api/types";
import { RouteOverlay } from "../../components/RouteOverlay";
import { RepetitionsSection, SummarySection } from "./SummarySection";
import { SweepSection } from "./SweepSection";
import { ThroughputSection } from "./ThroughputSection";
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
}

/** Every view of one result document: throughput charts, summary, repetitions, sweep, routes. */
export function Results({ result, requested, descriptions, name, point = 0, pointPicker }: ResultsProps) {
  const view = useResultView(result, requested);
  const selection = useChartSelection();
  return (
    <>
      <ThroughputSection result={result} view={view} selection={selection} descriptions={descriptions} name={name} point={point} pointPicker={pointPicker} />
      <SummarySection view={view} name={name} />
      {result.repetitions ? <RepetitionsSection repetitions={result.repetitions} /> : null}
      {view.sweep.length && result.sweep ? <SweepSection result={result} sweep={result.sweep} view={view} name={name} point={point} /> : null}
      <RouteOverlay result={result} strategies={view.order} hoverT={selection.hoverT} />
    </>
  );
}
