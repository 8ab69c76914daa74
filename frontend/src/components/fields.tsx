/**
 * Form fields of the editor: a label with its unit, the input, and the server's
 * validation message for that field right below it (linked with
 * aria-describedby, and aria-invalid set).
 */
import { useEffect, useId, useState, type ReactNode } from "react";
import { rangeProblem } from "../lib/fieldMessages";
import { scaled, schemaBounds } from "../lib/schemaBounds";
import { useUnstoredReport } from "./unstoredFields";

function FieldError({ id, error }: { id: string; error?: string }) {
  if (!error) return null;
  return (
    <p id={id} className="field-error">
      {error}
    </p>
  );
}

/** Text of a number for an input: no float noise (0.15 × 100 → "15", not "15.000000000000002"). */
export function numberText(v: number | null | undefined, factor = 1): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return "";
  return String(Number((v * factor).toPrecision(12)));
}

export interface NumberFieldProps {
  label: string;
  /** shown in the label: "Loss (%)" */
  unit?: string;
  value: number | null | undefined;
  /** null when the input is emptied (only if `optional`) */
  onChange: (v: number | null) => void;
  /** displayed value = stored value × factor (e.g. 100 for a loss fraction shown in %) */
  factor?: number;
  optional?: boolean;
  placeholder?: string;
  step?: number | "any";
  /** the backend model's property whose bounds apply (`["Link", "bandwidth_mbps"]`, from the OpenAPI document,
   *  scaled by `factor`); explicit `min` / `max` take precedence */
  schema?: readonly [string, string];
  /** lowest value accepted, in displayed units (checked before storing); `minExclusive`: the bound itself is refused */
  min?: number;
  minExclusive?: boolean;
  /** highest value accepted, in displayed units; `maxExclusive`: the bound itself is refused (a loss < 100 %) */
  max?: number;
  maxExclusive?: boolean;
  error?: string;
  hint?: string;
  integer?: boolean;
  disabled?: boolean;
}

