/**
 * The one owner of a Leaflet map (the geographic counterpart of `topologyCy.ts`): created once per
 * mounted {@link GeoMap}, fed by its props (scenario, selection, tool, positions at the scrubbed
 * time, computed tracks, basemap tile URL), destroyed on unmount (every listener and layer goes
 * with `map.remove()`).
 *
 * Basemap: coastlines and country outlines of Natural Earth 1:50m (`world-atlas` TopoJSON →
 * `topojson-client` GeoJSON), drawn on a canvas renderer, offline; an optional raster tile URL
 * (user setting) is drawn beneath. Scenario elements are SVG (one DOM element per node, link,
 * range circle, track), so a person and a test both see them.
 *
 * Distances are Leaflet's (`LatLng.distanceTo`, great circle on the mean Earth radius); the
 * domain library (pyproj) is the reference for anything an engine uses.
 */
import type { GeoJsonObject } from "geojson";
import L from "leaflet";
import "leaflet/dist/leaflet.css";
import type { GeoCorner, ScenarioDocument } from "../api/types";
import { formatDistance, isGeoPoint, labelPriorities, scenarioGeoJson, splitAtAntimeridian } from "../lib/geo";
import { kindName } from "../lib/topology";
import { shapePath } from "./Legend";
import { KIND_STYLES, MOBILITY_COLOR, RANGE_COLOR } from "./nodeStyles";
import type { Highlight } from "./topologyCy";

export type LatLon = { lat_deg: number; lon_deg: number };

export interface GeoMapCallbacks {
  /** A click on the map background (not on an element). */
  onMapClick?: (at: LatLon) => void;
  /** A click on a node; `additive`: shift/ctrl/meta held. */
  onNodeClick?: (id: string, additive: boolean) => void;
  onLinkClick?: (id: string) => void;
  /** A node dragged to `at` (one report per gesture, at its end). */
  onNodeDrag?: (id: string, at: LatLon) => void;
}

export interface GeoMapOptions {
  container: HTMLElement;
  editable: boolean;
  callbacks: () => GeoMapCallbacks;
  /** Pixels per metre at the view's centre, after every move/zoom (for the scale bar). */
  onViewport?: (pxPerMetre: number) => void;
  /** Where the e2e build exposes this map's test hook (default `__subflowMap`; a second map on a page takes another). */
  testHook?: TestHookName;
}

/** The window properties the e2e build's map hooks live on. */
export type TestHookName = "__subflowMap" | "__subflowRouteMap";

/** What the e2e hook (`window.__subflowMap`) exposes. */
export interface GeoMapHook {
  map: L.Map;
  /** Node positions as drawn: id → [lat, lon]. */
  nodes: () => Record<string, [number, number]>;
  /** Range circles as drawn: access point id → [lat, lon, radius_m]. */
  ranges: () => Record<string, [number, number, number]>;
  /** Computed tracks as drawn: node id → number of points. */
  tracks: () => Record<string, number>;
  /** Satellites' ground tracks as drawn: satellite id → number of polylines (split at the antimeridian). */
  groundTracks: () => Record<string, number>;
  basemapReady: () => boolean;
  /** Node labels as drawn, in map container pixels: id → shown, box [x1, y1, x2, y2], font size (px). */
  labels: () => Record<string, { shown: boolean; box: [number, number, number, number]; fontPx: number }>;
  /** Ids of the nodes drawn as selected. */
  selected: () => string[];
  /** Links as drawn: id → colour, weight, opacity and the overlay's label (routes, utilisation). */
  linkStyles: () => Record<string, { color: string; weight: number; opacity: number; label: string | null }>;
}

const SATELLITE_TRACK_COLOR = "#7c3aed";

/** The test hook (`window.__subflowMap`), compiled in only by the e2e build (`VITE_E2E_HOOKS=1`). */
const E2E_HOOKS = import.meta.env.VITE_E2E_HOOKS === "1";
type HookWindow = Partial<Record<TestHookName, GeoMapHook>>;

type Basemap = { land: GeoJsonObject; borders: GeoJsonObject };
let basemapPromise: Promise<Basemap> | null = null;

