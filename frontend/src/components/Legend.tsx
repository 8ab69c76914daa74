/** Legend of node kinds (shape + colour), radio range and mobility path. */
import { NODE_KINDS, type NodeKind } from "../api/types";
import { kindName } from "../lib/topology";
import { KIND_STYLES, MOBILITY_COLOR, RANGE_COLOR, type KindStyle } from "./nodeStyles";

export function shapePath(shape: KindStyle["shape"]): string {
  switch (shape) {
    case "round-rectangle":
      return "M4 2 H12 Q14 2 14 4 V12 Q14 14 12 14 H4 Q2 14 2 12 V4 Q2 2 4 2 Z";
    case "ellipse":
      return "M8 2 A6 6 0 1 1 7.99 2 Z";
    case "triangle":
      return "M8 2 L14 14 L2 14 Z";
    case "diamond":
      return "M8 1 L15 8 L8 15 L1 8 Z";
    case "star":
      return "M8 1 L9.9 6 L15 6.2 L11 9.4 L12.4 14.5 L8 11.6 L3.6 14.5 L5 9.4 L1 6.2 L6.1 6 Z";
    case "hexagon":
      return "M4.5 2 H11.5 L15 8 L11.5 14 H4.5 L1 8 Z";
  }
}

export function Legend({ kinds }: { kinds?: readonly NodeKind[] }) {
  const shown = kinds && kinds.length ? NODE_KINDS.filter((k) => kinds.includes(k)) : NODE_KINDS;
  return (
    <ul className="legend" aria-label="Legend">
      {shown.map((k) => (
        <li key={k}>
          <svg width="16" height="16" viewBox="0 0 16 16" aria-hidden="true">
            <path d={shapePath(KIND_STYLES[k].shape)} fill={KIND_STYLES[k].color} />
          </svg>
          {kindName(k)}
        </li>
      ))}
      <li>
        <svg width="16" height="16" viewBox="0 0 16 16" aria-hidden="true">
          <circle cx="8" cy="8" r="6.5" fill={RANGE_COLOR} fillOpacity="0.15" stroke={RANGE_COLOR} strokeDasharray="2 1.5" />
        </svg>
        Radio range
      </li>
      <li>
        <svg width="22" height="16" viewBox="0 0 22 16" aria-hidden="true">
          <path d="M1 8 H16" stroke={MOBILITY_COLOR} strokeWidth="2" strokeDasharray="4 2" />
          <path d="M15 4 L21 8 L15 12 Z" fill={MOBILITY_COLOR} />
        </svg>
        Mobility path / area
      </li>
      <li>
        <svg width="22" height="16" viewBox="0 0 22 16" aria-hidden="true">
          <path d="M1 8 H21" stroke="#64748b" strokeWidth="2.5" />
        </svg>
        Wired link
      </li>
    </ul>
  );
}

/** A legend of colour swatches, e.g. the utilisation or route-share colours of a topology overlay. */
export function SwatchLegend({ label, items }: { label: string; items: readonly { label: string; color: string }[] }) {
  return (
    <ul className="legend" aria-label={label}>
      {items.map((l) => (
        <li key={l.label}>
          <span className="swatch" style={{ background: l.color }} /> {l.label}
        </li>
      ))}
    </ul>
  );
}

/** Errors of a panel's request, one per line (nothing when there is none). */
export function FieldErrors({ errors }: { errors: readonly string[] }) {
  if (!errors.length) return null;
  return (
    <ul className="field-error" role="alert">
      {errors.map((e) => (
        <li key={e}>{e}</li>
      ))}
    </ul>
  );
}
