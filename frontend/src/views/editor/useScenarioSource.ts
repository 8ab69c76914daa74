import { useCallback, useEffect, useMemo, useRef, useState, type RefObject } from "react";
import { api, isAbort } from "../../api/client";
import type { ScenarioDocument, ScenarioPublic } from "../../api/types";
import { mercatorMetres } from "../../components/geoProject";
import { canonicalJson } from "../../lib/editor";
import { errorLines } from "../../lib/errors";
import { isGeoScenario, planarView } from "../../lib/geo";
import { modelExtent, scaleFor, TARGET_EXTENT } from "../../lib/topology";
import type { EditHistory } from "./useEditHistory";

/** A new scenario's drawing: 1 000 m across the target extent (0.5 graph units per metre). */
export const NEW_SCALE = TARGET_EXTENT / 1000;

export interface ScenarioSource {
  /** The scenario as the server last returned it (null: not loaded yet, or a new scenario). */
  item: ScenarioPublic | null;
  loadErrors: string[];
  /** Graph units per metre of the drawing (null until the scenario is loaded). */
  scale: number | null;
  /** The document differs from the one last saved (a new scenario: anything drawn or undone). */
  dirty: boolean;
  /** `dirty` as of the last render, or false right after `markSaved` (read by listeners). */
  dirtyRef: RefObject<boolean>;
  /** A scenario from the server (a reload, a restore, an imported track): it becomes the document, its history fresh. */
  adopt: (s: ScenarioPublic) => void;
  /** The server's answer to a save: the document replaced, its undo steps kept. */
  accept: (s: ScenarioPublic) => void;
  /** `doc` was stored elsewhere (a new scenario, a copy): nothing to lose before navigating away. */
  markSaved: (doc: ScenarioDocument) => void;
}

/**
 * The scenario as stored on the server, and whether the document being edited differs from it.
 *
 * Owns:
 * 1. loading the scenario `id` (GET /api/scenarios/{id}) into the edit history, with the drawing scale it needs;
 * 2. the scenario record last returned by the server (version, name, description);
 * 3. the saved document (canonical JSON) and the dirty flag computed against it.
 */
export function useScenarioSource(id: string | null, edits: EditHistory): ScenarioSource {
  const [item, setItem] = useState<ScenarioPublic | null>(null);
  const [loadErrors, setLoadErrors] = useState<string[]>([]);
  const [savedJson, setSavedJson] = useState<string | null>(id ? null : "");
  const [scale, setScale] = useState<number | null>(id ? null : NEW_SCALE);
  const { reset, replace } = edits;

  const adopt = useCallback(
    (s: ScenarioPublic) => {
      setItem(s);
      reset(s.scenario);
      setSavedJson(canonicalJson(s.scenario));
    },
    [reset],
  );
  const accept = useCallback(
    (s: ScenarioPublic) => {
      setItem(s);
      replace(s.scenario);
      setSavedJson(canonicalJson(s.scenario));
    },
    [replace],
  );

  useEffect(() => {
    if (!id) return;
    const ctl = new AbortController();
    api
      .getScenario(id, ctl.signal)
      .then((s) => {
        adopt(s);
        setScale(scaleFor(modelExtent(isGeoScenario(s.scenario) ? planarView(s.scenario, mercatorMetres) : s.scenario)));
      })
      .catch((err) => {
        if (!isAbort(err)) setLoadErrors(errorLines(err));
      });
    return () => ctl.abort();
  }, [id, adopt]);

  const { doc } = edits;
  const pastLength = edits.history.past.length;
  const dirty = useMemo(
    () => savedJson !== null && (savedJson === "" ? doc.nodes.length > 0 || pastLength > 0 : canonicalJson(doc) !== savedJson),
    [doc, savedJson, pastLength],
  );
  const dirtyRef = useRef(dirty);
  dirtyRef.current = dirty;

  const markSaved = useCallback((saved: ScenarioDocument) => {
    dirtyRef.current = false;
    setSavedJson(canonicalJson(saved));
  }, []);

  return { item, loadErrors, scale, dirty, dirtyRef, adopt, accept, markSaved };
}
