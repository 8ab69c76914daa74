/** The quality of the udp, voice and video flows over the run (`lib/flowQuality`): one row per strategy and flow. */
import type { QualityRow } from "../lib/flowQuality";

const fixed = (digits: number) => (v: number | null) => (v === null ? "—" : v.toFixed(digits));
const count = (v: number | null) => (v === null ? "—" : String(v));

const COLUMNS: { key: keyof QualityRow; label: string; unit: string; format: (v: number | null) => string; factor?: number; video?: boolean }[] = [
  { key: "meanDelayMs", label: "Mean delay", unit: "ms", format: fixed(2) },
  { key: "p95DelayMs", label: "p95 delay", unit: "ms", format: fixed(2) },
  { key: "meanJitterMs", label: "Mean jitter", unit: "ms", format: fixed(3) },
  { key: "loss", label: "Loss", unit: "%", format: fixed(2), factor: 100 },
  { key: "meanMos", label: "Mean MOS", unit: "", format: fixed(2) },
  { key: "minMos", label: "Lowest MOS", unit: "", format: fixed(2) },
  { key: "framesLate", label: "Frames late", unit: "", format: count, video: true },
  { key: "framesLost", label: "Frames lost", unit: "", format: count, video: true },
];

export function QualityTable({ rows }: { rows: readonly QualityRow[] }) {
  if (!rows.length) return null;
  const video = rows.some((r) => r.framesSent !== null);
  const columns = COLUMNS.filter((c) => !c.video || video);
  return (
    <div className="table-wrap">
      <table className="summary" data-testid="quality-table">
        <caption>Delay, jitter, loss and voice quality per strategy and flow</caption>
        <thead>
          <tr>
            <th scope="col">Strategy</th>
            <th scope="col">Flow</th>
            {columns.map((c) => (
              <th scope="col" key={c.key} className="num">
                {c.label}
                {c.unit ? <span className="unit"> ({c.unit})</span> : null}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.key} data-testid={`quality-${r.key}`}>
              <th scope="row">{r.strategy}</th>
              <td>{r.flowId}</td>
              {columns.map((c) => {
                const raw = r[c.key] as number | null;
                const v = raw === null ? null : raw * (c.factor ?? 1);
                const frames = c.video && raw !== null && r.framesSent ? ` of ${r.framesSent}` : "";
                return (
                  <td key={c.key} className="num" data-col={c.key} data-value={raw ?? ""}>
                    {c.format(v)}
                    {frames}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted small">
        Mean delay: of the delivered bits (each interval weighted by its throughput); p95: over the intervals' mean delays; loss: mean over the intervals. MOS from the ITU-T G.107
        E-model (voice flows); below 3.6 (R 70, ITU-T G.109) many users are dissatisfied.
      </p>
    </div>
  );
}
