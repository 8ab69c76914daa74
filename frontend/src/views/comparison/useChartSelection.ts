import { useCallback, useState } from "react";
import { EVENT_MARKER_KINDS } from "../../lib/chartData";

/**
 * What the throughput charts show, shared by all of them.
 *
 * Owns:
 * 1. the time window chosen with the brush, ctrl + wheel or a drag (null: the whole run);
 * 2. which event-marker kinds are drawn (all of them at first);
 * 3. whether each strategy's subflows are drawn.
 *
 * The hovered time is not here: it is the page's one playback (`lib/playback`), shared with the routes and the map.
 */
export function useChartSelection() {
  const [timeWindow, setTimeWindow] = useState<[number, number] | null>(null);
  const [markerKinds, setMarkerKinds] = useState<string[]>([...EVENT_MARKER_KINDS]);
  const [showSubflows, setShowSubflows] = useState(false);
  /** Turns one marker kind on or off; the others keep their state. */
  const setMarkerKind = useCallback((kind: string, on: boolean) => setMarkerKinds((ks) => (on ? [...ks, kind] : ks.filter((x) => x !== kind))), []);
  return { timeWindow, setTimeWindow, markerKinds, setMarkerKind, showSubflows, setShowSubflows };
}

export type ChartSelection = ReturnType<typeof useChartSelection>;