export function NumberField({
  label,
  unit,
  value,
  onChange,
  factor = 1,
  optional = false,
  placeholder,
  step = "any",
  schema,
  min: minProp,
  minExclusive: minExclusiveProp,
  max: maxProp,
  maxExclusive: maxExclusiveProp,
  error: serverError,
  hint,
  integer = false,
  disabled,
}: NumberFieldProps) {
  const id = useId();
  const fromSchema = schema ? scaled(schemaBounds(schema[0], schema[1]), factor) : {};
  const min = minProp ?? fromSchema.min;
  const minExclusive = minProp !== undefined ? minExclusiveProp : fromSchema.minExclusive;
  const max = maxProp ?? fromSchema.max;
  const maxExclusive = maxProp !== undefined ? maxExclusiveProp : fromSchema.maxExclusive;
  const [text, setText] = useState(numberText(value, factor));
  /** a typed value outside [min, max]: shown, not stored */
  const [local, setLocal] = useState<string | null>(null);
  const error = local ?? serverError;
  // follow outside changes (undo, drag) unless the text already means this value
  useEffect(() => {
    const parsed = text.trim() === "" ? null : Number(text) / factor;
    const current = value ?? null;
    if (parsed === null ? current !== null : current === null || Math.abs(parsed - current) > 1e-12 * Math.max(1, Math.abs(current))) {
      // an outside change (undo, drag): it replaces a refused value too
      setText(numberText(value, factor));
      setLocal(null);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [value, factor]);
  const commit = (t: string) => {
    setText(t);
    if (t.trim() === "") {
      if (optional) onChange(null);
      return;
    }
    const n = Number(t);
    if (!Number.isFinite(n)) return;
    const problem = min !== undefined || max !== undefined ? rangeProblem(n, { min, minExclusive, max, maxExclusive }, unit) : null;
    setLocal(problem);
    if (problem) return;
    const v = n / factor;
    onChange(integer ? Math.round(v) : Number(v.toPrecision(12)));
  };
  const fullLabel = unit ? `${label} (${unit})` : label;
  useUnstoredReport(id, local ? { label: fullLabel, problem: local, text } : null);
  const describedBy = [error ? `${id}-err` : "", hint ? `${id}-hint` : ""].filter(Boolean).join(" ") || undefined;
  return (
    <div className={`field${error ? " field-invalid" : ""}`}>
      <label htmlFor={id}>{fullLabel}</label>
      <input
        id={id}
        type="number"
        inputMode="decimal"
        step={step}
        min={min}
        value={text}
        placeholder={placeholder}
        disabled={disabled}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        onChange={(e) => commit(e.currentTarget.value)}
      />
      {hint ? (
        <p id={`${id}-hint`} className="field-hint">
          {hint}
        </p>
      ) : null}
      <FieldError id={`${id}-err`} error={error} />
    </div>
  );
}

export interface TextFieldProps {
  label: string;
  value: string;
  onChange: (v: string) => void;
  error?: string;
  multiline?: boolean;
  placeholder?: string;
  /** commit only on blur / Enter (ids: renaming on every keystroke would be noisy) */
  commitOnBlur?: boolean;
  /** passed to the input as is (forms that the browser checks before submit) */
  required?: boolean;
  maxLength?: number;
  autoComplete?: string;
  /** "password" hides what is typed */
  type?: "text" | "password";
}

export function TextField({ label, value, onChange, error, multiline, placeholder, commitOnBlur, required, maxLength, autoComplete, type = "text" }: TextFieldProps) {
  const id = useId();
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  const common = {
    id,
    value: text,
    placeholder,
    required,
    maxLength,
    autoComplete,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": error ? `${id}-err` : undefined,
  };
  return (
    <div className={`field${error ? " field-invalid" : ""}`}>
      <label htmlFor={id}>{label}</label>
      {multiline ? (
        <textarea
          {...common}
          rows={3}
          onChange={(e) => {
            setText(e.currentTarget.value);
            if (!commitOnBlur) onChange(e.currentTarget.value);
          }}
          onBlur={() => commitOnBlur && text !== value && onChange(text)}
        />
      ) : (
        <input
          {...common}
          type={type}
          onChange={(e) => {
            setText(e.currentTarget.value);
            if (!commitOnBlur) onChange(e.currentTarget.value);
          }}
          onBlur={() => commitOnBlur && text !== value && onChange(text)}
          onKeyDown={(e) => {
            if (commitOnBlur && e.key === "Enter" && text !== value) onChange(text);
          }}
        />
      )}
      <FieldError id={`${id}-err`} error={error} />
    </div>
  );
}

export interface SelectFieldProps<T extends string> {
  label: string;
  value: T;
  options: readonly { value: T; label: string }[];
  onChange: (v: T) => void;
  error?: string;
  children?: ReactNode;
}

export function SelectField<T extends string>({ label, value, options, onChange, error }: SelectFieldProps<T>) {
  const id = useId();
  return (
    <div className={`field${error ? " field-invalid" : ""}`}>
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        value={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-err` : undefined}
        onChange={(e) => onChange(e.currentTarget.value as T)}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <FieldError id={`${id}-err`} error={error} />
    </div>
  );
}

/** A yes/no field (a checkbox with its label). */
export function CheckboxField({ label, value, onChange, error }: { label: string; value: boolean; onChange: (v: boolean) => void; error?: string }) {
  const id = useId();
  return (
    <div className={`field field-check${error ? " field-invalid" : ""}`}>
      <label htmlFor={id}>
        <input
          id={id}
          type="checkbox"
          checked={value}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-err` : undefined}
          onChange={(e) => onChange(e.currentTarget.checked)}
        />{" "}
        {label}
      </label>
      <FieldError id={`${id}-err`} error={error} />
    </div>
  );
}

/** An error under a table cell. */
export function CellError({ text }: { text?: string }) {
  return text ? <span className="field-error">{text}</span> : null;
}

/** A number input in a table cell, committed on blur or Enter; empty means null. */
export function CellNumber({
  label,
  value,
  error,
  onChange,
  disabled,
  placeholder,
  integer,
}: {
  label: string;
  value: number | null | undefined;
  error?: string;
  onChange: (v: number | null) => void;
  disabled?: boolean;
  placeholder?: string;
  integer?: boolean;
}) {
  const text = numberText(value);
  return (
    <>
      <input
        type="number"
        step="any"
        aria-label={label}
        aria-invalid={error ? true : undefined}
        defaultValue={text}
        key={text}
        disabled={disabled}
        placeholder={placeholder}
        onBlur={(e) => {
          const t = e.currentTarget.value.trim();
          if (t === text) return;
          if (t === "") onChange(null);
          else if (Number.isFinite(Number(t))) onChange(integer ? Math.round(Number(t)) : Number(t));
        }}
        onKeyDown={(e) => {
          if (e.key === "Enter") (e.currentTarget as HTMLInputElement).blur();
        }}
      />
      <CellError text={error} />
    </>
  );
}
