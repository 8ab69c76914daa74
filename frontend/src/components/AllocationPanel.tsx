/**
 * Allocation panel of the editor: the Flow Deviation allocation of the saved
 * scenario's rated flows (`POST /api/scenarios/{id}/allocations`) at a demand scale; each link of
 * the topology coloured by its utilisation (through `onOverlay`, the one cytoscape owner's
 * highlight) with a legend, the per-demand path split, the mean delay and the objective, and the
 * tempering factor when the demands did not fit (Fratta, Gerla, Kleinrock 1973).
 */
import { useEffect, useRef, useState } from "react";
import { api, isAbort } from "../api/client";
import type { AllocationDocument, Id, ScenarioDocument } from "../api/types";
import { errorLines } from "../lib/errors";
import { allocationHighlight, allocationUtilization, UTILIZATION_LEGEND, timeNote } from "../lib/planning";
import type { Highlight } from "./topologyCy";
import { FieldErrors, SwatchLegend } from "./Legend";

function fmt(v: number | null | undefined, digits = 4): string {
  return v == null || !Number.isFinite(v) ? "—" : String(Number(v.toPrecision(digits)));
}

export function AllocationPanel({ scenarioId, doc, dirty, onOverlay }: { scenarioId: Id; doc: ScenarioDocument; dirty: boolean; onOverlay: (h: Highlight | null) => void }) {
  const [scale, setScale] = useState(1);
  const [propagation, setPropagation] = useState(true);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<string[]>([]);
  const [alloc, setAlloc] = useState<AllocationDocument | null>(null);
  const ctl = useRef<AbortController | null>(null);
  useEffect(() => () => ctl.current?.abort(), []);
  const rated = (doc.flows ?? []).filter((f) => f.rate_mbps != null).length;

  async function compute() {
    ctl.current?.abort();
    const c = new AbortController();
    ctl.current = c;
    setErrors([]);
    setBusy(true);
    try {
      const out = await api.allocations(scenarioId, { method: "fdm", demand_scale: scale, include_propagation: propagation }, c.signal);
      setAlloc(out);
      onOverlay(allocationHighlight(doc, out));
    } catch (err) {
      if (!isAbort(err)) {
        setErrors(errorLines(err));
        setAlloc(null);
        onOverlay(null);
      }
    } finally {
      if (ctl.current === c) setBusy(false);
    }
  }

  const util = alloc ? allocationUtilization(alloc) : {};
  return (
    <section className="card planning-panel" aria-labelledby="alloc-panel-title" data-testid="allocation-panel">
      <div className="card-head">
        <h2 id="alloc-panel-title">Bandwidth allocation (Flow Deviation)</h2>
        {alloc ? (
          <button type="button" className="btn btn-small" onClick={() => { setAlloc(null); onOverlay(null); }}>
            Clear overlay
          </button>
        ) : null}
      </div>
      {dirty ? <p className="muted small">Computed on the saved version: save first to include your edits.</p> : null}
      <p className="muted small">Minimum mean delay allocation of the {rated} flow(s) with a rate (demand = rate × scale).</p>
      <div className="run-options">
        <div className="field">
          <label htmlFor="ap-scale">Demand scale</label>
          <input id="ap-scale" type="number" min={0.01} step={0.1} value={scale} onChange={(e) => setScale(Number(e.currentTarget.value) || 1)} />
        </div>
        <label className="toggle">
          <input type="checkbox" checked={propagation} onChange={(e) => setPropagation(e.currentTarget.checked)} /> Include propagation delay
        </label>
        <div className="field">
          <button type="button" className="btn btn-primary" onClick={compute} disabled={busy || !(scale > 0)}>
            {busy ? "Allocating…" : "Allocate"}
          </button>
        </div>
      </div>
      <FieldErrors errors={errors} />
      {alloc ? (
        <div className="small" data-testid="allocation-result">
          <p data-testid="alloc-time">{timeNote(alloc)} Propagation delay {alloc.include_propagation ? "included" : "left out"}.</p>
          <dl className="details planning-stats">
            <dt>Mean delay</dt>
            <dd data-testid="alloc-mean-delay">{fmt(alloc.mean_delay_s * 1000)} ms</dd>
            <dt>Objective Σ f/(C − f)</dt>
            <dd data-testid="alloc-objective">{fmt(alloc.sum_flow_over_residual)}</dd>
            <dt>Offered traffic γ</dt>
            <dd>{fmt(alloc.gamma)} Mbit/s</dd>
            {alloc.tempered < 1 ? (
              <>
                <dt>Tempered</dt>
                <dd data-testid="alloc-tempered">
                  demands × {fmt(alloc.tempered)} (they did not fit; λ* = {fmt(alloc.lambda_max)})
                </dd>
              </>
            ) : null}
          </dl>
          <SwatchLegend label="Utilisation legend" items={UTILIZATION_LEGEND} />
          <table className="compact" aria-label="Demand split" data-testid="demand-split">
            <thead>
              <tr>
                <th>Demand</th>
                <th>Mbit/s</th>
                <th>Path</th>
                <th>Rate (Mbit/s)</th>
              </tr>
            </thead>
            <tbody>
              {alloc.demands.flatMap((d) =>
                d.paths.map((p, i) => (
                  <tr key={`${d.id ?? `${d.src}>${d.dst}`}#${i}`} data-demand={d.id ?? `${d.src}>${d.dst}`} data-path={p.nodes.join(" ")} data-rate={p.rate}>
                    <td>{i === 0 ? `${d.id ?? ""} ${d.src} → ${d.dst}` : ""}</td>
                    <td>{i === 0 ? fmt(d.demand) : ""}</td>
                    <td>{p.nodes.join(" → ")}</td>
                    <td>{fmt(p.rate)}</td>
                  </tr>
                )),
              )}
            </tbody>
          </table>
          <table className="compact" aria-label="Link utilisation" data-testid="link-utilization">
            <thead>
              <tr>
                <th>Link</th>
                <th>Utilisation</th>
              </tr>
            </thead>
            <tbody>
              {(doc.links ?? []).map((l) => (
                <tr key={l.id} data-link={l.id} data-utilization={util[l.id] ?? 0}>
                  <td>{l.id}</td>
                  <td>{Math.round((util[l.id] ?? 0) * 1000) / 10} %</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
