/** Throughput below this (Mbit/s) counts as zero, as `subflow.results.document.ZERO_THRESHOLD_MBPS` (1 kbit/s). */
export const ZERO_MBPS = 1e-3;
