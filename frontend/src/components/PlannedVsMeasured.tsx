/**
 * Planned next to measured, for every strategy of a comparison whose result has
 * a plan (`StrategyResult.planned`: the rate limits `mptcp-fdm`'s controller set, which change
 * with each `allocation_change`): each subflow's planned rate (dashed steps) and measured
 * throughput (solid) on the same axes, and a per-link table of planned vs measured utilisation
 * over a chosen time window (`GET .../comparisons/{cid}/planned?strategy=&t0_s=&t1_s=`).
 * d3 computes the scales and paths; React renders the SVG.
 */
import { scaleLinear } from "d3-scale";
import { curveStepAfter, line } from "d3-shape";
import { useEffect, useMemo, useState } from "react";
import { api, isAbort } from "../api/client";
import type { Id, PlanComparison, ResultDocument, StrategyResult } from "../api/types";
import { errorLines } from "../lib/errors";
import { plannedLines, rankColor, type PlannedLine } from "../lib/planning";
import { ChartLegend, useChartWidth, type LegendItem } from "./chartKit";
import { FieldErrors } from "./Legend";

const H = 220;
const M = { top: 10, right: 16, bottom: 36, left: 52 };

export function PlannedVsMeasured({ scenarioId, comparisonId, result }: { scenarioId: Id; comparisonId: Id; result: ResultDocument }) {
  const planned = Object.entries(result.strategies).filter(([, r]) => r.planned);
  if (!planned.length) return null;
  return (
    <section className="card planning-panel" aria-labelledby="planned-title" data-testid="planned-vs-measured">
      <div className="card-head">
        <h2 id="planned-title">Planned vs measured</h2>
      </div>
      <p className="muted small">Dashed: the rate the plan set for each subflow (the controller's Flow Deviation allocation); solid: the throughput measured.</p>
      {planned.map(([name, r]) => (
        <StrategyPlan key={name} name={name} result={r} scenarioId={scenarioId} comparisonId={comparisonId} duration={result.scenario.run?.duration_s ?? 0} />
      ))}
    </section>
  );
}

function StrategyPlan({ name, result, scenarioId, comparisonId, duration }: { name: string; result: StrategyResult; scenarioId: Id; comparisonId: Id; duration: number }) {
  const lines = useMemo(() => plannedLines(result), [result]);
  const [t0, setT0] = useState(0);
  const [t1, setT1] = useState(duration);
  const [table, setTable] = useState<PlanComparison | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  useEffect(() => {
    if (!(t1 > t0)) {
      setErrors([`The window must end after it starts (${t0} s – ${t1} s).`]);
      return;
    }
    const ctl = new AbortController();
    const timer = setTimeout(() => {
      api
        .planned(scenarioId, comparisonId, name, t0, t1, ctl.signal)
        .then((p) => {
          setTable(p);
          setErrors([]);
        })
        .catch((err) => {
          if (!isAbort(err)) setErrors(errorLines(err));
        });
    }, 200);
    return () => {
      clearTimeout(timer);
      ctl.abort();
    };
  }, [scenarioId, comparisonId, name, t0, t1]);

  return (
    <div className="planned-strategy" data-strategy={name}>
      <h3 className="small">{name}</h3>
      <PlanChart lines={lines} duration={duration} window={[t0, t1]} name={name} />
      <div className="run-options">
        <div className="field">
          <label htmlFor={`pv-t0-${name}`}>Window from (s)</label>
          <input id={`pv-t0-${name}`} type="number" min={0} max={duration} value={t0} onChange={(e) => setT0(Number(e.currentTarget.value))} />
        </div>
        <div className="field">
          <label htmlFor={`pv-t1-${name}`}>to (s)</label>
          <input id={`pv-t1-${name}`} type="number" min={0} max={duration} value={t1} onChange={(e) => setT1(Number(e.currentTarget.value))} />
        </div>
      </div>
      <FieldErrors errors={errors} />
      {table ? (
        <table className="compact" aria-label={`Planned vs measured link utilisation of ${name}`} data-testid="planned-links" data-t0={table.t0_s} data-t1={table.t1_s}>
          <thead>
            <tr>
              <th>Link</th>
              <th className="num">Capacity (Mbit/s)</th>
              <th className="num">Planned (Mbit/s)</th>
              <th className="num">Measured (Mbit/s)</th>
              <th className="num">Planned utilisation</th>
              <th className="num">Measured utilisation</th>
            </tr>
          </thead>
          <tbody>
            {table.links.map((l) => (
              <tr key={l.link} data-link={l.link} data-planned={l.planned_utilization} data-measured={l.measured_utilization}>
                <td>{l.link}</td>
                <td className="num">{l.bandwidth_mbps}</td>
                <td className="num">{l.planned_mbps.toFixed(3)}</td>
                <td className="num">{l.measured_mbps.toFixed(3)}</td>
                <td className="num">{(l.planned_utilization * 100).toFixed(1)} %</td>
                <td className="num">{(l.measured_utilization * 100).toFixed(1)} %</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}

function PlanChart({ lines, duration, window, name }: { lines: PlannedLine[]; duration: number; window: [number, number]; name: string }) {
  const [ref, width] = useChartWidth<HTMLDivElement>();
  const w = Math.max(200, width);
  const yMax = Math.max(1e-6, ...lines.flatMap((l) => [...l.measured, ...l.planned.map((p) => p ?? 0)]));
  const x = scaleLinear().domain([0, duration || 1]).range([M.left, w - M.right]);
  const y = scaleLinear().domain([0, yMax * 1.08]).nice().range([M.top + H, M.top]);
  const measuredPath = line<[number, number]>().x((d) => x(d[0])).y((d) => y(d[1]));
  const plannedPath = line<[number, number | null]>()
    .defined((d) => d[1] !== null)
    .x((d) => x(d[0]))
    .y((d) => y(d[1] ?? 0))
    .curve(curveStepAfter);
  const legend: LegendItem[] = lines.flatMap((l, i) => [
    { key: `m:${l.subflowId}`, label: `${l.subflowId} measured`, color: rankColor(i), kind: "line" as const },
    { key: `p:${l.subflowId}`, label: `${l.subflowId} planned`, color: rankColor(i), dash: "6 4", kind: "line" as const },
  ]);
  return (
    <div ref={ref} className="chart-body">
      <svg width={w} height={H + M.top + M.bottom} role="img" aria-label={`Planned and measured subflow rates of ${name}`} data-testid="planned-chart">
        <rect x={x(window[0])} y={M.top} width={Math.max(0, x(Math.min(window[1], duration)) - x(window[0]))} height={H} fill="#f1f5f9" />
        {y.ticks(5).map((v) => (
          <g key={`y${v}`}>
            <line x1={M.left} x2={w - M.right} y1={y(v)} y2={y(v)} stroke="#e2e8f0" />
            <text x={M.left - 6} y={y(v)} dy="0.32em" textAnchor="end" fontSize={11}>
              {v}
            </text>
          </g>
        ))}
        {x.ticks(8).map((v) => (
          <text key={`x${v}`} x={x(v)} y={M.top + H + 16} textAnchor="middle" fontSize={11}>
            {v}
          </text>
        ))}
        <text x={(M.left + w - M.right) / 2} y={M.top + H + 32} textAnchor="middle" fontSize={11}>
          time (s)
        </text>
        <text transform={`translate(12,${M.top + H / 2}) rotate(-90)`} textAnchor="middle" fontSize={11}>
          Mbit/s
        </text>
        {lines.map((l, i) => (
          <g key={l.subflowId}>
            <path
              d={measuredPath(l.t_s.map((t, k) => [t, l.measured[k] ?? 0])) ?? ""}
              fill="none"
              stroke={rankColor(i)}
              strokeWidth={1.5}
              data-subflow={l.subflowId}
              data-kind="measured"
              data-max-mbps={Math.max(0, ...l.measured)}
            />
            <path
              d={plannedPath(l.t_s.map((t, k) => [t, l.planned[k] ?? null] as [number, number | null]).concat(l.t_s.length ? [[duration, l.planned[l.planned.length - 1] ?? null]] : [])) ?? ""}
              fill="none"
              stroke={rankColor(i)}
              strokeWidth={2}
              strokeDasharray="6 4"
              data-subflow={l.subflowId}
              data-kind="planned"
              data-max-mbps={Math.max(0, ...l.planned.map((p) => p ?? 0))}
            />
          </g>
        ))}
      </svg>
      <ChartLegend items={legend} label={`Legend of the planned and measured rates of ${name}`} />
    </div>
  );
}
