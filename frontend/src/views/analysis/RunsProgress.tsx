import { ProgressBar } from "../../components/ProgressBar";

/** Progress of a job or comparison as a bar and "runs done / total". */
export function RunsProgress({ label, progress, done, total }: { label: string; progress: number; done?: number | null; total?: number | null }) {
  return (
    <div className="runs-progress" data-testid="runs-progress">
      <ProgressBar progress={progress} label={label} />
      <span className="muted" data-testid="runs-count">{done !== null && done !== undefined && total ? `${done} / ${total} runs` : `${Math.round(progress * 100)} %`}</span>
    </div>
  );
}

