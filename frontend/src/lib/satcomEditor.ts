/**
 * The editor's SATCOM model (pure): checks of a TLE as the backend makes them, reading a `.tle` file, and the
 * document edits of satellite orbits, link budgets and the scenario's `satcom` settings and beams.
 *
 * TLE format: CelesTrak, "NORAD Two-Line Element Set Format" (69 columns; column 69 is the modulo-10 checksum of
 * columns 1–68, digits counting their value and each minus sign 1; columns 3–7 the satellite number; line 1
 * columns 19–32 the epoch, YYDDD.DDDDDDDD, years 57–99 → 19xx). `subflow.scenario.document.TleEphemeris`
 * refuses the same things.
 */
import type {
  GeostationaryEphemeris,
  Link,
  SatcomBeam,
  SatcomBudget,
  SatcomSettings,
  SatelliteNode,
  ScenarioDocument,
  TleEphemeris,
} from "../api/types";

export type TleLineNumber = 1 | 2;

/** The checksum a TLE line's first 68 columns tally to (0–9). */
export function tleChecksum(line: string): number {
  let sum = 0;
  for (const c of line.slice(0, 68)) {
    if (c >= "0" && c <= "9") sum += c.charCodeAt(0) - 48;
    else if (c === "-") sum += 1;
  }
  return sum % 10;
}

/** What is wrong with a TLE line (the backend's checks, in its words), or null. */
export function tleLineProblem(line: string, n: TleLineNumber): string | null {
  if (line.length !== 69) return `line ${n} must be 69 characters (it has ${line.length})`;
  if (!line.startsWith(`${n} `)) return `line ${n} must start with '${n} '`;
  if (!/^[ -~]+$/.test(line)) return `line ${n} holds a character that is not printable ASCII`;
  const want = tleChecksum(line);
  const got = line[68]!;
  if (!/\d/.test(got) || Number(got) !== want) return `bad TLE checksum (column 69 is '${got}', the line tallies to ${want})`;
  return null;
}

/** Both lines name the same satellite (columns 3–7), or the problem. */
export function tlePairProblem(line1: string, line2: string): string | null {
  return line1.slice(2, 7) !== line2.slice(2, 7) ? "line 1 and line 2 give different satellite numbers (columns 3–7)" : null;
}

