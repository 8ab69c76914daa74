/**
 * SATCOM at a time (`POST /api/timeline` `satcom`, computed by the domain library from the orbits): per
 * ground terminal the satellites in use with their one-way delay, and a small chart of the LEO delays over
 * the run whose jumps are the handovers. Used by the editor's time scrubber and the results' map.
 */
import type { TimelinePublic } from "../api/types";
import { satcomAt, satcomSeries } from "../lib/timeline";

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
  const W = 320;
  const H = 90;
  const x = (ts: number) => (ts / Math.max(duration, 1e-9)) * W;
  const y = (d: number) => H - 4 - ((d - lo) / Math.max(hi - lo, 1e-9)) * (H - 8);
  const colour = (term: string) => `hsl(${(terminals.indexOf(term) * 137) % 360} 60% 40%)`;
  return (
    <figure className="satcom-chart">
      <svg viewBox={`0 0 ${W} ${H}`} width={W} height={H} role="img"
        aria-label={`LEO SATCOM one-way delay, ${lo.toFixed(1)} to ${hi.toFixed(1)} ms, per terminal`}>
        {series.map((s, k) => (
          <polyline key={k} data-satellite={s.satellite} fill="none" stroke={colour(s.term)} strokeWidth={1.5}
            points={s.points.map(([ts, d]) => `${x(ts).toFixed(1)},${y(d).toFixed(1)}`).join(" ")} />
        ))}
        <line x1={x(t)} x2={x(t)} y1={0} y2={H} stroke="currentColor" strokeDasharray="2 2" />
      </svg>
      <figcaption className="muted small">
        LEO one-way delay {lo.toFixed(1)}–{hi.toFixed(1)} ms over the run ({terminals.join(", ")}); jumps are handovers.
      </figcaption>
    </figure>
  );
}
