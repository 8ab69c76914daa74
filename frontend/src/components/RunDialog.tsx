/**
 * The run panel: strategies (multi-select with short explanations, grouped by
 * family), engine (from the agent's capabilities), seed, repetitions and an
 * optional parameter sweep; submits a comparison and opens it.
 */
import { useEffect, useId, useMemo, useRef, useState } from "react";
import { useNavigate } from "react-router";
import { ApiError, api } from "../api/client";
import type { ComparisonRequest, EngineInfo, ScenarioDocument, StrategyInfo } from "../api/types";
import { parseNumberList, sweepParameters } from "../lib/editor";
import { parameterLabel, parameterScale, parameterUnit } from "../lib/parameters";
import { errorLines } from "../lib/errors";
import { useStrategies } from "../lib/useStrategies";
import { validationLines } from "../lib/fieldMessages";
import { ErrorList } from "./ErrorList";

const DEFAULT_STRATEGIES = ["sptcp", "mptcp"];

export function RunDialog({ scenarioId, doc, onClose }: { scenarioId: string; doc: ScenarioDocument; onClose: () => void }) {
  const navigate = useNavigate();
  const titleId = useId();
  const { strategies, error: strategiesError } = useStrategies();
  const [engines, setEngines] = useState<EngineInfo[]>([{ name: "fluid", available: null }]);
  const [chosen, setChosen] = useState<string[]>(DEFAULT_STRATEGIES);
  const [engine, setEngine] = useState("fluid");
  const [seed, setSeed] = useState("");
  const [repetitions, setRepetitions] = useState(1);
  const [sweepOn, setSweepOn] = useState(false);
  const params = useMemo(() => sweepParameters(doc), [doc]);
  const [parameter, setParameter] = useState(params[0] ?? "run.duration_s");
  const [values, setValues] = useState("");
  const [errors, setErrors] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const ctl = new AbortController();
    api
      .listEngines(ctl.signal)
      .then((list) => {
        setEngines(list);
        if (!list.some((e) => e.name === "fluid") && list[0]) setEngine(list[0].name);
      })
      .catch(() => undefined);
    return () => ctl.abort();
  }, []);

  useEffect(() => {
    if (strategiesError) setErrors(errorLines(strategiesError));
    else if (strategies) setChosen((c) => c.filter((name) => strategies.some((s) => s.name === name)));
  }, [strategies, strategiesError]);

  const families = useMemo(() => {
    const out = new Map<string, StrategyInfo[]>();
    for (const s of strategies ?? []) {
      const f = s.family || (s.multipath ? "multipath" : "single path");
      out.set(f, [...(out.get(f) ?? []), s]);
    }
    return [...out.entries()];
  }, [strategies]);

  const engineInfo = engines.find((e) => e.name === engine);
  const supported = (name: string) => !engineInfo?.strategies?.length || engineInfo.strategies.includes(name);
  const sweepValues = sweepOn ? parseNumberList(values) : null;
  const seedValue = seed.trim() === "" ? null : Number(seed);
  const seedOk = seedValue === null || (Number.isSafeInteger(seedValue) && seedValue >= 0);
  const canRun = !busy && chosen.length > 0 && strategies !== null && seedOk && (!sweepOn || sweepValues !== null) && repetitions >= 1;

  const toggle = (name: string, on: boolean) => setChosen((c) => (on ? [...c.filter((x) => x !== name), name] : c.filter((x) => x !== name)));

  const run = async () => {
    setBusy(true);
    setErrors([]);
    try {
      const ordered = (strategies ?? []).map((s) => s.name).filter((n) => chosen.includes(n));
      const body: Partial<ComparisonRequest> = { strategies: ordered, engine, seed: seedValue };
      // only what differs from the defaults, so older servers accept the request
      if (repetitions !== 1) body.repetitions = repetitions;
      // typed in the parameter's displayed unit (a loss in %), sent as the model stores it (a fraction)
      if (sweepOn && sweepValues) body.sweep = { parameter, values: sweepValues.map((v) => Number((v / parameterScale(parameter)).toPrecision(12))) };
      const c = await api.startComparison(scenarioId, body);
      navigate(`/scenarios/${encodeURIComponent(scenarioId)}/comparisons/${encodeURIComponent(String(c.id))}`);
    } catch (err) {
      // 422: named and 1-based ("sweep › value 2: …"), in the field's unit
      setErrors(err instanceof ApiError && err.validation ? validationLines(doc, err.validation) : errorLines(err));
      setBusy(false);
    }
  };

  // a modal over the editor (the editor does not move): focus inside, Esc closes
  const headingRef = useRef<HTMLHeadingElement | null>(null);
  // focus moves into the dialog once and returns where it was (the Compare button) when it closes
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    headingRef.current?.focus();
    return () => before?.focus?.();
  }, []);
  // Esc closes (read through refs: the parent's onClose may change on every render)
  const closeRef = useRef(onClose);
  closeRef.current = onClose;
  const busyRef = useRef(busy);
  busyRef.current = busy;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" && !busyRef.current) {
        e.stopPropagation();
        closeRef.current();
      }
    };
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, []);

  return (
    <div className="modal-backdrop run-backdrop" onClick={(e) => e.target === e.currentTarget && !busy && onClose()}>
    <section className="card picker run-modal" role="dialog" aria-modal="true" aria-labelledby={titleId}>
      <h2 id={titleId} ref={headingRef} tabIndex={-1}>
        Compare strategies
      </h2>
      <p className="muted">Each selected strategy runs on the saved scenario.</p>
      {strategies === null && !errors.length ? <p className="muted">Loading strategies…</p> : null}
      {families.map(([family, list]) => (
        <fieldset key={family} className="strategy-options">
          <legend>{family}</legend>
          {list.map((s) => (
            <label key={s.name} className={`strategy-option${supported(s.name) ? "" : " disabled"}`}>
              <input
                type="checkbox"
                checked={chosen.includes(s.name)}
                disabled={!supported(s.name)}
                onChange={(e) => toggle(s.name, e.currentTarget.checked)}
                aria-labelledby={`${titleId}-${s.name}`}
                aria-describedby={`${titleId}-${s.name}-desc`}
              />
              <span>
                <span id={`${titleId}-${s.name}`} className="strategy-name">
                  {s.name}
                </span>
                {s.multipath ? <span className="badge badge-soft">multipath</span> : null}
                <span id={`${titleId}-${s.name}-desc`} className="strategy-desc">
                  {s.description}
                  {s.source ? <span className="muted small"> — {s.source}</span> : null}
                </span>
              </span>
            </label>
          ))}
        </fieldset>
      ))}
      <div className="run-options">
        <div className="field">
          <label htmlFor={`${titleId}-engine`}>Engine</label>
          <select id={`${titleId}-engine`} value={engine} onChange={(e) => setEngine(e.currentTarget.value)}>
            {engines.map((e) => (
              <option key={e.name} value={e.name} disabled={e.available === false}>
                {e.name}
                {e.available === false ? " (unavailable)" : ""}
              </option>
            ))}
          </select>
          {engineInfo?.description ? <p className="field-hint">{engineInfo.description}</p> : null}
        </div>
        <div className="field">
          <label htmlFor={`${titleId}-seed`}>Seed</label>
          <input id={`${titleId}-seed`} type="number" min={0} step={1} value={seed} placeholder={`scenario's (${doc.run?.seed ?? 1})`} onChange={(e) => setSeed(e.currentTarget.value)} aria-invalid={seedOk ? undefined : true} />
        </div>
        <div className="field">
          <label htmlFor={`${titleId}-reps`}>Repetitions</label>
          <input id={`${titleId}-reps`} type="number" min={1} max={100} step={1} value={repetitions} onChange={(e) => setRepetitions(Math.max(1, Math.round(Number(e.currentTarget.value) || 1)))} />
          <p className="field-hint">Seeds seed, seed + 1, …; results add mean ± 95 % CI.</p>
        </div>
      </div>
      <fieldset className="sweep">
        <legend>
          <label>
            <input type="checkbox" checked={sweepOn} onChange={(e) => setSweepOn(e.currentTarget.checked)} /> Sweep a parameter
          </label>
        </legend>
        {sweepOn ? (
          <div className="run-options">
            <div className="field">
              <label htmlFor={`${titleId}-param`}>Parameter</label>
              <select id={`${titleId}-param`} value={parameter} onChange={(e) => setParameter(e.currentTarget.value)}>
                {params.map((p) => (
                  <option key={p} value={p}>
                    {parameterLabel(doc, p)}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor={`${titleId}-values`}>Values{parameterUnit(parameter) ? ` (${parameterUnit(parameter)})` : ""}</label>
              <input id={`${titleId}-values`} type="text" value={values} placeholder="e.g. 100, 200, 300" onChange={(e) => setValues(e.currentTarget.value)} aria-invalid={values && !sweepValues ? true : undefined} />
              <p className="field-hint">Numbers separated by commas, in the parameter's unit.</p>
            </div>
          </div>
        ) : null}
      </fieldset>
      <ErrorList title="The comparison was not started:" items={errors} />
      <div className="actions">
        <button type="button" className="btn" onClick={onClose} disabled={busy}>
          Cancel
        </button>
        <button type="button" className="btn btn-primary" onClick={run} disabled={!canRun}>
          {busy ? "Starting…" : "Run"}
        </button>
      </div>
    </section>
    </div>
  );
}