/** Natural Earth 1:50m land and country borders, loaded once (a separate chunk of the build). */
function loadBasemap(): Promise<Basemap> {
  basemapPromise ??= Promise.all([import("world-atlas/countries-50m.json"), import("topojson-client")]).then(([atlas, topo]) => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const t = (atlas as any).default ?? atlas;
    return {
      land: topo.feature(t, t.objects.land) as unknown as GeoJsonObject,
      borders: topo.mesh(t, t.objects.countries, (a: unknown, b: unknown) => a !== b) as unknown as GeoJsonObject,
    };
  });
  return basemapPromise;
}

const SEA = "#dbeafe";

function nodeIcon(kind: keyof typeof KIND_STYLES, label: string, selected: boolean): L.DivIcon {
  const s = KIND_STYLES[kind];
  const esc = label.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return L.divIcon({
    className: `geo-node kind-${kind}${selected ? " selected" : ""}`,
    iconSize: [22, 22],
    iconAnchor: [11, 11],
    html: `<svg width="22" height="22" viewBox="0 0 16 16" aria-hidden="true"><path d="${shapePath(s.shape)}" fill="${s.color}" stroke="#fff" stroke-width="1.2"/></svg><span class="geo-node-label">${esc}</span>`,
  });
}

export class GeoMapOwner {
  readonly map: L.Map;
  private readonly opts: GeoMapOptions;
  private readonly overlay = L.layerGroup();
  private readonly trackLayer = L.layerGroup();
  private readonly groundTrackLayer = L.layerGroup();
  private groundTracks = new Map<string, number>();
  private readonly measureLayer = L.layerGroup();
  private tiles: L.TileLayer | null = null;
  private markers = new Map<string, L.Marker>();
  private ranges = new Map<string, L.Circle>();
  private links = new Map<string, { line: L.Polyline; src: string; dst: string }>();
  private tracks = new Map<string, number>();
  private selection = { nodes: new Set<string>(), links: new Set<string>() };
  /** Route / utilisation overlay (the same {@link Highlight} the cytoscape owner draws). */
  private highlight: Highlight | null = null;
  private draggable = false;
  private basemapReady = false;
  private destroyed = false;
  private homePositions = new Map<string, L.LatLng>();
  private positions: Record<string, LatLon> | null = null;
  /** Label declutter order: node id → priority (higher first); label widths measured once (px). */
  private labelRank = new Map<string, number>();
  private labelWidth = new Map<string, number>();
  private declutterFrame = 0;

  constructor(opts: GeoMapOptions) {
    this.opts = opts;
    // quarter-level zoom steps: fitting a scenario fills the view (whole levels can leave it half empty)
    const map = L.map(opts.container, { zoomControl: true, attributionControl: true, worldCopyJump: true, minZoom: 1, maxZoom: 18, boxZoom: false, zoomSnap: 0.25 });
    this.map = map;
    map.attributionControl.setPrefix(false);
    map.attributionControl.addAttribution("Natural Earth (public domain) via world-atlas");
    opts.container.style.background = SEA;
    map.setView([20, 0], 2);
    this.overlay.addTo(map);
    this.groundTrackLayer.addTo(map);
    this.trackLayer.addTo(map);
    this.measureLayer.addTo(map);
    map.on("click", (e: L.LeafletMouseEvent) => opts.callbacks().onMapClick?.({ lat_deg: e.latlng.lat, lon_deg: e.latlng.wrap().lng }));
    map.on("zoomend moveend resize", () => {
      this.reportViewport();
      this.scheduleDeclutter();
    });
    // GeoJSON options reach each path (Leaflet's typings omit `renderer` there)
    const canvas = { renderer: L.canvas({ padding: 0.5 }) } as L.GeoJSONOptions;
    loadBasemap()
      .then((b) => {
        if (this.destroyed) return;
        L.geoJSON(b.land, { ...canvas, interactive: false, style: { color: "#94a3b8", weight: 0.8, fillColor: "#f8fafc", fillOpacity: 1 } }).addTo(map).bringToBack();
        L.geoJSON(b.borders, { ...canvas, interactive: false, style: { color: "#cbd5e1", weight: 0.7, fill: false } }).addTo(map);
        this.basemapReady = true;
        opts.container.dataset.basemap = "ready";
      })
      .catch(() => {
        opts.container.dataset.basemap = "failed";
      });
    if (E2E_HOOKS) (window as unknown as HookWindow)[opts.testHook ?? "__subflowMap"] = this.hook();
    queueMicrotask(() => this.reportViewport());
  }

