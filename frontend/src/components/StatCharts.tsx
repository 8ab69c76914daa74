/**
 * Summary charts of comparisons: mean ± std bars with Jain's index, the CDF of
 * per-flow mean throughput (scmptcp Fig. 6), and a sweep's mean throughput vs
 * the swept parameter with 95 % CI bands (msctp-cmt Fig. 6). d3 computes scales
 * and paths; React renders the SVG, as wide as its card (no view-box stretch).
 * Strategies differ by colour and by dash pattern (readable in greyscale).
 */
import { max } from "d3-array";
import { scaleBand, scaleLinear } from "d3-scale";
import { area, curveStepAfter, line } from "d3-shape";
import type { CdfPoint, SummaryBar, SweepLinePoint } from "../lib/chartData";
import { toCsv } from "../lib/chartData";
import { formatFixed3 } from "../lib/format";
import { ChartFrame } from "./ChartFrame";
import { useChartWidth, type LegendItem } from "./chartKit";
import { formatTick } from "./ThroughputChart";

const H = 300;
/** right margin leaves room for the last x label (it is centred on the axis end) */
const M = { top: 22, right: 30, bottom: 46, left: 60 };
const IH = H - M.top - M.bottom;

function innerWidth(width: number): number {
  return Math.max(60, width - M.left - M.right);
}

function YAxis({ ticks, y, label, IW }: { ticks: number[]; y: (v: number) => number; label: string; IW: number }) {
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
      <text transform={`translate(-46,${IH / 2}) rotate(-90)`} textAnchor="middle" className="axis-label">
        {label}
      </text>
    </>
  );
}

function XAxis({ ticks, x, label, IW }: { ticks: number[]; x: (v: number) => number; label: string; IW: number }) {
  return (
    <>
      {ticks.map((t) => (
        <g key={`x${t}`} transform={`translate(${x(t)},${IH})`}>
          <line y1={0} y2={5} className="axis" />
          {/* a label at the right end is anchored at its end, so that it never overhangs the chart */}
          <text y={18} textAnchor={x(t) > IW - 12 ? "end" : "middle"} className="tick">
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

/** "no outage", or "outage 2 s (5 s at zero)": the longest run at zero of one flow, then all flows' seconds at zero. */
export function outageText(b: SummaryBar): string {
  if (!(b.longest_outage_s > 0)) return "no outage";
  const s = (v: number) => `${Number(v.toFixed(1))} s`;
  return b.zero_s > b.longest_outage_s ? `outage ${s(b.longest_outage_s)} (${s(b.zero_s)} at zero)` : `outage ${s(b.longest_outage_s)}`;
}

function meanPlusStd(b: SummaryBar): number {
  return b.mean_mbps + (Number.isFinite(b.std_mbps) ? b.std_mbps : 0);
}

export function SummaryBars({ bars, colors, yMax, filename = "summary", title = "Mean throughput ± std of the flows' means, Jain's index, longest outage" }: { bars: SummaryBar[]; colors: Record<string, string>; yMax?: number; filename?: string; title?: string }) {
  const [bodyRef, width] = useChartWidth<HTMLDivElement>();
  const IW = innerWidth(width);
  const legend: LegendItem[] = [
    ...bars.map((b): LegendItem => ({ key: `bar:${b.strategy}`, label: b.strategy, color: colors[b.strategy] ?? "#64748b", kind: "bar" })),
    { key: "whisker", label: "± one standard deviation", color: "#0f172a", kind: "line", width: 1.5 },
  ];
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
      csv={() => toCsv(["strategy", "mean_mbps", "std_mbps", "jain_index", "longest_outage_s", "zero_s"], bars.map((b) => [b.strategy, b.mean_mbps, b.std_mbps, b.jain_index, b.longest_outage_s, b.zero_s]))}
      description="Bars: mean over the flows' mean throughputs; whiskers: ± one standard deviation of those means (they hide outages); label: Jain's fairness index; below each bar: the longest run at zero of any one flow and the seconds at zero of all flows."
      legend={legend}
    >
      <div className="chart-body" ref={bodyRef}>
      <svg width={width} height={H} className="chart-svg" role="img" aria-label="Mean throughput per strategy with standard deviation and Jain's index">
        <g transform={`translate(${M.left},${M.top})`}>
          <YAxis ticks={y.ticks(6)} y={y} label="mean throughput (Mbit/s)" IW={IW} />
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
                data-outage={b.longest_outage_s}
              >
                <rect x={bx} y={y(b.mean_mbps)} width={bw} height={Math.max(0, IH - y(b.mean_mbps))} fill={colors[b.strategy] ?? "#64748b"} opacity={0.85}>
                  <title>{`${b.strategy}: ${formatFixed3(b.mean_mbps)} ± ${formatFixed3(b.std_mbps)} Mbit/s, Jain ${formatFixed3(b.jain_index)}, ${outageText(b)}`}</title>
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
                <text x={bx + bw / 2} y={IH + 32} textAnchor="middle" className={b.longest_outage_s > 0 ? "tick outage-label" : "tick"} data-testid={`outage-${b.strategy}`}>
                  {outageText(b)}
                </text>
              </g>
            );
          })}
        </g>
      </svg>
      </div>
    </ChartFrame>
  );
}

