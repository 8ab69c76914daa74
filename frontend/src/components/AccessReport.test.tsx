// @vitest-environment happy-dom
/**
 * The access report: passes grouped by terminal and named by label, rise / set as UTC from satcom.start_utc,
 * MODCOD steps for a budgeted link; and its hook asks `POST /api/timeline?access=true` for a geographic scenario
 * with orbits only.
 */
import { act } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AccessPass, ScenarioDocument } from "../api/types";
import { accessByTerminal, utcAt, utcClock } from "../lib/satcomAccess";
import { installFakeFetch } from "../testing/fakeFetch";
import { renderHook } from "../testing/renderHook";
import { useSatcomAccess, type SatcomAccess } from "../views/editor/useSatcomAccess";
import { AccessReport } from "./AccessReport";

const doc: ScenarioDocument = {
  name: "orbits",
  geo: { origin_lat_deg: 51, origin_lon_deg: 1.5 } as never,
  satcom: { start_utc: "2026-06-01T12:00:00Z", elevation_mask_deg: 10 },
  nodes: [
    { id: "ship1", kind: "station", label: "Ship one", position: { lat_deg: 51, lon_deg: 1.5 } as never },
    { id: "leo-a", kind: "satellite", label: "LEO A", position: { lat_deg: 51, lon_deg: 1.5 } as never, ephemeris: { model: "geostationary", lon_deg: 5 } },
  ],
  links: [{ id: "ship1-leo-a", src: "ship1", dst: "leo-a", bandwidth_mbps: 10 }],
} as ScenarioDocument;

const passes: AccessPass[] = [
  {
    terminal: "ship1", satellite: "leo-a", link: "ship1-leo-a", rise_s: 166.8, set_s: 900, max_elevation_deg: 55.433, t_max_elevation_s: 611, in_use: [[204.652, 401.127]],
    steps: [
      { t_s: 166.8, up_modcod: "QPSK 1/2", down_modcod: "8PSK 3/4", up_capacity_mbps: 9.9, down_capacity_mbps: 22.3 },
      { t_s: 400, up_modcod: null, down_modcod: "QPSK 3/4", up_capacity_mbps: 0, down_capacity_mbps: 14.9 },
    ],
  },
  { terminal: "ship1", satellite: "leo-a", link: "ship1-leo-a", rise_s: 0, set_s: 60, max_elevation_deg: 12, t_max_elevation_s: 0, in_use: [], steps: null },
];

describe("access report", () => {
  it("gives UTC times from the run's start", () => {
    expect(utcAt("2026-06-01T12:00:00Z", 166.8)).toBe("2026-06-01 12:02:46");
    expect(utcAt("2026-06-01T23:59:00+00:00", 120)).toBe("2026-06-02 00:01:00");
    expect(utcAt(null, 1)).toBeNull();
    expect(utcClock("2026-06-01T12:00:00Z", 166.8)).toBe("12:02:46");
    expect(utcClock("2026-06-01T23:59:00Z", 120)).toBe("2026-06-02 00:01:00");
    const [g] = accessByTerminal(passes, doc);
    expect(g!.name).toBe("Ship one");
    expect(g!.rows.map((r) => [r.satellite, r.rise_utc, r.used_s.toFixed(3)])).toEqual([["LEO A", "12:02:46", "196.475"], ["LEO A", "12:00:00", "0.000"]]);
  });

  it("shows a table per terminal, by label, with the MODCOD steps", () => {
    const access: SatcomAccess = { applies: true, on: true, setOn: () => {}, loading: false, error: null, timeline: { access: passes } as never, fitTracks: 0, showTracks: () => {} };
    const html = renderToStaticMarkup(<AccessReport doc={doc} access={access} />);
    expect(html).toContain(">Ship one</caption>");
    expect(html).toContain(">LEO A</th>");
    expect(html).toContain(">12:02:46</td>");
    expect(html).toContain("the run starts 2026-06-01 12:00:00");
    expect(html).toContain("55.4° <span class=\"muted small\">at 12:10:11</span>");
    expect(html).toContain("↑ QPSK 1/2 · 9.9 Mbit/s; ↓ 8PSK 3/4 · 22.3 Mbit/s");
    expect(html).toContain("↑ none closes; ↓ QPSK 3/4 · 14.9 Mbit/s");
    expect(html).toContain("not used");
    expect(html.match(/data-testid="access-pass"/g)!.length).toBe(2);
  });

  it("is not shown for a scenario without orbits", () => {
    const access: SatcomAccess = { applies: false, on: true, setOn: () => {}, loading: false, error: null, timeline: null, fitTracks: 0, showTracks: () => {} };
    expect(renderToStaticMarkup(<AccessReport doc={doc} access={access} />)).toBe("");
  });
});

describe("useSatcomAccess", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("asks the timeline with access once turned on, for a geographic scenario with orbits, not for one without", async () => {
    vi.useFakeTimers();
    const fake = installFakeFetch({ "POST /api/timeline": () => [200, { duration_s: 100, access: passes, ground_tracks: { "leo-a": [[0, 0, 5], [100, 0, 5]] } }] });
    const h = renderHook((d: ScenarioDocument) => useSatcomAccess(d), doc);
    expect(h.result.current.applies).toBe(true);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(900);
    });
    expect(fake.requests).toHaveLength(0); // off until asked for
    act(() => h.result.current.setOn(true));
    await act(async () => {
      await vi.advanceTimersByTimeAsync(900);
    });
    expect(fake.requests.map((r) => r.url)).toEqual(["/api/timeline?access=true"]);
    expect(h.result.current.timeline?.access).toHaveLength(2);
    expect(h.result.current.timeline?.ground_tracks?.["leo-a"]).toHaveLength(2);
    const noOrbit = { ...doc, nodes: doc.nodes.map((n) => ({ ...n, ephemeris: undefined })) } as ScenarioDocument;
    h.rerender(noOrbit);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(900);
    });
    expect(fake.requests).toHaveLength(1);
    expect(h.result.current.applies).toBe(false);
    expect(h.result.current.timeline).toBeNull();
    h.unmount();
  });
});
