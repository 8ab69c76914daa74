/**
 * Bounds of a number field as the backend declares them: read from the bounds of the OpenAPI document
 * generated from the backend's models (`src/api/bounds.json`, written with `openapi.json` by
 * `npm run api:generate`), so the editor refuses what the server would refuse before it is stored,
 * with no second copy of the limits here.
 *
 * Owns:
 * 1. `schemaBounds(schema, property)` — minimum / maximum (inclusive or exclusive) of a model's property.
 */
import bounds from "../api/bounds.json";

export interface Bounds {
  min?: number;
  max?: number;
  minExclusive?: boolean;
  maxExclusive?: boolean;
}

type Prop = { minimum?: number; maximum?: number; exclusiveMinimum?: number; exclusiveMaximum?: number };
const schemas = bounds as unknown as Record<string, Record<string, Prop>>;

/** The bounds of `schema.property` (an optional property's number branch included). */
export function schemaBounds(schema: string, property: string): Bounds {
  const prop = schemas[schema]?.[property];
  if (!prop) throw new Error(`no bounds of ${schema}.${property} in the OpenAPI document`);
  const out: Bounds = {};
  for (const p of [prop]) {
    if (p.minimum !== undefined) out.min = p.minimum;
    if (p.exclusiveMinimum !== undefined) Object.assign(out, { min: p.exclusiveMinimum, minExclusive: true });
    if (p.maximum !== undefined) out.max = p.maximum;
    if (p.exclusiveMaximum !== undefined) Object.assign(out, { max: p.exclusiveMaximum, maxExclusive: true });
  }
  return out;
}

/** `bounds` in displayed units (a stored fraction shown in % has `factor` 100). */
export function scaled(bounds: Bounds, factor: number): Bounds {
  return {
    ...bounds,
    min: bounds.min === undefined ? undefined : bounds.min * factor,
    max: bounds.max === undefined ? undefined : bounds.max * factor,
  };
}
