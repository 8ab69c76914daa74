/** Flows of the scenario: source, destination, kind of traffic and DiffServ class, rate or bulk, size, start/stop,
 * the kind's settings in a row below; server errors per field. */
import { Fragment } from "react";
import type { DscpClass, Flow, FlowKind, ScenarioDocument } from "../api/types";
import { addFlow, deleteFlow, errorsUnder, updateFlow } from "../lib/editor";
import { DSCP_CHOICES, dscpHint, FLOW_KINDS, kindPatch } from "../lib/flowKinds";
import { nodeChoices } from "../lib/topology";
import { CellError, CellNumber } from "./fields";
import { FlowKindFields } from "./FlowKindFields";
import type { Change } from "./Inspector";

export function FlowsEditor({ doc, errors, onChange }: { doc: ScenarioDocument; errors: Record<string, string>; onChange: Change }) {
  const flows = doc.flows ?? [];
  const ids = doc.nodes.map((n) => n.id);
  // offered by label (then id), sorted by what the planner reads
  const choices = nodeChoices(doc);
  const set = (i: number, patch: Partial<Flow>, key: string) => onChange(updateFlow(doc, i, patch), `flow.${i}.${key}`);
  return (
    <section className="card flows-editor" aria-labelledby="flows-title">
      <div className="card-head">
        <h2 id="flows-title">Flows</h2>
        <button type="button" className="btn btn-small" onClick={() => onChange(addFlow(doc).doc)} disabled={doc.nodes.length < 2}>
          Add flow
        </button>
      </div>
      {errors.flows ? <p className="field-error">{errors.flows}</p> : null}
      {flows.length ? (
        <div className="table-scroll" role="region" aria-label="Flows table" tabIndex={0}>
          <table className="compact flows-table" aria-label="Flows">
            <thead>
              <tr>
                <th scope="col">Id</th>
                <th scope="col">From</th>
                <th scope="col">To</th>
                <th scope="col">Kind</th>
                <th scope="col">DSCP</th>
                <th scope="col">Bulk</th>
                <th scope="col">Rate (Mbit/s)</th>
                <th scope="col">Size (bytes)</th>
                <th scope="col">Start (s)</th>
                <th scope="col">Stop (s)</th>
                <th scope="col">
                  <span className="visually-hidden">Remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {flows.map((f, i) => {
                const e = errorsUnder(errors, `flows.${i}`);
                const bulk = f.rate_mbps === null || f.rate_mbps === undefined;
                const name = f.id;
                const kind = f.kind ?? "tcp";
                // voice and video: the rate follows from the codec or the encoder; udp: a rate is required
                const rated = kind === "tcp" || kind === "udp";
                const hint = dscpHint(kind);
                return (
                  <Fragment key={i}>
                  <tr data-testid={`flow-row-${i}`}>
                    <td>
                      <input aria-label={`Flow ${i + 1} id`} defaultValue={f.id} key={f.id} size={5} aria-invalid={e.id ? true : undefined} onBlur={(ev) => ev.currentTarget.value !== f.id && set(i, { id: ev.currentTarget.value.trim() }, "id")} />
                      <CellError text={e.id ?? e[""]} />
                    </td>
                    <td>
                      <select aria-label={`Flow ${name} source`} value={f.src} aria-invalid={e.src ? true : undefined} onChange={(ev) => set(i, { src: ev.currentTarget.value }, "src")}>
                        {ids.includes(f.src) ? null : <option value={f.src}>{f.src || "—"}</option>}
                        {choices.map((c) => (
                          <option key={c.id} value={c.id}>
                            {c.text}
                          </option>
                        ))}
                      </select>
                      <CellError text={e.src} />
                    </td>
                    <td>
                      <select aria-label={`Flow ${name} destination`} value={f.dst} aria-invalid={e.dst ? true : undefined} onChange={(ev) => set(i, { dst: ev.currentTarget.value }, "dst")}>
                        {ids.includes(f.dst) ? null : <option value={f.dst}>{f.dst || "—"}</option>}
                        {choices.map((c) => (
                          <option key={c.id} value={c.id}>
                            {c.text}
                          </option>
                        ))}
                      </select>
                      <CellError text={e.dst} />
                    </td>
                    <td>
                      <select aria-label={`Flow ${name} kind`} value={kind} aria-invalid={e.kind ? true : undefined} onChange={(ev) => set(i, kindPatch(f, ev.currentTarget.value as FlowKind), "kind")}>
                        {FLOW_KINDS.map((k) => (
                          <option key={k.value} value={k.value}>
                            {k.label}
                          </option>
                        ))}
                      </select>
                      <CellError text={e.kind} />
                    </td>
                    <td>
                      <select aria-label={`Flow ${name} DSCP`} value={f.dscp ?? "BE"} aria-invalid={e.dscp ? true : undefined} onChange={(ev) => set(i, { dscp: ev.currentTarget.value as DscpClass }, "dscp")}>
                        {DSCP_CHOICES.map((d) => (
                          <option key={d.value} value={d.value}>
                            {d.label}
                          </option>
                        ))}
                      </select>
                      {hint && (f.dscp ?? "BE") !== hint ? <span className="field-hint">RFC 4594: {hint}</span> : null}
                      <CellError text={e.dscp} />
                    </td>
                    <td>
                      {kind === "tcp" ? <input type="checkbox" aria-label={`Flow ${name} bulk transfer`} checked={bulk} onChange={(ev) => set(i, { rate_mbps: ev.currentTarget.checked ? null : 1 }, "bulk")} /> : null}
                    </td>
                    <td>
                      {rated ? (
                        <CellNumber label={`Flow ${name} rate (Mbit/s)`} value={f.rate_mbps} disabled={kind === "tcp" && bulk} error={e.rate_mbps} onChange={(v) => set(i, { rate_mbps: v }, "rate")} />
                      ) : (
                        <>
                          <span className="muted small">from the {kind === "voice" ? "codec" : "encoder"}</span>
                          <CellError text={e.rate_mbps} />
                        </>
                      )}
                    </td>
                    <td>
                      {kind === "tcp" ? (
                        <CellNumber label={`Flow ${name} size (bytes)`} value={f.size_bytes} error={e.size_bytes} placeholder="∞" integer onChange={(v) => set(i, { size_bytes: v }, "size")} />
                      ) : (
                        <CellError text={e.size_bytes} />
                      )}
                    </td>
                    <td>
                      <CellNumber label={`Flow ${name} start (s)`} value={f.start_s ?? 0} error={e.start_s} onChange={(v) => set(i, { start_s: v ?? 0 }, "start")} />
                    </td>
                    <td>
                      <CellNumber label={`Flow ${name} stop (s)`} value={f.stop_s} error={e.stop_s} placeholder="end" onChange={(v) => set(i, { stop_s: v }, "stop")} />
                    </td>
                    <td>
                      <button type="button" className="btn btn-small" aria-label={`Remove flow ${name}`} onClick={() => onChange(deleteFlow(doc, i))}>
                        ×
                      </button>
                    </td>
                  </tr>
                  {kind !== "tcp" ? (
                    <tr className="flow-kind-row" data-testid={`flow-kind-row-${i}`}>
                      <td colSpan={11}>
                        <FlowKindFields flow={f} errors={e} onChange={(patch, key) => set(i, patch, key)} />
                      </td>
                    </tr>
                  ) : null}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : (
        <p className="muted small">No flows. Add one to send traffic between two nodes.</p>
      )}
      <p className="muted small">
        Bulk: as fast as the transport allows. Empty stop: until the end of the run ({doc.run?.duration_s ?? 100} s). Kind: TCP runs the strategy's transport; UDP sends at its rate
        whatever the network does; a voice call's rate follows from its codec, a video flow's from its encoder. DSCP: RFC 4594 marks telephony EF and interactive video AF41.
      </p>
    </section>
  );
}