  private hook(): GeoMapHook {
    return {
      map: this.map,
      nodes: () => Object.fromEntries([...this.markers].map(([id, m]) => [id, [m.getLatLng().lat, m.getLatLng().lng]])),
      ranges: () => Object.fromEntries([...this.ranges].map(([id, c]) => [id, [c.getLatLng().lat, c.getLatLng().lng, c.getRadius()]])),
      tracks: () => Object.fromEntries(this.tracks),
      groundTracks: () => Object.fromEntries(this.groundTracks),
      basemapReady: () => this.basemapReady,
      linkStyles: () =>
        Object.fromEntries(
          [...this.links].map(([id, l]) => {
            const o = l.line.options;
            return [id, { color: String(o.color), weight: Number(o.weight), opacity: Number(o.opacity ?? 1), label: this.highlight?.links[id]?.label ?? null }];
          }),
        ),
      labels: () => {
        const c = this.map.getContainer().getBoundingClientRect();
        const out: Record<string, { shown: boolean; box: [number, number, number, number]; fontPx: number }> = {};
        for (const [id, m] of this.markers) {
          const el = m.getElement()?.querySelector<HTMLElement>(".geo-node-label");
          if (!el) continue;
          const r = el.getBoundingClientRect();
          const shown = getComputedStyle(el).display !== "none" && r.width > 0;
          out[id] = { shown, box: [r.left - c.left, r.top - c.top, r.right - c.left, r.bottom - c.top], fontPx: parseFloat(getComputedStyle(el).fontSize) };
        }
        return out;
      },
      selected: () => [...this.markers].filter(([, m]) => m.getElement()?.classList.contains("selected")).map(([id]) => id),
    };
  }

  private reportViewport(): void {
    if (this.destroyed) return;
    const size = this.map.getSize();
    if (!size.x) return;
    const y = size.y / 2;
    const a = this.map.containerPointToLatLng([size.x / 2 - 50, y]);
    const b = this.map.containerPointToLatLng([size.x / 2 + 50, y]);
    const m = a.distanceTo(b);
    if (m > 0) this.opts.onViewport?.(100 / m);
  }

  /** Draw the raster tiles of `url` ({z}/{x}/{y} template) under the scenario; null: the offline basemap only. */
  setTileUrl(url: string | null): void {
    if (this.tiles) this.tiles.remove();
    this.tiles = url ? L.tileLayer(url, { maxZoom: 18, crossOrigin: true }).addTo(this.map) : null;
    this.tiles?.bringToBack();
  }

