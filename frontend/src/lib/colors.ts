/** A stable colour per strategy name, the same in every chart of a page. */
const STRATEGY_PALETTE = ["#2563eb", "#dc2626", "#059669", "#9333ea", "#ea580c", "#0891b2", "#a16207", "#db2777", "#4b5563", "#65a30d"];

export function strategyColors(names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  names.forEach((n, i) => (out[n] = STRATEGY_PALETTE[i % STRATEGY_PALETTE.length]!));
  return out;
}
