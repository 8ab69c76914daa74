import { useCallback, useMemo, useState } from "react";
import type { GeoCorner, ScenarioDocument, TimelinePublic } from "../../api/types";
import type { LatLon } from "../../components/geoLeaflet";
import type { Ghosts, Highlight } from "../../components/TopologyGraph";
import { geoPositionsAt, isGeoScenario } from "../../lib/geo";

/**
 * What the topology pane draws besides the document, and whether it draws a map or the x/y canvas.
 *
 * Owns:
 * 1. the map mode: a geographic scenario, or one the user chose to place on a map;
 * 2. the node to centre the map on (found by its label);
 * 3. the time scrubber's output: ghost positions on the canvas, the timeline and time for the map
 *    (positions and tracks from `geo_trajectories`), the scrubbed time for the coverage map;
 * 4. the routes / allocation overlay of the planning panels;
 * 5. the link-label toggle (null: the default for the topology's size).
 */
export function useCanvasOverlays(doc: ScenarioDocument) {
  const [mapMode, setMapMode] = useState(false);
  const geo = mapMode || isGeoScenario(doc);
  const [focus, setFocus] = useState<{ nodeId: string } | null>(null);
  const [scrub, setScrub] = useState<{ timeline: TimelinePublic; t: number } | null>(null);
  /** The scrubbed time (null: scrubber off), for the coverage heat map. */
  const [scrubT, setScrubT] = useState<number | null>(null);
  const [ghosts, setGhosts] = useState<Ghosts | null>(null);
  const [planningOverlay, setPlanningOverlay] = useState<Highlight | null>(null);
  const [linkLabels, setLinkLabels] = useState<boolean | null>(null);

  const onScrub = useCallback((timeline: TimelinePublic | null, t: number) => setScrub(timeline ? { timeline, t } : null), []);
  const geoTracks = (scrub?.timeline.geo_trajectories ?? null) as Record<string, GeoCorner[]> | null;
  const geoPositions = useMemo<Record<string, LatLon> | null>(() => (scrub && geoTracks ? geoPositionsAt(geoTracks, scrub.t) : null), [scrub, geoTracks]);

  return {
    geo,
    placeOnMap: () => setMapMode(true),
    focus,
    setFocus,
    onScrub,
    geoTracks,
    geoPositions,
    scrubT,
    setScrubT,
    ghosts,
    setGhosts,
    planningOverlay,
    setPlanningOverlay,
    linkLabels,
    setLinkLabels,
  };
}

export type CanvasOverlays = ReturnType<typeof useCanvasOverlays>;
