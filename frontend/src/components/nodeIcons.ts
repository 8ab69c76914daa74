/**
 * Icons of nodes by their `icon` field (display only): small SVG glyphs drawn on the node's own shape and colour.
 *
 * Owns:
 * 1. `NODE_ICONS` — the glyph of each icon the schema allows (`NodeIcon` in lib/subflow/scenario/document.py);
 * 2. `iconStyles` — one cytoscape style rule per icon (`node.icon-<name>`).
 */
import type { ScenarioNode } from "../api/types";

export type NodeIcon = NonNullable<ScenarioNode["icon"]>;

const STROKE = 'fill="none" stroke="#ffffff" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round"';

/** 24 × 24 glyphs, white strokes (the node's fill shows behind them). */
export const NODE_ICONS: Record<NodeIcon, { label: string; svg: string }> = {
  ship: { label: "Ship", svg: `<path ${STROKE} d="M3 14h18l-3 5H6z M12 3v11 M12 5l5 6h-5"/>` },
  uav: { label: "UAV", svg: `<path ${STROKE} d="M7 7l10 10 M17 7L7 17"/><g ${STROKE}><circle cx="6" cy="6" r="2.5"/><circle cx="18" cy="6" r="2.5"/><circle cx="6" cy="18" r="2.5"/><circle cx="18" cy="18" r="2.5"/></g>` },
  vehicle: { label: "Vehicle", svg: `<path ${STROKE} d="M3 15V9h11l3 3h4v3z"/><g ${STROKE}><circle cx="7" cy="17" r="2"/><circle cx="17" cy="17" r="2"/></g>` },
  soldier: { label: "Person", svg: `<g ${STROKE}><circle cx="12" cy="5" r="2.5"/><path d="M12 8v7 M7 11h10 M12 15l-4 6 M12 15l4 6"/></g>` },
  building: { label: "Building", svg: `<path ${STROKE} d="M5 21V4h14v17 M9 8h2 M13 8h2 M9 12h2 M13 12h2 M10 21v-4h4v4"/>` },
  buoy: { label: "Buoy", svg: `<path ${STROKE} d="M12 3l5 12H7z M4 18c2 2 4 2 6 0s4-2 6 0 4 2 4 0"/>` },
  aircraft: { label: "Aircraft", svg: `<path ${STROKE} d="M12 2v20 M3 12l9-3 9 3 M8 20l4-2 4 2"/>` },
};

function dataUri(svg: string): string {
  return `data:image/svg+xml;utf8,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24">${svg}</svg>`)}`;
}

/** One style rule per icon: the glyph over the node's shape, 70 % of its size. */
export function iconStyles(): { selector: string; style: Record<string, string | number> }[] {
  return (Object.keys(NODE_ICONS) as NodeIcon[]).map((name) => ({
    selector: `node.icon-${name}`,
    style: {
      "background-image": dataUri(NODE_ICONS[name].svg),
      "background-fit": "contain",
      "background-width": "70%",
      "background-height": "70%",
      "background-clip": "none",
    },
  }));
}
