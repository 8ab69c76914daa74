// @vitest-environment happy-dom
/**
 * The SATCOM parts of the inspector mounted by React in happy-dom: a satellite's TLE lines checked before they
 * are stored (the field named), a TLE file read into both lines, the server's 422 on its field, and the link
 * budget section only on links between a ground node and a satellite on an orbit.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { renderToStaticMarkup } from "react-dom/server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ScenarioDocument } from "../api/types";
import { Inspector, type InspectorProps } from "./Inspector";
import { startUtcProblem } from "./SatcomSettingsFields";

/** The repository's example constellation (examples/tles; vitest runs in frontend/). */
const WALKER = readFileSync(resolve(process.cwd(), "../examples/tles/walker-53-48-6-1.tle"), "utf8");
const [NAME, L1, L2] = WALKER.split("\n");

const doc: ScenarioDocument = {
  name: "orbits",
  satcom: { start_utc: "2026-06-01T12:00:00Z" },
  nodes: [
    { id: "ship1", kind: "station", label: "Ship one", position: { lat_deg: 51, lon_deg: 1.5 } as never },
    { id: "leo", kind: "satellite", orbit: "leo", position: { lat_deg: 51, lon_deg: 1.5 } as never, ephemeris: { model: "tle", line1: L1!, line2: L2! } },
    { id: "plain", kind: "satellite", position: { lat_deg: 0, lon_deg: 5 } as never },
    { id: "r1", kind: "router", position: { lat_deg: 51.1, lon_deg: 1.3 } as never },
  ],
  links: [
    { id: "ship1-leo", src: "ship1", dst: "leo", bandwidth_mbps: 10, delay_ms: 0 },
    { id: "ship1-plain", src: "ship1", dst: "plain", bandwidth_mbps: 10, delay_ms: 250 },
    { id: "ship1-r1", src: "ship1", dst: "r1", bandwidth_mbps: 10, delay_ms: 1 },
  ],
} as ScenarioDocument;

const base: Omit<InspectorProps, "selection" | "onChange"> = {
  doc, errors: {}, tool: { name: "select" }, setTool: () => {}, waypointSpeed: 10, setWaypointSpeed: () => {}, onSelect: () => {},
};

describe("link budget section", () => {
  const html = (link: string) => renderToStaticMarkup(<Inspector {...base} onChange={() => {}} selection={{ nodes: [], links: [link] }} />);

  it("shows on a link to a satellite on an orbit, with its delay from the orbit", () => {
    const h = html("ship1-leo");
    expect(h).toContain(">Link budget<");
    expect(h).toContain("Add link budget");
    expect(h).toContain("from the orbit of leo");
    expect(h).toContain(">Extra delay (modem, processing) (ms)<");
  });

  it("gives the delay's range over the run's uses once the timeline has them", () => {
    const uses = [
      { terminal: "ship1", satellite: "leo", link: "ship1-leo", t_start_s: 0, t_end_s: 200, delay_ms: [[0, 6.04], [100, 4.0], [200, 9.81]] as [number, number][] },
      { terminal: "ship1", satellite: "leo", link: "ship1-leo", t_start_s: 500, t_end_s: 600, delay_ms: [[500, 10.5]] as [number, number][] },
      { terminal: "ship1", satellite: "plain", link: "ship1-plain", t_start_s: 0, t_end_s: 600, delay_ms: [[0, 128]] as [number, number][] },
    ];
    const h = renderToStaticMarkup(<Inspector {...base} satcomUses={uses} onChange={() => {}} selection={{ nodes: [], links: ["ship1-leo"] }} />);
    expect(h).toContain("one way 4.0–10.5 ms while in use");
  });

  it("is absent on a satellite without an orbit and on a ground link, whose delay is their own", () => {
    for (const link of ["ship1-plain", "ship1-r1"]) {
      const h = html(link);
      expect(h).not.toContain("Link budget");
      expect(h).not.toContain("from the orbit");
      expect(h).toContain(">Delay (ms)<");
    }
  });

  it("shows the budget's fields with units once there is one", () => {
    const budgeted = { ...doc, links: doc.links!.map((l) => (l.id === "ship1-leo" ? { ...l, budget: { terminal_eirp_dbw: 52, terminal_g_t_dbk: 18, uplink_ghz: 14.25, downlink_ghz: 11.7, symbol_rate_msps: 10, rain_rate_mm_h: [[0, 5], [60, 0]] as [number, number][] } } : l)) };
    const h = renderToStaticMarkup(<Inspector {...base} doc={budgeted} onChange={() => {}} selection={{ nodes: [], links: ["ship1-leo"] }} />);
    for (const label of ["Terminal EIRP (dBW)", "Terminal G/T (dB/K)", "Uplink frequency (GHz)", "Symbol rate (Msym/s)", "Margin (dB)"]) expect(h).toContain(`>${label}<`);
    expect(h).toContain('value="52"');
    expect(h).toContain("scripted rain rate series (2 steps)");
    expect(h).toContain("leo has no payload");
  });
});

