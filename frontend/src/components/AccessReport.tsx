/**
 * The access report of a geographic scenario with satellites on orbits: per ground terminal, every pass of a
 * satellite (rise, set, highest elevation in UTC, how long the terminal used it) and, for a link with a budget,
 * the MODCOD and capacity of each direction at the rise and at every change (`POST /api/timeline?access=true`).
 */
import { useId } from "react";
import type { ScenarioDocument } from "../api/types";
import { formatClock } from "../lib/format";
import { accessByTerminal, modcodText, utcAt, type AccessRow } from "../lib/satcomAccess";
import type { SatcomAccess } from "../views/editor/useSatcomAccess";

export function AccessReport({ doc, access }: { doc: ScenarioDocument; access: SatcomAccess }) {
  const id = useId();
  if (!access.applies) return null;
  const groups = access.timeline ? accessByTerminal(access.timeline.access ?? [], doc) : [];
  const tracks = Object.keys(access.timeline?.ground_tracks ?? {}).length;
  const start = utcAt(doc.satcom?.start_utc, 0);
  return (
    <section className="card access-report" aria-labelledby={`${id}-title`} data-testid="access-report">
      <div className="card-head">
        <h2 id={`${id}-title`}>Satellite access</h2>
        <label className="toggle">
          <input type="checkbox" checked={access.on} onChange={(e) => access.setOn(e.currentTarget.checked)} /> Compute
        </label>
      </div>
      {access.on ? (
        <p className="muted small" aria-live="polite">
          {access.loading
            ? "Computing the passes…"
            : access.error
              ? null
              : `Passes above the ${doc.satcom?.elevation_mask_deg ?? 10}° mask for the document as edited; times UTC${start ? `, the run starts ${start}` : ""}.`}
        </p>
      ) : null}
      {tracks ? (
        <button type="button" className="btn btn-small" onClick={access.showTracks}>
          Show the ground tracks on the map
        </button>
      ) : null}
      {access.error ? <p className="field-error">Could not compute the access report: {access.error}</p> : null}
      {access.on && access.timeline && !groups.length ? <p className="muted">No satellite rises over any terminal during the run.</p> : null}
      {groups.map((g) => (
        <table key={g.terminal} className="compact access-table" data-terminal={g.terminal}>
          <caption title={g.terminal}>{g.name}</caption>
          <thead>
            <tr>
              <th scope="col">Satellite</th>
              <th scope="col">Rise</th>
              <th scope="col">Set</th>
              <th scope="col">Max elevation</th>
              <th scope="col">In use</th>
            </tr>
          </thead>
          <tbody>
            {g.rows.map((r, i) => (
              <PassRows key={i} row={r} />
            ))}
          </tbody>
        </table>
      ))}
    </section>
  );
}

function PassRows({ row }: { row: AccessRow }) {
  const p = row.pass;
  return (
    <>
      <tr data-testid="access-pass" data-satellite={p.satellite} className={row.steps.length ? "has-steps" : undefined}>
        <th scope="row" title={p.satellite}>
          {row.satellite}
        </th>
        <td title={`${formatClock(p.rise_s)} into the run`}>{row.rise_utc ?? formatClock(p.rise_s)}</td>
        <td title={`${formatClock(p.set_s)} into the run`}>{row.set_utc ?? formatClock(p.set_s)}</td>
        <td data-testid="max-elevation">
          {p.max_elevation_deg.toFixed(1)}° <span className="muted small">at {row.max_utc ?? formatClock(p.t_max_elevation_s)}</span>
        </td>
        <td>{p.in_use.length ? formatClock(row.used_s) : <span className="muted">not used</span>}</td>
      </tr>
      {row.steps.length ? (
        <tr className="access-steps-row">
          <td colSpan={5}>
            <ul className="access-steps" aria-label={`MODCOD and capacity, ${row.satellite}`}>
              {row.steps.map((s, k) => (
                <li key={k}>
                  {formatClock(s.t_s)}: ↑ {modcodText(s.up_modcod, s.up_capacity_mbps)}; ↓ {modcodText(s.down_modcod, s.down_capacity_mbps)}
                </li>
              ))}
            </ul>
          </td>
        </tr>
      ) : null}
    </>
  );
}
