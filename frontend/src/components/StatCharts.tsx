/**
 * Summary charts of comparisons: mean ± std bars with Jain's index, the CDF of
 * per-flow mean throughput (scmptcp Fig. 6), and a sweep's mean throughput vs
 * the swept parameter with 95 % CI bands (msctp-cmt Fig. 6). d3 computes scales
 * and paths; React renders the SVG.
 */
import { max } from "d3-array";
import { scaleBand, scaleLinear } from "d3-scale";
import { area, curveStepAfter, line } from "d3-shape";
import type { CdfPoint, SummaryBar, SweepLinePoint } from "../lib/chartData";
import { toCsv } from "../lib/chartData";
import { formatFixed3 } from "../lib/format";
import { ChartFrame } from "./ChartFrame";
import { formatTick } from "./ThroughputChart";

const W = 560;
const H = 300;
const M = { top: 22, right: 16, bottom: 46, left: 56 };
const IW = W - M.left - M.right;
const IH = H - M.top - M.bottom;

function YAxis({ ticks, y, label }: { ticks: number[]; y: (v: number) => number; label: string }) {
  return (
    <>
      {ticks.map((t) => (
        <g key={`y${t}`} transform={`translate(0,${y(t)})`}>
          <line x1={0} x2={IW} className="grid" />
          <text x={-8} dy="0.32em" textAnchor="end" className="tick">
            {formatTick(t)}
          </text>
        </g>
      ))}
      <line x1={0} x2={0} y1={0} y2={IH} className="axis" />
      <text transform={`translate(-42,${IH / 2}) rotate(-90)`} textAnchor="middle" className="axis-label">
        {label}
      </text>
    </>
  );
}

function XAxis({ ticks, x, label }: { ticks: number[]; x: (v: number) => number; label: string }) {
  return (
    <>
      {ticks.map((t) => (
        <g key={`x${t}`} transform={`translate(${x(t)},${IH})`}>
          <line y1={0} y2={5} className="axis" />
          <text y={18} textAnchor="middle" className="tick">
            {formatTick(t)}
          </text>
        </g>
      ))}
      <line x1={0} x2={IW} y1={IH} y2={IH} className="axis" />
      <text x={IW / 2} y={IH + 38} textAnchor="middle" className="axis-label">
        {label}
      </text>
    </>
  );
}

function meanPlusStd(b: SummaryBar): number {
  return b.mean_mbps + (Number.isFinite(b.std_mbps) ? b.std_mbps : 0);
}

