/**
 * The skeleton of the results' per-strategy, per-flow tables (SummaryTable, QualityTable): a captioned table with
 * "Strategy" and "Flow" first, then numeric columns named with their unit; one row per strategy and flow, the
 * strategy as the row's header, each numeric cell carrying its raw value (`data-col`, `data-value`) beside its
 * formatted text. The tables own their columns, their rows and their formatting.
 */
import type { ReactNode } from "react";

export interface StrategyFlowColumn<R> {
  key: string;
  label: string;
  /** shown after the label in parentheses; empty: nothing */
  unit: string;
  /** the raw value in `data-value` (null: empty) */
  value: (row: R) => number | null;
  /** the cell's text */
  render: (row: R) => ReactNode;
}

export interface StrategyFlowRow {
  /** unique within the table, also the row's test id after `rowTestIdPrefix` */
  key: string;
  strategy: string;
}

export interface StrategyFlowTableProps<R extends StrategyFlowRow> {
  testId: string;
  caption: string;
  /** the rows' test ids: prefix + row key */
  rowTestIdPrefix: string;
  columns: readonly StrategyFlowColumn<R>[];
  rows: readonly R[];
  /** the "Flow" cell's text */
  flow: (row: R) => ReactNode;
  rowClassName?: (row: R) => string | undefined;
  /** below the table, inside its wrapper (notes) */
  children?: ReactNode;
}

export function StrategyFlowTable<R extends StrategyFlowRow>({ testId, caption, rowTestIdPrefix, columns, rows, flow, rowClassName, children }: StrategyFlowTableProps<R>) {
  return (
    <div className="table-wrap">
      <table className="summary" data-testid={testId}>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Strategy</th>
            <th scope="col">Flow</th>
            {columns.map((c) => (
              <th scope="col" key={c.key} className="num">
                {c.label}
                {c.unit ? <span className="unit"> ({c.unit})</span> : null}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.key} data-testid={`${rowTestIdPrefix}${r.key}`} className={rowClassName?.(r)}>
              <th scope="row">{r.strategy}</th>
              <td>{flow(r)}</td>
              {columns.map((c) => (
                <td key={c.key} className="num" data-col={c.key} data-value={c.value(r) ?? ""}>
                  {c.render(r)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {children}
    </div>
  );
}
