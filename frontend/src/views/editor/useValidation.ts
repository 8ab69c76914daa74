import { useCallback, useEffect, useMemo, useState } from "react";
import { api } from "../../api/client";
import type { ScenarioDocument, ScenarioPublic, ScenarioWarning, ValidationErrorItem } from "../../api/types";
import { fieldErrorKey, humanFieldErrors, liveErrors, validationLines } from "../../lib/fieldMessages";

/** The server's field errors (path → message in the user's units) and the document it refused. */
interface Refusal {
  errors: Record<string, string>;
  detail: ValidationErrorItem[];
  doc: ScenarioDocument;
}

export interface Validation {
  /** Field path → message, for the fields whose value is still the refused one. */
  errors: Record<string, string>;
  /** The refusal's lines for the banner, limited to the errors still standing. */
  banner: string[];
  /** Warnings about the saved version (POST /api/scenario-checks): shown, never blocking. */
  warnings: ScenarioWarning[];
  /** A 422 on save: keep its errors against the refused document; returns them (path → message). */
  refuse: (detail: readonly ValidationErrorItem[], doc: ScenarioDocument) => Record<string, string>;
  /** A save went through: no field errors. */
  clear: () => void;
}

const detailPath = (d: ValidationErrorItem) => fieldErrorKey(d);

/**
 * What the server said about the document.
 *
 * Owns:
 * 1. the field errors of the last refused save, each dropped as soon as its field's value changes in `doc`;
 * 2. the banner lines of the errors still standing;
 * 3. the warnings about the saved version `item`, read again whenever the server returns a new one.
 */
export function useValidation(id: string | null, item: ScenarioPublic | null, doc: ScenarioDocument): Validation {
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [warnings, setWarnings] = useState<ScenarioWarning[]>([]);

  const errors = useMemo(() => (refusal ? liveErrors(refusal.errors, refusal.doc, doc) : {}), [refusal, doc]);
  const banner = useMemo(() => {
    if (!refusal) return [];
    const live = new Set(Object.keys(errors));
    return validationLines(refusal.doc, refusal.detail.filter((d) => live.has(detailPath(d))));
  }, [refusal, errors]);

  useEffect(() => {
    if (!id || !item) return;
    const ctl = new AbortController();
    api
      .scenarioChecks(item.scenario, ctl.signal)
      .then((r) => setWarnings(r.warnings))
      .catch(() => setWarnings([]));
    return () => ctl.abort();
  }, [id, item]);

  const refuse = useCallback((detail: readonly ValidationErrorItem[], refused: ScenarioDocument) => {
    const fe = humanFieldErrors(detail);
    setRefusal({ errors: fe, detail: [...detail], doc: refused });
    return fe;
  }, []);
  const clear = useCallback(() => setRefusal(null), []);

  return { errors, banner, warnings, refuse, clear };
}