function cdfX(p: CdfPoint): number {
  return p.mbps;
}

export function CdfChart({ cdfs, colors, dashes = {}, xMax, filename = "cdf" }: { cdfs: { strategy: string; points: CdfPoint[] }[]; colors: Record<string, string>; dashes?: Record<string, string>; xMax?: number; filename?: string }) {
  const [bodyRef, width] = useChartWidth<HTMLDivElement>();
  const IW = innerWidth(width);
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
  const legend: LegendItem[] = cdfs.map((c) => ({ key: `cdf:${c.strategy}`, label: c.strategy, color: colors[c.strategy] ?? "#64748b", dash: dashes[c.strategy], kind: "line" }));
  return (
    <ChartFrame
      title="CDF of per-flow mean throughput"
      filename={filename}
      testId="cdf-chart"
      legend={legend}
      csv={() => toCsv(["strategy", "mean_mbps", "cdf"], cdfs.flatMap((c) => c.points.map((p) => [c.strategy, p.mbps, p.p])))}
    >
      <div className="chart-body" ref={bodyRef}>
        <svg width={width} height={H} className="chart-svg" role="img" aria-label="Cumulative distribution of per-flow mean throughput per strategy">
          <g transform={`translate(${M.left},${M.top})`}>
            <YAxis ticks={y.ticks(5)} y={y} label="fraction of flows" IW={IW} />
            <XAxis ticks={x.ticks(Math.max(2, Math.floor(IW / 80)))} x={x} label="flow mean throughput (Mbit/s)" IW={IW} />
            {cdfs.map((c) => {
              if (!c.points.length) return null;
              const pts: CdfPoint[] = [{ mbps: 0, p: 0 }, { mbps: c.points[0]!.mbps, p: 0 }, ...c.points, { mbps: x.domain()[1]!, p: 1 }];
              return (
                <path
                  key={c.strategy}
                  d={gen(pts) ?? ""}
                  fill="none"
                  stroke={colors[c.strategy] ?? "#64748b"}
                  strokeDasharray={dashes[c.strategy] || undefined}
                  strokeWidth={2}
                  data-testid={`cdf-${c.strategy}`}
                  data-flows={c.points.length}
                >
                  <title>{c.strategy}</title>
                </path>
              );
            })}
          </g>
        </svg>
      </div>
    </ChartFrame>
  );
}

function sx(p: SweepLinePoint): number {
  return p.x;
}

export interface SweepChartProps {
  /** the parameter's name as the planner reads it (parameterLabel), with its unit */
  parameter: string;
  lines: { strategy: string; points: SweepLinePoint[] }[];
  colors: Record<string, string>;
  dashes?: Record<string, string>;
  filename?: string;
  /** swept value whose runs the per-flow charts show (marked) */
  shownX?: number | null;
}

