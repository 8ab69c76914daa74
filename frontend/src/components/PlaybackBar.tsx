/**
 * A Play / Pause button and a time slider on the page's one playback ({@link usePlayback}): every
 * bar on the page moves together, with the charts' hover rule, the routes and the map.
 */
import { useId, type ReactNode } from "react";
import { formatSeconds } from "../lib/format";
import type { Playback } from "../lib/playback";

export interface PlaybackBarProps {
  playback: Playback;
  /** The slider's accessible name, e.g. "Map time (s)"; or a visible label (then `labelId` names it). */
  ariaLabel?: string;
  label?: ReactNode;
  /** id of the slider (for a visible `<label htmlFor>` elsewhere). */
  inputId?: string;
  /** The output's accessible name. */
  outputLabel?: string;
  /** Slider step (default: a round step, 0.1 s on a 100 s run, so that typed and slid times land on round values). */
  step?: number;
}

export function PlaybackBar({ playback, ariaLabel, label, inputId, outputLabel, step }: PlaybackBarProps) {
  const own = useId();
  const id = inputId ?? own;
  const { time, duration, playing, seek, toggle } = playback;
  return (
    <div className="scrubber-row playback-bar" data-testid="playback-bar" data-time={time} data-playing={playing}>
      <button type="button" className="btn btn-small" onClick={toggle} aria-pressed={playing}>
        {playing ? "Pause" : "Play"}
      </button>
      {label ? <label htmlFor={id}>{label}</label> : null}
      <input id={id} type="range" min={0} max={duration} step={step ?? roundStep(duration)} value={time} aria-label={label ? undefined : ariaLabel} onChange={(e) => seek(Number(e.currentTarget.value))} />
      <output aria-label={outputLabel ?? "Time"} htmlFor={id}>
        {formatSeconds(time)} s
      </output>
    </div>
  );
}

/** A power of ten near 1/500 of the run (1 s for 900 s, 0.1 s for 100 s). */
export function roundStep(duration: number): number {
  return 10 ** Math.floor(Math.log10(duration / 500 || 1));
}
