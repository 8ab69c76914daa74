import { useMemo } from "react";
import type { ScenarioPublic } from "../../api/types";
import { ErrorList } from "../../components/ErrorList";
import { TopologyGraph } from "../../components/TopologyGraph";
import { formatFixed3 } from "../../lib/format";
import { failureHighlight } from "../../lib/whatIf";
import { useFailureAnalysis, useFields } from "./hooks";
import { SimulatedFailures } from "./SimulatedFailures";

const METRICS = ["delay", "hop", "loss", "tcpbp", "tcpbp-greedy"] as const;
type Metric = (typeof METRICS)[number];

export function num(v: number | null | undefined, digits = 2): string {
  return v === null || v === undefined ? "—" : v.toFixed(digits);
}

/** "Failure analysis": every single failure re-planned (table worst first, the selected one on the topology), then simulated runs. */
export function FailuresSection({ scenario }: { scenario: ScenarioPublic }) {
  const doc = scenario.scenario;
  const [form, set] = useFields({ metric: "delay" as Metric, nodes: false as boolean, sharedRisk: false as boolean });
  const { metric, nodes, sharedRisk } = form;
  const { report, selected, setSelected, chosen, busy, errors, run: analyse } = useFailureAnalysis(String(scenario.id));
  const run = () => analyse({ metric, nodes, shared_risk: sharedRisk });
  const highlight = useMemo(() => (chosen ? failureHighlight(chosen, doc.links ?? []) : null), [chosen, doc.links]);
  return (
    <section className="card" aria-labelledby="failures-title">
      <div className="card-head">
        <h2 id="failures-title">Failure analysis</h2>
      </div>
      <p className="muted">Every single link (and node) failure, and on request the shared-risk groups: routes and rates re-planned on the run&apos;s network without them, each flow against the intact plan. No engine runs.</p>
      <div className="run-options">
        <div className="field">
          <label htmlFor="failures-metric">Routing metric</label>
          <select id="failures-metric" value={metric} onChange={(e) => set("metric")(e.currentTarget.value as Metric)}>
            {METRICS.map((m) => <option key={m} value={m}>{m}</option>)}
          </select>
        </div>
        <label className="field">
          <span><input type="checkbox" checked={nodes} onChange={(e) => set("nodes")(e.currentTarget.checked)} /> Also fail each node</span>
        </label>
        <label className="field">
          <span><input type="checkbox" checked={sharedRisk} onChange={(e) => set("sharedRisk")(e.currentTarget.checked)} /> Shared-risk groups (all SATCOM, each constellation)</span>
        </label>
        <button type="button" className="btn btn-primary" onClick={run} disabled={busy}>{busy ? "Analysing…" : "Analyse failures"}</button>
      </div>
      <ErrorList title="The analysis was refused:" items={errors} />
      {report ? (
        <div className="analysis-grid">
          <div>
            <table className="summary" data-testid="failure-table">
              <caption>
                Worst first, on the run&apos;s network {report.t_s != null ? `at t = ${report.t_s} s` : "over the whole run, each failure at the time it hurts most (column “at”)"};
                intact plan delivers {formatFixed3(report.intact_delivered_mbps)} Mbit/s at the start (bulk flows: their fair share). Select a row to see it on the topology.
              </caption>
              <thead>
                <tr><th>failure</th><th>at s</th><th>lost Mbit/s</th><th>flows cut</th><th>paths changed</th><th>max +delay ms</th></tr>
              </thead>
              <tbody>
                {report.cases.map((c, i) => (
                  <tr key={`${c.kind}:${c.element}`} data-testid="failure-row" data-kind={c.kind} data-element={c.element}
                      data-lost={c.lost_mbps} aria-selected={i === selected} className={i === selected ? "selected" : undefined}
                      onClick={() => setSelected(i)}>
                    <td><button type="button" className="link-button" onClick={() => setSelected(i)}>{c.kind} {c.element}</button></td>
                    <td data-testid="failure-at">{num(c.t_s, 1)}</td>
                    <td>{formatFixed3(c.lost_mbps)}</td>
                    <td>{c.flows_cut}</td>
                    <td>{c.paths_changed}</td>
                    <td>{num(c.max_delay_change_ms, 1)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div>
            <TopologyGraph doc={doc} label="Topology with the selected failure" highlight={highlight} className="topology-small" />
            {chosen ? (
              <table className="summary" data-testid="failure-flows">
                <caption>{chosen.kind} {chosen.element} failed: per flow (red dashed: failed; blue: re-planned routes)</caption>
                <thead><tr><th>flow</th><th>delivered / intact Mbit/s</th><th>route</th><th>delay change ms</th></tr></thead>
                <tbody>
                  {chosen.flows.map((f) => (
                    <tr key={f.flow} data-flow={f.flow}>
                      <td>{f.flow}</td>
                      <td>{f.requested_mbps === null ? "bulk" : `${num(f.delivered_mbps)} / ${num(f.intact_delivered_mbps)}`}</td>
                      <td>{f.reachable ? `${f.path.join(" → ")}${f.path_changed ? " (changed)" : ""}` : "cut off"}</td>
                      <td>{num(f.delay_change_ms, 1)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : null}
          </div>
        </div>
      ) : null}
      {report ? <SimulatedFailures scenarioId={String(scenario.id)} links={report.cases.filter((c) => c.kind === "link").map((c) => c.element)} /> : null}
    </section>
  );
}

