/** The quality of the udp, voice and video flows over the run (`lib/flowQuality`): one row per strategy and flow. */
import type { QualityRow } from "../lib/flowQuality";
import { StrategyFlowTable, type StrategyFlowColumn } from "./StrategyFlowTable";

type QualityKey = "meanDelayMs" | "p95DelayMs" | "meanJitterMs" | "loss" | "meanMos" | "minMos" | "framesLate" | "framesLost";
type QualityColumn = StrategyFlowColumn<QualityRow> & { video: boolean };

const fixed = (digits: number) => (v: number | null) => (v === null ? "—" : v.toFixed(digits));
const count = (v: number | null) => (v === null ? "—" : String(v));

/** A column of `key`, shown as its value × `factor` (loss fraction in %); video frame counts "n of sent". */
const column = (key: QualityKey, label: string, unit: string, format: (v: number | null) => string, factor = 1, video = false): QualityColumn => ({
  key,
  label,
  unit,
  video,
  value: (r) => r[key],
  render: (r) => {
    const raw = r[key];
    const frames = video && raw !== null && r.framesSent ? ` of ${r.framesSent}` : "";
    return (
      <>
        {format(raw === null ? null : raw * factor)}
        {frames}
      </>
    );
  },
});

const COLUMNS: readonly QualityColumn[] = [
  column("meanDelayMs", "Mean delay", "ms", fixed(2)),
  column("p95DelayMs", "p95 delay", "ms", fixed(2)),
  column("meanJitterMs", "Mean jitter", "ms", fixed(3)),
  column("loss", "Loss", "%", fixed(2), 100),
  column("meanMos", "Mean MOS", "", fixed(2)),
  column("minMos", "Lowest MOS", "", fixed(2)),
  column("framesLate", "Frames late", "", count, 1, true),
  column("framesLost", "Frames lost", "", count, 1, true),
];

export function QualityTable({ rows }: { rows: readonly QualityRow[] }) {
  if (!rows.length) return null;
  const video = rows.some((r) => r.framesSent !== null);
  const columns = COLUMNS.filter((c) => !c.video || video);
  return (
    <StrategyFlowTable
      testId="quality-table"
      caption="Delay, jitter, loss and voice quality per strategy and flow"
      rowTestIdPrefix="quality-"
      columns={columns}
      rows={rows}
      flow={(r) => r.flowId}
    >
      <p className="muted small">
        Mean delay: of the delivered bits (each interval weighted by its throughput); p95: over the intervals' mean delays; loss: of all the bits sent (each interval weighted by what it sent). MOS from the ITU-T G.107
        E-model (voice flows); below 3.6 (R 70, ITU-T G.109) many users are dissatisfied.
      </p>
    </StrategyFlowTable>
  );
}
