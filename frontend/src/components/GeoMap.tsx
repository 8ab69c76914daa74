/**
 * A geographic scenario on a map (Leaflet, offline basemap): nodes, links, radio ranges, drawn
 * waypoints, loiter patterns and computed tracks; a scale bar in metres and nautical miles. The
 * Leaflet map has one owner, {@link GeoMapOwner} (`geoLeaflet.ts`), created on mount and destroyed on
 * unmount; each prop goes to it in its own effect, callbacks are read through a ref.
 */
import { useEffect, useMemo, useRef, useState } from "react";
import type { GeoCorner, GroundTracks, ScenarioDocument } from "../api/types";
import { geoBounds, niceNauticalLength } from "../lib/geo";
import { loadTileUrl, TILE_URL_KEY } from "../lib/mapSettings";
import { niceLength } from "../lib/scaleBar";
import { GeoMapOwner, type GeoMapCallbacks, type LatLon, type TestHookName } from "./geoLeaflet";
import type { Highlight } from "./topologyCy";

export interface GeoMapProps extends GeoMapCallbacks {
  doc: ScenarioDocument;
  label: string;
  editable?: boolean;
  /** Nodes can be dragged (the editor's select tool). */
  draggable?: boolean;
  selection?: { nodes: readonly string[]; links: readonly string[] };
  /** Positions at the scrubbed time; null: the document's positions. */
  positions?: Record<string, LatLon> | null;
  /** Computed trajectories (`geo_trajectories`) drawn as lines. */
  tracks?: Record<string, readonly GeoCorner[]> | null;
  /** Satellites' sub-satellite points over the run (`POST /api/timeline` `ground_tracks`), drawn as ground tracks. */
  groundTracks?: GroundTracks | null;
  /** Each new value (> 0) zooms the map out to the ground tracks. */
  fitGroundTracks?: number;
  measure?: { a: LatLon | null; b: LatLon | null };
  /** Centre the view on this node (a node found by its label); a new object each time it is asked. */
  focus?: { nodeId: string } | null;
  /** Route / utilisation overlay on the links (the planning panels'). */
  highlight?: Highlight | null;
  className?: string;
  /** Where the e2e build exposes the map's test hook (a second map on a page takes its own name). */
  testHook?: TestHookName;
}

/** The saved tile URL, following changes made in the settings (same tab or another). */
function useTileUrl(): string | null {
  const [url, setUrl] = useState<string | null>(() => loadTileUrl());
  useEffect(() => {
    const on = () => setUrl(loadTileUrl());
    window.addEventListener(TILE_URL_KEY, on);
    window.addEventListener("storage", on);
    return () => {
      window.removeEventListener(TILE_URL_KEY, on);
      window.removeEventListener("storage", on);
    };
  }, []);
  return url;
}

export function GeoMap(props: GeoMapProps) {
  const { doc, label, editable = false, draggable = false, selection, positions = null, tracks = null, measure } = props;
  const containerRef = useRef<HTMLDivElement | null>(null);
  const ownerRef = useRef<GeoMapOwner | null>(null);
  const propsRef = useRef(props);
  propsRef.current = props;
  const [pxPerMetre, setPxPerMetre] = useState(0);
  const tileUrl = useTileUrl();
  const bounds = useMemo(() => geoBounds(doc), [doc]);
  const fitted = useRef(false);

  useEffect(() => {
    const container = containerRef.current;
    if (!container) return;
    const owner = new GeoMapOwner({ container, editable, callbacks: () => propsRef.current, onViewport: setPxPerMetre, testHook: props.testHook });
    ownerRef.current = owner;
    return () => {
      owner.destroy();
      ownerRef.current = null;
      fitted.current = false;
    };
    // one map per mount; `editable` is fixed for a mounted map
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    const owner = ownerRef.current;
    if (!owner) return;
    owner.setScenario(doc);
    // show the scenario as it is first drawn (not while nodes are being placed on an empty map)
    if (!fitted.current) owner.fit(bounds);
    fitted.current = true;
  }, [doc, bounds]);
  useEffect(() => ownerRef.current?.setTileUrl(tileUrl), [tileUrl]);
  useEffect(() => ownerRef.current?.setSelection(selection?.nodes ?? [], selection?.links ?? []), [selection, doc]);
  useEffect(() => ownerRef.current?.setDraggable(draggable), [draggable, doc]);
  useEffect(() => ownerRef.current?.setPositions(positions), [positions]);
  useEffect(() => ownerRef.current?.setTracks(tracks), [tracks]);
  useEffect(() => ownerRef.current?.setGroundTracks(props.groundTracks ?? null), [props.groundTracks]);
  useEffect(() => {
    if (props.fitGroundTracks) ownerRef.current?.fitGroundTracks();
  }, [props.fitGroundTracks]);
  useEffect(() => ownerRef.current?.setHighlight(props.highlight), [props.highlight, doc]);
  useEffect(() => {
    if (props.focus) ownerRef.current?.centreOn(props.focus.nodeId);
  }, [props.focus]);
  useEffect(() => ownerRef.current?.setMeasure(measure?.a ?? null, measure?.b ?? null), [measure?.a, measure?.b]);

  const metric = niceLength(pxPerMetre, 120);
  const nautical = niceNauticalLength(pxPerMetre, 120);
  return (
    <div className={`geo-map-wrap${props.className ? ` ${props.className}` : ""}`}>
      <div ref={containerRef} className="geo-map" role="region" aria-label={label} data-testid="geo-map" data-basemap="loading" />
      {metric.px > 0 ? (
        <div className="scale-bar geo-scale" role="note" aria-label={`Scale: ${metric.label} / ${nautical.label}`} data-metres={metric.metres} data-nm={nautical.nm}>
          <div className="scale-bar-line" style={{ width: `${metric.px}px` }} />
          <span>{metric.label}</span>
          <div className="scale-bar-line" style={{ width: `${nautical.px}px` }} />
          <span>{nautical.label}</span>
        </div>
      ) : null}
      <button type="button" className="btn btn-small topology-fit" onClick={() => ownerRef.current?.fit(bounds)} title="Fit the map to the scenario">
        Fit
      </button>
    </div>
  );
}
