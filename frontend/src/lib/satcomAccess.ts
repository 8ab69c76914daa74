/**
 * The access report of the editor (pure): each satellite pass over each ground terminal (`POST /api/timeline?access=true`
 * `access`) grouped by terminal and named by the nodes' labels, with rise, set and highest elevation as absolute UTC
 * times (`satcom.start_utc` + the run's seconds) as satellite tools report access.
 */
import type { AccessPass, AccessStep, ScenarioDocument } from "../api/types";

export interface AccessRow {
  pass: AccessPass;
  /** The satellite's label (its id without one). */
  satellite: string;
  /** UTC "12:03:20" on the run's first day, "2026-06-02 00:01:00" after it; null without a start time. */
  rise_utc: string | null;
  set_utc: string | null;
  max_utc: string | null;
  /** Seconds of the pass the terminal uses the satellite. */
  used_s: number;
  steps: AccessStep[];
}

export interface TerminalAccess {
  terminal: string;
  /** The terminal's label (its id without one). */
  name: string;
  rows: AccessRow[];
}

/** `start_utc` + `t_s` seconds as "YYYY-MM-DD hh:mm:ss" UTC (null when the start is not a date). */
export function utcAt(start_utc: string | null | undefined, t_s: number): string | null {
  const t0 = start_utc ? Date.parse(start_utc) : Number.NaN;
  if (!Number.isFinite(t0)) return null;
  return new Date(t0 + Math.round(t_s * 1000)).toISOString().slice(0, 19).replace("T", " ");
}

/** `utcAt`, without the date while it is the run's first day: "12:03:20". */
export function utcClock(start_utc: string | null | undefined, t_s: number): string | null {
  const at = utcAt(start_utc, t_s);
  const day0 = utcAt(start_utc, 0)?.slice(0, 10);
  return at && at.slice(0, 10) === day0 ? at.slice(11) : at;
}

const labelOf = (doc: ScenarioDocument, id: string) => doc.nodes.find((n) => n.id === id)?.label || id;

/** Passes grouped by terminal (in the order of the answer: by terminal, then rise), named by label. */
export function accessByTerminal(passes: readonly AccessPass[], doc: ScenarioDocument): TerminalAccess[] {
  const start = doc.satcom?.start_utc ?? null;
  const out = new Map<string, TerminalAccess>();
  for (const p of passes) {
    let t = out.get(p.terminal);
    if (!t) {
      t = { terminal: p.terminal, name: labelOf(doc, p.terminal), rows: [] };
      out.set(p.terminal, t);
    }
    t.rows.push({
      pass: p,
      satellite: labelOf(doc, p.satellite),
      rise_utc: utcClock(start, p.rise_s),
      set_utc: utcClock(start, p.set_s),
      max_utc: utcClock(start, p.t_max_elevation_s),
      used_s: p.in_use.reduce((s, [a, b]) => s + (b - a), 0),
      steps: p.steps ?? [],
    });
  }
  return [...out.values()];
}

/** "QPSK 3/4 · 12.3 Mbit/s", or "none closes". */
export function modcodText(modcod: string | null | undefined, capacity_mbps: number): string {
  return modcod ? `${modcod} · ${capacity_mbps.toFixed(1)} Mbit/s` : "none closes";
}
