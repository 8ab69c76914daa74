/**
 * The coverage heat map's colour rule and the radio inspector rendered by React (react-dom/server):
 * out-of-range cells are not painted, rates map to distinct colours from the slowest to the fastest
 * level, and an access point's radio fields show their units.
 */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { ScenarioDocument } from "../api/types";
import { rateColor } from "./CoverageMap";
import { Inspector, type InspectorProps } from "./Inspector";

describe("rateColor", () => {
  const levels = [6.5, 13, 19.5, 26, 39, 52, 58.5, 65];
  const color = rateColor(levels);

  it("paints nothing out of range and one colour per level", () => {
    expect(color(0)).toBeNull();
    const colours = levels.map((r) => color(r));
    expect(colours.every((c) => c !== null)).toBe(true);
    expect(new Set(colours).size).toBe(levels.length);
  });

  it("runs from light yellow (slowest) to dark blue (fastest)", () => {
    expect(color(6.5)).toBe("rgb(253, 230, 138)");
    expect(color(65)).toBe("rgb(30, 58, 138)");
  });
});

const TOOL: InspectorProps["tool"] = { name: "select" };

describe("radio inspector", () => {
  const doc: ScenarioDocument = {
    name: "radio",
    nodes: [
      {
        id: "uav2", kind: "access_point", range_m: 5000, uplink: "uav1",
        radio: { tx_power_dbm: 20, antenna_gain_dbi: 6, frequency_mhz: 5180, phy: "n", channel_width_mhz: 20, antenna_height_m: 1 },
      },
      { id: "uav1", kind: "access_point", range_m: 5000 },
      { id: "sta1", kind: "station", relay: true },
    ],
  } as ScenarioDocument;
  const props: Omit<InspectorProps, "selection"> = {
    doc, errors: {}, tool: TOOL, setTool: () => {}, waypointSpeed: 10, setWaypointSpeed: () => {},
    onChange: () => {}, onSelect: () => {},
  };

  it("shows the access point's radio with units and its uplink", () => {
    const html = renderToStaticMarkup(<Inspector {...props} selection={{ nodes: ["uav2"], links: [] }} />);
    for (const label of ["Transmit power (dBm)", "Antenna gain (dBi)", "Frequency (MHz)", "Antenna height (m)", "PHY", "Channel width", "Uplink (access point)"]) {
      expect(html).toContain(`>${label}<`);
    }
    expect(html).toContain('value="5180"');
    expect(html).toContain('value="uav1"');
  });

  it("offers a radio to an access point without one, and the relay flag on a station", () => {
    expect(renderToStaticMarkup(<Inspector {...props} selection={{ nodes: ["uav1"], links: [] }} />)).toContain("Add radio");
    const sta = renderToStaticMarkup(<Inspector {...props} selection={{ nodes: ["sta1"], links: [] }} />);
    expect(sta).toContain("Relay (forwards other nodes&#x27; traffic)");
    expect(sta).toMatch(/type="checkbox"[^>]*checked=""/);
  });

  it("has the scenario's propagation settings when nothing is selected", () => {
    const html = renderToStaticMarkup(<Inspector {...props} selection={{ nodes: [], links: [] }} />);
    expect(html).toContain(">Radio propagation<");
    expect(html).toContain(">Path-loss exponent<");
    expect(html).toContain("Ad-hoc links between stations in range");
  });

  it("has the handover settings with ns-3's defaults, scan results not reused", () => {
    const html = renderToStaticMarkup(<Inspector {...props} selection={{ nodes: [], links: [] }} />);
    expect(html).toContain(">Handover<");
    expect(html).toContain(">Missed beacons<");
    expect(html).toMatch(/Reuse scan results up to[\s\S]*?value="0"/);
    const reused = { ...doc, radio: { handover: { scan_results_max_age_s: 5 } } } as ScenarioDocument;
    const html2 = renderToStaticMarkup(<Inspector {...props} doc={reused} selection={{ nodes: [], links: [] }} />);
    expect(html2).toMatch(/Reuse scan results up to[\s\S]*?value="5"/);
  });

  it("has the MCS selection, error rate by default, and the noise floor that goes with it", () => {
    const html = renderToStaticMarkup(<Inspector {...props} selection={{ nodes: [], links: [] }} />);
    expect(html).toContain(">MCS selection<");
    expect(html).toMatch(/<option value="error_rate" selected="">Error rate \(soft decisions, BER 1e-6\)<\/option>/);
    expect(html).toContain(">Minimum sensitivity (conservative)<");
    expect(html).toContain('placeholder="-93.99"');
    const conservative = { ...doc, radio: { rate_selection: "min_sensitivity" } } as ScenarioDocument;
    const html2 = renderToStaticMarkup(<Inspector {...props} doc={conservative} selection={{ nodes: [], links: [] }} />);
    expect(html2).toMatch(/<option value="min_sensitivity" selected="">/);
    expect(html2).toContain('placeholder="-90.99"');
    const nist = { ...doc, radio: { rate_selection: "nist" } } as ScenarioDocument;
    const html3 = renderToStaticMarkup(<Inspector {...props} doc={nist} selection={{ nodes: [], links: [] }} />);
    expect(html3).toMatch(/<option value="nist" selected="">Error rate \(NIST, 10 % PER, cautious\)<\/option>/);
    expect(html3).toContain('placeholder="-93.99"');
  });
});
