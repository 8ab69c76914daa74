/** Number and text formatting shared by views (pure). */

const DASH = "—";

/** Mbit/s and ratios: 3 decimals, as in the summary table. */
export function formatFixed3(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return DASH;
  const s = value.toFixed(3);
  return s === "-0.000" ? "0.000" : s;
}

/** Seconds: up to 3 decimals without trailing zeros ("4", "0.25"). */
export function formatSeconds(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return DASH;
  const s = String(Number(value.toFixed(3)));
  return s === "-0" ? "0" : s;
}

/** First `max` characters of `text` on a word boundary, with an ellipsis when cut. */
export function excerpt(text: string | null | undefined, max = 160): string {
  const t = (text ?? "").replace(/\s+/g, " ").trim();
  if (t.length <= max) return t;
  const cut = t.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, "")}…`;
}

/** A 422 `detail[].loc` as a dotted field path; the leading "body" of request bodies is dropped. */
export function formatLoc(loc: readonly (string | number)[]): string {
  const parts = loc[0] === "body" ? loc.slice(1) : loc;
  return parts.map(String).join(".");
}

/** One line per validation problem: "links.0.dst: unknown node 'x'". */
export function formatValidationErrors(
  detail: readonly { loc: readonly (string | number)[]; msg: string }[],
): string[] {
  return detail.map((d) => {
    const path = formatLoc(d.loc);
    return path ? `${path}: ${d.msg}` : d.msg;
  });
}

/**
 * A time in seconds as people read it: 100.795 → "1 min 40.8 s", 59.25 → "59.3 s", 3725 → "1 h 2 min 5 s"
 * (tenths of a second; whole units dropped when zero at the front).
 */
export function formatClock(t_s: number | null | undefined): string {
  if (t_s === null || t_s === undefined || !Number.isFinite(t_s)) return DASH;
  const sign = t_s < 0 ? "−" : "";
  const tenths = Math.round(Math.abs(t_s) * 10);
  const h = Math.floor(tenths / 36000);
  const m = Math.floor((tenths % 36000) / 600);
  const s = (tenths % 600) / 10;
  const sec = `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
  if (h) return `${sign}${h} h ${m} min ${sec}`;
  if (m) return `${sign}${m} min ${sec}`;
  return `${sign}${sec}`;
}
