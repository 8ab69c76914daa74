// @vitest-environment happy-dom
/**
 * The side-by-side page against a fake fetch: comparisons with a voice call get the delay, jitter, loss and MOS
 * charts (MOS with its 3.6 line) and the quality summary in their own column, every chart of a metric on one y
 * range over all columns (as the throughput charts share theirs); a tcp-only comparison gets none of them.
 *
 * The made-up series and the figures expected from them are worked out by hand below.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ComparisonPublic, StrategyResult } from "../api/types";
import { installFakeFetch } from "../testing/fakeFetch";
import { fakeUser, renderPage, type RenderedPage } from "../testing/renderPage";
import { SideBySideView } from "./SideBySideView";

const t_s = [0, 1, 2, 3];
const bulk = { id: "bulk", src: "a", dst: "b", t_s, throughput_mbps: [5, 5, 5, 5], subflows: [] };
const summary = { flows: [{ id: "bulk", mean_mbps: 5, std_mbps: 0, min_mbps: 5, max_mbps: 5, zero_s: 0, longest_zero_s: 0 }], mean_mbps: 5, std_mbps: 0, min_mbps: 5, zero_s: 0, jain_index: 1 };

/** A strategy's result: the bulk flow and, with `delay`, a G.711 call of 80 kbit/s with that delay per interval. */
function strategy(name: string, delay: (number | null)[] | null, mos: (number | null)[] = [4.4, 4.4, 4.4, 4.4]): StrategyResult {
  const call = delay && {
    id: "call", src: "a", dst: "b", t_s, throughput_mbps: delay.map((d) => (d === null ? 0 : 0.08)), subflows: [],
    delay_ms: delay, jitter_ms: [0.5, 0.5, 0.5, 0.5], loss: delay.map((d) => (d === null ? 1 : 0)), r_factor: mos.map(() => 90), mos,
  };
  return { strategy: name, engine: "fluid", flows: call ? [bulk, call] : [bulk], events: [], summary } as unknown as StrategyResult;
}

function comparison(id: string, strategies: Record<string, StrategyResult>): ComparisonPublic {
  return {
    id, scenario_id: "s1", scenario_version: 1, engine: "fluid", status: "succeeded", strategies: Object.keys(strategies), created_at: "2026-11-28T10:00:00Z",
    started_at: null, finished_at: null, error: null, progress: 1, seed: 1,
    result: { version: 1, scenario: { name: "t", nodes: [{ id: "a", kind: "host" }] }, strategies },
  } as unknown as ComparisonPublic;
}

const COMPARISONS: Record<string, ComparisonPublic> = {
  // near: 10 ms throughout
  near: comparison("near", { sptcp: strategy("sptcp", [10, 10, 10, 10]) }),
  // far: 40 ms, then nothing arrives at 2 s (loss 1, no MOS), MOS 3.0 at 3 s
  far: comparison("far", { mptcp: strategy("mptcp", [40, 40, null, 40], [4.0, 4.0, null, 3.0]) }),
  tcp: comparison("tcp", { sptcp: strategy("sptcp", null) }),
};

let page: RenderedPage;
afterEach(() => {
  page.unmount();
  vi.unstubAllGlobals();
});

async function open(ids: string[]) {
  installFakeFetch({
    "GET /api/scenarios/s1": () => [200, { id: "s1", name: "voice test" }],
    ...Object.fromEntries(ids.map((id) => [`GET /api/scenarios/s1/comparisons/${id}`, () => [200, COMPARISONS[id]] as [number, unknown]])),
  });
  page = await renderPage(<SideBySideView />, fakeUser(), `/scenarios/s1/compare?ids=${ids.join(",")}`, "/scenarios/:id/compare");
}

const column = (id: string) => page.host.querySelector<HTMLElement>(`[data-testid="column-${id}"]`)!;
/** The y tick labels of a chart (the texts of its axis ticks, left of the plot), top to bottom. */
const yTicks = (chart: Element) =>
  [...chart.querySelectorAll("svg g text")]
    .filter((t) => t.getAttribute("text-anchor") === "end")
    .map((t) => t.textContent);

