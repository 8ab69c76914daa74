/**
 * The what-if page's state, one owner per concern (the sections in this folder only draw):
 * the scenario ({@link useAnalysisScenario}), the failure analysis ({@link useFailureAnalysis}),
 * a comparison started here and followed over its event stream ({@link useFollowedComparison}:
 * the simulated link failures and the 2-D sweep), the capacity search's worker job
 * ({@link useCapacitySearch}) and a form's text fields ({@link useFields}).
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { analysisApi, type CapacityRequest, type CapacityResult, type FailureRequest, type FailureReport, type JobPublic } from "../../api/analysis";
import { followProgress, progressOf } from "../../api/progress";
import { api, ApiError, isAbort } from "../../api/client";
import type { ComparisonPublic, ComparisonRequest, ProgressEvent, ScenarioPublic, ValidationErrorItem } from "../../api/types";
import { errorLines } from "../../lib/errors";

/** The scenario analysed: one GET; the lines to show when it cannot be read. */
export function useAnalysisScenario(id: string) {
  const [item, setItem] = useState<ScenarioPublic | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  useEffect(() => {
    const ctl = new AbortController();
    api.getScenario(id, ctl.signal).then(setItem).catch((err) => {
      if (!isAbort(err)) setErrors(errorLines(err));
    });
    return () => ctl.abort();
  }, [id]);
  return { item, errors };
}

/**
 * Single failures re-planned: the request in flight, its report (worst first), the selected case
 * (the first after every new report) and why it was refused.
 */
export function useFailureAnalysis(scenarioId: string) {
  const [report, setReport] = useState<FailureReport | null>(null);
  const [selected, setSelected] = useState(0);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<string[]>([]);
  const run = async (request: FailureRequest) => {
    setBusy(true);
    setErrors([]);
    try {
      setReport(await analysisApi.failures(scenarioId, request));
      setSelected(0);
    } catch (err) {
      setErrors(errorLines(err));
    } finally {
      setBusy(false);
    }
  };
  return { report, selected, setSelected, chosen: report?.cases[selected] ?? null, busy, errors, run };
}

/**
 * A comparison started from this page: its progress over the event stream (closed when it ends or
 * the page is left), the finished comparison read once it succeeded, and the lines to show when it
 * was refused, failed (`what` names it: "the simulation", "the sweep") or the stream was lost.
 */
export function useFollowedComparison(scenarioId: string, what: string) {
  const [live, setLive] = useState<ProgressEvent | null>(null);
  const [comparison, setComparison] = useState<ComparisonPublic | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const stop = useRef<(() => void) | null>(null);
  useEffect(() => () => stop.current?.(), []);
  const start = useCallback(
    async (body: Partial<ComparisonRequest>) => {
      setErrors([]);
      setComparison(null);
      try {
        const c = await api.startComparison(scenarioId, body);
        setLive(progressOf(c));
        stop.current = followProgress<ProgressEvent>(
          api.comparisonEventsUrl(scenarioId, String(c.id)),
          setLive,
          async (last) => {
            if (last.status !== "succeeded") {
              setErrors([last.error ?? `${what} ${last.status}`]);
              return;
            }
            setComparison(await api.getComparison(scenarioId, String(c.id)));
          },
          () => setErrors(["Lost the progress stream; open the comparison from the scenario page."]),
        );
      } catch (err) {
        setErrors(errorLines(err));
      }
    },
    [scenarioId, what],
  );
  const running = live !== null && (live.status === "queued" || live.status === "running");
  return { live, comparison, errors, setErrors, running, start };
}

/**
 * The capacity search: its worker job followed over the event stream (closed when it ends or the
 * page is left), the result read once it succeeded, and why it was refused or failed (`errors`: lines;
 * `refusal`: a 422's details, for the form to show on the fields they name; null otherwise).
 */
export function useCapacitySearch(scenarioId: string) {
  const [job, setJob] = useState<JobPublic | null>(null);
  const [result, setResult] = useState<CapacityResult | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const [refusal, setRefusal] = useState<ValidationErrorItem[] | null>(null);
  const stop = useRef<(() => void) | null>(null);
  useEffect(() => () => stop.current?.(), []);
  const start = async (request: CapacityRequest) => {
    setErrors([]);
    setRefusal(null);
    setResult(null);
    try {
      const accepted = await analysisApi.startCapacitySearch(scenarioId, request);
      setJob({ job_id: accepted.job_id, status: "queued", progress: 0, result: null, error: null });
      stop.current = followProgress<JobPublic>(
        analysisApi.jobEventsUrl(accepted.job_id),
        setJob,
        async (last) => {
          if (last.status !== "succeeded") {
            setErrors([last.error ?? "the search failed"]);
            return;
          }
          const full = await analysisApi.job(accepted.job_id);
          setJob(full);
          setResult(full.result as CapacityResult);
        },
        () => setErrors(["Lost the progress stream; start the search again."]),
      );
    } catch (err) {
      setErrors(errorLines(err));
      setRefusal(err instanceof ApiError && err.validation ? err.validation : null);
    }
  };
  const running = job !== null && (job.status === "queued" || job.status === "running");
  return { job, result, errors, refusal, running, start };
}

/** A form's fields as typed (strings or booleans), one state; `set(name)` is the change handler of one field. */
export function useFields<F extends Record<string, string | boolean>>(initial: F | (() => F)) {
  const [fields, setFields] = useState<F>(initial);
  const set = useCallback(<K extends keyof F>(name: K) => (value: F[K]) => setFields((f) => ({ ...f, [name]: value })), []);
  return [fields, set] as const;
}
