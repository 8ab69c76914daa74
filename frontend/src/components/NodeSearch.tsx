/** Find a node by its label (or id) and select it; the canvas brings a selected node into view. */
import { useId, useMemo, useState } from "react";
import type { ScenarioDocument } from "../api/types";
import { nodeChoices } from "../lib/topology";

export function NodeSearch({ doc, onPick }: { doc: ScenarioDocument; onPick: (nodeId: string) => void }) {
  const id = useId();
  const [text, setText] = useState("");
  const choices = useMemo(() => nodeChoices(doc), [doc]);
  const [miss, setMiss] = useState(false);
  const pick = (value: string) => {
    const v = value.trim().toLowerCase();
    if (!v) return;
    // the whole "Label (id)", then the label alone, then the id, then any name containing the text
    const hit =
      choices.find((c) => c.text.toLowerCase() === v) ??
      choices.find((c) => c.text.toLowerCase().startsWith(`${v} (`)) ??
      choices.find((c) => c.id.toLowerCase() === v) ??
      choices.find((c) => c.text.toLowerCase().includes(v));
    setMiss(!hit);
    if (hit) onPick(hit.id);
  };
  return (
    <form
      className="node-search"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        pick(text);
      }}
    >
      <label htmlFor={id} className="visually-hidden">
        Find a node by label
      </label>
      <input
        id={id}
        type="search"
        list={`${id}-list`}
        placeholder="Find node…"
        value={text}
        aria-invalid={miss ? true : undefined}
        onChange={(e) => {
          const v = e.currentTarget.value;
          setText(v);
          setMiss(false);
          // a choice taken from the list selects at once
          if (choices.some((c) => c.text === v)) pick(v);
        }}
      />
      <datalist id={`${id}-list`}>
        {choices.map((c) => (
          <option key={c.id} value={c.text} />
        ))}
      </datalist>
      {miss ? <span className="field-error small">No node “{text}”</span> : null}
    </form>
  );
}