  /** Redraw the scenario's nodes, links, radio ranges, drawn tracks and loiter centres. */
  setScenario(doc: ScenarioDocument): void {
    this.overlay.clearLayers();
    this.markers.clear();
    this.ranges.clear();
    this.links.clear();
    this.homePositions.clear();
    const cb = this.opts.callbacks;
    const labels = new Map(doc.nodes.map((n) => [n.id, n.label || n.id]));
    const kinds = new Map(doc.nodes.map((n) => [n.id, n.kind]));
    this.labelRank = labelPriorities(doc);
    this.labelWidth.clear();
    for (const f of scenarioGeoJson(doc).features) {
      const p = f.properties;
      if (f.geometry.type === "Point") {
        const [lon, lat] = f.geometry.coordinates as [number, number];
        const at = L.latLng(lat, lon);
        if (p.role === "range") {
          const c = L.circle(at, { radius: p.radius_m!, color: RANGE_COLOR, weight: 1.5, dashArray: "5 4", fillOpacity: 0.12, interactive: false, className: "geo-range" });
          this.ranges.set(p.id, c);
          this.overlay.addLayer(c);
        } else if (p.role === "loiter") {
          // a circle pattern is drawn as given; a racetrack's shape is the computed track (scrubber)
          if (p.pattern === "circle")
            this.overlay.addLayer(L.circle(at, { radius: p.radius_m!, color: MOBILITY_COLOR, weight: 1.5, dashArray: "2 4", fill: false, interactive: false, className: "geo-loiter" }));
          this.overlay.addLayer(L.circleMarker(at, { radius: 3, color: MOBILITY_COLOR, interactive: false, className: "geo-loiter-center" }));
        } else if (p.role === "node") {
          const kind = kinds.get(p.id)!;
          const m = L.marker(at, {
            icon: nodeIcon(kind, labels.get(p.id) ?? p.id, this.selection.nodes.has(p.id)),
            title: `${kindName(kind)} ${p.id}`,
            draggable: this.draggable,
            keyboard: true,
            zIndexOffset: 1000,
          });
          m.on("click", (e: L.LeafletMouseEvent) => {
            const ev = e.originalEvent;
            cb().onNodeClick?.(p.id, ev.shiftKey || ev.ctrlKey || ev.metaKey);
          });
          m.on("drag", () => this.follow(p.id, m.getLatLng()));
          m.on("dragend", () => {
            const ll = m.getLatLng();
            cb().onNodeDrag?.(p.id, { lat_deg: ll.lat, lon_deg: ll.wrap().lng });
          });
          m.on("add", () => m.getElement()?.setAttribute("data-node-id", p.id));
          this.markers.set(p.id, m);
          this.homePositions.set(p.id, at);
          this.overlay.addLayer(m);
        }
      } else {
        const latlngs = (f.geometry.coordinates as [number, number][]).map(([lon, lat]) => L.latLng(lat, lon));
        if (p.role === "link") {
          const line = L.polyline(latlngs, { color: this.selection.links.has(p.id) ? "#2563eb" : "#64748b", weight: 3, bubblingMouseEvents: false, className: "geo-link" });
          line.on("click", () => cb().onLinkClick?.(p.id));
          line.on("add", () => line.getElement()?.setAttribute("data-link-id", p.id));
          this.links.set(p.id, { line, src: p.src!, dst: p.dst! });
          this.overlay.addLayer(line);
        } else if (p.role === "track") {
          this.overlay.addLayer(L.polyline(latlngs, { color: MOBILITY_COLOR, weight: 2, dashArray: "6 4", interactive: false, className: "geo-waypoints" }));
        }
      }
    }
    this.opts.container.dataset.nodeCount = String(this.markers.size);
    if (this.highlight) this.styleLinks();
    if (this.positions) this.setPositions(this.positions);
    this.scheduleDeclutter();
  }

  private scheduleDeclutter(): void {
    if (this.declutterFrame || this.destroyed) return;
    this.declutterFrame = requestAnimationFrame(() => {
      this.declutterFrame = 0;
      if (!this.destroyed) this.declutter();
    });
  }

  /**
   * Hide the labels that would collide at the current zoom: labels are placed greedily, the
   * selected nodes first, then radio nodes (access points, stations, satellites), then by
   * degree (high first); a label overlapping an already placed one, or outside the view, is
   * hidden (class `label-hidden`). Recomputed after every zoom, move and redraw.
   */
  declutter(): void {
    const size = this.map.getSize();
    const placed: Box[] = [];
    // label widths, measured once per drawing, all in one layout pass
    const unmeasured = [...this.markers].filter(([id, m]) => !this.labelWidth.has(id) && m.getElement());
    for (const [, m] of unmeasured) m.getElement()!.classList.remove("label-hidden");
    for (const [id, m] of unmeasured) this.labelWidth.set(id, m.getElement()!.querySelector<HTMLElement>(".geo-node-label")?.offsetWidth ?? 0);
    const order = [...this.markers.keys()].sort((a, b) => this.rank(b) - this.rank(a) || (a < b ? -1 : 1));
    for (const id of order) {
      const m = this.markers.get(id)!;
      const el = m.getElement();
      if (!el) continue;
      const p = this.map.latLngToContainerPoint(m.getLatLng());
      const w = this.labelWidth.get(id) ?? 0;
      // the label's box as styled (.geo-node-label: 24 px right of the 22 px icon's left, 2 px below its top), plus a 2 px margin
      const box: Box = [p.x + 13 - 2, p.y - 9 - 2, p.x + 13 + w + 2, p.y - 9 + LABEL_HEIGHT_PX + 2];
      const inView = box[0] >= 0 && box[1] >= 0 && box[2] <= size.x && box[3] <= size.y;
      const free = placed.every((q) => box[0] >= q[2] || q[0] >= box[2] || box[1] >= q[3] || q[1] >= box[3]);
      const show = this.selection.nodes.has(id) || (inView && free);
      if (show) placed.push(box);
      el.classList.toggle("label-hidden", !show);
    }
    this.opts.container.dataset.labelsShown = String(placed.length);
  }

