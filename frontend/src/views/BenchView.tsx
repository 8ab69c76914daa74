/**
 * Rendering benchmark page (used by e2e/bench): a results view of synthetic
 * series, `?series=20&points=10000`. The time from the start of the React
 * render to the first paint after commit is written to `data-render-ms`. The charts share a
 * time window (wheel zoom, drag pan, brush), as on a comparison page.
 */
import { useLayoutEffect, useMemo, useRef, useState } from "react";
import { useSearchParams } from "react-router";
import { ThroughputChart } from "../components/ThroughputChart";
import { TimeBrush } from "../components/TimeBrush";
import { flowStyles, sharedDomains, type StrategySeries } from "../lib/chartData";
import { usePageTitle } from "./usePageTitle";

function synthetic(series: number, points: number): StrategySeries[] {
  const perChart = Math.max(1, Math.round(series / 4));
  const out: StrategySeries[] = [];
  let made = 0;
  for (let c = 0; made < series; c++) {
    const flows = [];
    for (let f = 0; f < perChart && made < series; f++, made++) {
      const pts = new Array(points);
      for (let i = 0; i < points; i++) pts[i] = { t_s: i * 0.01, mbps: 3 + Math.sin(i / 50 + made) * 2 + ((i * 7919 + made * 104729) % 97) / 97 };
      flows.push({ flowId: `f${made + 1}`, points: pts });
    }
    out.push({ strategy: `s${c + 1}`, engine: "bench", flows, markers: [{ t_s: points * 0.005, kind: "handover_start", node: "sta1" }] });
  }
  return out;
}

export function BenchView() {
  usePageTitle("Chart rendering benchmark");
  const [params] = useSearchParams();
  const n = Number(params.get("series") ?? 20);
  const p = Number(params.get("points") ?? 10000);
  const start = useRef(performance.now());
  const data = useMemo(() => {
    const series = synthetic(n, p);
    start.current = performance.now();
    return { series, domains: sharedDomains(series), styles: flowStyles(series.flatMap((s) => s.flows.map((f) => f.flowId))) };
  }, [n, p]);
  const [ms, setMs] = useState<number | null>(null);
  const [hoverT, setHoverT] = useState<number | null>(null);
  const [timeWindow, setTimeWindow] = useState<[number, number] | null>(null);
  useLayoutEffect(() => {
    requestAnimationFrame(() => setTimeout(() => setMs(performance.now() - start.current), 0));
  }, [data]);
  return (
    <section data-testid="bench" data-render-ms={ms ?? ""}>
      <h1>Chart rendering benchmark</h1>
      <p className="muted">
        {n} series × {p} points: {ms === null ? "rendering…" : `${ms.toFixed(0)} ms to first paint`}
      </p>
      {data.series[0] ? <TimeBrush series={data.series[0]} domains={data.domains} styles={data.styles} view={timeWindow} onView={setTimeWindow} /> : null}
      <div className="charts">
        {data.series.map((s) => (
          <ThroughputChart
            key={s.strategy}
            series={s}
            domains={data.domains}
            styles={data.styles}
            hoverT={hoverT}
            onHover={setHoverT}
            view={timeWindow}
            onView={setTimeWindow}
            filename="bench"
          />
        ))}
      </div>
    </section>
  );
}
