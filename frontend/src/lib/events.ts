/** Human labels of result event kinds (pure). */
const LABELS: Record<string, string> = {
  handover_start: "handover start",
  association: "association",
  disassociation: "disassociation",
  association_abandoned: "association abandoned",
  subflow_up: "subflow up",
  subflow_down: "subflow down",
  route_change: "route change",
  route_lost: "route lost",
  rto: "retransmission timeout",
};

export function kindLabel(kind: string): string {
  return LABELS[kind] ?? kind.replace(/_/g, " ");
}
