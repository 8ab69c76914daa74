/**
 * One playback time for a comparison's page: the throughput charts, the routes view and the map
 * read it and drive it. Moving any of their sliders, hovering a chart or pressing Play moves all of
 * them; nothing else keeps a time of its own.
 *
 * Owns (in {@link usePlaybackState}, mounted once by {@link PlaybackProvider}):
 * 1. the chosen time `t` (null: none chosen yet, read as 0), set by a slider or by playback;
 * 2. the hovered time (null: no chart hovered), which overrides `t` while a chart is hovered;
 * 3. whether it is playing: `t` advances so that the whole run takes {@link PLAY_SECONDS} s, and
 *    stops at the end; moving a slider pauses it.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";

/** Simulated seconds per wall-clock second while playing: the run takes ~10 s. */
export const PLAY_SECONDS = 10;

/**
 * While `playing`, advance a time (seconds, from null as 0) so that `duration` takes {@link PLAY_SECONDS} s of
 * wall time, one step per animation frame; at `duration` it stops there and calls `setPlaying(false)`.
 * One loop for every player: the comparison's shared playback and the editor's mobility scrubber.
 */
export function usePlayLoop<T extends number | null>(
  playing: boolean,
  duration: number,
  setT: (f: (x: T) => T) => void,
  setPlaying: (on: boolean) => void,
): void {
  const last = useRef<number | null>(null);
  useEffect(() => {
    if (!playing) return;
    let frame = requestAnimationFrame(function step(now) {
      const prev = last.current ?? now;
      last.current = now;
      setT((x) => {
        const next = (x ?? 0) + ((now - prev) / 1000) * (duration / PLAY_SECONDS);
        if (next >= duration) {
          setPlaying(false);
          return duration as T;
        }
        return next as T;
      });
      frame = requestAnimationFrame(step);
    });
    return () => {
      cancelAnimationFrame(frame);
      last.current = null;
    };
  }, [playing, duration, setT, setPlaying]);
}


export interface Playback {
  /** The time every view shows: the hovered time, else the chosen one, else 0. */
  time: number;
  /** The chosen time (null: none yet). */
  t: number | null;
  /** The hovered chart time (null: none). */
  hoverT: number | null;
  duration: number;
  playing: boolean;
  /** Chooses a time (clamped to the run) and pauses playback. */
  seek: (t: number) => void;
  setHoverT: (t: number | null) => void;
  /** Play from the current time (from 0 once at the end), or pause. */
  toggle: () => void;
}

export function usePlaybackState(duration: number): Playback {
  const [t, setT] = useState<number | null>(null);
  const [hoverT, setHoverT] = useState<number | null>(null);
  const [playing, setPlaying] = useState(false);
  usePlayLoop(playing, duration, setT, setPlaying);
  const seek = useCallback(
    (x: number) => {
      setPlaying(false);
      setT(Math.max(0, Math.min(duration, x)));
    },
    [duration],
  );
  const toggle = useCallback(() => {
    if (playing) {
      setPlaying(false);
      return;
    }
    setT((x) => (x === null || x >= duration ? 0 : x));
    setPlaying(true);
  }, [playing, duration]);
  return useMemo(() => ({ time: hoverT ?? t ?? 0, t, hoverT, duration, playing, seek, setHoverT, toggle }), [hoverT, t, duration, playing, seek, toggle]);
}

const PlaybackContext = createContext<Playback | null>(null);

/** The page's one playback time, for every view under it. */
export function PlaybackProvider({ duration, children }: { duration: number; children: ReactNode }) {
  const playback = usePlaybackState(duration);
  return <PlaybackContext.Provider value={playback}>{children}</PlaybackContext.Provider>;
}

/** The shared playback; a view outside any provider gets one of its own (it then drives only itself). */
export function usePlayback(fallbackDuration = 100): Playback {
  const shared = useContext(PlaybackContext);
  const own = usePlaybackState(fallbackDuration);
  return shared ?? own;
}
