/**
 * Choosers shared by the comparison dialog and the analysis page: a scenario parameter by the name the
 * planner reads (`parameterLabel`: "Link uav-ship (uav–ship) bandwidth, Mbit/s", never the raw path shown),
 * and a strategy from the server's list (`GET /api/strategies`), never free text.
 *
 * Owns:
 * 1. `ParameterSelect` — a select of parameter paths labelled for people;
 * 2. `StrategySelect` — a select of the strategies the server offers (with their descriptions as titles).
 */
import type { ScenarioDocument, StrategyInfo } from "../api/types";
import { parameterLabel } from "../lib/parameters";
import { useStrategies } from "../lib/useStrategies";

export function ParameterSelect({ id, doc, params, value, onChange }: { id: string; doc: ScenarioDocument; params: readonly string[]; value: string; onChange: (p: string) => void }) {
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
      {params.map((p) => (
        <option key={p} value={p}>
          {parameterLabel(doc, p)}
        </option>
      ))}
    </select>
  );
}

export function StrategySelect({ id, value, onChange }: { id: string; value: string; onChange: (s: string) => void }) {
  const { strategies: list } = useStrategies();
  const names = list?.length ? list : [{ name: value, description: "" } as StrategyInfo];
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)} disabled={list === null}>
      {names.map((s) => (
        <option key={s.name} value={s.name} title={s.description ?? undefined}>
          {s.name}
        </option>
      ))}
    </select>
  );
}