describe("satellite orbit fields", () => {
  let host: HTMLDivElement;
  let root: Root;
  let changes: ScenarioDocument[];
  beforeEach(() => {
    (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
    host = document.createElement("div");
    document.body.append(host);
    root = createRoot(host);
    changes = [];
  });
  afterEach(() => {
    act(() => root.unmount());
    host.remove();
  });
  const mount = (errors: Record<string, string> = {}) =>
    act(() => root.render(<Inspector {...base} errors={errors} onChange={(d) => changes.push(d)} selection={{ nodes: ["leo"], links: [] }} />));
  const field = (label: string) => {
    const l = [...host.querySelectorAll("label")].find((x) => x.textContent === label);
    return host.querySelector<HTMLTextAreaElement | HTMLInputElement>(`#${CSS.escape(l!.htmlFor)}`)!;
  };
  const type = (el: HTMLTextAreaElement, text: string) =>
    act(() => {
      Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value")!.set!.call(el, text);
      el.dispatchEvent(new Event("input", { bubbles: true }));
    });

  it("stores a valid line and refuses a bad checksum, naming the field, without storing it", () => {
    mount();
    const line1 = field("TLE line 1") as HTMLTextAreaElement;
    expect(line1.value).toBe(L1);
    const bad = `${L1!.slice(0, 68)}${(Number(L1![68]) + 1) % 10}`;
    type(line1, bad);
    expect(changes).toEqual([]);
    expect(host.textContent).toContain(`TLE line 1: bad TLE checksum (column 69 is '${bad[68]}', the line tallies to ${L1![68]})`);
    expect(line1.getAttribute("aria-invalid")).toBe("true");
    type(line1, L1!.replace("90001U", "90001U").slice(0, 60));
    expect(host.textContent).toContain("TLE line 1: line 1 must be 69 characters (it has 60)");
    type(line1, L1!);
    expect(changes.length).toBe(1);
    expect(host.textContent).not.toContain("TLE line 1: ");
  });

  it("pasting the three lines of a file into line 1 fills both lines", () => {
    mount();
    const other = WALKER.split("\n").slice(3, 6).join("\n");
    type(field("TLE line 1") as HTMLTextAreaElement, other);
    const eph = changes.at(-1)!.nodes[1]! as { ephemeris: { line1: string; line2: string } };
    expect(eph.ephemeris.line1.startsWith("1 90002U")).toBe(true);
    expect(eph.ephemeris.line2.startsWith("2 90002 ")).toBe(true);
  });

  it("reads a .tle file of three lines into both lines (the name as the label)", async () => {
    mount();
    const input = field("TLE from a file (.tle, .txt)") as HTMLInputElement;
    const file = new File([`${NAME}\n${L1}\n${L2}\n`], "sat.tle", { type: "text/plain" });
    Object.defineProperty(input, "files", { value: [file], configurable: true });
    await act(async () => {
      input.dispatchEvent(new Event("change", { bubbles: true }));
      await new Promise((r) => setTimeout(r, 10));
    });
    const node = changes.at(-1)!.nodes[1]! as { label?: string; ephemeris: { line1: string; line2: string } };
    expect(node.ephemeris).toEqual({ model: "tle", line1: L1, line2: L2 });
    expect(node.label).toBe("LEO-P1S1");
  });

  it("names a file without an element set", async () => {
    mount();
    const input = field("TLE from a file (.tle, .txt)") as HTMLInputElement;
    Object.defineProperty(input, "files", { value: [new File(["not a tle"], "notes.txt")], configurable: true });
    await act(async () => {
      input.dispatchEvent(new Event("change", { bubbles: true }));
      await new Promise((r) => setTimeout(r, 10));
    });
    expect(changes).toEqual([]);
    expect(host.textContent).toContain("notes.txt: no TLE in the file");
  });

  it("puts the server's 422 on the TLE line it names", () => {
    mount({ "nodes.1.ephemeris.line1": "TLE epoch 2026-06-01 is 30 days from satcom.start_utc" });
    expect(host.textContent).toContain("TLE line 1: TLE epoch 2026-06-01 is 30 days from satcom.start_utc");
    expect((field("TLE line 1") as HTMLTextAreaElement).getAttribute("aria-invalid")).toBe("true");
    expect((field("TLE line 2") as HTMLTextAreaElement).getAttribute("aria-invalid")).toBeNull();
  });

  it("switches to a geostationary longitude, at the node's longitude", () => {
    mount();
    const select = field("Orbit source") as unknown as HTMLSelectElement;
    act(() => {
      select.value = "geostationary";
      select.dispatchEvent(new Event("change", { bubbles: true }));
    });
    expect((changes.at(-1)!.nodes[1]! as { ephemeris: unknown }).ephemeris).toEqual({ model: "geostationary", lon_deg: 1.5 });
  });
});

describe("scenario SATCOM settings and beams", () => {
  it("shows the start, mask, policy, gateways by label and a beam's members by their ends", () => {
    const withBeam = {
      ...doc,
      satcom: { start_utc: "2026-06-01T12:00:00Z", elevation_mask_deg: 15, gateways: ["r1"], beams: [{ id: "spot1", satellite: "leo", forward_symbol_rate_msps: 50, links: ["ship1-leo"] }] },
    } as ScenarioDocument;
    const h = renderToStaticMarkup(<Inspector {...base} doc={withBeam} onChange={() => {}} selection={{ nodes: [], links: [] }} />);
    expect(h).toContain(">SATCOM (orbits)<");
    expect(h).toContain('value="2026-06-01T12:00:00Z"');
    expect(h).toMatch(/Elevation mask \(°\)<\/label><input[^>]*value="15"/);
    expect(h).toMatch(/<input type="checkbox" checked=""\/> r1/);
    expect(h).toContain(">Beam spot1<");
    expect(h).toMatch(/<input type="checkbox" checked=""\/> Ship one \(ship1\) ↔ leo<span class="muted small"> \(no link budget: refused as a member\)<\/span>/);
    expect(h).toContain("Remove beam spot1");
  });

  it("shows the delay resolution, TLE age and inter-satellite link settings with their units and defaults", () => {
    const withIsl = { ...doc, satcom: { start_utc: "2026-06-01T12:00:00Z", max_tle_age_days: 30, isl_max_range_km: 5000 } } as ScenarioDocument;
    const h = renderToStaticMarkup(<Inspector {...base} doc={withIsl} onChange={() => {}} selection={{ nodes: [], links: [] }} />);
    expect(h).toMatch(/Delay resolution \(ms\)<\/label><input[^>]*value="0.1"/);
    expect(h).toMatch(/Oldest TLE accepted \(days\)<\/label><input[^>]*value="30"/);
    expect(h).toMatch(/grazing altitude \(km\)<\/label><input[^>]*value="80"/);
    expect(h).toMatch(/longest range \(km\)<\/label><input[^>]*value="5000"/);
    const none = renderToStaticMarkup(<Inspector {...base} doc={doc} onChange={() => {}} selection={{ nodes: [], links: [] }} />);
    expect(none).toMatch(/longest range \(km\)<\/label><input[^>]*placeholder="no limit"[^>]*value=""|longest range \(km\)<\/label><input[^>]*value=""[^>]*placeholder="no limit"/);
  });

  it("checks the start time as the server does: ISO 8601 with its offset", () => {
    expect(startUtcProblem("2026-06-01T12:00:00Z")).toBeNull();
    expect(startUtcProblem("2026-06-01T12:00:00+02:00")).toBeNull();
    expect(startUtcProblem("2026-06-01T12:00:00")).toMatch(/with its offset/);
    expect(startUtcProblem("2026-13-01T12:00:00Z")).toBe("is not a valid date and time");
  });
});
