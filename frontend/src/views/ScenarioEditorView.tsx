/**
 * The scenario workspace: canvas editor (nodes, links, mobility), side panel,
 * flows, time scrubber, save with server validation, run panel and the
 * scenario's comparisons. `/scenarios/new` starts from an empty scenario.
 *
 * This file only composes; each concern has its own hook or component in `editor/`:
 * the edit history (`useEditHistory`), the stored scenario and the dirty flag (`useScenarioSource`),
 * the leave warning (`useLeaveGuard`), server errors and warnings (`useValidation`), saving
 * (`useSaveActions`), the selection (`useSelection`), the tools and canvas callbacks
 * (`useCanvasTools`), what the topology pane overlays (`useCanvasOverlays`), the keyboard
 * (`useEditorShortcuts`), versions (`useScenarioVersions`) and comparisons (`useScenarioComparisons`).
 */
import { useCallback, useRef, useState } from "react";
import { useNavigate, useParams } from "react-router";
import type { ScenarioDocument } from "../api/types";
import { AllocationPanel } from "../components/AllocationPanel";
import { CoverageMap } from "../components/CoverageMap";
import { ErrorList } from "../components/ErrorList";
import { FlowsEditor } from "../components/FlowsEditor";
import { Inspector } from "../components/Inspector";
import { KeyboardHelp } from "../components/KeyboardHelp";
import { LinkEventsEditor } from "../components/LinkEventsEditor";
import { RoutesPanel } from "../components/RoutesPanel";
import { RunDialog } from "../components/RunDialog";
import { TimeScrubber } from "../components/TimeScrubber";
import { emptyScenario } from "../lib/editor";
import { ComparisonsPanel } from "./editor/ComparisonsPanel";
import { Breadcrumbs, EditorHeader } from "./editor/EditorHeader";
import { LeaveDialog } from "./editor/LeaveDialog";
import { SaveStatus } from "./editor/SaveStatus";
import { TopologyPane } from "./editor/TopologyPane";
import { useCanvasOverlays } from "./editor/useCanvasOverlays";
import { useCanvasTools } from "./editor/useCanvasTools";
import { useEditHistory } from "./editor/useEditHistory";
import { useEditorShortcuts } from "./editor/useEditorShortcuts";
import { useLeaveGuard } from "./editor/useLeaveGuard";
import { useSaveActions } from "./editor/useSaveActions";
import { useScenarioComparisons } from "./editor/useScenarioComparisons";
import { useScenarioSource } from "./editor/useScenarioSource";
import { useScenarioVersions } from "./editor/useScenarioVersions";
import { useSelection } from "./editor/useSelection";
import { useValidation } from "./editor/useValidation";
import { useSatcomAccess } from "./editor/useSatcomAccess";
import { AccessReport } from "../components/AccessReport";
import { VersionsPanel } from "./editor/VersionsPanel";
import { usePageTitle } from "./usePageTitle";
import { UnstoredFieldsProvider, useUnstoredFields } from "../components/unstoredFields";
import { copySelection, keyboardSpot, pasteClipboard, type NodeClipboard } from "../lib/editor";
import { SideTabs } from "./editor/SideTabs";

/** Route element: a new editor instance per scenario (and for "new"). */
export function ScenarioEditorRoute() {
  const { id } = useParams();
  return (
    <UnstoredFieldsProvider key={id ?? "new"}>
      <ScenarioEditorView id={id ?? null} />
    </UnstoredFieldsProvider>
  );
}

const newDocument = () => emptyScenario();

