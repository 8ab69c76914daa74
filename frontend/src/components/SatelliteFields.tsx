/**
 * A satellite's orbit and payload in the inspector: the orbit label, where its orbit comes from (none, a TLE
 * pasted or read from a file, or a geostationary longitude), its constellation and its payload (EIRP, G/T,
 * transponder). A TLE line is checked as the server checks it (69 characters, the column-69 checksum) before it
 * is stored; the server's own errors land on the same fields.
 */
import type { SatelliteNode, SatellitePayload, ScenarioDocument } from "../api/types";
import { ephemerisFor, orbitSource, setEphemeris, tlePairProblem, type OrbitSource } from "../lib/satcomEditor";
import { isGeoScenario } from "../lib/geo";
import { NumberField, SelectField, TextField } from "./fields";
import { TleFilePicker, TleLineField } from "./TleFields";

type Set = (patch: Record<string, unknown>, key: string) => void;

const ORBIT_SOURCES: readonly { value: OrbitSource; label: string }[] = [
  { value: "none", label: "None (links carry their own delay)" },
  { value: "tle", label: "TLE (two-line elements, SGP4)" },
  { value: "geostationary", label: "Geostationary longitude" },
];

const PAYLOAD_DEFAULT: SatellitePayload = { eirp_dbw: 50, g_t_dbk: 5, transponder: "bent_pipe" };

export function SatelliteFields({ doc, node, errs, set, onChange }: { doc: ScenarioDocument; node: SatelliteNode; errs: Record<string, string>; set: Set; onChange: (next: ScenarioDocument, coalesce?: string) => void }) {
  const source = orbitSource(node);
  const eph = node.ephemeris ?? null;
  const put = (next: SatelliteNode["ephemeris"], key: string) => onChange(setEphemeris(doc, node.id, next), `${node.id}.${key}`);
  return (
    <fieldset className="field-grid satellite-fields">
      <legend>Orbit</legend>
      <SelectField
        label="Orbit class"
        value={node.orbit ?? "geo"}
        options={[
          { value: "geo", label: "GEO (geostationary)" },
          { value: "meo", label: "MEO (medium Earth orbit)" },
          { value: "leo", label: "LEO (low Earth orbit)" },
        ]}
        error={errs.orbit}
        onChange={(v) => set({ orbit: v }, "orbit")}
      />
      <SelectField label="Orbit source" value={source} options={ORBIT_SOURCES} error={errs.ephemeris} onChange={(v) => put(ephemerisFor(v, node), "ephemeris.source")} />
      {source !== "none" && !isGeoScenario(doc) ? (
        <p className="field-wide field-error">An orbit needs a geographic scenario: place the nodes by latitude and longitude.</p>
      ) : null}
      {eph?.model === "tle" ? (
        <>
          <TleLineField n={1} value={eph.line1} error={errs["ephemeris.line1"]} onChange={(v) => put({ ...eph, line1: v }, "tle1")} onBoth={(l1, l2) => put({ model: "tle", line1: l1, line2: l2 }, "tle")} />
          <TleLineField
            n={2}
            value={eph.line2}
            error={errs["ephemeris.line2"] ?? (eph.line1.length === 69 && eph.line2.length === 69 ? tlePairProblem(eph.line1, eph.line2) ?? undefined : undefined)}
            onChange={(v) => put({ ...eph, line2: v }, "tle2")}
            onBoth={(l1, l2) => put({ model: "tle", line1: l1, line2: l2 }, "tle")}
          />
          <TleFilePicker
            onLines={(f) => {
              let next = setEphemeris(doc, node.id, { model: "tle", line1: f.line1, line2: f.line2 });
              if (f.name && !node.label) next = { ...next, nodes: next.nodes.map((n) => (n.id === node.id ? { ...n, label: f.name!.slice(0, 80) } : n)) };
              onChange(next);
            }}
          />
        </>
      ) : null}
      {eph?.model === "geostationary" ? (
        <NumberField
          label="Longitude of the sub-satellite point"
          unit="°"
          schema={["GeostationaryEphemeris", "lon_deg"]}
          value={eph.lon_deg}
          error={errs["ephemeris.lon_deg"]}
          onChange={(v) => put({ ...eph, lon_deg: v ?? 0 }, "lon")}
        />
      ) : null}
      {source !== "none" ? (
        <>
          <TextField
            label="Constellation"
            placeholder="none: a constellation of its own"
            value={node.constellation ?? ""}
            commitOnBlur
            error={errs.constellation}
            onChange={(v) => set({ constellation: v.trim() || null }, "constellation")}
          />
          <PayloadFields payload={node.payload ?? null} errs={errs} set={set} />
        </>
      ) : null}
    </fieldset>
  );
}

function PayloadFields({ payload, errs, set }: { payload: SatellitePayload | null; errs: Record<string, string>; set: Set }) {
  if (!payload) {
    return (
      <div className="field-wide">
        <p className="muted small">No payload: its links keep their bandwidth (no link budget).</p>
        <button type="button" className="btn btn-small" onClick={() => set({ payload: PAYLOAD_DEFAULT }, "payload_add")}>
          Add payload
        </button>
      </div>
    );
  }
  const put = (patch: Partial<SatellitePayload>, key: string) => set({ payload: { ...payload, ...patch } }, `payload.${key}`);
  return (
    <>
      <NumberField label="Payload EIRP" unit="dBW" schema={["SatellitePayload", "eirp_dbw"]} value={payload.eirp_dbw} error={errs["payload.eirp_dbw"] ?? errs.payload} onChange={(v) => put({ eirp_dbw: v ?? 0 }, "eirp")} />
      <NumberField label="Payload G/T" unit="dB/K" schema={["SatellitePayload", "g_t_dbk"]} value={payload.g_t_dbk} error={errs["payload.g_t_dbk"]} onChange={(v) => put({ g_t_dbk: v ?? 0 }, "gt")} />
      <SelectField
        label="Transponder"
        value={payload.transponder ?? "bent_pipe"}
        options={[
          { value: "bent_pipe", label: "Bent pipe (transparent)" },
          { value: "regenerative", label: "Regenerative (on-board demodulation)" },
        ]}
        error={errs["payload.transponder"]}
        onChange={(v) => put({ transponder: v }, "transponder")}
      />
      <div className="field-wide">
        <button type="button" className="btn btn-small" onClick={() => set({ payload: null }, "payload_remove")}>
          Remove payload
        </button>
      </div>
    </>
  );
}
