import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { ScenarioDocument, ValidationErrorItem } from "../api/types";
import { documentPath } from "./docPath";
import { addLink, deleteElements, fieldErrors, renameNode } from "./editor";
import { addBeam, parseTleFile, satcomSatelliteOf, setEphemeris, tleChecksum, tleEpochIso, tleLineProblem, tlePairProblem } from "./satcomEditor";

/** The repository's example constellation (examples/tles), a file other tools wrote. */
const WALKER = readFileSync(new URL("../../../examples/tles/walker-53-48-6-1.tle", import.meta.url), "utf8");
/** The ISS element set of Wikipedia's "Two-line element set" article (checksums 7 and 7; epoch 2008-09-20 12:25:40 UTC). */
const ISS1 = "1 25544U 98067A   08264.51782528 -.00002182  00000-0 -11606-4 0  2927";
const ISS2 = "2 25544  51.6416 247.4627 0006703 130.5360 325.0288 15.72125391563537";

describe("TLE checks (as the backend's TleEphemeris)", () => {
  it("accepts real element sets: every line of the example file and the ISS", () => {
    const lines = WALKER.split("\n").filter((l) => l.startsWith("1 ") || l.startsWith("2 "));
    expect(lines.length).toBe(96);
    for (const l of lines) expect(tleLineProblem(l, Number(l[0]) as 1 | 2)).toBeNull();
    expect(tleChecksum(ISS1)).toBe(7);
    expect(tleChecksum(ISS2)).toBe(7);
    expect(tleLineProblem(ISS1, 1)).toBeNull();
    expect(tlePairProblem(ISS1, ISS2)).toBeNull();
  });

  it("refuses a wrong checksum, length or line number, naming what is wrong", () => {
    expect(tleLineProblem(`${ISS1.slice(0, 68)}3`, 1)).toBe("bad TLE checksum (column 69 is '3', the line tallies to 7)");
    expect(tleLineProblem(ISS1.slice(0, 68), 1)).toBe("line 1 must be 69 characters (it has 68)");
    expect(tleLineProblem(ISS2, 1)).toBe("line 1 must start with '1 '");
    // a minus sign counts 1: turning it into a plus changes the tally
    expect(tleLineProblem(ISS1.replace("-.00002182", "+.00002182"), 1)).toMatch(/bad TLE checksum/);
    const other = WALKER.split("\n").find((l) => l.startsWith("2 90002"))!;
    expect(tlePairProblem(ISS1, other)).toMatch(/different satellite numbers/);
  });

  it("reads the epoch as UTC", () => {
    expect(tleEpochIso(ISS1)).toBe("2008-09-20T12:25:40Z");
    // day 152.5 of 2026 (not a leap year): 1 June, noon
    expect(tleEpochIso(WALKER.split("\n")[1]!)).toBe("2026-06-01T12:00:00Z");
  });
});

describe("parseTleFile", () => {
  it("reads a three-line set (name first) and a two-line one; CRLF and blank lines are fine", () => {
    const three = parseTleFile(WALKER);
    expect(three.name).toBe("LEO-P1S1");
    expect(three.line1.startsWith("1 90001U")).toBe(true);
    expect(three.line2.startsWith("2 90001 ")).toBe(true);
    expect(parseTleFile(`\r\n${ISS1}\r\n${ISS2}\r\n`)).toEqual({ name: null, line1: ISS1, line2: ISS2 });
    expect(parseTleFile(`0 ISS (ZARYA)\n${ISS1}\n${ISS2}`).name).toBe("ISS (ZARYA)");
  });

  it("refuses a file without a set or with more than a name before it", () => {
    expect(() => parseTleFile("hello\nworld")).toThrow(/no TLE in the file/);
    expect(() => parseTleFile(`a\nb\n${ISS1}\n${ISS2}`)).toThrow(/2 lines, or 3/);
    expect(() => parseTleFile(ISS1)).toThrow(/no TLE/);
  });
});

const geoDoc = (): ScenarioDocument => ({
  name: "s",
  nodes: [
    { id: "ship", kind: "station", label: "Ship", position: { lat_deg: 51, lon_deg: 1.5 } as never },
    { id: "sat", kind: "satellite", orbit: "leo", position: { lat_deg: 51, lon_deg: 1.5 } as never },
    { id: "geo", kind: "satellite", label: "GEO", position: { lat_deg: 0, lon_deg: 5 } as never, ephemeris: { model: "geostationary", lon_deg: 5 } },
  ],
  links: [],
});

