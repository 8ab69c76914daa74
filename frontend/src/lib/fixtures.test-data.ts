/** Small hand-made result document used by the unit tests. */
import type { ResultDocument, StrategyResult } from "../api/types";

function strategy(name: string, f1: number[], f2: number[], extra: Partial<StrategyResult> = {}): StrategyResult {
  const t = f1.map((_, i) => i);
  return {
    strategy: name,
    engine: "fluid",
    flows: [
      { id: "f1", src: "sta1", dst: "ship", t_s: t, throughput_mbps: f1, subflows: [] },
      { id: "f2", src: "sta2", dst: "ship", t_s: t, throughput_mbps: f2, subflows: [] },
    ],
    events: [
      { t_s: 0, kind: "subflow_up", node: "sta1", flow: "f1", subflow: "f1/tcp", path: ["sta1", "ship"] },
      { t_s: 2, kind: "handover_start", node: "sta1", access_point: "uav" },
      { t_s: 2, kind: "handover_start", node: "sta2", access_point: "uav" },
      { t_s: 2, kind: "route_lost", node: "sta1", flow: "f1", subflow: "f1/tcp", path: ["sta1", "ship"] },
      { t_s: 3, kind: "association", node: "sta1", access_point: "uav" },
      { t_s: 3, kind: "association", node: "sta1", access_point: "uav" },
    ],
    summary: {
      flows: [
        { id: "f1", mean_mbps: 1.5, std_mbps: 1.5, min_mbps: 0, max_mbps: 3, zero_s: 2, longest_zero_s: 2 },
        { id: "f2", mean_mbps: 0.75, std_mbps: 1.299, min_mbps: 0, max_mbps: 3, zero_s: 3, longest_zero_s: 3 },
      ],
      mean_mbps: 1.125,
      std_mbps: 0.375,
      min_mbps: 0.75,
      zero_s: 5,
      jain_index: 0.9,
    },
    ...extra,
  };
}

export const RESULT: ResultDocument = {
  version: 1,
  scenario: { name: "t", nodes: [{ id: "a", kind: "host" }] },
  strategies: {
    mptcp: strategy("mptcp", [3, 3.2, 2.9, 3], [3, 3, 3, 3.1]),
    sptcp: strategy("sptcp", [3, 3, 0, 0], [3, 0, 0, 0]),
  },
};
