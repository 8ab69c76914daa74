import { useState } from "react";
import { ErrorList } from "../../components/ErrorList";
import { formatFixed3 } from "../../lib/format";
import { useFollowedComparison } from "./hooks";
import { RunsProgress } from "./RunsProgress";

/**
 * A simulated run per link failure: a comparison sweeping `failed_link` over "none" and each link
 * (the link down from t = 0), followed over its event stream; a table of mean ± 95 % CI per strategy.
 */
export function SimulatedFailures({ scenarioId, links }: { scenarioId: string; links: string[] }) {
  const [strategies, setStrategies] = useState("sptcp, mptcp");
  const { live, comparison, errors, running, start: startComparison } = useFollowedComparison(scenarioId, "the simulation");
  const names = strategies.split(",").map((s) => s.trim()).filter(Boolean);
  const start = () => startComparison({ strategies: names, sweep: { parameter: "failed_link", values: [null, ...links] } });
  const sweep = comparison?.result?.sweep;
  return (
    <div className="simulated-failures">
      <div className="run-options">
        <div className="field"><label htmlFor="sim-strategies">Strategies to simulate</label><input id="sim-strategies" value={strategies} onChange={(e) => setStrategies(e.currentTarget.value)} /></div>
        <button type="button" className="btn" onClick={start} disabled={running || !links.length}>{running ? "Simulating…" : "Simulate each link failure"}</button>
      </div>
      <ErrorList title="The simulation was refused or failed:" items={errors} />
      {live ? <RunsProgress label="Failure simulation progress" progress={live.progress} done={live.units_done} total={live.units_total} /> : null}
      {sweep ? (
        <table className="summary" data-testid="failure-sim-table">
          <caption>Simulated runs (engine): mean throughput, Mbit/s ± 95 % CI, with each link down from t = 0</caption>
          <thead><tr><th>failed link</th>{names.map((n) => <th key={n}>{n}</th>)}</tr></thead>
          <tbody>
            {sweep.points.map((p) => (
              <tr key={String(p.value)} data-element={p.value === null ? "" : String(p.value)}>
                <td>{p.value === null ? "none (intact)" : String(p.value)}</td>
                {names.map((n) => <td key={n}>{p.strategies[n] ? `${formatFixed3(p.strategies[n].mean_mbps)} ± ${formatFixed3(p.strategies[n].ci95_mbps)}` : "—"}</td>)}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}