export function SummaryBars({ bars, colors, yMax, filename = "summary", title = "Mean throughput ± std, Jain's index" }: { bars: SummaryBar[]; colors: Record<string, string>; yMax?: number; filename?: string; title?: string }) {
  const x = scaleBand<string>().domain(bars.map((b) => b.strategy)).range([0, IW]).padding(0.35);
  const y = scaleLinear()
    .domain([0, yMax ?? ((max(bars, meanPlusStd) ?? 1) * 1.15 || 1)])
    .range([IH, 0])
    .nice();
  return (
    <ChartFrame
      title={title}
      filename={filename}
      testId="summary-bars"
      csv={() => toCsv(["strategy", "mean_mbps", "std_mbps", "jain_index"], bars.map((b) => [b.strategy, b.mean_mbps, b.std_mbps, b.jain_index]))}
      description="Bars: mean over the flows' mean throughputs; whiskers: ± one standard deviation; label: Jain's fairness index."
    >
      <svg viewBox={`0 0 ${W} ${H}`} className="chart-svg" role="img" aria-label="Mean throughput per strategy with standard deviation and Jain's index">
        <g transform={`translate(${M.left},${M.top})`}>
          <YAxis ticks={y.ticks(6)} y={y} label="mean throughput (Mbit/s)" />
          <line x1={0} x2={IW} y1={IH} y2={IH} className="axis" />
          {bars.map((b) => {
            const bx = x(b.strategy) ?? 0;
            const bw = x.bandwidth();
            const std = Number.isFinite(b.std_mbps) ? b.std_mbps : 0;
            const top = y(b.mean_mbps + std);
            const bottom = y(Math.max(0, b.mean_mbps - std));
            return (
              <g
                key={b.strategy}
                data-testid={`bar-${b.strategy}`}
                data-mean={b.mean_mbps}
                data-std={b.std_mbps}
                data-jain={b.jain_index}
              >
                <rect x={bx} y={y(b.mean_mbps)} width={bw} height={Math.max(0, IH - y(b.mean_mbps))} fill={colors[b.strategy] ?? "#64748b"} opacity={0.85}>
                  <title>{`${b.strategy}: ${formatFixed3(b.mean_mbps)} ± ${formatFixed3(b.std_mbps)} Mbit/s, Jain ${formatFixed3(b.jain_index)}`}</title>
                </rect>
                <line x1={bx + bw / 2} x2={bx + bw / 2} y1={top} y2={bottom} stroke="#0f172a" strokeWidth={1.5} />
                <line x1={bx + bw / 2 - 8} x2={bx + bw / 2 + 8} y1={top} y2={top} stroke="#0f172a" strokeWidth={1.5} />
                <line x1={bx + bw / 2 - 8} x2={bx + bw / 2 + 8} y1={bottom} y2={bottom} stroke="#0f172a" strokeWidth={1.5} />
                <text x={bx + bw / 2} y={top - 6} textAnchor="middle" className="tick bar-label">
                  {`${formatFixed3(b.mean_mbps)} · J ${formatFixed3(b.jain_index)}`}
                </text>
                <text x={bx + bw / 2} y={IH + 18} textAnchor="middle" className="tick">
                  {b.strategy}
                </text>
              </g>
            );
          })}
        </g>
      </svg>
    </ChartFrame>
  );
}

function cdfX(p: CdfPoint): number {
  return p.mbps;
}

export function CdfChart({ cdfs, colors, xMax, filename = "cdf" }: { cdfs: { strategy: string; points: CdfPoint[] }[]; colors: Record<string, string>; xMax?: number; filename?: string }) {
  const top = xMax ?? ((max(cdfs.flatMap((c) => c.points.map(cdfX))) ?? 1) * 1.05 || 1);
  const x = scaleLinear().domain([0, top]).range([0, IW]).nice();
  const y = scaleLinear().domain([0, 1]).range([IH, 0]);
  const gen = line<CdfPoint>()
    .x(function xOfCdf(p) {
      return x(p.mbps);
    })
    .y(function yOfCdf(p) {
      return y(p.p);
    })
    .curve(curveStepAfter);
  return (
    <ChartFrame
      title="CDF of per-flow mean throughput"
      filename={filename}
      testId="cdf-chart"
      csv={() => toCsv(["strategy", "mean_mbps", "cdf"], cdfs.flatMap((c) => c.points.map((p) => [c.strategy, p.mbps, p.p])))}
    >
      <svg viewBox={`0 0 ${W} ${H}`} className="chart-svg" role="img" aria-label="Cumulative distribution of per-flow mean throughput per strategy">
        <g transform={`translate(${M.left},${M.top})`}>
          <YAxis ticks={y.ticks(5)} y={y} label="fraction of flows" />
          <XAxis ticks={x.ticks(8)} x={x} label="flow mean throughput (Mbit/s)" />
          {cdfs.map((c) => {
            if (!c.points.length) return null;
            const pts: CdfPoint[] = [{ mbps: 0, p: 0 }, { mbps: c.points[0]!.mbps, p: 0 }, ...c.points, { mbps: x.domain()[1]!, p: 1 }];
            return (
              <path key={c.strategy} d={gen(pts) ?? ""} fill="none" stroke={colors[c.strategy] ?? "#64748b"} strokeWidth={2} data-testid={`cdf-${c.strategy}`} data-flows={c.points.length}>
                <title>{c.strategy}</title>
              </path>
            );
          })}
        </g>
      </svg>
      <ul className="chart-legend" aria-label="Legend, CDF">
        {cdfs.map((c) => (
          <li key={c.strategy}>
            <svg width="22" height="8" aria-hidden="true">
              <line x1="1" x2="21" y1="4" y2="4" stroke={colors[c.strategy]} strokeWidth="2.5" />
            </svg>
            {c.strategy}
          </li>
        ))}
      </ul>
    </ChartFrame>
  );
}

