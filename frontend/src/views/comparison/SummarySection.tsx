import type { ResultDocument } from "../../api/types";
import { CdfChart, SummaryBars } from "../../components/StatCharts";
import { QualityTable } from "../../components/QualityTable";
import { SummaryTable } from "../../components/SummaryTable";
import { formatFixed3 } from "../../lib/format";
import type { ResultView } from "./useResultView";

/** "Summary": mean ± std bars, the CDF of per-flow means, the summary table and, for udp, voice and video flows,
 * their delay, jitter, loss and MOS. */
export function SummarySection({ view, name }: { view: ResultView; name: string }) {
  return (
    <section aria-labelledby="summary-title">
      <h2 id="summary-title" className="section-title">
        Summary
      </h2>
      <div className="charts">
        <SummaryBars bars={view.bars} colors={view.colors} filename={`${name}-summary`} />
        <CdfChart cdfs={view.cdfs} colors={view.colors} dashes={view.dashes} filename={`${name}-cdf`} />
      </div>
      <SummaryTable rows={view.rows} />
      <p className="muted small">
        “At zero”: seconds with throughput below 1 kbit/s. On “all flows” rows, mean / std / min are over the per-flow means, “at zero” is the total over flows, and the
        longest zero run is the longest of any flow.
      </p>
      <QualityTable rows={view.quality} />
    </section>
  );
}

/** "Repetitions": each strategy's mean over the repeated runs with its 95 % confidence interval. */
export function RepetitionsSection({ repetitions }: { repetitions: NonNullable<ResultDocument["repetitions"]> }) {
  return (
    <section aria-labelledby="reps-title">
      <h2 id="reps-title" className="section-title">
        Repetitions
      </h2>
      <table className="compact" data-testid="repetitions-table">
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
              Runs
            </th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(repetitions).map(([s, a]) => (
            <tr key={s}>
              <td>{s}</td>
              <td className="num">{formatFixed3(a.mean_mbps)}</td>
              <td className="num">{formatFixed3(a.ci95_mbps)}</td>
              <td className="num">{a.runs}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
