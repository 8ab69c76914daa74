/**
 * Inputs of a two-line element set: one line (checked as the server checks it before it is stored; pasting both
 * lines fills both) and a file picker reading a `.tle` / `.txt` file of 2 or 3 lines.
 */
import { useEffect, useId, useState } from "react";
import { parseTleFile, tleLineProblem, type TleFile, type TleLineNumber } from "../lib/satcomEditor";
import { useUnstoredReport } from "./unstoredFields";

export function TleLineField({ n, value, error: serverError, onChange, onBoth }: { n: TleLineNumber; value: string; error?: string; onChange: (v: string) => void; onBoth: (line1: string, line2: string) => void }) {
  const id = useId();
  const [text, setText] = useState(value);
  const [local, setLocal] = useState<string | null>(null);
  useEffect(() => {
    setText(value);
    setLocal(null);
  }, [value]);
  const label = `TLE line ${n}`;
  useUnstoredReport(id, local ? { label, problem: local, text } : null);
  const error = local ?? serverError;
  const commit = (raw: string) => {
    if (/\n/.test(raw.trim())) {
      // both lines pasted at once (or a three-line set)
      try {
        const f = parseTleFile(raw);
        setLocal(null);
        onBoth(f.line1, f.line2);
        return;
      } catch {
        // checked as one line below
      }
    }
    const t = raw.replace(/[\r\n]+/g, "").replace(/\s+$/, "");
    setText(t);
    const problem = tleLineProblem(t, n);
    setLocal(problem);
    if (!problem) onChange(t);
  };
  return (
    <div className={`field field-wide${error ? " field-invalid" : ""}`}>
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        className="tle-line"
        rows={2}
        spellCheck={false}
        value={text}
        placeholder={n === 1 ? "1 25544U 98067A   …" : "2 25544  51.6416 …"}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-err` : `${id}-hint`}
        onChange={(e) => commit(e.currentTarget.value)}
      />
      {error ? (
        <p id={`${id}-err`} className="field-error">
          {label}: {error}
        </p>
      ) : (
        <p id={`${id}-hint`} className="field-hint">
          69 characters; column 69 is the checksum.
        </p>
      )}
    </div>
  );
}

/** Reads the first element set of a chosen file (2 lines, or a name and 2 lines); a refused file is named with why. */
export function TleFilePicker({ onLines }: { onLines: (f: TleFile) => void }) {
  const id = useId();
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <div className="field field-wide">
      <label htmlFor={id}>TLE from a file (.tle, .txt)</label>
      <input
        id={id}
        type="file"
        accept=".tle,.txt,text/plain"
        aria-describedby={problem ? `${id}-err` : undefined}
        onChange={async (e) => {
          const input = e.currentTarget;
          const file = input.files?.[0];
          if (!file) return;
          try {
            const f = parseTleFile(await file.text());
            const bad = tleLineProblem(f.line1, 1) ?? tleLineProblem(f.line2, 2);
            if (bad) throw new Error(bad);
            setProblem(null);
            onLines(f);
          } catch (err) {
            setProblem(`${file.name}: ${err instanceof Error ? err.message : String(err)}`);
          } finally {
            input.value = "";
          }
        }}
      />
      {problem ? (
        <p id={`${id}-err`} className="field-error">
          {problem}
        </p>
      ) : null}
    </div>
  );
}