export function SweepChart({ parameter, lines, colors, dashes = {}, filename = "sweep", shownX }: SweepChartProps) {
  const [bodyRef, width] = useChartWidth<HTMLDivElement>();
  const IW = innerWidth(width);
  const all = lines.flatMap((l) => l.points);
  const xs = all.map(sx);
  const lo = xs.length ? Math.min(...xs) : 0;
  const hi = xs.length ? Math.max(...xs) : 1;
  // a little room on both sides, so that the end points, their CI bars and labels are inside
  const pad = (hi - lo || 1) * 0.04;
  const x = scaleLinear()
    .domain([lo - pad, hi === lo ? lo + 1 : hi + pad])
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
  // each strategy's points are nudged sideways a little so that overlapping CI bars stay apart
  const nudge = (i: number) => (i - (lines.length - 1) / 2) * 5;
  const legend: LegendItem[] = lines.flatMap((l): LegendItem[] => [
    { key: `mean:${l.strategy}`, label: `${l.strategy} mean`, color: colors[l.strategy] ?? "#64748b", dash: dashes[l.strategy], kind: "line" },
    { key: `band:${l.strategy}`, label: `${l.strategy} 95 % CI`, color: colors[l.strategy] ?? "#64748b", dash: dashes[l.strategy] || "3 2", kind: "band" },
  ]);
  return (
    <ChartFrame
      title={`Mean throughput vs ${parameter}`}
      filename={filename}
      testId="sweep-chart"
      legend={legend}
      description="Lines: mean over repetitions; bands and bars: 95 % confidence interval of each strategy."
      csv={() => toCsv(["strategy", parameter, "mean_mbps", "ci95_low_mbps", "ci95_high_mbps", "runs"], lines.flatMap((l) => l.points.map((p) => [l.strategy, p.x, p.mean, p.lo, p.hi, p.runs])))}
    >
      <div className="chart-body" ref={bodyRef}>
        <svg width={width} height={H} className="chart-svg" role="img" aria-label={`Mean throughput against ${parameter}, one line per strategy with its 95 % confidence band`}>
          <g transform={`translate(${M.left},${M.top})`}>
            <YAxis ticks={y.ticks(6)} y={y} label="mean throughput (Mbit/s)" IW={IW} />
            <XAxis ticks={x.ticks(Math.max(2, Math.floor(IW / 80)))} x={x} label={parameter} IW={IW} />
            {shownX !== null && shownX !== undefined ? (
              <g data-testid="sweep-shown-point">
                <line x1={x(shownX)} x2={x(shownX)} y1={0} y2={IH} stroke="#0f172a" strokeDasharray="2 3" />
                <text x={x(shownX)} y={-8} textAnchor={x(shownX) > IW - 60 ? "end" : x(shownX) < 60 ? "start" : "middle"} className="tick">
                  per-flow charts
                </text>
              </g>
            ) : null}
            {/* every band first, each with its own outline, then every line on top */}
            {lines.map((l) => (
              <path
                key={`band-${l.strategy}`}
                d={band(l.points) ?? ""}
                fill={colors[l.strategy]}
                fillOpacity={0.14}
                stroke={colors[l.strategy]}
                strokeOpacity={0.8}
                strokeWidth={1}
                strokeDasharray={dashes[l.strategy] || "3 2"}
                data-testid={`sweep-band-${l.strategy}`}
              />
            ))}
            {lines.map((l, i) => (
              <g key={l.strategy} data-testid={`sweep-${l.strategy}`}>
                <path d={mean(l.points) ?? ""} fill="none" stroke={colors[l.strategy]} strokeDasharray={dashes[l.strategy] || undefined} strokeWidth={2} />
                {l.points.map((p) => (
                  <g key={p.x} transform={`translate(${x(p.x) + nudge(i)},0)`}>
                    <line y1={y(Math.max(0, p.lo))} y2={y(p.hi)} stroke={colors[l.strategy]} strokeWidth={1.5} className="ci-bar" />
                    <line x1={-4} x2={4} y1={y(Math.max(0, p.lo))} y2={y(Math.max(0, p.lo))} stroke={colors[l.strategy]} strokeWidth={1.5} />
                    <line x1={-4} x2={4} y1={y(p.hi)} y2={y(p.hi)} stroke={colors[l.strategy]} strokeWidth={1.5} />
                    <circle cx={0} cy={y(p.mean)} r={3.5} fill={colors[l.strategy]}>
                      <title>{`${l.strategy} at ${p.x}: ${formatFixed3(p.mean)} Mbit/s (95 % CI ${formatFixed3(p.lo)}–${formatFixed3(p.hi)}, ${p.runs} runs)`}</title>
                    </circle>
                  </g>
                ))}
              </g>
            ))}
          </g>
        </svg>
      </div>
    </ChartFrame>
  );
}