/** The element set's epoch (line 1, columns 19–32) as an ISO 8601 UTC time, or null when unreadable. */
export function tleEpochIso(line1: string): string | null {
  const yy = Number(line1.slice(18, 20));
  const day = Number(line1.slice(20, 32));
  if (!Number.isFinite(yy) || !Number.isFinite(day) || day < 1 || line1.slice(18, 32).trim().length < 5) return null;
  const year = yy < 57 ? 2000 + yy : 1900 + yy;
  const ms = Date.UTC(year, 0, 1) + (day - 1) * 86_400_000;
  return new Date(Math.round(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

export interface TleFile {
  /** Line 0 of a three-line set (the satellite's name), null for a two-line file. */
  name: string | null;
  line1: string;
  line2: string;
}

/**
 * A `.tle` / `.txt` file's first element set: two lines, or three (a name, then the two lines); blank lines and
 * trailing spaces or CR are dropped. A file with more sets gives its first. Throws an Error naming the problem.
 */
export function parseTleFile(text: string): TleFile {
  const lines = text.split(/\r?\n/).map((l) => l.replace(/\s+$/, "")).filter((l) => l.trim() !== "");
  const first = lines.findIndex((l) => l.startsWith("1 "));
  if (first < 0 || !lines[first + 1]?.startsWith("2 ")) throw new Error("no TLE in the file: expected a line starting with '1 ' followed by one starting with '2 '");
  if (first > 1) throw new Error("the file must hold 2 lines, or 3 (a name, then the two lines), before its first element set");
  const name = first === 1 ? lines[0]!.replace(/^0 /, "").trim() : null;
  return { name: name || null, line1: lines[first]!, line2: lines[first + 1]! };
}

// ----------------------------------------------------------------------------- satellites

export type OrbitSource = "none" | "tle" | "geostationary";

export function orbitSource(node: SatelliteNode): OrbitSource {
  return node.ephemeris?.model === "tle" ? "tle" : node.ephemeris?.model === "geostationary" ? "geostationary" : "none";
}

/** A satellite's orbit source changed: a geostationary satellite at the node's longitude (else 0°), an empty TLE. */
export function ephemerisFor(source: OrbitSource, node: SatelliteNode): TleEphemeris | GeostationaryEphemeris | null {
  if (source === "none") return null;
  if (source === "geostationary") {
    const lon = (node.position as { lon_deg?: number } | undefined)?.lon_deg;
    return { model: "geostationary", lon_deg: Number.isFinite(lon) ? Number(lon) : 0 };
  }
  return { model: "tle", line1: "", line2: "" };
}

/**
 * Set a satellite's ephemeris; the scenario then needs `satcom` settings: added (start at the TLE's epoch, or now
 * to the minute) when it has none.
 */
export function setEphemeris(doc: ScenarioDocument, id: string, eph: SatelliteNode["ephemeris"]): ScenarioDocument {
  const nodes = doc.nodes.map((n) => (n.id === id && n.kind === "satellite" ? ({ ...n, ephemeris: eph ?? null } as SatelliteNode) : n));
  if (!eph || doc.satcom) return { ...doc, nodes };
  const epoch = eph.model === "tle" ? tleEpochIso(eph.line1) : null;
  const start = epoch ?? new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString().replace(".000Z", "Z");
  return { ...doc, nodes, satcom: { start_utc: start, elevation_mask_deg: 10, handover_policy: "highest_elevation" } };
}

// ----------------------------------------------------------------------------- SATCOM links

/** The satellite on an orbit a link joins to a ground node (not a satellite), or null: not a SATCOM link. */
export function satcomSatelliteOf(doc: ScenarioDocument, link: Pick<Link, "src" | "dst">): SatelliteNode | null {
  const a = doc.nodes.find((n) => n.id === link.src);
  const b = doc.nodes.find((n) => n.id === link.dst);
  if (!a || !b) return null;
  const orbiting = (n: typeof a): n is SatelliteNode => n.kind === "satellite" && !!(n as SatelliteNode).ephemeris;
  if (orbiting(a) && b.kind !== "satellite") return a;
  if (orbiting(b) && a.kind !== "satellite") return b;
  return null;
}

/** A starting budget (Ku band, a 1.2 m terminal; every figure editable): the fields the backend requires. */
export const BUDGET_DEFAULT: SatcomBudget = {
  terminal_eirp_dbw: 50,
  terminal_g_t_dbk: 18,
  uplink_ghz: 14.25,
  downlink_ghz: 11.7,
  symbol_rate_msps: 10,
};

// ----------------------------------------------------------------------------- scenario settings and beams

export function updateSatcom(doc: ScenarioDocument, patch: Partial<SatcomSettings>): ScenarioDocument {
  const cur = doc.satcom ?? { start_utc: new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString().replace(".000Z", "Z") };
  return { ...doc, satcom: { ...cur, ...patch } };
}

/** The budgeted SATCOM links of a satellite (candidates for its beams' members). */
export function budgetedLinksOf(doc: ScenarioDocument, satellite: string): Link[] {
  return (doc.links ?? []).filter((l) => l.budget && satcomSatelliteOf(doc, l)?.id === satellite);
}

/** A new beam of the first orbiting satellite with a payload (else the first orbiting one), with its budgeted links. */
export function addBeam(doc: ScenarioDocument): ScenarioDocument {
  const sats = doc.nodes.filter((n): n is SatelliteNode => n.kind === "satellite" && !!(n as SatelliteNode).ephemeris);
  const sat = sats.find((s) => s.payload) ?? sats[0];
  if (!sat || !doc.satcom) return doc;
  const beams = doc.satcom.beams ?? [];
  let k = beams.length + 1;
  while (beams.some((b) => b.id === `beam${k}`)) k += 1;
  const links = budgetedLinksOf(doc, sat.id).map((l) => l.id);
  const beam: SatcomBeam = { id: `beam${k}`, satellite: sat.id, forward_symbol_rate_msps: 50, policy: "equal_airtime", links };
  return updateSatcom(doc, { beams: [...beams, beam] });
}

export function updateBeam(doc: ScenarioDocument, index: number, patch: Partial<SatcomBeam>): ScenarioDocument {
  return updateSatcom(doc, { beams: (doc.satcom?.beams ?? []).map((b, i) => (i === index ? { ...b, ...patch } : b)) });
}

export function deleteBeam(doc: ScenarioDocument, index: number): ScenarioDocument {
  return updateSatcom(doc, { beams: (doc.satcom?.beams ?? []).filter((_, i) => i !== index) });
}

/** The scenario has satellites on orbits and SATCOM settings (what `POST /api/timeline` needs for orbits). */
export function hasOrbits(doc: ScenarioDocument): boolean {
  return !!doc.satcom && doc.nodes.some((n) => n.kind === "satellite" && !!(n as SatelliteNode).ephemeris);
}
