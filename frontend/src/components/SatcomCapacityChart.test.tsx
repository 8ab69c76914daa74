// @vitest-environment happy-dom
/**
 * The SATCOM capacity chart from a real `POST /api/timeline?access=true` answer of examples/naval-geo-rain-fade.json
 * (testing/fixtures/rain-fade-timeline.json, saved once from the backend's `timeline_of`): one step line per budgeted
 * link and direction, each step at its time with its capacity and MODCOD, gaps where the link is down, and the
 * playback rule following the page's one time.
 *
 * Pixel positions are worked out by hand from the chart's geometry: 560 px wide before it is measured, margins
 * left 56 / right 18, so a 486 px wide plot; over the run's 0–420 s that is 486 / 420 px per second.
 */
import { act } from "react";
import { createRoot } from "react-dom/client";
import { renderToStaticMarkup } from "react-dom/server";
import { afterEach, describe, expect, it } from "vitest";
import type { AccessPass, ScenarioDocument } from "../api/types";
import { capacityAt, capacitySeries } from "../lib/satcomAccess";
import { PlaybackProvider, usePlayback, type Playback } from "../lib/playback";
import FIXTURE from "../testing/fixtures/rain-fade-timeline.json";
import { SatcomCapacityChart } from "./SatcomCapacityChart";

const passes = FIXTURE.access as AccessPass[];
// the nodes' labels of examples/naval-geo-rain-fade.json
const doc = {
  name: "rain fade",
  nodes: [
    { id: "teleport", kind: "router", label: "SATCOM teleport (Dover), Ka and Ku antennas" },
    { id: "kasat", kind: "satellite", label: "Ka-band GEO (9°E)" },
    { id: "kusat", kind: "satellite", label: "Ku-band GEO (5°E)" },
    { id: "ship1", kind: "station", label: "Ship (10 kn, north-east)" },
  ],
  links: [],
} as unknown as ScenarioDocument;

const px = (t_s: number) => ((t_s * 486) / 420).toFixed(1);
const steps = (html: string) =>
  [...html.matchAll(/<path d="M([\d.]+),([\d.]+)H([\d.]+)[^"]*" data-testid="capacity-step" data-t0="([^"]+)" data-t1="([^"]+)" data-mbps="([^"]+)" data-modcod="([^"]+)"><title>([^<]*)<\/title>/g)].map(
    ([, x0, y, x1, t0, t1, mbps, modcod, title]) => ({ x0, y: Number(y), x1, t0: Number(t0), t1: Number(t1), mbps: Number(mbps), modcod, title }),
  );
const seriesOf = (html: string, key: string) => {
  const m = new RegExp(`<g data-series="${key}"[^>]*>(.*?)</g>`).exec(html);
  if (!m) throw new Error(`no series ${key}`);
  return steps(m[1]!);
};

