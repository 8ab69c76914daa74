/**
 * The comparison's topology at a chosen time: stations where they are at that time (trajectories
 * of `POST /api/timeline` for the scenario as run) and either the paths the active subflows of one
 * strategy use at that time (following their `route_change` events), or every wired link coloured
 * by its utilisation. A geographic scenario is drawn on its map (the nodes' lat/lon have no place on
 * the planar canvas), a planar one on the topology canvas.
 */
import { useEffect, useMemo, useState } from "react";
import { api, isAbort } from "../api/client";
import type { GeoCorner, ResultDocument, TimelinePublic } from "../api/types";
import { errorLines } from "../lib/errors";
import { formatSeconds } from "../lib/format";
import { geoPositionsAt, isGeoScenario } from "../lib/geo";
import { activePaths, linkUtilization, pathsOverlay, SUBFLOW_COLORS, utilizationColor } from "../lib/routes";
import { docAt, type Corner } from "../lib/timeline";
import { modelExtent, scaleFor } from "../lib/topology";
import { usePlayback } from "../lib/playback";
import { useAfterPaint } from "../lib/useAfterPaint";
import { GeoMap } from "./GeoMap";
import { PlaybackBar } from "./PlaybackBar";
import { TopologyGraph, type Highlight } from "./TopologyGraph";


/** The page's timeline of the scenario as run (`useScenarioTimeline`): null until it has arrived. */
export interface SharedTimeline {
  timeline: TimelinePublic | null;
  errors: readonly string[];
}

/**
 * Its time is the page's one playback ({@link usePlayback}): the charts' hover, the map's slider
 * and Play move it, and its own slider moves them.
 *
 * `timeline`: the page's timeline of `result.scenario` (the comparison page asks for it once, for this drawing and
 * its map); without it (a sweep point's run, whose scenario is not the stored version) the overlay asks
 * `POST /api/timeline` for the scenario itself when a node moves.
 */
