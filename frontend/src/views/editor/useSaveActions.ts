import { useCallback, useState } from "react";
import { ApiError, api } from "../../api/client";
import type { ScenarioDocument, ScenarioPublic } from "../../api/types";
import type { Selection } from "../../components/TopologyGraph";
import { errorTarget } from "../../lib/editor";
import { errorLines } from "../../lib/errors";
import type { ScenarioSource } from "./useScenarioSource";
import type { Validation } from "./useValidation";
import { unstoredProblems, type Unstored } from "../../components/unstoredFields";

export interface SaveDeps {
  id: string | null;
  doc: ScenarioDocument;
  source: Pick<ScenarioSource, "item" | "adopt" | "accept" | "markSaved">;
  validation: Pick<Validation, "refuse" | "clear">;
  setSelection: (sel: Selection) => void;
  navigate: (to: string, opts?: { replace?: boolean }) => void;
  /** the refused values the fields show now (`useUnstoredFields`): saving is refused while there is one */
  unstored?: (() => Unstored[]) | null;
}

/** The element named by a field path (`nodes.2.range_m`), as a selection; null for anything else. */
function selectionAt(doc: ScenarioDocument, path: string): Selection | null {
  const target = errorTarget(doc, path);
  if (target.kind === "node" && target.id) return { nodes: [target.id], links: [] };
  if (target.kind === "link" && target.id) return { nodes: [], links: [target.id] };
  return null;
}

/**
 * Storing the document and the other ways a new version comes from the server.
 *
 * Owns:
 * 1. save (POST for a new scenario, then its own page; PUT with the loaded version otherwise) and whether one is under way;
 * 2. no save while a field shows a value it refused (the document still holds the old one); what a refused save leads to: a conflict (412) with reload / save-as-copy, field errors with the first
 *    element in trouble selected (422), or the error's lines;
 * 3. restoring an old version, reloading after a conflict, and taking in a version made by a track import;
 * 4. the success note ("Saved version 3.") and the problem lines shown under the header.
 */
export function useSaveActions({ id, doc, source, validation, setSelection, navigate, unstored }: SaveDeps) {
  const [saving, setSaving] = useState(false);
  const [conflict, setConflict] = useState(false);
  const [savedNote, setSavedNote] = useState<string | null>(null);
  const [problems, setProblems] = useState<string[]>([]);
  /** why the last Save was refused here (a field shows a value it did not store); gone with the next edit */
  const [refused, setRefused] = useState<string[]>([]);
  const { item, adopt, accept, markSaved } = source;

  const save = async () => {
    if (saving) return;
    const lines = unstoredProblems(unstored?.() ?? []);
    setRefused(lines);
    if (lines.length) {
      setSavedNote(null);
      return;
    }
    setSaving(true);
    setProblems([]);
    setSavedNote(null);
    try {
      const saved = id && item ? await api.updateScenario(id, doc, item.version) : await api.createScenario(doc);
      validation.clear();
      if (!id) {
        markSaved(doc);
        navigate(`/scenarios/${encodeURIComponent(String(saved.id))}`, { replace: true });
        return;
      }
      accept(saved);
      setSavedNote(`Saved version ${saved.version}.`);
    } catch (err) {
      if (err instanceof ApiError && err.status === 412) {
        setConflict(true);
        setProblems([`Someone else saved this scenario after you opened it. ${err.message}`]);
      } else if (err instanceof ApiError && err.validation) {
        // show the first element with a problem in the side panel
        const first = Object.keys(validation.refuse(err.validation, doc))[0];
        const sel = first ? selectionAt(doc, first) : null;
        if (sel) setSelection(sel);
      } else setProblems(errorLines(err));
    } finally {
      setSaving(false);
    }
  };

  /** Conflict: drop the edits and load the version saved meanwhile. */
  const reloadSaved = async () => {
    if (!id) return;
    try {
      const s = await api.getScenario(id);
      adopt(s);
      setConflict(false);
      setProblems([]);
      setSavedNote(`Reloaded version ${s.version}.`);
    } catch (err) {
      setProblems(errorLines(err));
    }
  };

  /** Conflict: keep the edits as a new scenario (a fork of the edited document). */
  const saveAsCopy = async () => {
    try {
      const copy = await api.createScenario({ ...doc, name: `${doc.name} (copy ${new Date().toISOString().slice(0, 19)})` });
      markSaved(doc);
      setConflict(false);
      navigate(`/scenarios/${encodeURIComponent(String(copy.id))}`);
    } catch (err) {
      setProblems(errorLines(err));
    }
  };

  /** Make an old version current again (a new version; nothing is lost). */
  const restore = async (version: number) => {
    if (!id) return;
    setProblems([]);
    try {
      const s = await api.restoreVersion(id, version);
      adopt(s);
      setConflict(false);
      setSavedNote(`Restored version ${version} as version ${s.version}.`);
    } catch (err) {
      setProblems(errorLines(err));
    }
  };

  /** A track imported for a node (a new version stored by the server): show it. */
  const onTrackImported = useCallback(
    (s: ScenarioPublic) => {
      adopt(s);
      setSavedNote(`Track imported: version ${s.version}.`);
    },
    [adopt],
  );

  /** An edit makes the success note stale. */
  const clearNote = useCallback(() => {
    setSavedNote(null);
    setRefused([]);
  }, []);

  return { saving, conflict, savedNote, problems: refused.length ? [...refused, ...problems] : problems, setProblems, save, reloadSaved, saveAsCopy, restore, onTrackImported, clearNote };
}
