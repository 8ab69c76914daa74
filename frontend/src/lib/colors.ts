/** A stable colour per strategy name, the same in every chart of a page. */
const STRATEGY_PALETTE = ["#2563eb", "#dc2626", "#059669", "#9333ea", "#ea580c", "#0891b2", "#a16207", "#db2777", "#4b5563", "#65a30d"];

export function strategyColors(names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  names.forEach((n, i) => (out[n] = STRATEGY_PALETTE[i % STRATEGY_PALETTE.length]!));
  return out;
}

/** Strategy line dash patterns (CDF, sweep): strategies stay apart in greyscale. */
const STRATEGY_DASHES = ["", "8 4", "2 3", "12 3 2 3", "5 2 5 6", "1 2 6 2"];

/** A stable dash pattern per strategy name, in the order of `names`. */
export function strategyDashes(names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  names.forEach((n, i) => (out[n] = STRATEGY_DASHES[i % STRATEGY_DASHES.length]!));
  return out;
}
