/**
 * The access report of a geographic scenario with satellites on orbits: per ground terminal, every pass of a
 * satellite (rise, set, highest elevation, UTC and run time, how long the terminal used it) and, for a link with a
 * budget, the MODCOD and capacity of each direction at the rise and at every change (`POST /api/timeline?access=true`).
 */
import { useId } from "react";
import type { ScenarioDocument } from "../api/types";
import { formatClock } from "../lib/format";
import { accessByTerminal, modcodText, type AccessRow } from "../lib/satcomAccess";
import type { SatcomAccess } from "../views/editor/useSatcomAccess";

export function AccessReport({ doc, access }: { doc: ScenarioDocument; access: SatcomAccess }) {
  const id = useId();
  if (!access.applies) return null;
  const groups = access.timeline ? accessByTerminal(access.timeline.access ?? [], doc) : [];
  return (
    <section className="card access-report" aria-labelledby={`${id}-title`} data-testid="access-report">
      <div className="card-head">
        <h2 id={`${id}-title`}>Satellite access</h2>
        <label className="toggle">
          <input type="checkbox" checked={access.on} onChange={(e) => access.setOn(e.currentTarget.checked)} /> Compute (and draw ground tracks)
        </label>
      </div>
      {access.on ? (
        <p className="muted small" aria-live="polite">
          {access.loading ? "Computing the passes…" : access.error ? null : `Passes over each terminal above the ${doc.satcom?.elevation_mask_deg ?? 10}° mask, for the document as edited.`}
        </p>
      ) : null}
      {access.error ? <p className="field-error">Could not compute the access report: {access.error}</p> : null}
      {access.on && access.timeline && !groups.length ? <p className="muted">No satellite rises over any terminal during the run.</p> : null}
      {groups.map((g) => (
        <table key={g.terminal} className="compact access-table" data-terminal={g.terminal}>
          <caption>{g.name}</caption>
          <thead>
            <tr>
              <th scope="col">Satellite</th>
              <th scope="col">Rise (UTC)</th>
              <th scope="col">Set (UTC)</th>
              <th scope="col">Max elevation</th>
              <th scope="col">In use</th>
              <th scope="col">MODCOD and capacity (↑ up, ↓ down)</th>
            </tr>
          </thead>
          <tbody>
            {g.rows.map((r, i) => (
              <PassRow key={i} row={r} />
            ))}
          </tbody>
        </table>
      ))}
    </section>
  );
}

function PassRow({ row }: { row: AccessRow }) {
  const p = row.pass;
  return (
    <tr data-testid="access-pass">
      <th scope="row">{row.satellite}</th>
      <td>
        {row.rise_utc ?? "—"}
        <span className="muted small"> ({formatClock(p.rise_s)})</span>
      </td>
      <td>
        {row.set_utc ?? "—"}
        <span className="muted small"> ({formatClock(p.set_s)})</span>
      </td>
      <td>
        {p.max_elevation_deg.toFixed(1)}° <span className="muted small">at {formatClock(p.t_max_elevation_s)}</span>
      </td>
      <td>{p.in_use.length ? formatClock(row.used_s) : <span className="muted">not used</span>}</td>
      <td>
        {row.steps.length ? (
          <ul className="access-steps">
            {row.steps.map((s, k) => (
              <li key={k}>
                {formatClock(s.t_s)}: ↑ {modcodText(s.up_modcod, s.up_capacity_mbps)}; ↓ {modcodText(s.down_modcod, s.down_capacity_mbps)}
              </li>
            ))}
          </ul>
        ) : (
          <span className="muted small">no link budget</span>
        )}
      </td>
    </tr>
  );
}
