/**
 * Time scrubber: moves the stations along their trajectories on the canvas and
 * shows which access point each one is associated with at that time. Both come
 * from the domain library (`POST /api/timeline`), computed for the document as
 * it is being edited (debounced), so they match what a run would use.
 */
import { useEffect, useId, useMemo, useState } from "react";
import { api, isAbort } from "../api/client";
import type { ScenarioDocument, TimelinePublic } from "../api/types";
import { errorLines } from "../lib/errors";
import { formatSeconds } from "../lib/format";
import { usePlayLoop } from "../lib/playback";
import { associationsAt, positionAt, windowIndexAt, type Corner } from "../lib/timeline";
import { SatcomReadout } from "./SatcomReadout";
import type { Ghosts } from "./TopologyGraph";

const DEBOUNCE_MS = 400;
/** Simulated seconds per wall-clock second while playing: the run takes ~10 s. */

/**
 * `onTimeline` (a geographic scenario's map): told the timeline and the scrubbed time, so that the
 * map places every node from `geo_trajectories`; with it, any moving node (not only a station)
 * turns the scrubber on.
 */
export function TimeScrubber({ doc, onGhosts, onTimeline, onTime }: { doc: ScenarioDocument; onGhosts: (g: Ghosts | null) => void; onTimeline?: (tl: TimelinePublic | null, t: number) => void; onTime?: (t: number | null) => void }) {
  const id = useId();
  const [on, setOn] = useState(false);
  const [timeline, setTimeline] = useState<TimelinePublic | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [t, setT] = useState(0);
  const [playing, setPlaying] = useState(false);
  const hasStations = doc.nodes.some((n) => n.kind === "station" || (onTimeline && n.mobility && n.mobility.model !== "static"));

  useEffect(() => {
    if (!on || !hasStations) return;
    const ctl = new AbortController();
    const timer = setTimeout(() => {
      api
        .timeline(doc, ctl.signal)
        .then((tl) => {
          setTimeline(tl);
          setError(null);
        })
        .catch((err) => {
          if (!isAbort(err)) setError(errorLines(err).join("; "));
        });
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      ctl.abort();
    };
  }, [doc, on, hasStations]);

  const duration = timeline?.duration_s ?? doc.run?.duration_s ?? 100;

  usePlayLoop(playing, duration, setT, setPlaying);

  const state = useMemo(() => {
    if (!on || !timeline) return null;
    const positions: Ghosts["positions"] = {};
    for (const [sid, corners] of Object.entries(timeline.trajectories)) {
      const p = positionAt(corners as unknown as Corner[], t);
      if (p) positions[sid] = p;
    }
    return { positions, associations: associationsAt(timeline.associations, t) };
  }, [on, timeline, t]);

  useEffect(() => onGhosts(state), [state, onGhosts]);
  useEffect(() => onTimeline?.(on ? timeline : null, t), [on, timeline, t, onTimeline]);
  // the scrubbed time (null while the scrubber is off), e.g. for the coverage heat map
  useEffect(() => onTime?.(on ? t : null), [on, t, onTime]);
  useEffect(() => () => onGhosts(null), [onGhosts]);

  const stations = doc.nodes.filter((n) => n.kind === "station").map((n) => n.id);

  return (
    <section className="card scrubber" aria-labelledby={`${id}-title`}>
      <div className="card-head">
        <h2 id={`${id}-title`}>Mobility over time</h2>
        <label className="toggle">
          <input type="checkbox" checked={on} disabled={!hasStations} onChange={(e) => setOn(e.currentTarget.checked)} /> Show
        </label>
      </div>
      {!hasStations ? <p className="muted small">No stations: nothing moves.</p> : null}
      {on && hasStations ? (
        <>
          <div className="scrubber-row">
            <button type="button" className="btn btn-small" onClick={() => (t >= duration ? (setT(0), setPlaying(true)) : setPlaying((p) => !p))}>
              {playing ? "Pause" : "Play"}
            </button>
            <input
              type="range"
              min={0}
              max={duration}
              step={duration / 1000}
              value={t}
              aria-label="Time (s)"
              onChange={(e) => {
                setPlaying(false);
                setT(Number(e.currentTarget.value));
              }}
            />
            <output aria-label="Current time">{formatSeconds(t)} s</output>
          </div>
          {timeline?.windows?.length ? (
            <NetworkWindow windows={timeline.windows} t={t} onJump={(x) => { setPlaying(false); setT(x); }} />
          ) : null}
          {error ? <p className="field-error">Timeline not available: {error}</p> : null}
          <ul className="assoc-list" aria-label="Associations at this time">
            {stations.map((sid) => {
              const a = state?.associations.filter((x) => x.station === sid) ?? [];
              return (
                <li key={sid} data-station={sid}>
                  <code>{sid}</code> →{" "}
                  {a.length ? a.map((x) => `${x.access_point} (${x.state})`).join(", ") : <span className="muted">no access point</span>}
                </li>
              );
            })}
          </ul>
          {timeline?.satcom?.length ? <SatcomReadout uses={timeline.satcom} t={t} duration={duration} label="SATCOM at this time" /> : null}
        </>
      ) : null}
    </section>
  );
}


/**
 * Which network window the scrubbed time is in (the run cut where an association, a link or SATCOM outage or an
 * ad-hoc hop starts or ends: the windows the routes, allocation and failure panels answer per), with buttons to
 * jump to the previous or next change.
 */
function NetworkWindow({ windows, t, onJump }: { windows: readonly (readonly [number, number])[]; t: number; onJump: (t: number) => void }) {
  const i = windowIndexAt(windows, t);
  const here = windows[i];
  if (!here) return null;
  const [a, b] = here;
  const previous = windows[i - 1];
  const next = windows[i + 1];
  return (
    <p className="small scrubber-window" data-testid="network-window" data-index={i} data-start={a} data-end={b}>
      <button type="button" className="btn btn-small" disabled={!previous} onClick={() => previous && onJump(previous[0])}>◀ Previous change</button>{" "}
      Network window {i + 1} of {windows.length}: {formatSeconds(a)}–{formatSeconds(b)} s (the network is fixed inside it; the planners answer per window){" "}
      <button type="button" className="btn btn-small" disabled={!next} onClick={() => next && onJump(next[0])}>Next change ▶</button>
    </p>
  );
}
