/**
 * The scenario workspace: canvas editor (nodes, links, mobility), side panel,
 * flows, time scrubber, save with server validation, run panel and the
 * scenario's comparisons. `/scenarios/new` starts from an empty scenario.
 */
import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from "react";
import { Link, useBlocker, useNavigate, useParams } from "react-router";
import { ApiError, api, isAbort } from "../api/client";
import type { ComparisonSummary, NodeKind, Position, ScenarioDocument, ScenarioPublic, ScenarioVersionSummary, ScenarioWarning, ValidationErrorItem } from "../api/types";
import { NODE_KINDS } from "../api/types";
import { AllocationPanel } from "../components/AllocationPanel";
import { ErrorList } from "../components/ErrorList";
import { FlowsEditor } from "../components/FlowsEditor";
import { GeoEditorMap } from "../components/GeoEditorMap";
import type { LatLon } from "../components/geoLeaflet";
import { ExportMenu } from "../components/ExportMenu";
import { NodeSearch } from "../components/NodeSearch";
import { LinkEventsEditor } from "../components/LinkEventsEditor";
import { Inspector } from "../components/Inspector";
import { KeyboardHelp } from "../components/KeyboardHelp";
import { Legend, shapePath } from "../components/Legend";
import { KIND_STYLES } from "../components/nodeStyles";
import { RoutesPanel } from "../components/RoutesPanel";
import { RunDialog } from "../components/RunDialog";
import { TimeScrubber } from "../components/TimeScrubber";
import { CoverageMap } from "../components/CoverageMap";
import { EMPTY_SELECTION, TopologyGraph, type Ghosts, type Highlight, type Selection, type Tool } from "../components/TopologyGraph";
import {
  addLink,
  addNode,
  appendWaypoint,
  boundsFromCorners,
  canonicalJson,
  deleteElements,
  emptyScenario,
  errorTarget,
  moveNodes,
  updateNode,
} from "../lib/editor";
import { errorLines } from "../lib/errors";
import { humanFieldErrors, liveErrors, validationLines } from "../lib/fieldMessages";
import { changedFields, formatValue, type FieldChange } from "../lib/versionDiff";
import { canRedo, canUndo, createHistory, push, redo, undo, type History } from "../lib/history";
import { kindName, modelExtent, scaleFor, TARGET_EXTENT } from "../lib/topology";
import { geoPositionsAt, isGeoScenario, planarView } from "../lib/geo";
import { mercatorMetres } from "../components/geoProject";
import type { GeoCorner, TimelinePublic } from "../api/types";

/** A new scenario's drawing: 1 000 m across the target extent (0.5 graph units per metre). */
const NEW_SCALE = TARGET_EXTENT / 1000;

type HistoryAction =
  | { type: "reset"; doc: ScenarioDocument }
  | { type: "push"; doc: ScenarioDocument; coalesce?: string }
  | { type: "replace"; doc: ScenarioDocument }
  | { type: "undo" }
  | { type: "redo" };

function historyReducer(h: History<ScenarioDocument>, a: HistoryAction): History<ScenarioDocument> {
  switch (a.type) {
    case "reset":
      return createHistory(a.doc);
    case "push":
      return push(h, a.doc, a.coalesce ?? null);
    case "replace":
      return { ...h, present: a.doc };
    case "undo":
      return undo(h);
    case "redo":
      return redo(h);
  }
}

function sameSelection(a: Selection, b: Selection): boolean {
  return a.nodes.join("\u0000") === b.nodes.join("\u0000") && a.links.join("\u0000") === b.links.join("\u0000");
}

function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  const tag = el.tagName;
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable;
}

/** Route element: a new editor instance per scenario (and for "new"). */
export function ScenarioEditorRoute() {
  const { id } = useParams();
  return <ScenarioEditorView key={id ?? "new"} id={id ?? null} />;
}

