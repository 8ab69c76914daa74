/**
 * SATCOM at a time (`POST /api/timeline` `satcom`, computed by the domain library from the orbits): per
 * ground terminal the satellites in use with their one-way delay, and a small chart of the LEO delays over
 * the run whose jumps are the handovers. Used by the editor's time scrubber and the results' map.
 */
import type { TimelinePublic } from "../api/types";
import { satcomAt, satcomHandovers, satcomSeries } from "../lib/timeline";

type Uses = NonNullable<TimelinePublic["satcom"]>;

export function SatcomReadout({ uses, t, duration, label }: { uses: Uses; t: number; duration: number; label: string }) {
  const now = satcomAt(uses, t, duration);
  return (
    <>
      <ul className="assoc-list" aria-label={label}>
        {[...new Set(uses.map((u) => u.terminal))].map((term) => {
          const s = now.filter((x) => x.terminal === term);
          return (
            <li key={term} data-terminal={term}>
              <code>{term}</code> SATCOM:{" "}
              {s.length ? s.map((x) => `${x.satellite}, ${x.delay_ms.toFixed(1)} ms`).join("; ") : <span className="muted">no satellite in view</span>}
            </li>
          );
        })}
      </ul>
      <SatcomDelayChart uses={uses} duration={duration} t={t} />
      <SatcomHandoverList uses={uses} />
    </>
  );
}

/** LEO delays (uses under 60 ms one way) of every terminal over the run, one line per satellite use, with the
 * scrubbed time marked: a small SVG chart (the handovers are the jumps). */
function SatcomDelayChart({ uses, duration, t }: { uses: Uses; duration: number; t: number }) {
  const terminals = [...new Set(uses.map((u) => u.terminal))];
  const series = terminals.flatMap((term) => satcomSeries(uses, term, 60).map((s) => ({ term, ...s })));
  if (!series.length) return null;
  const all = series.flatMap((s) => s.points.map(([, d]) => d));
  const lo = Math.min(...all);
  const hi = Math.max(...all);
  // plot area inside margins for the axes: delay (ms) on the left, time (s) below
  const W = 360;
  const H = 120;
  const L = 40;
  const B = 24;
  const x = (ts: number) => L + (ts / Math.max(duration, 1e-9)) * (W - L - 6);
  const y = (d: number) => H - B - ((d - lo) / Math.max(hi - lo, 1e-9)) * (H - B - 8);
  const colour = (term: string) => `hsl(${(terminals.indexOf(term) * 137) % 360} 60% 40%)`;
  return (
    <figure className="satcom-chart">
      <svg viewBox={`0 0 ${W} ${H}`} width={W} height={H} role="img"
        aria-label={`LEO SATCOM one-way delay, ${lo.toFixed(1)} to ${hi.toFixed(1)} ms, per terminal`}>
        {series.map((s, k) => (
          <polyline key={k} data-satellite={s.satellite} fill="none" stroke={colour(s.term)} strokeWidth={1.5}
            points={s.points.map(([ts, d]) => `${x(ts).toFixed(1)},${y(d).toFixed(1)}`).join(" ")} />
        ))}
        <line x1={x(t)} x2={x(t)} y1={4} y2={H - B} stroke="currentColor" strokeDasharray="2 2" />
        <g className="axis" fontSize={11} fill="currentColor">
          <line x1={L} x2={L} y1={4} y2={H - B} stroke="currentColor" />
          <line x1={L} x2={W - 6} y1={H - B} y2={H - B} stroke="currentColor" />
          <text x={L - 4} y={y(hi) + 4} textAnchor="end" data-axis="y-max">{hi.toFixed(1)}</text>
          <text x={L - 4} y={y(lo) + 4} textAnchor="end" data-axis="y-min">{lo.toFixed(1)}</text>
          <text x={4} y={12} data-axis="y-label">ms</text>
          <text x={L} y={H - B + 14} textAnchor="middle" data-axis="x-min">0</text>
          <text x={W - 6} y={H - B + 14} textAnchor="end" data-axis="x-max">{duration.toFixed(0)}</text>
          <text x={(L + W) / 2} y={H - 2} textAnchor="middle" data-axis="x-label">time (s)</text>
        </g>
      </svg>
      <figcaption className="muted small">
        LEO one-way delay {lo.toFixed(1)}–{hi.toFixed(1)} ms over the run ({terminals.join(", ")}); jumps are handovers.
      </figcaption>
    </figure>
  );
}

/** Each terminal's handover times over the run, beside the delay chart. */
function SatcomHandoverList({ uses }: { uses: Uses }) {
  const handovers = satcomHandovers(uses);
  if (!handovers.length) return null;
  return (
    <ul className="small satcom-handovers" aria-label="SATCOM handovers">
      {handovers.map((h) => (
        <li key={`${h.terminal}@${h.t_s}@${h.satellite}`} data-terminal={h.terminal} data-t={h.t_s}>
          <code>{h.terminal}</code> at {h.t_s.toFixed(1)} s: {h.from ? `${h.from} → ` : ""}{h.satellite}
        </li>
      ))}
    </ul>
  );
}
