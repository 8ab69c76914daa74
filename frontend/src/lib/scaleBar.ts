/** Scale bar and grid spacing for a drawing in metres (pure). */

const STEPS = [1, 2, 5];

/** The largest 1/2/5 × 10^k metres not longer than `maxPx` pixels at `pxPerMetre`. */
export function niceLength(pxPerMetre: number, maxPx = 120): { metres: number; px: number; label: string } {
  if (!(pxPerMetre > 0) || !Number.isFinite(pxPerMetre)) return { metres: 0, px: 0, label: "" };
  const maxM = maxPx / pxPerMetre;
  let k = Math.floor(Math.log10(maxM));
  let best = 0;
  for (; best === 0; k--) {
    for (const s of STEPS) {
      const m = s * 10 ** k;
      if (m <= maxM + 1e-9) best = Math.max(best, m);
    }
  }
  return { metres: best, px: best * pxPerMetre, label: formatMetres(best) };
}

export function formatMetres(m: number): string {
  if (m >= 1000) return `${Number((m / 1000).toPrecision(6))} km`;
  if (m >= 1) return `${Number(m.toPrecision(6))} m`;
  return `${Number((m * 100).toPrecision(6))} cm`;
}

/** Grid line spacing in metres: a 1/2/5 step giving lines at least `minPx` apart. */
export function gridSpacing(pxPerMetre: number, minPx = 40): number {
  if (!(pxPerMetre > 0) || !Number.isFinite(pxPerMetre)) return 0;
  const minM = minPx / pxPerMetre;
  let k = Math.floor(Math.log10(minM));
  for (;; k++) for (const s of STEPS) if (s * 10 ** k >= minM - 1e-12) return s * 10 ** k;
}
