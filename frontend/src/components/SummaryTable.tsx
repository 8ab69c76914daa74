/** Summary statistics: one row per strategy × flow, plus an "all flows" row per strategy. */
import { formatFixed3, formatSeconds } from "../lib/format";
import type { SummaryColumn, SummaryRow } from "../lib/summaryRows";
import { StrategyFlowTable, type StrategyFlowColumn } from "./StrategyFlowTable";

const column = (key: SummaryColumn, label: string, unit: string, format: (v: number | null) => string): StrategyFlowColumn<SummaryRow> => ({
  key,
  label,
  unit,
  value: (r) => r[key],
  render: (r) => format(r[key]),
});

const COLUMNS: readonly StrategyFlowColumn<SummaryRow>[] = [
  column("mean_mbps", "Mean", "Mbit/s", formatFixed3),
  column("std_mbps", "Std dev", "Mbit/s", formatFixed3),
  column("min_mbps", "Min", "Mbit/s", formatFixed3),
  column("zero_s", "At zero", "s", formatSeconds),
  column("longest_zero_s", "Longest zero run", "s", formatSeconds),
  column("jain_index", "Jain's index", "", formatFixed3),
];

export function SummaryTable({ rows }: { rows: SummaryRow[] }) {
  return (
    <StrategyFlowTable
      testId="summary-table"
      caption="Throughput summary per strategy and flow"
      rowTestIdPrefix="summary-"
      columns={COLUMNS}
      rows={rows}
      flow={(r) => (r.isAll ? "all flows" : r.flowId)}
      rowClassName={(r) => (r.isAll ? "row-all" : undefined)}
    />
  );
}
