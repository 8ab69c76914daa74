/** Result document → summary table rows (pure). */
import type { ResultDocument } from "../api/types";
import { strategyOrder } from "./chartData";

export const ALL_FLOWS = "all";

export interface SummaryRow {
  /** Unique within the table: `<strategy>-<flowId>` or `<strategy>-all`. */
  key: string;
  strategy: string;
  /** A flow id, or {@link ALL_FLOWS} for the across-flow row. */
  flowId: string;
  isAll: boolean;
  mean_mbps: number;
  std_mbps: number;
  min_mbps: number;
  zero_s: number;
  longest_zero_s: number;
  /** Jain's fairness index across flows; only on the "all flows" row. */
  jain_index: number | null;
}

export const SUMMARY_COLUMNS = [
  "mean_mbps",
  "std_mbps",
  "min_mbps",
  "zero_s",
  "longest_zero_s",
  "jain_index",
] as const;
export type SummaryColumn = (typeof SUMMARY_COLUMNS)[number];

/**
 * One row per strategy × flow, followed by each strategy's "all flows" row.
 *
 * The "all flows" row takes mean/std/min (over the per-flow means), zero_s (total
 * over flows) and Jain's index from `summary`; `longest_zero_s` is not in the
 * summary, so it is the largest of the flows' `longest_zero_s`.
 */
export function summaryRows(doc: ResultDocument, requested?: readonly string[] | null): SummaryRow[] {
  const rows: SummaryRow[] = [];
  for (const strategy of strategyOrder(requested, doc)) {
    const summary = doc.strategies[strategy]?.summary;
    if (!summary) continue;
    for (const f of summary.flows) {
      rows.push({
        key: `${strategy}-${f.id}`,
        strategy,
        flowId: f.id,
        isAll: false,
        mean_mbps: f.mean_mbps,
        std_mbps: f.std_mbps,
        min_mbps: f.min_mbps,
        zero_s: f.zero_s,
        longest_zero_s: f.longest_zero_s,
        jain_index: null,
      });
    }
    rows.push({
      key: `${strategy}-${ALL_FLOWS}`,
      strategy,
      flowId: ALL_FLOWS,
      isAll: true,
      mean_mbps: summary.mean_mbps,
      std_mbps: summary.std_mbps,
      min_mbps: summary.min_mbps,
      zero_s: summary.zero_s,
      longest_zero_s: summary.flows.reduce((m, f) => Math.max(m, f.longest_zero_s), 0),
      jain_index: summary.jain_index,
    });
  }
  return rows;
}