export function ScenarioEditorView({ id }: { id: string | null }) {
  const navigate = useNavigate();
  const edits = useEditHistory(newDocument);
  const { doc, push } = edits;
  const source = useScenarioSource(id, edits);
  const { item, dirty } = source;
  const comparisons = useScenarioComparisons(id);
  const blocker = useLeaveGuard(source.dirtyRef);
  usePageTitle(id ? `${dirty ? "• " : ""}${doc.name || "Scenario"}` : "New scenario");
  const validation = useValidation(id, item, doc);
  const [selection, setSelection] = useSelection();
  const unstored = useUnstoredFields();
  const store = useSaveActions({ id, doc, source, validation, setSelection, navigate, unstored });
  const { clearNote } = store;
  const change = useCallback(
    (next: ScenarioDocument, coalesce?: string) => {
      push(next, coalesce);
      clearNote();
    },
    [push, clearNote],
  );
  const tools = useCanvasTools(doc, selection, setSelection, change);
  const overlays = useCanvasOverlays(doc);
  const satcomAccess = useSatcomAccess(doc);
  const { versions, versionDiff, showChanges } = useScenarioVersions(id, item, store.setProblems);
  const clipboard = useRef<NodeClipboard | null>(null);
  const { helpOpen, setHelpOpen } = useEditorShortcuts({
    save: () => void store.save(),
    undo: edits.undo,
    redo: edits.redo,
    deleteSelection: tools.deleteSelection,
    setTool: tools.setTool,
    copy: () => {
      const clip = copySelection(doc, selection.nodes);
      if (clip) clipboard.current = clip;
      return clip !== null;
    },
    paste: () => {
      if (!clipboard.current) return;
      const r = pasteClipboard(doc, clipboard.current);
      change(r.doc);
      setSelection({ nodes: r.nodeIds, links: r.linkIds });
    },
    placeNode: () => {
      if (tools.tool.name === "add" && !overlays.geo) tools.canvas.onAddNode(tools.tool.kind, keyboardSpot(doc, selection.nodes[0] ?? null));
    },
  });
  /** The run dialog (Compare) is open. */
  const [picking, setPicking] = useState(false);

  if (source.loadErrors.length) {
    return (
      <>
        <Breadcrumbs />
        <ErrorList title="Could not load the scenario:" items={source.loadErrors} />
      </>
    );
  }
  if (source.scale === null || (id && !item)) return <p className="muted">Loading…</p>;

  const title = id ? item?.name ?? doc.name : "New scenario";

  return (
    <>
      <Breadcrumbs name={title} />
      <EditorHeader
        id={id}
        title={title}
        item={item}
        dirty={dirty}
        saving={store.saving}
        onSave={store.save}
        picking={picking}
        onTogglePicking={() => setPicking((p) => !p)}
      />
      <SaveStatus
        savedNote={store.savedNote}
        problems={[...validation.banner, ...store.problems]}
        warnings={validation.warnings}
        dirty={dirty}
        conflict={store.conflict}
        onReload={store.reloadSaved}
        onSaveAsCopy={store.saveAsCopy}
      />
      {picking && id ? <RunDialog scenarioId={id} doc={doc} onClose={() => setPicking(false)} /> : null}

      <div className="editor-grid">
        <TopologyPane
          doc={doc}
          title={title}
          scale={source.scale}
          edits={edits}
          tools={tools}
          overlays={overlays}
          selection={selection}
          onSelect={setSelection}
          onChange={change}
          onHelp={() => setHelpOpen(true)}
          groundTracks={satcomAccess.timeline?.ground_tracks ?? null}
          fitGroundTracks={satcomAccess.fitTracks}
        />
        <SideTabs
          inspect={
            <>
              <Inspector
                doc={doc}
                selection={selection}
                errors={validation.errors}
                tool={tools.tool}
                setTool={tools.setTool}
                waypointSpeed={tools.waypointSpeed}
                setWaypointSpeed={tools.setWaypointSpeed}
                onChange={change}
                onSelect={setSelection}
                scenarioId={id}
                version={item?.version}
                dirty={dirty}
                onTrackImported={store.onTrackImported}
                satcomUses={satcomAccess.timeline?.satcom ?? null}
              />
              <TimeScrubber doc={doc} onGhosts={overlays.setGhosts} onTimeline={overlays.geo ? overlays.onScrub : undefined} onTime={overlays.setScrubT} />
              <CoverageMap doc={doc} t={overlays.scrubT ?? 0} />
              <AccessReport doc={doc} access={satcomAccess} />
            </>
          }
          plan={
            id ? (
              <>
                <RoutesPanel scenarioId={id} doc={doc} dirty={dirty} onOverlay={overlays.setPlanningOverlay} />
                <AllocationPanel scenarioId={id} doc={doc} dirty={dirty} onOverlay={overlays.setPlanningOverlay} />
              </>
            ) : null
          }
        />
      </div>

      <FlowsEditor doc={doc} errors={validation.errors} onChange={change} />
      <LinkEventsEditor doc={doc} errors={validation.errors} onChange={change} />


      {id ? <ComparisonsPanel id={id} comparisons={comparisons} /> : null}

      {id && versions.length ? (
        <VersionsPanel versions={versions} versionDiff={versionDiff} dirty={dirty} onShowChanges={showChanges} onRestore={store.restore} />
      ) : null}

      {helpOpen ? <KeyboardHelp onClose={() => setHelpOpen(false)} /> : null}
      <LeaveDialog blocker={blocker} />
    </>
  );
}
