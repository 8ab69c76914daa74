import type { ComparisonPublic, ProgressEvent } from "../../api/types";
import { ErrorList } from "../../components/ErrorList";
import { ProgressBar } from "../../components/ProgressBar";
import { isActive } from "./useComparison";
import { useCancelComparison } from "./useCancelComparison";

const STATUS_TEXT: Record<string, string> = {
  queued: "Queued — waiting for a worker",
  running: "Running",
  succeeded: "Finished",
  failed: "Failed",
  cancelled: "Cancelled",
};

interface ComparisonStatusProps {
  scenarioId: string;
  comparisonId: string;
  comparison: ComparisonPublic | null;
  live: ProgressEvent | null;
  status: string | undefined;
  progress: number;
}

/** Progress with the Cancel button while the comparison is queued or running; what became of it when it did not succeed. */
export function ComparisonStatus({ scenarioId, comparisonId, comparison: c, live, status, progress }: ComparisonStatusProps) {
  const { cancel, cancelling, cancelError } = useCancelComparison(scenarioId, comparisonId);
  return (
    <>
      {c && isActive(status) ? (
        <section className="card progress-card" aria-live="polite">
          <div className="card-head">
            <p className="status-text">
              {STATUS_TEXT[status ?? ""]} — {Math.round(progress * 100)}%
              {live && (live.units_total ?? 1) > 1 ? <span data-testid="units-count">{` (${live.units_done ?? 0} / ${live.units_total} runs)`}</span> : null}
            </p>
            <button type="button" className="btn btn-danger" onClick={cancel} disabled={cancelling}>
              {cancelling ? "Cancelling…" : "Cancel comparison"}
            </button>
          </div>
          <ProgressBar progress={progress} label="Comparison progress" />
          <ErrorList title="Not cancelled:" items={cancelError} />
        </section>
      ) : null}

      {status === "cancelled" ? (
        <div className="alert" role="status">
          The comparison was cancelled.
        </div>
      ) : null}

      {status === "failed" ? (
        <div className="alert alert-error" role="alert">
          <strong>The comparison failed.</strong>
          <pre className="error-text">{live?.error || c?.error || "No error message was recorded."}</pre>
        </div>
      ) : null}

      {c && c.status === "succeeded" && !c.result ? (
        <div className="alert alert-error" role="alert">
          The comparison finished but holds no result document.
        </div>
      ) : null}
    </>
  );
}