export function ScenarioEditorView({ id }: { id: string | null }) {
  const navigate = useNavigate();
  const [item, setItem] = useState<ScenarioPublic | null>(null);
  const [loadErrors, setLoadErrors] = useState<string[]>([]);
  const [history, dispatch] = useReducer(historyReducer, undefined, () => createHistory(emptyScenario()));
  const [savedJson, setSavedJson] = useState<string | null>(id ? null : "");
  const [scale, setScale] = useState<number | null>(id ? null : NEW_SCALE);
  const [selection, setSelectionState] = useState<Selection>(EMPTY_SELECTION);
  const [tool, setTool] = useState<Tool>({ name: "select" });
  const [waypointSpeed, setWaypointSpeed] = useState(10);
  /** The server's field errors (path → message in the user's units) and the document it refused. */
  const [serverErrors, setServerErrors] = useState<{ errors: Record<string, string>; detail: ValidationErrorItem[]; doc: ScenarioDocument } | null>(null);
  const [saveProblems, setSaveProblems] = useState<string[]>([]);
  /** Warnings of the saved version (POST /api/scenario-checks): shown, never blocking. */
  const [warnings, setWarnings] = useState<ScenarioWarning[]>([]);
  const [saving, setSaving] = useState(false);
  /** Someone saved the scenario after it was loaded (412 on save): offer to reload or keep a copy. */
  const [conflict, setConflict] = useState(false);
  /** The scenario's saved versions (newest first), read again after every save or restore. */
  const [versions, setVersions] = useState<ScenarioVersionSummary[]>([]);
  useEffect(() => {
    if (!id || !item) return;
    const ctl = new AbortController();
    api
      .listVersions(id, ctl.signal)
      .then((page) => setVersions(page.data))
      .catch(() => setVersions([]));
    return () => ctl.abort();
  }, [id, item?.version]);
  const [savedNote, setSavedNote] = useState<string | null>(null);
  const [ghosts, setGhosts] = useState<Ghosts | null>(null);
  /** routes / allocation overlay of the planning panels, drawn by the topology's cytoscape owner */
  const [planningOverlay, setPlanningOverlay] = useState<Highlight | null>(null);
  const [comparisons, setComparisons] = useState<ComparisonSummary[]>([]);
  const [picking, setPicking] = useState(false);
  const [compareIds, setCompareIds] = useState<string[]>([]);
  const [linkLabels, setLinkLabels] = useState<boolean | null>(null);
  const doc = history.present;
  // an error clears as soon as its field's value changes
  const errors = useMemo(() => (serverErrors ? liveErrors(serverErrors.errors, serverErrors.doc, doc) : {}), [serverErrors, doc]);
  const validationBanner = useMemo(() => {
    if (!serverErrors) return [];
    const live = new Set(Object.keys(errors));
    const key = (d: ValidationErrorItem) => (d.loc[0] === "body" ? d.loc.slice(1) : d.loc).map(String).join(".");
    return validationLines(serverErrors.doc, serverErrors.detail.filter((d) => live.has(key(d))));
  }, [serverErrors, errors]);
  useEffect(() => {
    if (!id || !item) return;
    const ctl = new AbortController();
    api
      .scenarioChecks(item.scenario, ctl.signal)
      .then((r) => setWarnings(r.warnings))
      .catch(() => setWarnings([]));
    return () => ctl.abort();
  }, [id, item]);
  /** The map instead of the x/y canvas: a geographic scenario, or one being placed on the map. */
  const [mapMode, setMapMode] = useState(false);
  const geo = mapMode || isGeoScenario(doc);
  /** A node found by its label: the map centres on it. */
  const [focus, setFocus] = useState<{ nodeId: string } | null>(null);
  /** The scrubber's timeline and time, for the map (positions from `geo_trajectories`). */
  const [scrub, setScrub] = useState<{ timeline: TimelinePublic; t: number } | null>(null);
  /** The scrubbed time (null: scrubber off), for the coverage heat map. */
  const [scrubT, setScrubT] = useState<number | null>(null);
  const onScrub = useCallback((timeline: TimelinePublic | null, t: number) => setScrub(timeline ? { timeline, t } : null), []);
  const geoTracks = (scrub?.timeline.geo_trajectories ?? null) as Record<string, GeoCorner[]> | null;
  const geoPositions = useMemo<Record<string, LatLon> | null>(() => (scrub && geoTracks ? geoPositionsAt(geoTracks, scrub.t) : null), [scrub, geoTracks]);

  useEffect(() => {
    if (!id) return;
    const ctl = new AbortController();
    api
      .getScenario(id, ctl.signal)
      .then((s) => {
        setItem(s);
        dispatch({ type: "reset", doc: s.scenario });
        setSavedJson(canonicalJson(s.scenario));
        setScale(scaleFor(modelExtent(isGeoScenario(s.scenario) ? planarView(s.scenario, mercatorMetres) : s.scenario)));
      })
      .catch((err) => {
        if (!isAbort(err)) setLoadErrors(errorLines(err));
      });
    api
      .listComparisons(id, ctl.signal)
      .then((p) => setComparisons(p.data))
      .catch(() => setComparisons([]));
    return () => ctl.abort();
  }, [id]);

  const dirty = useMemo(() => savedJson !== null && (savedJson === "" ? doc.nodes.length > 0 || history.past.length > 0 : canonicalJson(doc) !== savedJson), [doc, savedJson, history.past.length]);
  const dirtyRef = useRef(dirty);
  dirtyRef.current = dirty;

  // unsaved changes: in-app navigation asks, closing or reloading the tab warns
  const blocker = useBlocker(({ currentLocation, nextLocation }) => dirtyRef.current && currentLocation.pathname !== nextLocation.pathname);
  useEffect(() => {
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      if (!dirtyRef.current) return;
      e.preventDefault();
      e.returnValue = "";
    };
    window.addEventListener("beforeunload", onBeforeUnload);
    return () => window.removeEventListener("beforeunload", onBeforeUnload);
  }, []);

  const change = useCallback((next: ScenarioDocument, coalesce?: string) => {
    dispatch({ type: "push", doc: next, coalesce });
    setSavedNote(null);
  }, []);
  const setSelection = useCallback((sel: Selection) => setSelectionState((cur) => (sameSelection(cur, sel) ? cur : sel)), []);

  // canvas callbacks (stable; they read the latest document through a ref)
  const docRef = useRef(doc);
  docRef.current = doc;
  const selectionRef = useRef(selection);
  selectionRef.current = selection;
  const speedRef = useRef(waypointSpeed);
  speedRef.current = waypointSpeed;

  const onAddNode = useCallback(
    (kind: NodeKind, at: Position) => {
      const { doc: next, id: nid } = addNode(docRef.current, kind, at);
      change(next);
      setSelection({ nodes: [nid], links: [] });
      // the tool stays active: place several nodes in a row (Esc returns to Select)
    },
    [change, setSelection],
  );
  const onMoveNodes = useCallback((moves: Record<string, Position>) => change(moveNodes(docRef.current, moves)), [change]);
  const onAddLink = useCallback(
    (a: string, b: string) => {
      const r = addLink(docRef.current, a, b);
      if (!r) return;
      change(r.doc);
      setSelection({ nodes: [], links: [r.id] });
    },
    [change, setSelection],
  );
  const stationId = selection.nodes.length === 1 ? selection.nodes[0]! : null;
  const stationRef = useRef(stationId);
  stationRef.current = stationId;
  const onPoint = useCallback(
    (at: Position) => {
      const sid = stationRef.current;
      const d = docRef.current;
      const st = d.nodes.find((n) => n.id === sid);
      if (!st || !canMove(st.kind)) return;
      const prev = st.mobility?.model === "waypoints" ? st.mobility.points : [];
      const points = appendWaypoint(prev, at, speedRef.current);
      let next = updateNode(d, st.id, { mobility: { model: "waypoints", points } });
      // the station starts where its path starts
      if (points.length === 1) next = updateNode(next, st.id, { position: { x_m: at.x_m, y_m: at.y_m }, mobility: { model: "waypoints", points } });
      change(next, `${st.id}.draw`);
    },
    [change],
  );
  const onRectangle = useCallback(
    (a: Position, b: Position) => {
      const sid = stationRef.current;
      const d = docRef.current;
      const st = d.nodes.find((n) => n.id === sid);
      if (!st || !canMove(st.kind) || !st.mobility || !("bounds" in st.mobility)) return;
      change(updateNode(d, st.id, { mobility: { ...st.mobility, bounds: boundsFromCorners(a, b) } }));
      setTool({ name: "select" });
    },
    [change],
  );

  // stop drawing when the selection no longer fits the tool
  useEffect(() => {
    if ((tool.name === "waypoints" || tool.name === "bounds") && (!stationId || !canMove(doc.nodes.find((n) => n.id === stationId)?.kind))) setTool({ name: "select" });
  }, [tool, stationId, doc]);

  // keyboard (listed in KeyboardHelp's SHORTCUTS): Delete / Backspace, Ctrl+Z, Ctrl+Shift+Z / Ctrl+Y,
  // Ctrl+S, Escape, ? (help), V / L / 1–6 (tools)
  const [helpOpen, setHelpOpen] = useState(false);
  const saveRef = useRef<() => void>(() => undefined);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = e.ctrlKey || e.metaKey;
      if (mod && !e.shiftKey && !e.altKey && (e.key === "s" || e.key === "S")) {
        // save from anywhere, text fields included (the browser's "save page" is never wanted here)
        e.preventDefault();
        saveRef.current();
        return;
      }
      if (isTyping(e.target)) return;
      if (e.key === "?" && !mod) {
        e.preventDefault();
        setHelpOpen(true);
        return;
      }
      if (!mod && !e.altKey && (e.key === "v" || e.key === "V")) {
        setTool({ name: "select" });
        return;
      }
      if (!mod && !e.altKey && (e.key === "l" || e.key === "L")) {
        setTool({ name: "link" });
        return;
      }
      const digit = !mod && !e.altKey ? Number(e.key) : NaN;
      if (Number.isInteger(digit) && digit >= 1 && digit <= NODE_KINDS.length) {
        setTool({ name: "add", kind: NODE_KINDS[digit - 1]! });
        return;
      }
      if ((e.key === "Delete" || e.key === "Backspace") && !mod) {
        const sel = selectionRef.current;
        if (!sel.nodes.length && !sel.links.length) return;
        e.preventDefault();
        change(deleteElements(docRef.current, sel.nodes, sel.links));
        setSelection(EMPTY_SELECTION);
      } else if (mod && (e.key === "z" || e.key === "Z") && !e.shiftKey) {
        e.preventDefault();
        dispatch({ type: "undo" });
      } else if (mod && (e.key === "y" || ((e.key === "z" || e.key === "Z") && e.shiftKey))) {
        e.preventDefault();
        dispatch({ type: "redo" });
      } else if (e.key === "Escape") {
        setTool({ name: "select" });
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [change, setSelection]);

  const save = async () => {
    if (saving) return;
    setSaving(true);
    setSaveProblems([]);
    setSavedNote(null);
    try {
      const saved = id && item ? await api.updateScenario(id, doc, item.version) : await api.createScenario(doc);
      setServerErrors(null);
      if (!id) {
        dirtyRef.current = false;
        setSavedJson(canonicalJson(doc));
        navigate(`/scenarios/${encodeURIComponent(String(saved.id))}`, { replace: true });
        return;
      }
      setItem(saved);
      dispatch({ type: "replace", doc: saved.scenario });
      setSavedJson(canonicalJson(saved.scenario));
      setSavedNote(`Saved version ${saved.version}.`);
    } catch (err) {
      if (err instanceof ApiError && err.status === 412) {
        setConflict(true);
        setSaveProblems([`Someone else saved this scenario after you opened it. ${err.message}`]);
      } else if (err instanceof ApiError && err.validation) {
        const fe = humanFieldErrors(err.validation);
        setServerErrors({ errors: fe, detail: [...err.validation], doc });
        // show the first element with a problem in the side panel
        const first = Object.keys(fe)[0];
        if (first) {
          const target = errorTarget(doc, first);
          if (target.kind === "node" && target.id) setSelection({ nodes: [target.id], links: [] });
          else if (target.kind === "link" && target.id) setSelection({ nodes: [], links: [target.id] });
        }
      } else setSaveProblems(errorLines(err));
    } finally {
      setSaving(false);
    }
  };

  saveRef.current = () => void save();

  /** Conflict: drop the edits and load the version saved meanwhile. */
  const reloadSaved = async () => {
    if (!id) return;
    try {
      const s = await api.getScenario(id);
      setItem(s);
      dispatch({ type: "reset", doc: s.scenario });
      setSavedJson(canonicalJson(s.scenario));
      setConflict(false);
      setSaveProblems([]);
      setSavedNote(`Reloaded version ${s.version}.`);
    } catch (err) {
      setSaveProblems(errorLines(err));
    }
  };

  /** The fields that differ between an old version and the current one (shown under Versions). */
  const [versionDiff, setVersionDiff] = useState<{ from: number; to: number; changes: FieldChange[] } | null>(null);
  useEffect(() => setVersionDiff(null), [id, item?.version]);
  const showChanges = async (version: number) => {
    if (!id || !item) return;
    try {
      const old = await api.getVersion(id, version);
      setVersionDiff({ from: version, to: item.version, changes: changedFields(old.scenario, item.scenario) });
    } catch (err) {
      setSaveProblems(errorLines(err));
    }
  };

  /** Make an old version current again (a new version; nothing is lost). */
  const restore = async (version: number) => {
    if (!id) return;
    setSaveProblems([]);
    try {
      const s = await api.restoreVersion(id, version);
      setItem(s);
      dispatch({ type: "reset", doc: s.scenario });
      setSavedJson(canonicalJson(s.scenario));
      setConflict(false);
      setSavedNote(`Restored version ${version} as version ${s.version}.`);
    } catch (err) {
      setSaveProblems(errorLines(err));
    }
  };

  /** A track imported for a node (a new version stored by the server): show it. */
  const onTrackImported = useCallback((s: ScenarioPublic) => {
    setItem(s);
    dispatch({ type: "reset", doc: s.scenario });
    setSavedJson(canonicalJson(s.scenario));
    setSavedNote(`Track imported: version ${s.version}.`);
  }, []);

  /** Conflict: keep the edits as a new scenario (a fork of the edited document). */
  const saveAsCopy = async () => {
    try {
      const copy = await api.createScenario({ ...doc, name: `${doc.name} (copy ${new Date().toISOString().slice(0, 19)})` });
      dirtyRef.current = false;
      setSavedJson(canonicalJson(doc));
      setConflict(false);
      navigate(`/scenarios/${encodeURIComponent(String(copy.id))}`);
    } catch (err) {
      setSaveProblems(errorLines(err));
    }
  };

  if (loadErrors.length) {
    return (
      <>
        <Breadcrumbs />
        <ErrorList title="Could not load the scenario:" items={loadErrors} />
      </>
    );
  }
  if (scale === null || (id && !item)) return <p className="muted">Loading…</p>;

  const kinds = [...new Set(doc.nodes.map((n) => n.kind))];
  const title = id ? item?.name ?? doc.name : "New scenario";
  const toolButton = (t: Tool, label: string, icon?: NodeKind) => {
    const active = t.name === tool.name && (t.name !== "add" || (tool.name === "add" && tool.kind === t.kind));
    return (
      <button
        key={label}
        type="button"
        className={`btn btn-tool${active ? " active" : ""}`}
        aria-pressed={active}
        // a tool stays on until another is chosen, Select is pressed or Esc
        onClick={() => setTool(t)}
        title={label}
      >
        {icon ? (
          <svg width="14" height="14" viewBox="0 0 16 16" aria-hidden="true">
            <path d={shapePath(KIND_STYLES[icon].shape)} fill={KIND_STYLES[icon].color} />
          </svg>
        ) : null}
        {label}
      </button>
    );
  };

  return (
    <>
      <Breadcrumbs name={title} />
      <div className="page-head">
        <div>
          <h1>
            {title} {item ? <span className="badge">v{item.version}</span> : null}
            {dirty ? (
              <span className="badge badge-warn" data-testid="unsaved">
                unsaved changes
              </span>
            ) : null}
          </h1>
          {item?.description ? <p className="description">{item.description}</p> : null}
        </div>
        <div className="head-actions">
          <button type="button" className="btn btn-primary" onClick={save} disabled={saving}>
            {saving ? "Saving…" : "Save"}
          </button>
          {id ? (
            <button
              type="button"
              className="btn"
              onClick={() => setPicking((p) => !p)}
              aria-expanded={picking}
              disabled={dirty}
              title={dirty ? "Save the scenario first" : "Run strategies on this scenario"}
            >
              Compare
            </button>
          ) : null}
          {id ? (
            <Link className="btn" to={`/scenarios/${encodeURIComponent(id)}/analysis`} title="Failures, capacity planning, 2-D sweeps">
              Analysis
            </Link>
          ) : null}
          {id ? (
            <ExportMenu id={id} />
          ) : null}
        </div>
      </div>

      {savedNote ? (
        <div className="alert alert-success" role="status">
          {savedNote}
        </div>
      ) : null}
      <ErrorList title="Not saved — the server found problems:" items={[...validationBanner, ...saveProblems]} />
      {warnings.length && !dirty ? (
        <div className="alert alert-warn" role="status" data-testid="save-warnings">
          <strong>Saved, with warnings:</strong>
          <ul>
            {warnings.map((w, i) => (
              <li key={i}>{w.message}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {conflict ? (
        <div className="conflict-actions">
          <button type="button" className="btn" onClick={reloadSaved}>
            Reload the saved version (drop my edits)
          </button>
          <button type="button" className="btn btn-primary" onClick={saveAsCopy}>
            Save my edits as a new scenario
          </button>
        </div>
      ) : null}
      {picking && id ? <RunDialog scenarioId={id} doc={doc} onClose={() => setPicking(false)} /> : null}

      <div className="editor-grid">
        <section className="card topology-card" aria-labelledby="topology-title">
          <div className="card-head">
            <h2 id="topology-title">Topology</h2>
            <span className="muted small" data-testid="counts">
              {doc.nodes.length} nodes · {(doc.links ?? []).length} links · {(doc.flows ?? []).length} flows
            </span>
          </div>
          <div className="toolbar" role="toolbar" aria-label="Editing tools">
            {toolButton({ name: "select" }, "Select")}
            {NODE_KINDS.map((k) => toolButton({ name: "add", kind: k }, `Add ${kindName(k).toLowerCase()}`, k))}
            {toolButton({ name: "link" }, "Draw links")}
            <span className="toolbar-sep" />
            <button type="button" className="btn btn-tool" onClick={() => dispatch({ type: "undo" })} disabled={!canUndo(history)} title="Undo (Ctrl+Z)">
              Undo
            </button>
            <button type="button" className="btn btn-tool" onClick={() => dispatch({ type: "redo" })} disabled={!canRedo(history)} title="Redo (Ctrl+Shift+Z)">
              Redo
            </button>
            <button
              type="button"
              className="btn btn-tool"
              disabled={!selection.nodes.length && !selection.links.length}
              onClick={() => {
                change(deleteElements(doc, selection.nodes, selection.links));
                setSelection(EMPTY_SELECTION);
              }}
              title="Delete the selection (Delete key)"
            >
              Delete
            </button>
            <span className="toolbar-sep" />
            {!geo ? (
              <button
                type="button"
                className="btn btn-tool"
                onClick={() => {
                  setMapMode(true);
                  setTool({ name: "select" });
                }}
                title="Place the nodes by latitude and longitude on a map (a geographic scenario)"
              >
                Place on a map
              </button>
            ) : null}
            {!geo ? (
            <label className="toggle">
              <input
                type="checkbox"
                checked={linkLabels ?? (doc.links ?? []).length <= 150}
                onChange={(e) => setLinkLabels(e.currentTarget.checked)}
              />{" "}
              Link labels
            </label>
            ) : null}
            <button type="button" className="btn btn-tool" onClick={() => setHelpOpen(true)} title="Keyboard shortcuts (?)" aria-haspopup="dialog">
              Shortcuts <kbd>?</kbd>
            </button>
            <NodeSearch
              doc={doc}
              onPick={(nid) => {
                setSelection({ nodes: [nid], links: [] });
                setFocus({ nodeId: nid });
              }}
            />
          </div>
          {geo ? (
            <GeoEditorMap
              doc={doc}
              label={`Map of ${title}`}
              tool={tool}
              setTool={setTool}
              selection={selection}
              focus={focus}
              onSelect={setSelection}
              onChange={change}
              waypointSpeed={waypointSpeed}
              positions={geoPositions}
              tracks={geoTracks}
              highlight={planningOverlay}
            />
          ) : null}
          {!geo ? (
          <p className="muted small tool-hint" aria-live="polite">
            {toolHint(tool)}
          </p>
          ) : null}
          {!geo ? (
          <TopologyGraph
            doc={doc}
            label={`Topology of ${title}`}
            scale={scale}
            editable
            tool={tool}
            selection={selection}
            ghosts={ghosts}
            highlight={planningOverlay}
            linkLabels={linkLabels ?? undefined}
            onSelect={setSelection}
            onAddNode={onAddNode}
            onMoveNodes={onMoveNodes}
            onAddLink={onAddLink}
            onPoint={onPoint}
            onRectangle={onRectangle}
          />
          ) : null}
          <Legend kinds={kinds.length ? kinds : undefined} />
        </section>

        <aside className="side">
          <Inspector
            doc={doc}
            selection={selection}
            errors={errors}
            tool={tool}
            setTool={setTool}
            waypointSpeed={waypointSpeed}
            setWaypointSpeed={setWaypointSpeed}
            onChange={change}
            onSelect={setSelection}
            scenarioId={id}
            version={item?.version}
            dirty={dirty}
            onTrackImported={onTrackImported}
          />
          <TimeScrubber doc={doc} onGhosts={setGhosts} onTimeline={geo ? onScrub : undefined} onTime={setScrubT} />
          <CoverageMap doc={doc} t={scrubT ?? 0} />
        </aside>
      </div>

      <FlowsEditor doc={doc} errors={errors} onChange={change} />
      <LinkEventsEditor doc={doc} errors={errors} onChange={change} />

      {id ? (
        <div className="planning-panels">
          <RoutesPanel scenarioId={id} doc={doc} dirty={dirty} onOverlay={setPlanningOverlay} />
          <AllocationPanel scenarioId={id} doc={doc} dirty={dirty} onOverlay={setPlanningOverlay} />
        </div>
      ) : null}

      {id ? (
        <section className="card" aria-labelledby="history-title">
          <div className="card-head">
            <h2 id="history-title">Comparisons</h2>
            <button
              type="button"
              className="btn btn-small"
              disabled={compareIds.length < 2}
              onClick={() => navigate(`/scenarios/${encodeURIComponent(id)}/compare?ids=${compareIds.map(encodeURIComponent).join(",")}`)}
            >
              Side by side
            </button>
          </div>
          {comparisons.length ? (
            <ul className="history">
              {comparisons.map((c) => (
                <li key={String(c.id)}>
                  <input
                    type="checkbox"
                    aria-label={`Select comparison ${c.id} for side-by-side`}
                    disabled={c.status !== "succeeded"}
                    checked={compareIds.includes(String(c.id))}
                    onChange={(e) => {
                      const cid = String(c.id);
                      const on = e.currentTarget.checked;
                      setCompareIds((ids) => (on ? [...ids, cid] : ids.filter((x) => x !== cid)));
                    }}
                  />
                  <Link to={`/scenarios/${encodeURIComponent(id)}/comparisons/${encodeURIComponent(String(c.id))}`}>{c.strategies.join(" vs ")}</Link>
                  <span className={`status status-${c.status}`}>{c.status}</span>
                  <span className="muted small">
                    v{c.scenario_version} · {new Date(c.created_at).toLocaleString()}
                  </span>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted small">None yet. Save, then press Compare to run one.</p>
          )}
        </section>
      ) : null}

      {id && versions.length ? (
        <section className="card" aria-labelledby="versions-title">
          <div className="card-head">
            <h2 id="versions-title">Versions</h2>
          </div>
          <ul className="history" aria-label="Versions">
            {versions.map((v) => (
              <li key={v.version}>
                <strong>v{v.version}</strong>
                <span className="muted small">
                  {new Date(v.saved_at).toLocaleString()} · {v.saved_by ?? "before accounts"}
                </span>
                {v.current ? (
                  <span className="badge">current</span>
                ) : (
                  <>
                    <button type="button" className="btn btn-small" onClick={() => showChanges(v.version)}>
                      Changes since v{v.version}
                    </button>
                    <button type="button" className="btn btn-small" onClick={() => restore(v.version)} disabled={dirty}>
                      Restore v{v.version}
                    </button>
                  </>
                )}
              </li>
            ))}
          </ul>
          {versionDiff ? (
            <div className="version-diff">
              <h3 className="small">
                Changes from v{versionDiff.from} to v{versionDiff.to}
                {versionDiff.changes.length ? "" : ": none"}
              </h3>
              {versionDiff.changes.length ? (
                <ul aria-label={`Changes from v${versionDiff.from} to v${versionDiff.to}`} className="small">
                  {versionDiff.changes.map((c) => (
                    <li key={c.path}>
                      <code>{c.path}</code>: {formatValue(c.before)} → {formatValue(c.after)}
                    </li>
                  ))}
                </ul>
              ) : null}
            </div>
          ) : null}
        </section>
      ) : null}

      {helpOpen ? <KeyboardHelp onClose={() => setHelpOpen(false)} /> : null}
      {blocker.state === "blocked" ? (
        <div className="modal-backdrop">
          <section className="card modal" role="alertdialog" aria-labelledby="leave-title" aria-describedby="leave-desc">
            <h2 id="leave-title">Unsaved changes</h2>
            <p id="leave-desc">This scenario has changes that are not saved. Leave and lose them?</p>
            <div className="actions">
              <button type="button" className="btn btn-primary" onClick={() => blocker.reset()}>
                Stay
              </button>
              <button type="button" className="btn btn-danger" onClick={() => blocker.proceed()}>
                Leave without saving
              </button>
            </div>
          </section>
        </div>
      ) : null}
    </>
  );
}

/** Node kinds that may have a mobility model: every kind but satellites, which follow their orbits (`satcom`). */
function canMove(kind: NodeKind | undefined): boolean {
  return !!kind && kind !== "satellite";
}

function toolHint(tool: Tool): string {
  switch (tool.name) {
    case "add":
      return `Click on the canvas to place a ${kindName(tool.kind).toLowerCase()}; click again for more, Esc to stop.`;
    case "link":
      return "Click a node, then another (or drag from one to the other), to join them with a wired link; Esc to stop.";
    case "waypoints":
      return "Click on the canvas to add waypoints to the selected station's path.";
    case "bounds":
      return "Drag a rectangle: the station's mobility area.";
    default:
      return "Click to select, ctrl/shift-click or shift-drag to select several, drag to move; Delete removes the selection.";
  }
}

function Breadcrumbs({ name }: { name?: string }) {
  return (
    <nav className="breadcrumbs" aria-label="Breadcrumb">
      <Link to="/">Scenarios</Link>
      {name ? (
        <>
          <span aria-hidden="true"> / </span>
          <span aria-current="page">{name}</span>
        </>
      ) : null}
    </nav>
  );
}
