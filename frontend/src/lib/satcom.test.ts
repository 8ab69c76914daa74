import { describe, expect, it } from "vitest";
import type { SatcomUse } from "../api/types";
import { delayAt, satcomAt, satcomHandovers, satcomSeries, windowIndexAt } from "./timeline";

const uses: SatcomUse[] = [
  { terminal: "ship1", satellite: "geosat", link: "ship1-geo", t_start_s: 0, t_end_s: 900, delay_ms: [[0, 128.34], [900, 128.33]] },
  { terminal: "ship1", satellite: "leo-a", link: "ship1-leo-a", t_start_s: 0, t_end_s: 200, delay_ms: [[0, 6.0], [100, 4.0], [200, 9.0]] },
  { terminal: "ship1", satellite: "leo-b", link: "ship1-leo-b", t_start_s: 200, t_end_s: 900, delay_ms: [[200, 9.8], [900, 6.8]] },
];

describe("SATCOM timeline at t", () => {
  it("interpolates the delay between points and clamps at the ends", () => {
    expect(delayAt([[0, 6], [100, 4]], 50)).toBeCloseTo(5, 9);
    expect(delayAt([[0, 6], [100, 4]], 500)).toBe(4);
    expect(delayAt([], 1)).toBeNull();
  });

  it("lists the satellites in use with their delay; a handover switches at t_end_s", () => {
    expect(satcomAt(uses, 150).map((s) => [s.satellite, Math.round(s.delay_ms * 100) / 100])).toEqual([
      ["geosat", 128.34],
      ["leo-a", 6.5],
    ]);
    expect(satcomAt(uses, 200).map((s) => s.satellite)).toEqual(["geosat", "leo-b"]);
    expect(satcomAt(null, 1)).toEqual([]);
  });

  it("at the run's end shows the satellites in use until then (the last interval is closed)", () => {
    expect(satcomAt(uses, 900, 900).map((s) => s.satellite)).toEqual(["geosat", "leo-b"]);
    expect(satcomAt(uses, 900)).toEqual([]); // without the run's duration, [t_start_s, t_end_s) as given
    expect(satcomAt(uses, 199.999, 900).map((s) => s.satellite)).toEqual(["geosat", "leo-a"]);
  });

  it("series for the chart leave out the GEO use above the bound", () => {
    expect(satcomSeries(uses, "ship1", 50).map((s) => s.satellite)).toEqual(["leo-a", "leo-b"]);
    expect(satcomSeries(uses, "ship2")).toEqual([]);
  });
});

describe("satcomHandovers", () => {
  it("lists each change of satellite with the one left, not the uses that start with the run", () => {
    expect(satcomHandovers(uses)).toEqual([{ terminal: "ship1", t_s: 200, satellite: "leo-b", from: "leo-a" }]);
    expect(satcomHandovers(null)).toEqual([]);
  });
});

describe("network windows", () => {
  const windows: [number, number][] = [[0, 60.5], [60.5, 63.5], [63.5, 100]];
  it("finds the window holding a time, the last one closed at the run's end", () => {
    expect(windowIndexAt(windows, 0)).toBe(0);
    expect(windowIndexAt(windows, 60.4999)).toBe(0);
    expect(windowIndexAt(windows, 60.5)).toBe(1);
    expect(windowIndexAt(windows, 99.9)).toBe(2);
    expect(windowIndexAt(windows, 100)).toBe(2);
  });
  it("answers -1 outside the run or without windows", () => {
    expect(windowIndexAt(windows, 100.1)).toBe(-1);
    expect(windowIndexAt(windows, -1)).toBe(-1);
    expect(windowIndexAt([], 5)).toBe(-1);
    expect(windowIndexAt(undefined, 5)).toBe(-1);
  });
});
