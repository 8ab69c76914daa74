/**
 * Routes panel of the editor: routes of the saved scenario under a metric
 * (`POST /api/scenarios/{id}/routes`) for one pair, several or all, k paths per pair; the paths
 * are drawn on the editor's topology through `onOverlay` (the one cytoscape owner's highlight),
 * ranked by colour, with a table of hops, delay, loss and cost. Where greedy TCPBP (Algorithm 1)
 * misses the exact optimum, both routes are listed and can be drawn together.
 *
 * All pairs go to the worker (`background`) and the panel polls `GET /api/jobs/{id}`, showing the
 * pairs done so far; a topology with more than {@link FULL_PAIRS_MAX} ordered pairs gets a summary
 * (per-link route counts and the costliest routes) instead of every route.
 */
import { useEffect, useMemo, useRef, useState } from "react";
import { api, isAbort } from "../api/client";
import type { GreedyDiff, Id, PairRoutes, RoutesDocument, RoutesRequest, ScenarioDocument } from "../api/types";
import { errorLines } from "../lib/errors";
import { linkUseHighlight, parsePairs, pathsHighlight, rankColor, rankedPaths, SHARE_BUCKETS, timeNote } from "../lib/planning";
import { ProgressBar } from "./ProgressBar";
import type { Highlight } from "./topologyCy";
import { FieldErrors, SwatchLegend } from "./Legend";

type Metric = NonNullable<RoutesRequest["metric"]>;
const METRICS: { value: Metric; label: string }[] = [
  { value: "hop", label: "hop count" },
  { value: "delay", label: "delay" },
  { value: "loss", label: "loss" },
  { value: "tcpbp", label: "TCPBP (exact)" },
  { value: "tcpbp-greedy", label: "TCPBP greedy (Algorithm 1)" },
];
/** All pairs of a topology with more ordered pairs than this come back as a summary. */
export const FULL_PAIRS_MAX = 2000;
/** Costliest routes a summary keeps. */
export const SUMMARY_ROUTES = 100;
const POLL_MS = 250;

type Mode = "one" | "several" | "all";

