/** The association timeline (`POST /api/timeline`) at a given time (pure). */
import type { AssociationPublic, SatcomUse } from "../api/types";

export type Corner = readonly [number, number, number];

/**
 * The corners around `t` on a path of corners sorted by their time (element 0, s): `a` and `b`
 * with `u` ∈ [0, 1] the fraction of the way from `a` to `b`; clamped to the path's ends (then
 * `a` = `b`). Null for an empty path. Binary search: O(log n).
 */
export function cornersAround<C extends readonly number[]>(corners: readonly C[], t: number): { a: C; b: C; u: number } | null {
  if (!corners.length) return null;
  const first = corners[0]!;
  if (!(t > first[0]!)) return { a: first, b: first, u: 0 };
  let lo = 0;
  let hi = corners.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (corners[mid]![0]! <= t) lo = mid;
    else hi = mid;
  }
  const a = corners[lo]!;
  const b = corners[hi]!;
  if (t >= b[0]!) return { a: b, b, u: 0 };
  return { a, b, u: b[0] === a[0] ? 0 : (t - a[0]!) / (b[0]! - a[0]!) };
}

/** Position (metres) on a path given by its [t_s, x_m, y_m] corners; clamped to its ends. */
export function positionAt(corners: readonly Corner[], t: number): { x_m: number; y_m: number } | null {
  const seg = cornersAround(corners, t);
  if (!seg) return null;
  const { a, b, u } = seg;
  return { x_m: a[1] + u * (b[1] - a[1]), y_m: a[2] + u * (b[2] - a[2]) };
}

export interface AssociationState {
  station: string;
  access_point: string;
  /** associating: handover under way (no traffic yet) */
  state: "associating" | "associated";
}

/** Which access point(s) each station is associating or associated with at `t`. */
export function associationsAt(assocs: readonly AssociationPublic[], t: number): AssociationState[] {
  const out: AssociationState[] = [];
  for (const a of assocs) {
    if (t < a.t_start_s || t >= a.t_end_s) continue;
    out.push({ station: a.station, access_point: a.access_point, state: t >= a.t_associated_s ? "associated" : "associating" });
  }
  return out.sort((x, y) => x.station.localeCompare(y.station) || x.access_point.localeCompare(y.access_point));
}

/**
 * Index of the network window holding `t` in `windows` (`[t_start_s, t_end_s]` pairs covering the run, from
 * `POST /api/timeline`): `t_start_s <= t < t_end_s`, the last window closed at the run's end (as
 * `NetworkTimeline.window_at`); -1 when `windows` is empty or `t` is outside them.
 */
export function windowIndexAt(windows: readonly (readonly [number, number])[] | null | undefined, t: number): number {
  if (!windows?.length) return -1;
  const i = windows.findIndex(([a, b]) => a <= t && t < b);
  if (i >= 0) return i;
  const last = windows.length - 1;
  return t === windows[last]?.[1] ? last : -1;
}

/**
 * `doc` with every station that has a trajectory moved to where it is at `t` (metres; the
 * trajectories of `POST /api/timeline`); other nodes, and the document itself, are unchanged.
 */
export function docAt<D extends { nodes: readonly { id: string; kind: string; position?: unknown }[] }>(
  doc: D,
  trajectories: Record<string, readonly Corner[]> | null | undefined,
  t: number,
): D {
  if (!trajectories) return doc;
  const nodes = doc.nodes.map((n) => {
    const corners = n.kind === "station" ? trajectories[n.id] : undefined;
    const p = corners ? positionAt(corners, t) : null;
    return p ? { ...n, position: p } : n;
  });
  return { ...doc, nodes };
}

export interface SatcomState {
  terminal: string;
  satellite: string;
  link: string;
  /** one-way delay of the link at `t`, ms (linear between the timeline's points) */
  delay_ms: number;
}

/** Delay at `t` on a `[t_s, delay_ms]` polyline (clamped to its ends); null when empty. */
export function delayAt(points: readonly (readonly [number, number])[], t: number): number | null {
  if (!points.length) return null;
  const p = positionAt(points.map(([ts, d]) => [ts, d, 0] as const), t);
  return p ? p.x_m : null;
}

/**
 * The satellites each ground terminal uses at `t` (`POST /api/timeline` `satcom`), with the link's delay.
 * A use holds over [t_start_s, t_end_s), so a handover switches at t_end_s; with the run's `duration`, the
 * run's end belongs to the uses that last until it (the last interval is closed).
 */
export function satcomAt(uses: readonly SatcomUse[] | null | undefined, t: number, duration?: number): SatcomState[] {
  const out: SatcomState[] = [];
  for (const u of uses ?? []) {
    const atEnd = duration !== undefined && t >= duration && u.t_end_s >= duration;
    if (t < u.t_start_s || (t >= u.t_end_s && !atEnd)) continue;
    const d = delayAt(u.delay_ms as unknown as [number, number][], t);
    if (d !== null) out.push({ terminal: u.terminal, satellite: u.satellite, link: u.link, delay_ms: d });
  }
  return out.sort((a, b) => a.terminal.localeCompare(b.terminal) || a.satellite.localeCompare(b.satellite));
}

/**
 * A terminal's SATCOM delay over the run as polylines, one per use (`[t_s, delay_ms]` points), for a
 * chart; uses above `maxDelayMs` (e.g. GEO beside LEO) are left out so the LEO variation stays visible.
 */
export function satcomSeries(uses: readonly SatcomUse[] | null | undefined, terminal: string,
  maxDelayMs = Infinity): { satellite: string; points: [number, number][] }[] {
  return (uses ?? [])
    .filter((u) => u.terminal === terminal && u.delay_ms.every(([, d]) => d <= maxDelayMs))
    .map((u) => ({ satellite: u.satellite, points: u.delay_ms.map(([ts, d]) => [ts, d] as [number, number]) }));
}

export interface SatcomHandover {
  terminal: string;
  /** when the terminal starts using `satellite`, s */
  t_s: number;
  satellite: string;
  /** the satellite it leaves then (null: it had none in this role just before) */
  from: string | null;
}

/**
 * Each terminal's handovers over the run (`POST /api/timeline` `satcom`): every use that starts after the
 * run's start, with the satellite whose use ended at that moment (within 1 ms). Sorted by terminal, then time.
 */
export function satcomHandovers(uses: readonly SatcomUse[] | null | undefined): SatcomHandover[] {
  const list = [...(uses ?? [])];
  const out: SatcomHandover[] = [];
  for (const u of list) {
    if (u.t_start_s <= 1e-9) continue;
    const prev = list.find((p) => p.terminal === u.terminal && p !== u && Math.abs(p.t_end_s - u.t_start_s) < 1e-3);
    out.push({ terminal: u.terminal, t_s: u.t_start_s, satellite: u.satellite, from: prev ? prev.satellite : null });
  }
  return out.sort((a, b) => a.terminal.localeCompare(b.terminal) || a.t_s - b.t_s);
}
