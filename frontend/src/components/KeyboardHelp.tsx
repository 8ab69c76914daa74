/**
 * The editor's keyboard shortcuts (one list, used by the key handler's documentation and the `?` overlay)
 * and the overlay itself: a modal dialog (focus moves in, Esc or Close leaves, focus returns).
 */
import { useEffect, useId, useRef } from "react";

/** Keys as shown (one row per action); the editor's key handler implements each. */
export const SHORTCUTS: readonly { keys: string[]; action: string }[] = [
  { keys: ["?"], action: "Show this list of shortcuts" },
  { keys: ["Esc"], action: "Stop the current tool (back to Select); close a dialog" },
  { keys: ["V"], action: "Select tool" },
  { keys: ["1", "…", "6"], action: "Add-node tools, in toolbar order (the tool stays on: click several times)" },
  { keys: ["N"], action: "Place a node of the active add-node tool beside the selected node (or at the topology's centre), without a pointer" },
  { keys: ["L"], action: "Draw links: click a node, then another (or, with a node selected, “Connect to” in its panel)" },
  { keys: ["Delete"], action: "Delete the selection (also Backspace)" },
  { keys: ["Ctrl", "C"], action: "Copy the selected nodes (and the links among them)" },
  { keys: ["Ctrl", "V"], action: "Paste the copy beside the original, with new ids" },
  { keys: ["Ctrl", "Z"], action: "Undo" },
  { keys: ["Ctrl", "Shift", "Z"], action: "Redo (also Ctrl+Y)" },
  { keys: ["Ctrl", "S"], action: "Save" },
];

export function KeyboardHelp({ onClose }: { onClose: () => void }) {
  const titleId = useId();
  const closeRef = useRef<HTMLButtonElement | null>(null);
  // the parent's onClose may change on every render: read it through a ref, set up once
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    closeRef.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        e.stopPropagation();
        onCloseRef.current();
      } else if (e.key === "Tab") {
        // one focusable element: keep focus in the dialog
        e.preventDefault();
        closeRef.current?.focus();
      }
    };
    window.addEventListener("keydown", onKey, true);
    return () => {
      window.removeEventListener("keydown", onKey, true);
      before?.focus?.();
    };
  }, []);
  return (
    <div className="modal-backdrop run-backdrop" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <section className="card modal shortcuts" role="dialog" aria-modal="true" aria-labelledby={titleId}>
        <h2 id={titleId}>Keyboard shortcuts</h2>
        <table className="compact" aria-labelledby={titleId}>
          <thead>
            <tr>
              <th scope="col">Keys</th>
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {SHORTCUTS.map((s) => (
              <tr key={s.action}>
                <td>
                  {s.keys.map((k, i) => (
                    <span key={i}>
                      {i && k !== "…" && s.keys[i - 1] !== "…" ? " + " : i ? " " : ""}
                      {k === "…" ? "…" : <kbd>{k}</kbd>}
                    </span>
                  ))}
                </td>
                <td>{s.action}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="muted small">Shortcuts work when no text field has the focus. On macOS, ⌘ works as Ctrl.</p>
        <div className="actions">
          <button type="button" className="btn btn-primary" ref={closeRef} onClick={onClose}>
            Close
          </button>
        </div>
      </section>
    </div>
  );
}