describe("satellite orbits in the document", () => {
  it("setting a TLE adds SATCOM settings starting at its epoch; a link to it then has no 1 ms default delay", () => {
    const d = setEphemeris(geoDoc(), "sat", { model: "tle", line1: ISS1, line2: ISS2 });
    expect(d.satcom?.start_utc).toBe("2008-09-20T12:25:40Z");
    expect(d.nodes[1]).toMatchObject({ ephemeris: { model: "tle", line1: ISS1 } });
    expect(addLink(d, "ship", "sat")!.doc.links![0]!.delay_ms).toBe(0);
    // no orbit: the usual 1 ms
    expect(addLink(geoDoc(), "ship", "sat")!.doc.links![0]!.delay_ms).toBe(1);
  });

  it("a SATCOM link is a ground node to a satellite on an orbit (not two satellites, not one without orbit)", () => {
    const d = geoDoc();
    expect(satcomSatelliteOf(d, { src: "ship", dst: "geo" })?.id).toBe("geo");
    expect(satcomSatelliteOf(d, { src: "geo", dst: "ship" })?.id).toBe("geo");
    expect(satcomSatelliteOf(d, { src: "ship", dst: "sat" })).toBeNull();
    expect(satcomSatelliteOf(d, { src: "sat", dst: "geo" })).toBeNull();
  });

  it("a new beam takes the first orbiting satellite with a payload and its budgeted links", () => {
    let d = setEphemeris(geoDoc(), "sat", { model: "tle", line1: ISS1, line2: ISS2 });
    d = { ...d, nodes: d.nodes.map((n) => (n.id === "geo" ? { ...n, payload: { eirp_dbw: 50, g_t_dbk: 5 } } : n)) };
    d = { ...d, links: [{ id: "l1", src: "ship", dst: "geo", bandwidth_mbps: 10, budget: { terminal_eirp_dbw: 50, terminal_g_t_dbk: 18, uplink_ghz: 14, downlink_ghz: 12, symbol_rate_msps: 10 } }] };
    expect(addBeam(d).satcom?.beams).toEqual([{ id: "beam1", satellite: "geo", forward_symbol_rate_msps: 50, policy: "equal_airtime", links: ["l1"] }]);
  });
});

describe("422 paths without pydantic's union tags", () => {
  it("drops a node's kind, a mobility or ephemeris model from the path", () => {
    expect(documentPath(["body", "nodes", 6, "satellite", "ephemeris", "tle", "line1"])).toBe("nodes.6.ephemeris.line1");
    expect(documentPath(["body", "nodes", 3, "access_point", "range_m"])).toBe("nodes.3.range_m");
    expect(documentPath(["body", "nodes", 1, "station", "mobility", "waypoints", "points", 0, "t_s"])).toBe("nodes.1.mobility.points.0.t_s");
    expect(documentPath(["body", "nodes", 6, "satellite", "ephemeris", "tle"])).toBe("nodes.6.ephemeris");
    // untagged paths as they were
    expect(documentPath(["body", "links", 0, "budget", "uplink_ghz"])).toBe("links.0.budget.uplink_ghz");
    expect(documentPath(["satcom", "start_utc"])).toBe("satcom.start_utc");
    const detail = [{ loc: ["body", "nodes", 6, "satellite", "ephemeris", "tle", "line2"], msg: "Value error, bad TLE checksum", type: "value_error" }] as ValidationErrorItem[];
    expect(fieldErrors(detail)).toEqual({ "nodes.6.ephemeris.line2": "Value error, bad TLE checksum" });
  });
});

describe("SATCOM references follow renames and deletions", () => {
  const doc = (): ScenarioDocument => ({
    name: "s",
    satcom: { start_utc: "2026-06-01T12:00:00Z", gateways: ["gw", "ship"], beams: [{ id: "b1", satellite: "geo", forward_symbol_rate_msps: 50, links: ["l1", "l2"] }] },
    nodes: [
      { id: "ship", kind: "station" },
      { id: "gw", kind: "router" },
      { id: "geo", kind: "satellite", ephemeris: { model: "geostationary", lon_deg: 5 } },
    ],
    links: [
      { id: "l1", src: "ship", dst: "geo", bandwidth_mbps: 10, budget: { ...BUDGET, gateway_link: "l2" } },
      { id: "l2", src: "gw", dst: "geo", bandwidth_mbps: 10, budget: BUDGET },
    ],
  });
  const BUDGET = { terminal_eirp_dbw: 50, terminal_g_t_dbk: 18, uplink_ghz: 14, downlink_ghz: 12, symbol_rate_msps: 10 };

  it("renaming a satellite or a gateway renames its references", () => {
    const d = renameNode(renameNode(doc(), "geo", "geo2"), "gw", "teleport");
    expect(d.satcom?.beams?.[0]?.satellite).toBe("geo2");
    expect(d.satcom?.gateways).toEqual(["teleport", "ship"]);
  });

  it("deleting the gateway drops it, its link from the beam and the budget's gateway link", () => {
    const d = deleteElements(doc(), ["gw"], []);
    expect(d.satcom?.gateways).toEqual(["ship"]);
    expect(d.satcom?.beams?.[0]?.links).toEqual(["l1"]);
    expect(d.links!.map((l) => [l.id, l.budget?.gateway_link ?? null])).toEqual([["l1", null]]);
  });

  it("deleting the satellite drops its beam", () => {
    expect(deleteElements(doc(), ["geo"], []).satcom?.beams).toEqual([]);
  });
});
