/**
 * The document path of a 422 `loc` (pure): pydantic puts the tag of a tagged union in its paths
 * (`["body", "nodes", 6, "satellite", "ephemeris", "tle", "line1"]`), which is not a key of the document; the
 * editor keys its errors by the document's own path (`nodes.6.ephemeris.line1`), as its fields read them.
 */
import { NODE_KINDS } from "../api/types";

const MOBILITY_MODELS = new Set(["static", "waypoints", "linear", "random_walk", "random_waypoint", "gauss_markov", "loiter"]);
const EPHEMERIS_MODELS = new Set(["tle", "geostationary"]);
const KINDS = new Set<string>(NODE_KINDS);

/** `loc` without a leading "body" and without the union tags (a node's kind, a mobility or ephemeris model), dotted. */
export function documentPath(loc: readonly (string | number)[]): string {
  const parts = (loc[0] === "body" ? loc.slice(1) : loc).map(String);
  const out: string[] = [];
  for (const p of parts) {
    const prev = out[out.length - 1];
    const before = out[out.length - 2];
    const tag =
      (before === "nodes" && prev !== undefined && /^\d+$/.test(prev) && KINDS.has(p)) ||
      (prev === "mobility" && MOBILITY_MODELS.has(p)) ||
      (prev === "ephemeris" && EPHEMERIS_MODELS.has(p));
    if (!tag) out.push(p);
  }
  return out.join(".");
}
