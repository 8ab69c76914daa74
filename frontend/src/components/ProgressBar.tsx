/** Accessible progress bar: `progress` is a fraction in [0, 1]. */
export function ProgressBar({ progress, label }: { progress: number; label: string }) {
  const fraction = Math.min(1, Math.max(0, Number.isFinite(progress) ? progress : 0));
  // progress · 100, to one decimal
  const pct = Math.round(fraction * 1000) / 10;
  return (
    <div
      className="progress"
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={pct}
      aria-valuetext={`${Math.round(pct)}%`}
    >
      <div className="progress-fill" style={{ width: `${pct}%` }} />
    </div>
  );
}
