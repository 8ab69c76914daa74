/**
 * The link budget of a SATCOM link (a link between a ground node and a satellite on an orbit) in the link
 * inspector: the terminal's radio (EIRP, G/T, antenna), the carrier (frequencies, symbol rate, MODCOD table or a
 * fixed MODCOD, margin), the losses and the rain statistic (docs/satcom.md). Scripted rain series
 * (`rain_rate_mm_h`, `rain_attenuation_db`) are kept as they are and edited in the scenario's JSON.
 */
import type { SatcomBudget, SatelliteNode } from "../api/types";
import { BUDGET_DEFAULT } from "../lib/satcomEditor";
import { NumberField, SelectField, TextField } from "./fields";

type Put = (budget: SatcomBudget | null, key: string) => void;

export function LinkBudgetFields({ budget, satellite, gatewayLinks, errs, onBudget }: { budget: SatcomBudget | null; satellite: SatelliteNode; gatewayLinks: readonly { value: string; label: string }[]; errs: Record<string, string>; onBudget: Put }) {
  if (!budget) {
    return (
      <fieldset className="field-grid link-budget">
        <legend>Link budget</legend>
        <p className="field-wide muted small">
          No budget: the link carries its bandwidth. With one, its capacity follows the MODCOD each step closes
          {satellite.payload ? "" : " (the satellite needs a payload first: EIRP and G/T)"}.
        </p>
        {errs.budget ? <p className="field-wide field-error">{errs.budget}</p> : null}
        <div className="field-wide">
          <button type="button" className="btn btn-small" onClick={() => onBudget(BUDGET_DEFAULT, "budget_add")}>
            Add link budget
          </button>
        </div>
      </fieldset>
    );
  }
  const put = (patch: Partial<SatcomBudget>, key: string) => onBudget({ ...budget, ...patch }, key);
  const e = (k: keyof SatcomBudget) => errs[`budget.${k}`];
  const num = (label: string, unit: string, key: keyof SatcomBudget, fallback?: number) => (
    <NumberField
      key={key}
      label={label}
      unit={unit || undefined}
      schema={["SatcomBudget", key]}
      value={(budget[key] as number | undefined) ?? fallback ?? null}
      error={e(key)}
      onChange={(v) => put({ [key]: v ?? fallback ?? 0 } as Partial<SatcomBudget>, key)}
    />
  );
  const scripted = budget.rain_rate_mm_h ? "rain rate" : budget.rain_attenuation_db ? "rain attenuation" : null;
  return (
    <fieldset className="field-grid link-budget">
      <legend>Link budget</legend>
      {errs.budget ? <p className="field-wide field-error">{errs.budget}</p> : null}
      {!satellite.payload ? <p className="field-wide field-error">{satellite.label || satellite.id} has no payload (EIRP, G/T): the budget is refused until it has one.</p> : null}
      {num("Terminal EIRP", "dBW", "terminal_eirp_dbw")}
      {num("Terminal G/T", "dB/K", "terminal_g_t_dbk")}
      {num("Uplink frequency", "GHz", "uplink_ghz")}
      {num("Downlink frequency", "GHz", "downlink_ghz")}
      {num("Symbol rate", "Msym/s", "symbol_rate_msps")}
      <SelectField
        label="MODCOD table"
        value={budget.standard ?? "dvb-s2"}
        options={[
          { value: "dvb-s2", label: "DVB-S2 (EN 302 307-1)" },
          { value: "dvb-s2x", label: "DVB-S2X (EN 302 307-2)" },
        ]}
        error={e("standard")}
        onChange={(v) => put({ standard: v }, "standard")}
      />
      <TextField
        label="Fixed MODCOD (CCM)"
        placeholder="empty: adaptive (ACM)"
        value={budget.modcod ?? ""}
        commitOnBlur
        error={e("modcod")}
        onChange={(v) => put({ modcod: v.trim() || null }, "modcod")}
      />
      {num("Margin", "dB", "margin_db", 1)}
      {num("Pointing loss", "dB", "pointing_loss_db", 0.3)}
      {num("Polarisation loss", "dB", "polarisation_loss_db", 0.1)}
      {num("Antenna diameter", "m", "antenna_diameter_m", 1.2)}
      <NumberField
        label="Antenna efficiency"
        unit="%"
        factor={100}
        schema={["SatcomBudget", "antenna_efficiency"]}
        value={budget.antenna_efficiency ?? 0.65}
        error={e("antenna_efficiency")}
        onChange={(v) => put({ antenna_efficiency: v ?? 0.65 }, "antenna_efficiency")}
      />
      {scripted ? (
        <p className="field-wide muted small" data-testid="budget-scripted-rain">
          Rain: a scripted {scripted} series ({(budget.rain_rate_mm_h ?? budget.rain_attenuation_db)!.length} steps), kept as is; edit it in the
          scenario’s JSON.{" "}
          <button type="button" className="btn btn-small" onClick={() => put({ rain_rate_mm_h: null, rain_attenuation_db: null }, "rain_clear")}>
            Use the ITU-R statistic instead
          </button>
        </p>
      ) : (
        <NumberField
          label="Rain exceedance"
          unit="% of a year"
          schema={["SatcomBudget", "exceedance_pct"]}
          value={budget.exceedance_pct ?? 0.1}
          error={e("exceedance_pct")}
          hint="ITU-R P.618 at the terminal; a scripted rain series is set in the scenario’s JSON."
          onChange={(v) => put({ exceedance_pct: v ?? 0.1 }, "exceedance_pct")}
        />
      )}
      {satellite.payload?.transponder !== "regenerative" ? (
        <SelectField
          label="Gateway link (bent pipe)"
          value={budget.gateway_link ?? ""}
          options={[{ value: "", label: "none: this link's legs alone" }, ...gatewayLinks]}
          error={e("gateway_link")}
          onChange={(v) => put({ gateway_link: v || null }, "gateway_link")}
        />
      ) : null}
      <div className="field-wide">
        <button type="button" className="btn btn-small" onClick={() => onBudget(null, "budget_remove")}>
          Remove link budget
        </button>
      </div>
    </fieldset>
  );
}
