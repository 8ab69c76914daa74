import { useEffect, useRef, useState } from "react";
import { NODE_KINDS } from "../../api/types";
import type { Tool } from "../../components/TopologyGraph";

export interface ShortcutActions {
  save: () => void;
  undo: () => void;
  redo: () => void;
  /** Removes the selection; false when nothing was selected (the key is then left to the browser). */
  deleteSelection: () => boolean;
  setTool: (t: Tool) => void;
  /** Places a node of the active add-node tool from the keyboard (N); nothing when no add-node tool is on. */
  placeNode: () => void;
  /** Copies the selected nodes (and the links among them); false when no node is selected. */
  copy?: () => boolean;
  /** Pastes the last copy, shifted, and selects it. */
  paste?: () => void;
}

function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  const tag = el.tagName;
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable;
}

/**
 * The editor's keyboard, as listed in KeyboardHelp's SHORTCUTS.
 *
 * Owns:
 * 1. one `keydown` listener on the window for the editor's lifetime, calling the latest `actions`:
 *    Ctrl+S (anywhere, text fields included), then, outside text fields, Delete / Backspace,
 *    Ctrl+Z, Ctrl+Shift+Z / Ctrl+Y, Ctrl+C / Ctrl+V (nodes), Escape, V / L / 1–6 (tools), N (place a node of the tool) and ? (help);
 * 2. whether the shortcuts dialog is open.
 */
export function useEditorShortcuts(actions: ShortcutActions): { helpOpen: boolean; setHelpOpen: (open: boolean) => void } {
  const [helpOpen, setHelpOpen] = useState(false);
  const actionsRef = useRef(actions);
  actionsRef.current = actions;

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const a = actionsRef.current;
      const mod = e.ctrlKey || e.metaKey;
      if (mod && !e.shiftKey && !e.altKey && (e.key === "s" || e.key === "S")) {
        // save from anywhere, text fields included (the browser's "save page" is never wanted here)
        e.preventDefault();
        a.save();
        return;
      }
      if (isTyping(e.target)) return;
      if (e.key === "?" && !mod) {
        e.preventDefault();
        setHelpOpen(true);
        return;
      }
      if (!mod && !e.altKey && (e.key === "v" || e.key === "V")) {
        a.setTool({ name: "select" });
        return;
      }
      if (!mod && !e.altKey && (e.key === "l" || e.key === "L")) {
        a.setTool({ name: "link" });
        return;
      }
      if (!mod && !e.altKey && (e.key === "n" || e.key === "N")) {
        a.placeNode();
        return;
      }
      const digit = !mod && !e.altKey ? Number(e.key) : NaN;
      if (Number.isInteger(digit) && digit >= 1 && digit <= NODE_KINDS.length) {
        a.setTool({ name: "add", kind: NODE_KINDS[digit - 1]! });
        return;
      }
      if ((e.key === "Delete" || e.key === "Backspace") && !mod) {
        if (a.deleteSelection()) e.preventDefault();
      } else if (mod && (e.key === "z" || e.key === "Z") && !e.shiftKey) {
        e.preventDefault();
        a.undo();
      } else if (mod && (e.key === "y" || ((e.key === "z" || e.key === "Z") && e.shiftKey))) {
        e.preventDefault();
        a.redo();
      } else if (mod && !e.shiftKey && (e.key === "c" || e.key === "C")) {
        if (a.copy?.()) e.preventDefault();
      } else if (mod && !e.shiftKey && (e.key === "v" || e.key === "V")) {
        e.preventDefault();
        a.paste?.();
      } else if (e.key === "Escape") {
        a.setTool({ name: "select" });
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  return { helpOpen, setHelpOpen };
}
