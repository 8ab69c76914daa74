/**
 * The scenario's SATCOM settings in the scenario inspector (docs/satcom.md): when the run starts (UTC, the
 * orbits are propagated from it), the terminals' elevation mask, the handover policy, the geometry step, the delay
 * resolution, the oldest TLE accepted, the inter-satellite links' grazing altitude and range, the gateways, and the
 * shared spot beams.
 */
import { useId, useState } from "react";
import type { SatcomSettings, ScenarioDocument } from "../api/types";
import { updateSatcom } from "../lib/satcomEditor";
import { nodeChoices } from "../lib/topology";
import { NumberField, SelectField, TextField } from "./fields";
import { SatcomBeams } from "./SatcomBeams";
import { useUnstoredReport } from "./unstoredFields";

const START_LABEL = "Run start (UTC, ISO 8601)";

type Change = (next: ScenarioDocument, coalesce?: string) => void;

/** ISO 8601 with a time zone (Z or ±hh:mm), as `satcom.start_utc` requires. */
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

export function startUtcProblem(text: string): string | null {
  if (!ISO_WITH_OFFSET.test(text.trim())) return "must be an ISO 8601 time with its offset, e.g. 2026-06-01T12:00:00Z";
  return Number.isNaN(Date.parse(text.trim())) ? "is not a valid date and time" : null;
}

export function SatcomSettingsFields({ doc, onChange, e }: { doc: ScenarioDocument; onChange: Change; e: Record<string, string> }) {
  const sc = doc.satcom;
  const [refused, setRefused] = useState<{ problem: string; text: string } | null>(null);
  const id = useId();
  useUnstoredReport(id, refused ? { label: START_LABEL, ...refused } : null);
  if (!sc) return null;
  const put = (patch: Partial<SatcomSettings>, key: string) => onChange(updateSatcom(doc, patch), `satcom.${key}`);
  const gateways = sc.gateways ?? [];
  const ground = nodeChoices(doc).filter((c) => doc.nodes.find((n) => n.id === c.id)?.kind !== "satellite");
  return (
    <fieldset className="field-grid satcom-settings">
      <legend>SATCOM (orbits)</legend>
      {e.satcom ? <p className="field-wide field-error">{e.satcom}</p> : null}
      <TextField
        label={START_LABEL}
        value={typeof sc.start_utc === "string" ? sc.start_utc : String(sc.start_utc)}
        commitOnBlur
        error={refused?.problem ?? e["satcom.start_utc"]}
        onChange={(v) => {
          const problem = startUtcProblem(v);
          setRefused(problem ? { problem, text: v } : null);
          if (!problem) put({ start_utc: v.trim() }, "start");
        }}
      />
      <NumberField label="Elevation mask" unit="°" schema={["SatcomSettings", "elevation_mask_deg"]} value={sc.elevation_mask_deg ?? 10} error={e["satcom.elevation_mask_deg"]} onChange={(v) => put({ elevation_mask_deg: v ?? 10 }, "mask")} />
      <SelectField
        label="Handover policy"
        value={sc.handover_policy ?? "highest_elevation"}
        options={[
          { value: "highest_elevation", label: "Highest elevation (switch as soon as another is higher)" },
          { value: "longest_visibility", label: "Longest visibility (keep until it sets)" },
        ]}
        error={e["satcom.handover_policy"]}
        onChange={(v) => put({ handover_policy: v }, "policy")}
      />
      <NumberField label="Geometry step" unit="s" schema={["SatcomSettings", "sample_s"]} value={sc.sample_s ?? 1} error={e["satcom.sample_s"]} onChange={(v) => put({ sample_s: v ?? 1 }, "sample")} />
      <NumberField label="Delay resolution" unit="ms" schema={["SatcomSettings", "delay_resolution_ms"]} value={sc.delay_resolution_ms ?? 0.1} error={e["satcom.delay_resolution_ms"]} hint="a link's delay changes in the run once it has moved by this much" onChange={(v) => put({ delay_resolution_ms: v ?? 0.1 }, "resolution")} />
      <NumberField label="Oldest TLE accepted" unit="days" schema={["SatcomSettings", "max_tle_age_days"]} value={sc.max_tle_age_days ?? 14} error={e["satcom.max_tle_age_days"]} hint="from the TLE epoch to the run start; SGP4 drifts with age" onChange={(v) => put({ max_tle_age_days: v ?? 14 }, "tle-age")} />
      <NumberField label="Inter-satellite links: grazing altitude" unit="km" schema={["SatcomSettings", "isl_grazing_altitude_km"]} value={sc.isl_grazing_altitude_km ?? 80} error={e["satcom.isl_grazing_altitude_km"]} hint="the line of sight must clear the Earth by this much" onChange={(v) => put({ isl_grazing_altitude_km: v ?? 80 }, "isl-grazing")} />
      <NumberField label="Inter-satellite links: longest range" unit="km" schema={["SatcomSettings", "isl_max_range_km"]} optional placeholder="no limit" value={sc.isl_max_range_km ?? null} error={e["satcom.isl_max_range_km"]} onChange={(v) => put({ isl_max_range_km: v }, "isl-range")} />
      <fieldset className="field-wide checkbox-list">
        <legend>Gateways (one tracking antenna per satellite)</legend>
        {e["satcom.gateways"] ? <p className="field-error">{e["satcom.gateways"]}</p> : null}
        {ground.map((c) => (
          <label key={c.id}>
            <input
              type="checkbox"
              checked={gateways.includes(c.id)}
              onChange={(ev) => put({ gateways: ev.currentTarget.checked ? [...gateways, c.id] : gateways.filter((g) => g !== c.id) }, "gateways")}
            />{" "}
            {c.text}
          </label>
        ))}
      </fieldset>
      <SatcomBeams doc={doc} onChange={onChange} e={e} />
    </fieldset>
  );
}
