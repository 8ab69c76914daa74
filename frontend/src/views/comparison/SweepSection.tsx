import { useState } from "react";
import type { ResultDocument } from "../../api/types";
import { SweepChart } from "../../components/StatCharts";
import { formatFixed3 } from "../../lib/format";
import { displayValue, parameterLabel, parameterScale } from "../../lib/parameters";
import { pointY } from "./ShownRun";
import type { ResultView } from "./useResultView";

interface SweepSectionProps {
  result: ResultDocument;
  sweep: NonNullable<ResultDocument["sweep"]>;
  view: ResultView;
  name: string;
  /** The point the per-flow charts show, marked on the sweep chart. */
  point: number;
}

/** "Sweep": each strategy's mean against the swept parameter, and one point's statistics. */
export function SweepSection({ result, sweep, view, name, point }: SweepSectionProps) {
  return (
    <section aria-labelledby="sweep-title">
      <h2 id="sweep-title" className="section-title">
        Sweep
      </h2>
      <div className="charts">
        <SweepChart
          parameter={parameterLabel(result.scenario, sweep.parameter)}
          lines={view.sweep}
          colors={view.colors}
          dashes={view.dashes}
          shownX={typeof sweep.values[point] === "number" ? (sweep.values[point] as number) * parameterScale(sweep.parameter) : null}
          filename={`${name}-sweep`}
        />
      </div>
      <SweepPointTable result={result} sweep={sweep} order={view.order} />
    </section>
  );
}

/** A sweep point's statistics per strategy, the point chosen by the user (the first at first). */
function SweepPointTable({ result, sweep, order }: { result: ResultDocument; sweep: NonNullable<ResultDocument["sweep"]>; order: string[] }) {
  const [index, setIndex] = useState(0);
  const point = sweep.points[index];
  const label = parameterLabel(result.scenario, sweep.parameter);
  return (
    <div className="sweep-point" data-testid="sweep-point">
      <div className="field">
        <label htmlFor="sweep-point-pick">Sweep point</label>
        <select id="sweep-point-pick" value={index} onChange={(e) => setIndex(Number(e.currentTarget.value))}>
          {sweep.points.map((p, i) => (
            <option key={i} value={i}>
              {`${i + 1} of ${sweep.points.length}: ${label} = ${displayValue(sweep.parameter, p.value)}${pointY(result, p.value_y)}`}
            </option>
          ))}
        </select>
      </div>
      {point ? (
        <table className="compact" aria-label={`Statistics at sweep point ${index + 1}`}>
          <thead>
            <tr>
              <th scope="col">Strategy</th>
              <th scope="col" className="num">
                Mean (Mbit/s)
              </th>
              <th scope="col" className="num">
                95 % CI (± Mbit/s)
              </th>
              <th scope="col" className="num">
                Jain's index
              </th>
              <th scope="col" className="num">
                At zero (s)
              </th>
              <th scope="col" className="num">
                Runs
              </th>
            </tr>
          </thead>
          <tbody>
            {[...order, ...Object.keys(point.strategies).filter((s) => !order.includes(s))]
              .filter((s) => point.strategies[s])
              .map((s) => {
                const a = point.strategies[s]!;
                return (
                  <tr key={s} data-strategy={s}>
                    <td>{s}</td>
                    <td className="num">{formatFixed3(a.mean_mbps)}</td>
                    <td className="num">{formatFixed3(a.ci95_mbps)}</td>
                    <td className="num">{formatFixed3(a.jain_index)}</td>
                    <td className="num">{formatFixed3(a.zero_s)}</td>
                    <td className="num">{a.runs}</td>
                  </tr>
                );
              })}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
