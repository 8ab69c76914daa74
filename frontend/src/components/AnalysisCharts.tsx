/**
 * Charts of the analysis page: the capacity search trace (value → worst flow's mean,
 * pass/fail, the target as a rule) and the heatmap of a 2-D sweep (mean throughput per cell with
 * its 95 % CI half-width). d3 computes scales; React renders the SVG, as wide as its card.
 */
import { extent, max } from "d3-array";
import { scaleBand, scaleLinear } from "d3-scale";
import { toCsv } from "../lib/chartData";
import { formatFixed3 } from "../lib/format";
import type { HeatCell, TracePoint } from "../lib/whatIf";
import { ChartFrame } from "./ChartFrame";
import { useChartWidth, type LegendItem } from "./chartKit";
import { formatTick } from "./ThroughputChart";

const PASS = "#047857";
const FAIL = "#be123c";
const M = { top: 22, right: 30, bottom: 46, left: 60 };

/** `target`: the throughput bound, Mbit/s, drawn as a rule; null: the search had none (no rule). */
export function CapacityTraceChart({ points, target, parameter, answer }: { points: TracePoint[]; target: number | null; parameter: string; answer: number | null }) {
  const [bodyRef, width] = useChartWidth<HTMLDivElement>();
  const H = 300;
  const IW = Math.max(60, width - M.left - M.right);
  const IH = H - M.top - M.bottom;
  const [lo, hi] = extent(points, (p) => p.value) as [number, number];
  const x = scaleLinear().domain([lo ?? 0, hi ?? 1]).range([0, IW]).nice();
  const y = scaleLinear().domain([0, Math.max(target ?? 0, max(points, (p) => p.worstMeanMbps) ?? 1) * 1.1 || 1]).range([IH, 0]).nice();
  const legend: LegendItem[] = [
    { key: "pass", label: "meets the target", color: PASS, kind: "marker", glyph: "circle" },
    { key: "fail", label: "misses the target", color: FAIL, kind: "marker", glyph: "cross" },
    ...(target === null ? [] : [{ key: "target", label: `target: every flow ≥ ${formatFixed3(target)} Mbit/s`, color: "#0f172a", kind: "line" as const, dash: "6 4", width: 1.5 }]),
  ];
  return (
    <ChartFrame
      title="Capacity search trace"
      filename="capacity-trace"
      testId="capacity-trace"
      csv={() => toCsv(["step", "value", "worst_mean_mbps", "worst_zero_s", "passed"], points.map((p) => [p.step, p.value, p.worstMeanMbps, p.worstZeroS, p.passed ? 1 : 0]))}
      description="Each step of the bisection: the lowest per-flow mean throughput (averaged over the repetitions) at that value; numbers give the order of the steps."
      legend={legend}
    >
      <div className="chart-body" ref={bodyRef}>
        <svg width={width} height={H} className="chart-svg" role="img" aria-label={`Capacity search over ${parameter}`}>
          <g transform={`translate(${M.left},${M.top})`}>
            {y.ticks(6).map((t) => (
              <g key={`y${t}`} transform={`translate(0,${y(t)})`}>
                <line x1={0} x2={IW} className="grid" />
                <text x={-8} dy="0.32em" textAnchor="end" className="tick">{formatTick(t)}</text>
              </g>
            ))}
            {x.ticks(6).map((t) => (
              <g key={`x${t}`} transform={`translate(${x(t)},${IH})`}>
                <line y1={0} y2={5} className="axis" />
                <text y={18} textAnchor="middle" className="tick">{formatTick(t)}</text>
              </g>
            ))}
            <line x1={0} x2={IW} y1={IH} y2={IH} className="axis" />
            <line x1={0} x2={0} y1={0} y2={IH} className="axis" />
            <text x={IW / 2} y={IH + 38} textAnchor="middle" className="axis-label">{parameter}</text>
            <text transform={`translate(-46,${IH / 2}) rotate(-90)`} textAnchor="middle" className="axis-label">worst flow mean (Mbit/s)</text>
            {target === null ? null : <line x1={0} x2={IW} y1={y(target)} y2={y(target)} stroke="#0f172a" strokeDasharray="6 4" strokeWidth={1.5} data-testid="capacity-target" />}
            {answer !== null ? (
              <line x1={x(answer)} x2={x(answer)} y1={0} y2={IH} stroke={PASS} strokeDasharray="2 3" data-testid="capacity-answer" />
            ) : null}
            {points.map((p) => (
              <g key={p.step} transform={`translate(${x(p.value)},${y(p.worstMeanMbps)})`} data-testid="capacity-step"
                 data-value={p.value} data-passed={p.passed ? "true" : "false"} data-mean={p.worstMeanMbps}>
                {p.passed ? <circle r={5} fill={PASS} /> : <path d="M-5,-5L5,5M5,-5L-5,5" stroke={FAIL} strokeWidth={2} />}
                <text y={-9} textAnchor="middle" className="tick">{p.step}</text>
                <title>{`step ${p.step}: ${formatTick(p.value)} → worst mean ${formatFixed3(p.worstMeanMbps)} Mbit/s, ${p.passed ? "pass" : "fail"}`}</title>
              </g>
            ))}
          </g>
        </svg>
      </div>
    </ChartFrame>
  );
}