describe("SideBySideView with voice flows", () => {
  it("draws each column's delay, jitter, loss and MOS charts, MOS with its 3.6 line", async () => {
    await open(["near", "far"]);
    for (const id of ["near", "far"]) {
      const col = column(id);
      for (const m of ["delay", "jitter", "loss", "mos"]) expect(col.querySelector(`[data-testid="quality-${m}-${id}"]`), `${m} in ${id}`).not.toBeNull();
      expect(col.querySelector(`[data-testid="quality-mos-${id}-reference"]`)).not.toBeNull();
      // only the call has quality series: its line, none for the tcp flow
      expect(col.querySelector('[data-series$="/call/delay_ms"]')).not.toBeNull();
      expect(col.querySelector('[data-series$="/bulk/delay_ms"]')).toBeNull();
    }
    // clip paths are unique on the page
    const clips = [...page.host.querySelectorAll("clipPath")].map((c) => c.id);
    expect(new Set(clips).size).toBe(clips.length);
  });

  it("puts every column's chart of a metric on one y range", async () => {
    await open(["near", "far"]);
    const near = column("near").querySelector('[data-testid="quality-delay-near"]')!;
    const far = column("far").querySelector('[data-testid="quality-delay-far"]')!;
    // largest delay 40 ms → 0 to 42 ms, niced to 0–45: the near column's 10 ms line is drawn on it too
    expect(yTicks(near).length).toBeGreaterThan(2);
    expect(yTicks(near)).toEqual(yTicks(far));
    expect(yTicks(near).map(Number)).toContain(40);
    // the 10 ms line at y = 140 − 10/45 · 140 = 108.9 px (on its own 0–10.5 range it would be near the top)
    const d = near.querySelector('[data-series="sptcp/call/delay_ms"]')!.getAttribute("d")!;
    const ys = [...d.matchAll(/[ML][\d.]+,([\d.]+)/g)].map((m) => Number(m[1]));
    expect(ys).toHaveLength(4);
    for (const y of ys) expect(y).toBeCloseTo(140 - (10 / 45) * 140, 1);
  });

  it("summarises each column's call in its own quality table", async () => {
    await open(["near", "far"]);
    const cell = (id: string, row: string, col: string) => column(id).querySelector(`[data-testid="quality-${row}"] [data-col="${col}"]`)!.textContent;
    expect(cell("near", "sptcp/call", "meanDelayMs")).toBe("10.00");
    expect(cell("near", "sptcp/call", "meanMos")).toBe("4.40");
    expect(cell("far", "mptcp/call", "meanDelayMs")).toBe("40.00");
    // MOS over the intervals that have one: (4.0 + 4.0 + 3.0) / 3 = 3.67, lowest 3.0
    expect(cell("far", "mptcp/call", "meanMos")).toBe("3.67");
    expect(cell("far", "mptcp/call", "minMos")).toBe("3.00");
    expect(column("near").querySelector('[data-testid="quality-mptcp/call"]')).toBeNull();
  });

  it("adds nothing to a tcp-only comparison", async () => {
    await open(["tcp", "near"]);
    const tcp = column("tcp");
    expect(tcp.querySelector('[data-testid^="chart-tcp-"]')).not.toBeNull();
    expect(tcp.querySelector('[data-testid^="quality-"]')).toBeNull();
    expect(column("near").querySelector('[data-testid="quality-mos-near"]')).not.toBeNull();
  });

  it("adds nothing when every comparison is tcp-only", async () => {
    await open(["tcp"]);
    expect(page.host.querySelector('[data-testid^="quality-"]')).toBeNull();
    expect(page.host.querySelector('[data-testid="chart-tcp-sptcp"]')).not.toBeNull();
  });
});
