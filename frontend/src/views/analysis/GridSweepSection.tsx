import { useMemo, useState } from "react";
import { Link } from "react-router";
import type { ScenarioPublic } from "../../api/types";
import { SweepHeatmap } from "../../components/AnalysisCharts";
import { ErrorList } from "../../components/ErrorList";
import { ParameterSelect, StrategySelect } from "../../components/pickers";
import { parseNumberList, sweepParameters } from "../../lib/editor";
import { parameterLabel, parameterScale, parameterUnit } from "../../lib/parameters";
import { heatmapCells } from "../../lib/whatIf";
import { defaultBackhaul } from "./CapacitySection";
import { useFields, useFollowedComparison } from "./hooks";
import { RunsProgress } from "./RunsProgress";

/** "Sweep over two parameters": a comparison sweeping two parameters, followed live; a heatmap of each cell's mean and 95 % CI. */
export function GridSweepSection({ scenario }: { scenario: ScenarioPublic }) {
  const doc = scenario.scenario;
  const params = useMemo(() => sweepParameters(doc), [doc]);
  const [px, setPx] = useState(() => defaultBackhaul(params));
  const [py, setPy] = useState(() => params.find((p) => p !== defaultBackhaul(params) && p.endsWith("bandwidth_mbps")) ?? params[1] ?? "");
  const [form, set] = useFields({ vx: "1, 4", vy: "1, 3", strategy: "mptcp", repetitions: "2" });
  const { vx, vy, strategy, repetitions } = form;
  const { live, comparison, errors, setErrors, running, start: startComparison } = useFollowedComparison(String(scenario.id), "the sweep");
  const start = async () => {
    const xs = parseNumberList(vx);
    const ys = parseNumberList(vy);
    if (!xs || !ys) {
      setErrors(["Values: numbers separated by commas, on both axes."]);
      return;
    }
    await startComparison({
      strategies: [strategy], repetitions: Number(repetitions),
      sweep: { parameter: px, values: xs.map((v) => v / parameterScale(px)), parameter_y: py, values_y: ys.map((v) => v / parameterScale(py)) },
    });
  };
  const heat = comparison?.result ? heatmapCells(comparison.result, strategy) : null;
  return (
    <section className="card" aria-labelledby="grid-title">
      <div className="card-head"><h2 id="grid-title">Sweep over two parameters</h2></div>
      <div className="run-options">
        <div className="field">
          <label htmlFor="grid-px">Parameter (x)</label>
          <ParameterSelect id="grid-px" doc={doc} params={params} value={px} onChange={setPx} />
        </div>
        <div className="field"><label htmlFor="grid-vx">Values (x)</label><input id="grid-vx" value={vx} onChange={(e) => set("vx")(e.currentTarget.value)} /><p className="field-hint">in {parameterUnit(px) || "the parameter's unit"}</p></div>
        <div className="field">
          <label htmlFor="grid-py">Parameter (y)</label>
          <ParameterSelect id="grid-py" doc={doc} params={params} value={py} onChange={setPy} />
        </div>
        <div className="field"><label htmlFor="grid-vy">Values (y)</label><input id="grid-vy" value={vy} onChange={(e) => set("vy")(e.currentTarget.value)} /><p className="field-hint">in {parameterUnit(py) || "the parameter's unit"}</p></div>
        <div className="field"><label htmlFor="grid-strategy">Strategy</label><StrategySelect id="grid-strategy" value={strategy} onChange={set("strategy")} /></div>
        <div className="field"><label htmlFor="grid-reps">Repetitions</label><input id="grid-reps" type="number" min={1} value={repetitions} onChange={(e) => set("repetitions")(e.currentTarget.value)} /></div>
        <button type="button" className="btn btn-primary" onClick={start} disabled={running}>{running ? "Sweeping…" : "Run the grid"}</button>
      </div>
      <ErrorList title="The sweep was refused or failed:" items={errors} />
      {live ? <RunsProgress label="Sweep progress" progress={live.progress} done={live.units_done} total={live.units_total} /> : null}
      {comparison ? (
        <p><Link to={`/scenarios/${encodeURIComponent(String(scenario.id))}/comparisons/${encodeURIComponent(String(comparison.id))}`}>Open the comparison</Link></p>
      ) : null}
      {heat && comparison?.result?.sweep ? (
        <SweepHeatmap xs={heat.xs} ys={heat.ys} cells={heat.cells} parameter={parameterLabel(doc, comparison.result.sweep.parameter)}
                      parameterY={parameterLabel(doc, comparison.result.sweep.parameter_y ?? "")} strategy={strategy} />
      ) : null}
    </section>
  );
}
