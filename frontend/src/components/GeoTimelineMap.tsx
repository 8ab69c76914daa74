/**
 * A geographic scenario's motion on the map, for a comparison's results: every node at the
 * playback time (the page's one, shared with the charts and the routes), access points with their coverage circles, computed tracks as lines; with satellites on
 * orbits, the satellite each terminal uses and its delay ({@link SatcomReadout}).
 *
 * Positions come from `POST /api/timeline` (asked once for the page by `useScenarioTimeline`) (`geo_trajectories`: the domain library's mobility,
 * the same a run uses), interpolated between corners ({@link geoPositionsAt}); nothing here
 * models motion. Renders nothing for a scenario without geography.
 */
import { useMemo } from "react";
import type { GeoCorner, ScenarioDocument, TimelinePublic } from "../api/types";
import { formatSeconds } from "../lib/format";
import { geoPositionsAt, isGeoScenario } from "../lib/geo";
import { associationsAt } from "../lib/timeline";
import { usePlayback } from "../lib/playback";
import { GeoMap } from "./GeoMap";
import { PlaybackBar } from "./PlaybackBar";
import { SatcomReadout } from "./SatcomReadout";

/** `doc`, `timeline`, `errors`: the comparison's scenario version and its timeline (`useScenarioTimeline`). */
export function GeoTimelineMap({ doc, timeline, errors }: { doc: ScenarioDocument | null; timeline: TimelinePublic | null; errors: readonly string[] }) {
  const duration = timeline?.duration_s ?? doc?.run?.duration_s ?? 100;
  // the page's one playback: the charts' hover, the routes' slider and Play move the map too
  const playback = usePlayback(duration);
  const t = playback.time;
  const trajectories = (timeline?.geo_trajectories ?? null) as Record<string, GeoCorner[]> | null;
  const positions = useMemo(() => (trajectories ? geoPositionsAt(trajectories, t) : null), [trajectories, t]);
  const assocs = useMemo(() => (timeline ? associationsAt(timeline.associations, t) : []), [timeline, t]);

  if (!doc || !isGeoScenario(doc)) return null;
  return (
    <section aria-labelledby="geo-motion-title">
      <h2 id="geo-motion-title" className="section-title">
        On the map
      </h2>
      {errors.length ? <p className="field-error">Timeline not available: {errors.join("; ")}</p> : null}
      <PlaybackBar playback={playback} ariaLabel="Map time (s)" outputLabel="Map time" />
      <GeoMap doc={doc} label={`Map of ${doc.name} at ${formatSeconds(t)} s`} positions={positions} tracks={trajectories} className="geo-results" />
      <ul className="assoc-list small" aria-label="Associations at the map time">
        {assocs.length ? (
          assocs.map((a) => (
            <li key={`${a.station}-${a.access_point}`}>
              <code>{a.station}</code> → {a.access_point} ({a.state})
            </li>
          ))
        ) : (
          <li className="muted">no association at this time</li>
        )}
      </ul>
      {timeline?.satcom?.length ? <SatcomReadout uses={timeline.satcom} t={t} duration={duration} label="SATCOM at the map time" /> : null}
    </section>
  );
}
