/**
 * What a page, a breadcrumb and an exported file are called: names people read, never database ids.
 *
 * Owns:
 * 1. `pageTitle` — the browser tab's title (`<what> · Subflow`);
 * 2. `comparisonLabel` — a comparison as its strategies and start time ("sptcp vs mptcp, 28 Nov 2026 15:30");
 * 3. `fileStem` — a file-name stem from readable parts (scenario name, strategies, time), safe on every file system.
 */

const APP = "Subflow";

/** The tab title of a page: its parts (empty ones left out) then the product, joined by " · ". */
export function pageTitle(...parts: (string | null | undefined)[]): string {
  return [...parts.filter((p): p is string => !!p && p.trim() !== ""), APP].join(" · ");
}

/** "YYYY-MM-DD HH:MM" in local time (ISO order: sorts as text, reads the same in every locale). */
export function shortTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** A comparison by what it compared and when it started: "sptcp vs mptcp, 2026-11-28 15:30". */
export function comparisonLabel(strategies: readonly string[], createdAt?: string | null): string {
  const what = strategies.length ? strategies.join(" vs ") : "Comparison";
  const when = createdAt ? shortTime(createdAt) : "";
  return when ? `${what}, ${when}` : what;
}

/**
 * A file-name stem from readable parts: lower case, every run of characters other than letters, digits,
 * `.` and `_` becomes one `-`, no leading or trailing `-`, at most 80 characters; "subflow" when nothing is left.
 */
export function fileStem(...parts: (string | null | undefined)[]): string {
  const joined = parts
    .filter((p): p is string => !!p)
    .join("-")
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9._]+/g, "-")
    .replace(/^[-.]+|[-.]+$/g, "");
  return joined.slice(0, 80).replace(/[-.]+$/g, "") || "subflow";
}
