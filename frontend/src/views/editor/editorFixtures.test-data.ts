/** Small scenario documents and API records for the editor hook tests. */
import type { ScenarioDocument, ScenarioPublic } from "../../api/types";

export function smallDoc(name = "small"): ScenarioDocument {
  return {
    name,
    nodes: [
      { id: "h1", kind: "host", position: { x_m: 0, y_m: 0 } },
      { id: "sta1", kind: "station", position: { x_m: 100, y_m: 0 } },
      { id: "ap1", kind: "access_point", position: { x_m: 200, y_m: 0 }, range_m: 150 },
    ],
    links: [{ id: "l1", src: "h1", dst: "ap1", bandwidth_mbps: 10, delay_ms: 5 }],
    flows: [],
  } as unknown as ScenarioDocument;
}

export function record(doc: ScenarioDocument, version: number, id = "s1"): ScenarioPublic {
  return { id, name: doc.name, description: "", version, scenario: doc, created_at: "2024-01-01T00:00:00Z", updated_at: "2024-01-01T00:00:00Z" } as unknown as ScenarioPublic;
}
