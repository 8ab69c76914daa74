/** Scheduled link state changes (e.g. a SATCOM failure at 40 s, back at 55 s); server errors per field. */
import type { LinkEvent, ScenarioDocument } from "../api/types";
import { addLinkEvent, deleteLinkEvent, errorsUnder, updateLinkEvent } from "../lib/editor";
import { nodeText } from "../lib/topology";
import { CellError, CellNumber } from "./fields";
import type { Change } from "./Inspector";

export function LinkEventsEditor({ doc, errors, onChange }: { doc: ScenarioDocument; errors: Record<string, string>; onChange: Change }) {
  const events = doc.link_events ?? [];
  const links = (doc.links ?? []).map((l) => l.id);
  const set = (i: number, patch: Partial<LinkEvent>, key: string) => onChange(updateLinkEvent(doc, i, patch), `link_event.${i}.${key}`);
  return (
    <section className="card link-events-editor" aria-labelledby="link-events-title">
      <div className="card-head">
        <h2 id="link-events-title">Link events</h2>
        <button type="button" className="btn btn-small" onClick={() => onChange(addLinkEvent(doc))} disabled={!links.length}>
          Add link event
        </button>
      </div>
      {errors.link_events ? <p className="field-error">{errors.link_events}</p> : null}
      {events.length ? (
        <div className="table-scroll" role="region" aria-label="Link events table" tabIndex={0}>
          <table className="compact link-events-table" aria-label="Link events">
            <thead>
              <tr>
                <th scope="col">Time (s)</th>
                <th scope="col">Link</th>
                <th scope="col">State</th>
                <th scope="col">
                  <span className="visually-hidden">Remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {events.map((ev, i) => {
                const e = errorsUnder(errors, `link_events.${i}`);
                const n = i + 1;
                return (
                  <tr key={i} data-testid={`link-event-row-${i}`}>
                    <td>
                      <CellNumber label={`Link event ${n} time (s)`} value={ev.t_s} error={e.t_s ?? e[""]} onChange={(v) => v !== null && set(i, { t_s: v }, "t")} />
                    </td>
                    <td>
                      <select aria-label={`Link event ${n} link`} value={ev.link} aria-invalid={e.link ? true : undefined} onChange={(x) => set(i, { link: x.currentTarget.value }, "link")}>
                        {links.includes(ev.link) ? null : <option value={ev.link}>{ev.link || "—"}</option>}
                        {(doc.links ?? []).map((l) => (
                          <option key={l.id} value={l.id}>
                            {l.id}: {nodeText(doc, l.src)} – {nodeText(doc, l.dst)}
                          </option>
                        ))}
                      </select>
                      <CellError text={e.link} />
                    </td>
                    <td>
                      <select aria-label={`Link event ${n} state`} value={ev.state} onChange={(x) => set(i, { state: x.currentTarget.value as LinkEvent["state"] }, "state")}>
                        <option value="down">down</option>
                        <option value="up">up</option>
                      </select>
                      <CellError text={e.state} />
                    </td>
                    <td>
                      <button type="button" className="btn btn-small" aria-label={`Remove link event ${n}`} onClick={() => onChange(deleteLinkEvent(doc, i))}>
                        ×
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : (
        <p className="muted small">No link events. Add one to take a wired link down (and back up) during the run.</p>
      )}
    </section>
  );
}