function sx(p: SweepLinePoint): number {
  return p.x;
}

export function SweepChart({ parameter, lines, colors, filename = "sweep" }: { parameter: string; lines: { strategy: string; points: SweepLinePoint[] }[]; colors: Record<string, string>; filename?: string }) {
  const all = lines.flatMap((l) => l.points);
  const xs = all.map(sx);
  const x = scaleLinear()
    .domain(xs.length ? [Math.min(...xs), Math.max(...xs) === Math.min(...xs) ? Math.min(...xs) + 1 : Math.max(...xs)] : [0, 1])
    .range([0, IW]);
  const y = scaleLinear()
    .domain([0, (max(all, (p) => p.hi) ?? 1) * 1.1 || 1])
    .range([IH, 0])
    .nice();
  const band = area<SweepLinePoint>()
    .x(function xOfSweep(p) {
      return x(p.x);
    })
    .y0(function loOfSweep(p) {
      return y(Math.max(0, p.lo));
    })
    .y1(function hiOfSweep(p) {
      return y(p.hi);
    });
  const mean = line<SweepLinePoint>()
    .x(function xOfSweep(p) {
      return x(p.x);
    })
    .y(function meanOfSweep(p) {
      return y(p.mean);
    });
  return (
    <ChartFrame
      title={`Mean throughput vs ${parameter}`}
      filename={filename}
      testId="sweep-chart"
      description="Lines: mean over repetitions; bands: 95 % confidence interval."
      csv={() => toCsv(["strategy", parameter, "mean_mbps", "ci95_low_mbps", "ci95_high_mbps", "runs"], lines.flatMap((l) => l.points.map((p) => [l.strategy, p.x, p.mean, p.lo, p.hi, p.runs])))}
    >
      <svg viewBox={`0 0 ${W} ${H}`} className="chart-svg" role="img" aria-label={`Mean throughput against ${parameter}, one line per strategy`}>
        <g transform={`translate(${M.left},${M.top})`}>
          <YAxis ticks={y.ticks(6)} y={y} label="mean throughput (Mbit/s)" />
          <XAxis ticks={x.ticks(8)} x={x} label={parameter} />
          {lines.map((l) => (
            <g key={l.strategy} data-testid={`sweep-${l.strategy}`}>
              <path d={band(l.points) ?? ""} fill={colors[l.strategy]} opacity={0.18} />
              <path d={mean(l.points) ?? ""} fill="none" stroke={colors[l.strategy]} strokeWidth={2} />
              {l.points.map((p) => (
                <circle key={p.x} cx={x(p.x)} cy={y(p.mean)} r={3.5} fill={colors[l.strategy]}>
                  <title>{`${l.strategy} at ${p.x}: ${formatFixed3(p.mean)} Mbit/s (95 % CI ${formatFixed3(p.lo)}–${formatFixed3(p.hi)}, ${p.runs} runs)`}</title>
                </circle>
              ))}
            </g>
          ))}
        </g>
      </svg>
      <ul className="chart-legend" aria-label="Legend, sweep">
        {lines.map((l) => (
          <li key={l.strategy}>
            <svg width="22" height="8" aria-hidden="true">
              <line x1="1" x2="21" y1="4" y2="4" stroke={colors[l.strategy]} strokeWidth="2.5" />
            </svg>
            {l.strategy}
          </li>
        ))}
      </ul>
    </ChartFrame>
  );
}
