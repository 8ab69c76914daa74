/**
 * Values typed into the editor's fields that were refused (out of bounds) and so not stored: while one is
 * shown, the document behind it still holds the old value, so saving is refused naming the field.
 *
 * Owns:
 * 1. the registry of refused values of the mounted fields (`UnstoredFieldsProvider`, `useUnstoredReport`);
 * 2. the lines a refused save shows (`unstoredProblems`).
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";

export interface Unstored {
  label: string;
  problem: string;
  text: string;
}

interface Registry {
  report: (key: string, value: Unstored | null) => void;
  current: () => Unstored[];
}

const Ctx = createContext<Registry | null>(null);

export function UnstoredFieldsProvider({ children, onChange }: { children: ReactNode; onChange?: (n: number) => void }) {
  const map = useRef(new Map<string, Unstored>());
  const [, bump] = useState(0);
  const report = useCallback(
    (key: string, value: Unstored | null) => {
      const had = map.current.has(key);
      if (value) map.current.set(key, value);
      else map.current.delete(key);
      if (had !== !!value || value) {
        bump((n) => n + 1);
        onChange?.(map.current.size);
      }
    },
    [onChange],
  );
  const registry = useMemo(() => ({ report, current: () => [...map.current.values()] }), [report]);
  return <Ctx.Provider value={registry}>{children}</Ctx.Provider>;
}

/** The registry's reader (null outside a provider): the refused values shown now. */
export function useUnstoredFields(): (() => Unstored[]) | null {
  return useContext(Ctx)?.current ?? null;
}

/** Called by a field: reports its refused value (or null) while it is mounted. */
export function useUnstoredReport(key: string, value: Unstored | null): void {
  const registry = useContext(Ctx);
  const label = value?.label;
  const problem = value?.problem;
  const text = value?.text;
  useEffect(() => {
    if (!registry) return;
    registry.report(key, label !== undefined && problem !== undefined ? { label, problem, text: text ?? "" } : null);
  }, [registry, key, label, problem, text]);
  useEffect(() => () => registry?.report(key, null), [registry, key]);
}

/** "Loss (%): 150 must be < 100 % — not stored", one line per refused value. */
export function unstoredProblems(items: readonly Unstored[]): string[] {
  if (!items.length) return [];
  return [
    `${items.length === 1 ? "A field holds a value" : `${items.length} fields hold values`} that ${items.length === 1 ? "was" : "were"} not stored (fix or undo ${items.length === 1 ? "it" : "them"} first):`,
    ...items.map((u) => `${u.label}: ${u.text} ${u.problem}`),
  ];
}