  private rank(id: string): number {
    return (this.selection.nodes.has(id) ? 1e9 : 0) + (this.labelRank.get(id) ?? 0);
  }

  /** Centre the view on node `id` (zoomed in to at least `minZoom`), e.g. a node found by its label. */
  centreOn(id: string, minZoom = 8): void {
    const m = this.markers.get(id);
    if (!m) return;
    this.map.setView(m.getLatLng(), Math.max(this.map.getZoom(), minZoom));
  }

  /** Keep the links and range circle of node `id` on it while it is dragged or scrubbed. */
  private follow(id: string, at: L.LatLng): void {
    this.ranges.get(id)?.setLatLng(at);
    for (const l of this.links.values()) {
      if (l.src !== id && l.dst !== id) continue;
      const a = l.src === id ? at : this.markers.get(l.src)?.getLatLng();
      const b = l.dst === id ? at : this.markers.get(l.dst)?.getLatLng();
      if (a && b) l.line.setLatLngs([a, b]);
    }
  }

  setSelection(nodes: readonly string[], links: readonly string[]): void {
    this.selection = { nodes: new Set(nodes), links: new Set(links) };
    for (const [id, m] of this.markers) m.getElement()?.classList.toggle("selected", this.selection.nodes.has(id));
    this.styleLinks();
    this.scheduleDeclutter();
  }

  /** Route / utilisation overlay on the links (null: none); the overlay's label becomes the link's tooltip. */
  setHighlight(highlight: Highlight | null | undefined): void {
    this.highlight = highlight ?? null;
    this.styleLinks();
  }

  /** Link colours: the overlay's where it sets one, else selected / plain (dimmed under a dimming overlay). */
  private styleLinks(): void {
    const h = this.highlight;
    for (const [id, l] of this.links) {
      const o = h?.links[id];
      const selected = this.selection.links.has(id);
      if (o) l.line.setStyle({ color: o.color ?? "#2563eb", weight: o.width ?? 4, opacity: 1 });
      else l.line.setStyle({ color: selected ? "#2563eb" : "#64748b", weight: selected ? 5 : 3, opacity: h?.dim ? 0.3 : 1 });
      l.line.unbindTooltip();
      if (o?.label) l.line.bindTooltip(o.label, { sticky: true });
    }
  }

  /** Nodes can be dragged (the select tool of an editable map). */
  setDraggable(on: boolean): void {
    this.draggable = on && this.opts.editable;
    for (const m of this.markers.values()) {
      if (this.draggable) m.dragging?.enable();
      else m.dragging?.disable();
    }
    this.opts.container.style.cursor = on ? "" : "crosshair";
  }

  /** Positions at the scrubbed time (node id → lat/lon); null: back to the document's positions. */
  setPositions(positions: Record<string, LatLon> | null): void {
    this.positions = positions;
    for (const [id, m] of this.markers) {
      const p = positions?.[id];
      const at = p ? L.latLng(p.lat_deg, p.lon_deg) : this.homePositions.get(id);
      if (!at) continue;
      m.setLatLng(at);
      this.follow(id, at);
    }
    this.scheduleDeclutter();
  }

  /** The computed trajectories (`geo_trajectories`) as lines; null: none. */
  setTracks(trajectories: Record<string, readonly GeoCorner[]> | null): void {
    this.trackLayer.clearLayers();
    this.tracks.clear();
    for (const [id, corners] of Object.entries(trajectories ?? {})) {
      if (corners.length < 2) continue;
      const first = corners[0]!;
      if (corners.every((c) => c[1] === first[1] && c[2] === first[2])) continue; // static: nothing to draw
      const line = L.polyline(
        corners.map((c) => [c[1], c[2]] as [number, number]),
        { color: MOBILITY_COLOR, weight: 2, opacity: 0.8, interactive: false, className: "geo-track" },
      );
      line.on("add", () => line.getElement()?.setAttribute("data-track-id", id));
      this.trackLayer.addLayer(line);
      this.tracks.set(id, corners.length);
    }
  }

