/**
 * The packet captures of a comparison (scenario `capture`, linux engine): one row per strategy and link
 * with the end recorded, packets, size and whether the size cap cut it, and a link that downloads the pcap
 * (`GET .../comparisons/{cid}/captures`, then `.../captures/{id}`). Nothing is shown for a comparison
 * without captures.
 */
import { useEffect, useState } from "react";
import { api, isAbort } from "../../api/client";
import type { CapturePublic, Id } from "../../api/types";
import { ErrorList } from "../../components/ErrorList";
import { errorLines } from "../../lib/errors";

/** `bytes` as B, KiB or MiB with one decimal. */
export function sizeLabel(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

export function CaptureDownloads({ scenarioId, comparisonId }: { scenarioId: Id; comparisonId: Id }) {
  const [captures, setCaptures] = useState<CapturePublic[]>([]);
  const [errors, setErrors] = useState<string[]>([]);
  useEffect(() => {
    const ctl = new AbortController();
    api
      .captures(scenarioId, comparisonId, ctl.signal)
      .then((list) => {
        setCaptures(list.data);
        setErrors([]);
      })
      .catch((err) => {
        if (!isAbort(err)) setErrors(errorLines(err));
      });
    return () => ctl.abort();
  }, [scenarioId, comparisonId]);
  if (!captures.length && !errors.length) return null;
  return (
    <section className="card" aria-labelledby="captures-title" data-testid="captures">
      <div className="card-head">
        <h2 id="captures-title">Packet captures</h2>
      </div>
      <ErrorList title="Could not list the captures:" items={errors} />
      {captures.length ? (
        <table aria-label="Packet captures">
          <thead>
            <tr>
              <th scope="col">Strategy</th>
              <th scope="col">Link</th>
              <th scope="col">Recorded at</th>
              <th scope="col">Packets</th>
              <th scope="col">Size</th>
              <th scope="col">File</th>
            </tr>
          </thead>
          <tbody>
            {captures.map((c) => (
              <tr key={c.id}>
                <td>{c.strategy}</td>
                <td>{c.link}</td>
                <td>{c.node}</td>
                <td>
                  {c.packets}
                  {c.truncated ? <span className="muted small"> (size cap reached)</span> : null}
                </td>
                <td>{sizeLabel(c.size_bytes)}</td>
                <td>
                  <a href={api.captureUrl(scenarioId, comparisonId, c.id)} download={`${c.strategy}-${c.link}.pcap`}>
                    Download {c.strategy} {c.link}
                  </a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