export function SweepHeatmap({ xs, ys, cells, parameter, parameterY, strategy }: { xs: string[]; ys: string[]; cells: HeatCell[]; parameter: string; parameterY: string; strategy: string }) {
  const [bodyRef, width] = useChartWidth<HTMLDivElement>();
  const cellH = 56;
  const H = M.top + 16 + M.bottom + cellH * ys.length;
  const left = 80;
  const IW = Math.max(60, width - left - M.right);
  const IH = cellH * ys.length;
  const x = scaleBand<string>().domain(xs).range([0, IW]).padding(0.04);
  const y = scaleBand<string>().domain([...ys].reverse()).range([0, IH]).padding(0.04);
  const top = max(cells, (c) => c.meanMbps) ?? 1;
  const color = scaleLinear<string>().domain([0, top || 1]).range(["#eff6ff", "#1e3a8a"]);
  const legend: LegendItem[] = [
    { key: "low", label: "0 Mbit/s", color: "#eff6ff", kind: "bar" },
    { key: "high", label: `${formatFixed3(top)} Mbit/s`, color: "#1e3a8a", kind: "bar" },
  ];
  return (
    <ChartFrame
      title={`Mean throughput of ${strategy} over the grid`}
      filename="sweep-heatmap"
      testId="sweep-heatmap"
      csv={() => toCsv([parameter, parameterY, "mean_mbps", "ci95_mbps", "runs"], cells.map((c) => [c.x, c.y, c.meanMbps, c.ci95Mbps, c.runs]))}
      description="Each cell: the mean over repetitions of the across-flow mean throughput, ± the half-width of its 95 % confidence interval (Student's t)."
      legend={legend}
    >
      <div className="chart-body" ref={bodyRef}>
        <svg width={width} height={H} className="chart-svg" role="img" aria-label={`Heatmap over ${parameter} and ${parameterY}`}>
          <g transform={`translate(${left},${M.top + 16})`}>
            {cells.map((c) => {
              const cx = x(c.x) ?? 0;
              const cy = y(c.y) ?? 0;
              const dark = c.meanMbps > top * 0.55;
              return (
                <g key={`${c.i}:${c.j}`} data-testid="heat-cell" data-x={c.x} data-y={c.y} data-mean={c.meanMbps} data-ci={c.ci95Mbps}>
                  <rect x={cx} y={cy} width={x.bandwidth()} height={y.bandwidth()} fill={color(c.meanMbps)} />
                  <text x={cx + x.bandwidth() / 2} y={cy + y.bandwidth() / 2} dy="0.32em" textAnchor="middle"
                        className="tick" style={{ fill: dark ? "#ffffff" : "#0f172a" }}>
                    {`${formatFixed3(c.meanMbps)} ± ${formatFixed3(c.ci95Mbps)}`}
                  </text>
                  <title>{`${parameter} = ${c.x}, ${parameterY} = ${c.y}: ${formatFixed3(c.meanMbps)} ± ${formatFixed3(c.ci95Mbps)} Mbit/s (${c.runs} runs)`}</title>
                </g>
              );
            })}
            {xs.map((v) => (
              <text key={`x${v}`} x={(x(v) ?? 0) + x.bandwidth() / 2} y={IH + 18} textAnchor="middle" className="tick">{v}</text>
            ))}
            {ys.map((v) => (
              <text key={`y${v}`} x={-8} y={(y(v) ?? 0) + y.bandwidth() / 2} dy="0.32em" textAnchor="end" className="tick">{v}</text>
            ))}
            <text x={IW / 2} y={IH + 38} textAnchor="middle" className="axis-label">{parameter}</text>
            <text x={-left + 4} y={-10} textAnchor="start" className="axis-label">{`↑ ${parameterY}`}</text>
          </g>
        </svg>
      </div>
    </ChartFrame>
  );
}
