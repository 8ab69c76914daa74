/**
 * The scenario's spot beams (`satcom.beams`): per beam its satellite, the symbol rates of its shared carriers,
 * the sharing policy and its member links (budgeted SATCOM links of that satellite, named by their ends).
 */
import type { SatcomBeam, SatelliteNode, ScenarioDocument } from "../api/types";
import { addBeam, deleteBeam, satcomSatelliteOf, updateBeam } from "../lib/satcomEditor";
import { nodeText } from "../lib/topology";
import { NumberField, SelectField, TextField } from "./fields";

type Change = (next: ScenarioDocument, coalesce?: string) => void;

export function SatcomBeams({ doc, onChange, e }: { doc: ScenarioDocument; onChange: Change; e: Record<string, string> }) {
  const beams = doc.satcom?.beams ?? [];
  const sats = doc.nodes.filter((n): n is SatelliteNode => n.kind === "satellite" && !!(n as SatelliteNode).ephemeris);
  return (
    <div className="field-wide satcom-beams">
      <h3 className="field-label">Beams (shared carriers)</h3>
      {e["satcom.beams"] ? <p className="field-error">{e["satcom.beams"]}</p> : null}
      {beams.length ? null : <p className="muted small">No beams: each terminal has its own carrier (its budget’s symbol rate).</p>}
      {beams.map((b, i) => (
        <BeamFields key={i} doc={doc} beam={b} index={i} sats={sats} onChange={onChange} e={e} />
      ))}
      <button type="button" className="btn btn-small" disabled={!sats.length} onClick={() => onChange(addBeam(doc))}>
        Add beam
      </button>
    </div>
  );
}

function BeamFields({ doc, beam, index, sats, onChange, e }: { doc: ScenarioDocument; beam: SatcomBeam; index: number; sats: SatelliteNode[]; onChange: Change; e: Record<string, string> }) {
  const at = `satcom.beams.${index}`;
  const put = (patch: Partial<SatcomBeam>, key: string) => onChange(updateBeam(doc, index, patch), `${at}.${key}`);
  const candidates = (doc.links ?? []).filter((l) => satcomSatelliteOf(doc, l)?.id === beam.satellite);
  return (
    <fieldset className="field-grid beam" aria-label={`Beam ${beam.id}`}>
      <legend>Beam {beam.id}</legend>
      {e[at] ? <p className="field-wide field-error">{e[at]}</p> : null}
      <TextField label="Beam id" value={beam.id} commitOnBlur error={e[`${at}.id`]} onChange={(v) => put({ id: v.trim() }, "id")} />
      <SelectField
        label="Satellite"
        value={beam.satellite}
        options={[...(sats.some((s) => s.id === beam.satellite) ? [] : [{ value: beam.satellite, label: beam.satellite }]), ...sats.map((s) => ({ value: s.id, label: nodeText(doc, s.id) }))]}
        error={e[`${at}.satellite`]}
        onChange={(v) => put({ satellite: v, links: [] }, "satellite")}
      />
      <NumberField label="Forward symbol rate" unit="Msym/s" schema={["SatcomBeam", "forward_symbol_rate_msps"]} value={beam.forward_symbol_rate_msps} error={e[`${at}.forward_symbol_rate_msps`]} onChange={(v) => put({ forward_symbol_rate_msps: v ?? 1 }, "fwd")} />
      <NumberField
        label="Return symbol rate"
        unit="Msym/s"
        optional
        placeholder="each terminal its own carrier"
        schema={["SatcomBeam", "return_symbol_rate_msps"]}
        value={beam.return_symbol_rate_msps ?? null}
        error={e[`${at}.return_symbol_rate_msps`]}
        onChange={(v) => put({ return_symbol_rate_msps: v }, "ret")}
      />
      <SelectField label="Sharing policy" value={beam.policy ?? "equal_airtime"} options={[{ value: "equal_airtime", label: "Equal airtime" }]} error={e[`${at}.policy`]} onChange={(v) => put({ policy: v }, "policy")} />
      <fieldset className="field-wide checkbox-list">
        <legend>Member links</legend>
        {e[`${at}.links`] ? <p className="field-error">{e[`${at}.links`]}</p> : null}
        {candidates.length ? null : <p className="muted small">This satellite has no SATCOM links.</p>}
        {candidates.map((l) => (
          <label key={l.id}>
            <input
              type="checkbox"
              checked={beam.links.includes(l.id)}
              onChange={(ev) => put({ links: ev.currentTarget.checked ? [...beam.links, l.id] : beam.links.filter((x) => x !== l.id) }, "links")}
            />{" "}
            {nodeText(doc, l.src)} ↔ {nodeText(doc, l.dst)}
            {l.budget ? null : <span className="muted small"> (no link budget: refused as a member)</span>}
          </label>
        ))}
      </fieldset>
      <div className="field-wide">
        <button type="button" className="btn btn-small btn-danger" onClick={() => onChange(deleteBeam(doc, index))}>
          Remove beam {beam.id}
        </button>
      </div>
    </fieldset>
  );
}
