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

/** One constant stretch of a direction's capacity: `[t0_s, t1_s)` at `capacity_mbps` with `modcod`. */
export interface CapacitySegment {
  t0_s: number;
  t1_s: number;
  capacity_mbps: number;
  modcod: string;
}

/** One direction of one budgeted link over the run: its capacity steps, with gaps where the link is down. */
export interface CapacitySeries {
  /** `link:up` or `link:down`. */
  key: string;
  link: string;
  direction: "up" | "down";
  /** "Ship one → LEO A ↑" (the nodes' labels; ↑ terminal → satellite, ↓ satellite → terminal). */
  label: string;
  segments: CapacitySegment[];
}

/** Whether the document has a link with a budget (its MODCOD and capacity follow the link budget). */
export function hasBudgets(doc: ScenarioDocument | null | undefined): boolean {
  return Boolean(doc?.links?.some((l) => l.budget));
}

/**
 * Capacity over the run of each direction of each budgeted link, from the access report's passes: a step at each
 * MODCOD change, ending at the next change or the pass's set, kept only while the terminal uses the satellite
 * (`in_use`). While either direction has no MODCOD that closes the run plan takes the link down both ways, so
 * both directions have a gap there, as outside the uses. Series in the order of the answer, up before down.
 */
export function capacitySeries(passes: readonly AccessPass[], doc: ScenarioDocument): CapacitySeries[] {
  const out = new Map<string, CapacitySeries>();
  for (const p of passes) {
    const steps = p.steps ?? [];
    if (!steps.length) continue;
    const name = `${labelOf(doc, p.terminal)} → ${labelOf(doc, p.satellite)}`;
    for (const direction of ["up", "down"] as const) {
      const key = `${p.link}:${direction}`;
      if (!out.has(key)) out.set(key, { key, link: p.link, direction, label: `${name} ${direction === "up" ? "↑" : "↓"}`, segments: [] });
    }
    steps.forEach((s, k) => {
      const end = steps[k + 1]?.t_s ?? p.set_s;
      if (!s.up_modcod || !s.down_modcod || s.up_capacity_mbps <= 0 || s.down_capacity_mbps <= 0) return;
      for (const [u0, u1] of p.in_use) {
        const t0 = Math.max(s.t_s, u0);
        const t1 = Math.min(end, u1);
        if (t1 <= t0) continue;
        out.get(`${p.link}:up`)!.segments.push({ t0_s: t0, t1_s: t1, capacity_mbps: s.up_capacity_mbps, modcod: s.up_modcod });
        out.get(`${p.link}:down`)!.segments.push({ t0_s: t0, t1_s: t1, capacity_mbps: s.down_capacity_mbps, modcod: s.down_modcod });
      }
    });
  }
  for (const s of out.values()) s.segments.sort((a, b) => a.t0_s - b.t0_s);
  return [...out.values()];
}

/** The segment of `series` in force at `t_s` (`[t0_s, t1_s)`, the last one's end included), or null in a gap. */
export function capacityAt(series: CapacitySeries, t_s: number): CapacitySegment | null {
  const segs = series.segments;
  return segs.find((g, k) => t_s >= g.t0_s && (t_s < g.t1_s || (k === segs.length - 1 && t_s === g.t1_s))) ?? null;
}
