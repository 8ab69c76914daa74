/**
 * The scenario's export menu: scenario JSON, a Mininet-WiFi script for the chosen transport
 * strategy (`GET /api/scenarios/{id}/export?format=mininet-wifi&strategy=…`), an ns-2 trace, a CORE
 * session, the wired part as a containerlab topology and GraphML (`GET /api/formats` lists them).
 */
import { useEffect, useId, useState } from "react";
import { api } from "../api/client";
import type { StrategyInfo } from "../api/types";

export function ExportMenu({ id }: { id: string }) {
  const fieldId = useId();
  const [strategies, setStrategies] = useState<StrategyInfo[]>([]);
  const [strategy, setStrategy] = useState("sptcp");
  useEffect(() => {
    const ctl = new AbortController();
    api
      .listStrategies(ctl.signal)
      .then(setStrategies)
      .catch(() => undefined);
    return () => ctl.abort();
  }, []);
  return (
    <details className="export-menu">
      <summary className="btn">Export</summary>
      <ul>
        <li>
          <a href={api.exportUrl(id, "json")} download>
            Scenario JSON
          </a>
        </li>
        <li className="export-mininet">
          <label htmlFor={fieldId}>Mininet-WiFi strategy</label>
          <select id={fieldId} value={strategy} onChange={(e) => setStrategy(e.currentTarget.value)}>
            {(strategies.length ? strategies.map((s) => s.name) : ["sptcp"]).map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
          <a href={api.exportUrl(id, "mininet-wifi", strategy)} download>
            Mininet-WiFi script ({strategy})
          </a>
        </li>
        <li>
          <a href={api.exportUrl(id, "ns2")} download>
            ns-2 mobility trace
          </a>
        </li>
        <li>
          <a href={api.exportUrl(id, "core-xml")} download>
            CORE session XML
          </a>
        </li>
        <li>
          <a href={api.exportUrl(id, "containerlab")} download>
            containerlab topology (wired part)
          </a>
        </li>
        <li>
          <a href={api.exportUrl(id, "graphml")} download>
            GraphML
          </a>
        </li>
      </ul>
    </details>
  );
}
