/** Shape and colour of each node kind, shared by the cytoscape style sheet and the legend. */
import type { NodeKind } from "../api/types";

export interface KindStyle {
  /** cytoscape node shape */
  shape: "round-rectangle" | "ellipse" | "triangle" | "diamond" | "star" | "hexagon";
  color: string;
}

export const KIND_STYLES: Record<NodeKind, KindStyle> = {
  host: { shape: "round-rectangle", color: "#2563eb" },
  station: { shape: "ellipse", color: "#16a34a" },
  access_point: { shape: "triangle", color: "#ea580c" },
  switch: { shape: "diamond", color: "#7c3aed" },
  satellite: { shape: "star", color: "#0891b2" },
  router: { shape: "hexagon", color: "#475569" },
};

export const RANGE_COLOR = "#f59e0b";
export const MOBILITY_COLOR = "#16a34a";