export function RouteOverlay({ result, strategies, timeline: shared }: { result: ResultDocument; strategies: string[]; timeline?: SharedTimeline }) {
  const [strategy, setStrategy] = useState(strategies[0] ?? "");
  const [flowId, setFlowId] = useState<string>("");
  const [mode, setMode] = useState<"routes" | "utilization">("routes");
  const r = result.strategies[strategy];
  const times = r?.flows[0]?.t_s ?? [];
  const tMax = result.scenario.run?.duration_s ?? (times.length ? times[times.length - 1]! : 100);
  const playback = usePlayback(tMax);
  // the drawing (Leaflet or cytoscape, ~0.5-1 s of script on naval-leo under load) is set up after the throughput
  // charts beside it have been painted, not in the same frame
  const painted = useAfterPaint();
  const { time, hoverT } = playback;
  const scenario = result.scenario;
  const geographic = isGeoScenario(scenario);
  const moving = scenario.nodes.some((n) => n.mobility);
  const own = useOwnTimeline(shared === undefined && moving ? scenario : null);
  const timeline = shared ? shared.timeline : own.timeline;
  const timelineError = shared ? shared.errors.join("; ") || null : own.error;
  // one scale for every time, so that the drawing does not jump while stations move
  const scale = useMemo(() => scaleFor(modelExtent(scenario)), [scenario]);
  const doc = useMemo(
    () => docAt(scenario, timeline?.trajectories as Record<string, Corner[]> | undefined, time),
    [scenario, timeline, time],
  );

  const highlight: Highlight | null = useMemo(() => {
    if (!r) return null;
    if (mode === "utilization") {
      const u = linkUtilization(doc, r, time);
      const links: Highlight["links"] = {};
      for (const [id, v] of Object.entries(u)) links[id] = { color: utilizationColor(v), width: 2 + 4 * Math.min(1, v), label: `${Math.round(v * 100)}%`, classes: "util" };
      return { links, nodes: {}, dim: false };
    }
    const { links, air, nodes } = pathsOverlay(doc, activePaths(r, flowId || null, time));
    return { links, air, nodes, dim: true };
  }, [r, doc, mode, flowId, time]);

  const active = r ? activePaths(r, flowId || null, time) : [];
  const geoPositions = useMemo(
    () => (geographic && timeline?.geo_trajectories ? geoPositionsAt(timeline.geo_trajectories as Record<string, GeoCorner[]>, time) : null),
    [geographic, timeline, time],
  );

  return (
    <section className="card route-overlay" aria-labelledby="routes-title">
      <div className="card-head">
        <h2 id="routes-title">Routes and link utilisation</h2>
      </div>
      <div className="run-options">
        <div className="field">
          <label htmlFor="ro-mode">Show</label>
          <select id="ro-mode" value={mode} onChange={(e) => setMode(e.currentTarget.value as "routes" | "utilization")}>
            <option value="routes">Paths of active subflows</option>
            <option value="utilization">Link utilisation</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="ro-strategy">Strategy</label>
          <select id="ro-strategy" value={strategy} onChange={(e) => setStrategy(e.currentTarget.value)}>
            {strategies.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="ro-flow">Flow</label>
          <select id="ro-flow" value={flowId} onChange={(e) => setFlowId(e.currentTarget.value)} disabled={mode !== "routes"}>
            <option value="">all flows</option>
            {(r?.flows ?? []).map((f) => (
              <option key={f.id} value={f.id}>
                {f.id} ({f.src} → {f.dst})
              </option>
            ))}
          </select>
        </div>
        <div className="field grow">
          <label htmlFor="ro-time">Time: {formatSeconds(time)} s {hoverT !== null ? "(from the chart hover)" : ""}</label>
          <PlaybackBar playback={playback} inputId="ro-time" outputLabel="Routes time" />
        </div>
      </div>
      {timelineError ? <p className="field-error">Station positions over time not available: {timelineError}</p> : null}
      {!painted ? (
        <div className="topology-small route-pending" aria-busy="true" />
      ) : geographic ? (
        <div data-testid="route-map">
          <GeoMap doc={scenario} label={`Routes of ${strategy} on the map`} positions={geoPositions} highlight={highlight} className="topology-small" testHook="__subflowRouteMap" />
        </div>
      ) : (
        <TopologyGraph doc={doc} scale={scale} label={`Routes of ${strategy}`} highlight={highlight} className="topology-small" />
      )}
      {mode === "routes" ? (
        <ul className="small route-list" aria-label="Active subflows">
          {active.length ? (
            active.map((p, i) => (
              <li key={`${p.flowId}/${p.subflowId}`} data-subflow={p.subflowId} data-path={p.nodes.join(" ")}>
                <span className="swatch" style={{ background: SUBFLOW_COLORS[i % SUBFLOW_COLORS.length] }} /> {p.subflowId}: {p.nodes.join(" → ")} ({p.mbps.toFixed(3)} Mbit/s)
              </li>
            ))
          ) : (
            <li className="muted">No subflow carries traffic at this time.</li>
          )}
        </ul>
      ) : (
        <p className="muted small">Grey: idle; green &lt; 50 %; amber &lt; 80 %; orange &lt; 100 %; red: saturated (of the link's bandwidth, busier direction).</p>
      )}
    </section>
  );
}

/** `POST /api/timeline` for `scenario` (null: none asked): its answer, or the error's text. */
function useOwnTimeline(scenario: ResultDocument["scenario"] | null): { timeline: TimelinePublic | null; error: string | null } {
  const [timeline, setTimeline] = useState<TimelinePublic | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!scenario) return;
    const ctl = new AbortController();
    api
      .timeline(scenario, ctl.signal)
      .then(setTimeline)
      .catch((err) => {
        if (!isAbort(err)) setError(errorLines(err).join("; "));
      });
    return () => ctl.abort();
  }, [scenario]);
  return { timeline, error };
}