describe("SatcomCapacityChart", () => {
  const html = renderToStaticMarkup(<SatcomCapacityChart passes={passes} doc={doc} domain={[0, 420]} ruleT={null} />);

  it("draws one line per budgeted link and direction, named by the nodes' labels", () => {
    expect([...html.matchAll(/<g data-series="([^"]+)"/g)].map((m) => m[1])).toEqual([
      "ship1-ka:up", "ship1-ka:down", "ship1-ku:up", "ship1-ku:down", "ka-gw:up", "ka-gw:down", "ku-gw:up", "ku-gw:down",
    ]);
    expect(html).toContain("Ship (10 kn, north-east) → Ka-band GEO (9°E) ↑");
    expect(html).toContain("Ship (10 kn, north-east) → Ku-band GEO (5°E) ↓");
    expect(html).not.toMatch(/<li data-legend="[^"]*">[^<]*<\/li>/); // every legend entry has its swatch
  });

  it("steps the Ka uplink down through the fade at 120, 150 and 180 s and back up at 240, 270 and 300 s", () => {
    const up = seriesOf(html, "ship1-ka:up");
    // the rain cell of the example: 8PSK 3/4 → 8PSK 3/5 → QPSK 3/5 → QPSK 2/5, then back
    expect(up.map((s) => [s.t0, s.t1, s.modcod, s.mbps])).toEqual([
      [0, 120, "8PSK 3/4", 11.14062],
      [120, 150, "8PSK 3/5", 8.899955],
      [150, 180, "QPSK 3/5", 5.94152],
      [180, 240, "QPSK 2/5", 3.94706],
      [240, 270, "QPSK 3/5", 5.94152],
      [270, 300, "8PSK 3/5", 8.899955],
      [300, 420, "8PSK 3/4", 11.14062],
    ]);
    // each step spans its times on the shared time axis
    expect(up.map((s) => [s.x0, s.x1])).toEqual([
      ["0.0", px(120)], [px(120), px(150)], [px(150), px(180)], [px(180), px(240)], [px(240), px(270)], [px(270), px(300)], [px(300), "486.0"],
    ]);
    // lower capacity is drawn lower (larger y): down through the fade, up after it
    const ys = up.map((s) => s.y);
    expect(ys[0]! < ys[1]! && ys[1]! < ys[2]! && ys[2]! < ys[3]!).toBe(true);
    expect(ys[3]! > ys[4]! && ys[4]! > ys[5]! && ys[5]! > ys[6]!).toBe(true);
    expect(ys[6]).toBe(ys[0]);
    expect(up[3]!.title).toBe("Ship (10 kn, north-east) → Ka-band GEO (9°E) ↑: QPSK 2/5 · 3.9 Mbit/s from 180 to 240 s");
  });

  it("gives the downlink its own steps and the clear-sky feeder one step over the run", () => {
    expect(seriesOf(html, "ship1-ka:down").map((s) => s.modcod)).toEqual(["16APSK 5/6", "16APSK 4/5", "16APSK 2/3", "8PSK 3/4", "16APSK 2/3", "16APSK 4/5", "16APSK 5/6"]);
    expect(seriesOf(html, "ka-gw:up").map((s) => [s.t0, s.t1, s.modcod, s.mbps])).toEqual([[0, 420, "32APSK 9/10", 133.59081]]);
  });

  it("leaves a gap where no MODCOD closes (either direction: the link is down both ways) and outside the uses", () => {
    const pass: AccessPass = {
      ...passes[0]!,
      in_use: [[0, 400]],
      steps: [
        { t_s: 0, up_modcod: "QPSK 1/2", down_modcod: "8PSK 3/4", up_capacity_mbps: 5, down_capacity_mbps: 11 },
        { t_s: 100, up_modcod: null, down_modcod: "QPSK 1/4", up_capacity_mbps: 0, down_capacity_mbps: 2 },
        { t_s: 130, up_modcod: "QPSK 1/3", down_modcod: "8PSK 3/4", up_capacity_mbps: 3, down_capacity_mbps: 11 },
      ],
    };
    const [up, down] = capacitySeries([pass], doc);
    expect(up!.segments.map((g) => [g.t0_s, g.t1_s, g.capacity_mbps])).toEqual([[0, 100, 5], [130, 400, 3]]);
    expect(down!.segments.map((g) => [g.t0_s, g.t1_s, g.capacity_mbps])).toEqual([[0, 100, 11], [130, 400, 11]]);
    expect(capacityAt(up!, 115)).toBeNull();
    expect(capacityAt(up!, 410)).toBeNull();
    expect(capacityAt(up!, 100)).toBeNull(); // the outage starts at 100 s
    expect(capacityAt(up!, 130)?.capacity_mbps).toBe(3);
    const gap = renderToStaticMarkup(<SatcomCapacityChart passes={[pass]} doc={doc} domain={[0, 420]} ruleT={null} />);
    // the first step ends at 100 s without a riser to the next one (no line across the gap)
    expect(seriesOf(gap, "ship1-ka:up").map((s) => s.x1)).toEqual([px(100), px(400)]);
    expect(gap).toMatch(new RegExp(`<path d="M0.0,[\\d.]+H${px(100)}" data-testid="capacity-step" data-t0="0" data-t1="100"`));
  });

  it("renders nothing without a budgeted link", () => {
    expect(renderToStaticMarkup(<SatcomCapacityChart passes={passes.map((p) => ({ ...p, steps: null }))} doc={doc} domain={[0, 420]} ruleT={null} />)).toBe("");
  });
});

describe("SatcomCapacityChart and the page's playback", () => {
  let cleanup: (() => void) | null = null;
  afterEach(() => cleanup?.());

  it("draws the rule and reads MODCOD and capacity at the shared time as it moves", () => {
    (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
    const shared: { current: Playback | null } = { current: null };
    // the throughput section's rule: the hovered time, else the chosen one
    function Page() {
      const playback = usePlayback();
      shared.current = playback;
      return <SatcomCapacityChart passes={passes} doc={doc} domain={[0, 420]} ruleT={playback.hoverT ?? playback.t} onHover={playback.setHoverT} />;
    }
    const host = document.createElement("div");
    document.body.append(host);
    const root = createRoot(host);
    act(() =>
      root.render(
        <PlaybackProvider duration={420}>
          <Page />
        </PlaybackProvider>,
      ),
    );
    cleanup = () => {
      act(() => root.unmount());
      host.remove();
      cleanup = null;
    };
    const rule = () => host.querySelector('[data-testid="capacity-rule"]');
    const reading = (key: string) => host.querySelector(`[data-testid="capacity-readout"] td[data-series="${key}"]`)?.textContent;
    expect(rule()).toBeNull(); // no time chosen yet

    act(() => shared.current!.seek(200)); // another view (a slider, Play) chooses 200 s: inside the fade
    expect(rule()?.getAttribute("x1")).toBe(String((200 * 486) / 420));
    expect(host.querySelector('[data-testid="capacity-readout"] caption')?.textContent).toBe("At 200 s");
    expect(host.querySelector('[data-testid="capacity-readout"] tbody th')?.textContent).toBe("Ship (10 kn, north-east) → Ka-band GEO (9°E)");
    expect(reading("ship1-ka:up")).toBe("QPSK 2/5 · 3.9 Mbit/s");
    expect(reading("ship1-ka:down")).toBe("8PSK 3/4 · 11.1 Mbit/s");
    expect(reading("ka-gw:up")).toBe("32APSK 9/10 · 133.6 Mbit/s");

    act(() => shared.current!.setHoverT(30)); // a throughput chart hovered at 30 s: before the fade
    expect(rule()?.getAttribute("x1")).toBe(String((30 * 486) / 420));
    expect(reading("ship1-ka:up")).toBe("8PSK 3/4 · 11.1 Mbit/s");

    act(() => shared.current!.setHoverT(null)); // hover left: back to the chosen time
    expect(rule()?.getAttribute("x1")).toBe(String((200 * 486) / 420));
  });
});
