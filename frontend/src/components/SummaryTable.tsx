/** Summary statistics: one row per strategy × flow, plus an "all flows" row per strategy. */
import { formatFixed3, formatSeconds } from "../lib/format";
import type { SummaryColumn, SummaryRow } from "../lib/summaryRows";

const COLUMNS: { key: SummaryColumn; label: string; unit: string; format: (v: number | null) => string }[] = [
  { key: "mean_mbps", label: "Mean", unit: "Mbit/s", format: formatFixed3 },
  { key: "std_mbps", label: "Std dev", unit: "Mbit/s", format: formatFixed3 },
  { key: "min_mbps", label: "Min", unit: "Mbit/s", format: formatFixed3 },
  { key: "zero_s", label: "At zero", unit: "s", format: formatSeconds },
  { key: "longest_zero_s", label: "Longest zero run", unit: "s", format: formatSeconds },
  { key: "jain_index", label: "Jain's index", unit: "", format: formatFixed3 },
];

export function SummaryTable({ rows }: { rows: SummaryRow[] }) {
  return (
    <div className="table-wrap">
      <table className="summary" data-testid="summary-table">
        <caption>Throughput summary per strategy and flow</caption>
        <thead>
          <tr>
            <th scope="col">Strategy</th>
            <th scope="col">Flow</th>
            {COLUMNS.map((c) => (
              <th scope="col" key={c.key} className="num">
                {c.label}
                {c.unit ? <span className="unit"> ({c.unit})</span> : null}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.key} data-testid={`summary-${r.key}`} className={r.isAll ? "row-all" : undefined}>
              <th scope="row">{r.strategy}</th>
              <td>{r.isAll ? "all flows" : r.flowId}</td>
              {COLUMNS.map((c) => {
                const v = r[c.key];
                return (
                  <td key={c.key} className="num" data-col={c.key} data-value={v ?? ""}>
                    {c.format(v)}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