export function RoutesPanel({ scenarioId, doc, dirty, onOverlay }: { scenarioId: Id; doc: ScenarioDocument; dirty: boolean; onOverlay: (h: Highlight | null) => void }) {
  const ids = useMemo(() => doc.nodes.map((n) => n.id), [doc.nodes]);
  const [metric, setMetric] = useState<Metric>("tcpbp");
  const [mode, setMode] = useState<Mode>("one");
  const [src, setSrc] = useState(ids[0] ?? "");
  const [dst, setDst] = useState(ids[1] ?? "");
  const [pairsText, setPairsText] = useState("");
  const [k, setK] = useState(1);
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const [routesDoc, setResult] = useState<RoutesDocument | null>(null);
  const [selected, setSelected] = useState<string | null>(null); // "src>dst" of a row, or "greedy:src>dst"
  const ctl = useRef<AbortController | null>(null);
  useEffect(() => () => ctl.current?.abort(), []);

  const n = ids.length;
  const summary = mode === "all" && n * (n - 1) > FULL_PAIRS_MAX;

  async function compute() {
    ctl.current?.abort();
    const c = new AbortController();
    ctl.current = c;
    setErrors([]);
    setResult(null);
    setSelected(null);
    setProgress(null);
    onOverlay(null);
    let body: RoutesRequest = { metric, k };
    if (mode === "one") body.pairs = [[src, dst]];
    if (mode === "several") {
      const parsed = parsePairs(pairsText, new Set(ids));
      if (parsed.errors.length || !parsed.pairs.length) {
        setErrors(parsed.errors.length ? parsed.errors : ["Give at least one pair, e.g. sta1:ship, sta2:ship"]);
        return;
      }
      body.pairs = parsed.pairs;
    }
    if (summary) body = { metric, k: 1, summary_limit: SUMMARY_ROUTES };
    setBusy(true);
    try {
      let out: RoutesDocument;
      if (mode === "all") {
        const job = await api.routesJob(scenarioId, body, c.signal);
        for (;;) {
          const j = await api.job(job.job_id, c.signal);
          if (j.done != null && j.total != null) setProgress({ done: j.done, total: j.total });
          if (j.status === "succeeded") {
            out = j.result as RoutesDocument;
            break;
          }
          if (j.status === "failed") throw new Error(j.error ?? "the routes job failed");
          await new Promise((r) => setTimeout(r, POLL_MS));
          if (c.signal.aborted) return;
        }
      } else {
        out = await api.routes(scenarioId, body, c.signal);
      }
      setResult(out);
      onOverlay(overlayOf(doc, out, null));
    } catch (err) {
      if (!isAbort(err)) setErrors(errorLines(err));
    } finally {
      if (ctl.current === c) setBusy(false);
    }
  }

  function pick(key: string | null) {
    setSelected(key);
    if (routesDoc) onOverlay(overlayOf(doc, routesDoc, key));
  }

  const rows = routesDoc?.routes ?? [];
  return (
    <section className="card planning-panel" aria-labelledby="routes-panel-title" data-testid="routes-panel">
      <div className="card-head">
        <h2 id="routes-panel-title">Routes</h2>
        {routesDoc ? (
          <button type="button" className="btn btn-small" onClick={() => { setResult(null); onOverlay(null); }}>
            Clear overlay
          </button>
        ) : null}
      </div>
      {dirty ? <p className="muted small">Computed on the saved version: save first to include your edits.</p> : null}
      <div className="run-options">
        <div className="field">
          <label htmlFor="rp-metric">Metric</label>
          <select id="rp-metric" value={metric} onChange={(e) => setMetric(e.currentTarget.value as Metric)}>
            {METRICS.map((m) => (
              <option key={m.value} value={m.value}>
                {m.label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="rp-mode">Pairs</label>
          <select id="rp-mode" value={mode} onChange={(e) => setMode(e.currentTarget.value as Mode)}>
            <option value="one">one pair</option>
            <option value="several">several pairs</option>
            <option value="all">all pairs</option>
          </select>
        </div>
        {mode === "one" ? (
          <>
            <div className="field">
              <label htmlFor="rp-src">From</label>
              <select id="rp-src" value={src} onChange={(e) => setSrc(e.currentTarget.value)}>
                {ids.map((i) => (
                  <option key={i}>{i}</option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor="rp-dst">To</label>
              <select id="rp-dst" value={dst} onChange={(e) => setDst(e.currentTarget.value)}>
                {ids.map((i) => (
                  <option key={i}>{i}</option>
                ))}
              </select>
            </div>
          </>
        ) : null}
        {mode === "several" ? (
          <div className="field grow">
            <label htmlFor="rp-pairs">Pairs (SRC:DST, comma-separated)</label>
            <input id="rp-pairs" value={pairsText} placeholder="sta1:ship, sta2:ship" onChange={(e) => setPairsText(e.currentTarget.value)} />
          </div>
        ) : null}
        <div className="field">
          <label htmlFor="rp-k">Paths per pair (k)</label>
          <input id="rp-k" type="number" min={1} max={50} value={summary ? 1 : k} disabled={summary} onChange={(e) => setK(Math.max(1, Math.min(50, Number(e.currentTarget.value) || 1)))} />
        </div>
        <div className="field">
          <button type="button" className="btn btn-primary" onClick={compute} disabled={busy || n < 2 || (mode === "one" && src === dst)}>
            {busy ? "Computing…" : "Compute routes"}
          </button>
        </div>
      </div>
      {summary ? (
        <p className="muted small">
          {n * (n - 1)} ordered pairs: the worker counts the best routes crossing each link and keeps the {SUMMARY_ROUTES} costliest routes.
        </p>
      ) : null}
      {busy && mode === "all" ? (
        <div data-testid="routes-progress">
          <ProgressBar progress={progress ? progress.done / Math.max(1, progress.total) : 0} label="Routes computed" />
          <span className="muted small">{progress ? `${progress.done} of ${progress.total} pairs` : "queued"}</span>
        </div>
      ) : null}
      <FieldErrors errors={errors} />
      {routesDoc ? <RoutesResult doc={routesDoc} scenario={doc} rows={rows} selected={selected} onPick={pick} /> : null}
    </section>
  );
}

/** The overlay of a routes document: the selected row (or greedy difference), else the summary's link counts or every path. */
export function overlayOf(doc: ScenarioDocument, routes: RoutesDocument, selected: string | null): Highlight {
  if (selected?.startsWith("greedy:")) {
    const d = routes.greedy_differs.find((g) => `greedy:${g.src}>${g.dst}` === selected);
    if (d) return greedyHighlight(doc, d);
  }
  if (selected) {
    const r = routes.routes.find((p) => `${p.src}>${p.dst}` === selected);
    if (r) return pathsHighlight(doc, rankedPaths([r]));
  }
  if (routes.link_use) return linkUseHighlight(routes.link_use, routes.pairs_reachable ?? 0);
  return pathsHighlight(doc, rankedPaths(routes.routes));
}

/** Exact (rank colour 0) and greedy (rank colour 1) routes of one pair together. */
export function greedyHighlight(doc: ScenarioDocument, d: GreedyDiff): Highlight {
  return pathsHighlight(doc, [
    { rank: 0, nodes: d.exact_nodes, tag: "exact" },
    { rank: 1, nodes: d.greedy_nodes, tag: "greedy" },
  ]);
}

function fmt(v: number, digits = 3): string {
  return Number.isFinite(v) ? String(Number(v.toPrecision(digits))) : "—";
}

/** Nodes of a route as the canvas names them (label, else id); the ids stay in a tooltip. */
function pathText(scenario: ScenarioDocument, ids: readonly string[]): string {
  return ids.map((id) => scenario.nodes.find((n) => n.id === id)?.label || id).join(" → ");
}

function RoutesResult({ doc, scenario, rows, selected, onPick }: { doc: RoutesDocument; scenario: ScenarioDocument; rows: PairRoutes[]; selected: string | null; onPick: (key: string | null) => void }) {
  const shown = rows.slice(0, 300);
  return (
    <>
      <p className="small" data-testid="routes-time">{timeNote(doc)}</p>
      {doc.link_use ? (
        <div className="small" data-testid="route-summary">
          <p>
            {doc.pairs_reachable} of {doc.pairs_total} pairs reachable; links coloured by the share of best routes crossing them
            (label: routes). Below: the {rows.filter((r) => r.reachable).length} costliest routes{rows.some((r) => !r.reachable) ? " and the unreachable pairs" : ""}.
          </p>
          <SwatchLegend label="Route share legend" items={SHARE_BUCKETS} />
        </div>
      ) : null}
      {doc.greedy_differs.length ? (
        <div className="small" data-testid="greedy-differs">
          <h3 className="small">Greedy TCPBP misses the optimum on {doc.greedy_differs.length} pair(s)</h3>
          <table className="compact">
            <thead>
              <tr>
                <th>Pair</th>
                <th>Exact route</th>
                <th>f exact (ms)</th>
                <th>Greedy route</th>
                <th>f greedy (ms)</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {doc.greedy_differs.slice(0, 100).map((g) => (
                <tr key={`${g.src}>${g.dst}`} data-pair={`${g.src}>${g.dst}`}>
                  <td title={`${g.src} → ${g.dst}`}>{pathText(scenario, [g.src, g.dst])}</td>
                  <td>
                    <span className="swatch" style={{ background: rankColor(0) }} /> <span title={g.exact_nodes.join(" → ")}>{pathText(scenario, g.exact_nodes)}</span>
                  </td>
                  <td>{fmt(g.exact_cost, 4)}</td>
                  <td>
                    <span className="swatch" style={{ background: rankColor(1) }} /> <span title={g.greedy_nodes.join(" → ")}>{pathText(scenario, g.greedy_nodes)}</span>
                  </td>
                  <td>{fmt(g.greedy_cost, 4)}</td>
                  <td>
                    <button type="button" className="btn btn-small" onClick={() => onPick(`greedy:${g.src}>${g.dst}`)}>
                      Draw both
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <table className="compact" aria-label="Routes" data-testid="routes-table">
        <thead>
          <tr>
            <th>Pair</th>
            <th>Rank</th>
            <th>Path</th>
            <th>Hops</th>
            <th>Delay (ms)</th>
            <th>Loss</th>
            <th>Cost ({doc.cost_unit})</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((r) => {
            const key = `${r.src}>${r.dst}`;
            if (!r.reachable)
              return (
                <tr key={key} data-pair={key}>
                  <td title={`${r.src} → ${r.dst}`}>{pathText(scenario, [r.src, r.dst])}</td>
                  <td colSpan={6} className="muted">
                    unreachable
                  </td>
                </tr>
              );
            return r.paths.map((p, i) => (
              <tr
                key={`${key}#${i}`}
                data-pair={key}
                data-rank={i + 1}
                data-path={p.nodes.join(" ")}
                className={selected === key ? "selected" : undefined}
                onClick={() => onPick(selected === key ? null : key)}
                onKeyDown={(e) => {
                  if (e.key === "Enter" || e.key === " ") {
                    e.preventDefault();
                    onPick(selected === key ? null : key);
                  }
                }}
                tabIndex={0}
                aria-selected={selected === key}
                style={{ cursor: "pointer" }}
              >
                <td title={i === 0 ? `${r.src} → ${r.dst}` : undefined}>{i === 0 ? pathText(scenario, [r.src, r.dst]) : ""}</td>
                <td>
                  <span className="swatch" style={{ background: rankColor(i) }} /> #{i + 1}
                </td>
                <td title={p.nodes.join(" → ")}>{pathText(scenario, p.nodes)}</td>
                <td>{p.hops}</td>
                <td>{fmt(p.delay_ms, 4)}</td>
                <td>{fmt(p.loss, 3)}</td>
                <td>{fmt(p.cost, 4)}</td>
              </tr>
            ));
          })}
        </tbody>
      </table>
      {rows.length > shown.length ? <p className="muted small">First {shown.length} of {rows.length} pairs shown.</p> : null}
      <p className="muted small">Click a row to draw only that pair's paths; click again for all.</p>
    </>
  );
}