  /**
   * The satellites' ground tracks (`POST /api/timeline` `ground_tracks`: `[t_s, lat_deg, lon_deg]` points) as thin
   * lines, cut where a track crosses the antimeridian; null: none.
   */
  setGroundTracks(tracks: Record<string, readonly (readonly [number, number, number])[]> | null): void {
    this.groundTrackLayer.clearLayers();
    this.groundTracks.clear();
    for (const [id, points] of Object.entries(tracks ?? {})) {
      const parts = splitAtAntimeridian(points.map((p) => [p[1], p[2]] as [number, number]));
      let drawn = 0;
      for (const part of parts) {
        if (part.length < 2 || part.every((q) => q[0] === part[0]![0] && q[1] === part[0]![1])) continue; // a GEO point
        const line = L.polyline(part, { color: SATELLITE_TRACK_COLOR, weight: 2, opacity: 0.7, dashArray: "1 5", lineCap: "round", interactive: false, className: "geo-ground-track" });
        line.on("add", () => line.getElement()?.setAttribute("data-ground-track-id", id));
        this.groundTrackLayer.addLayer(line);
        drawn += 1;
      }
      if (drawn) this.groundTracks.set(id, drawn);
    }
  }

  /** A measured segment a→b with its length, or nothing. */
  setMeasure(a: LatLon | null, b: LatLon | null): void {
    this.measureLayer.clearLayers();
    if (!a) return;
    const pa = L.latLng(a.lat_deg, a.lon_deg);
    this.measureLayer.addLayer(L.circleMarker(pa, { radius: 4, color: "#0f172a", interactive: false }));
    if (!b) return;
    const pb = L.latLng(b.lat_deg, b.lon_deg);
    this.measureLayer.addLayer(L.circleMarker(pb, { radius: 4, color: "#0f172a", interactive: false }));
    const line = L.polyline([pa, pb], { color: "#0f172a", weight: 2, dashArray: "4 4", interactive: false, className: "geo-measure" });
    line.bindTooltip(formatDistance(pa.distanceTo(pb)), { permanent: true, direction: "center" });
    this.measureLayer.addLayer(line);
  }

  /** Fit the view to the scenario's placed nodes and tracks (nothing placed: unchanged). */
  fit(bounds: [[number, number], [number, number]] | null): void {
    if (!bounds) return;
    const [[s, w], [n, e]] = bounds;
    if (s === n && w === e) this.map.setView([s, w], 12);
    else this.map.fitBounds(L.latLngBounds([s, w], [n, e]), { padding: [40, 40], maxZoom: 15 });
  }

  /** Zoom out to the satellites' ground tracks and the scenario's nodes (nothing without a track). */
  fitGroundTracks(): void {
    const layers = this.groundTrackLayer.getLayers() as L.Polyline[];
    if (!layers.length) return;
    const b = L.latLngBounds([]);
    for (const l of layers) b.extend(l.getBounds());
    for (const m of this.markers.values()) b.extend(m.getLatLng());
    this.map.fitBounds(b, { padding: [20, 20] });
  }

  /** Remove the map, its layers and listeners. */
  destroy(): void {
    this.destroyed = true;
    cancelAnimationFrame(this.declutterFrame);
    this.map.remove();
    if (E2E_HOOKS) {
      const w = window as unknown as HookWindow;
      const name = this.opts.testHook ?? "__subflowMap";
      if (w[name]?.map === this.map) delete w[name];
    }
  }
}

type Box = [number, number, number, number];
/** Height of a node label's line box (12 px text, `.geo-node-label`). */
const LABEL_HEIGHT_PX = 16;
/** Great-circle distance a→b in metres (Leaflet's `LatLng.distanceTo`). */
export function distanceMetres(a: LatLon, b: LatLon): number {
  return L.latLng(a.lat_deg, a.lon_deg).distanceTo(L.latLng(b.lat_deg, b.lon_deg));
}

/** Placed node positions of `doc` (id → lat/lon). */
export function placedPositions(doc: ScenarioDocument): Record<string, LatLon> {
  const out: Record<string, LatLon> = {};
  for (const n of doc.nodes) if (isGeoPoint(n.position)) out[n.id] = { lat_deg: n.position.lat_deg, lon_deg: n.position.lon_deg };
  return out;
}
