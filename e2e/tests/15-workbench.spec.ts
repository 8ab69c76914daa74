/**
 * The planner's workbench on a comparison's page (naval-leo: geographic, SATCOM, two strategies):
 * one playback time for the throughput charts, the routes view and the map (moving any slider,
 * hovering a chart or pressing Play moves all of them), and the first throughput chart above the
 * fold at 1024×768; at 1440×900 the results and the routes' topology are in view together.
 */
import * as fs from "node:fs";
import { expect, test, type APIRequestContext, type Page, type TestInfo } from "@playwright/test";
import { snap, uniqueName, writeScenario } from "./helpers";

let stored: { sid: string; cid: string } | null = null;

/** naval-leo stored once and compared (sptcp vs mptcp, fluid), reused by every test of this file. */
async function leoComparison(request: APIRequestContext, testInfo: TestInfo): Promise<{ sid: string; cid: string }> {
  if (stored) return stored;
  const file = writeScenario(testInfo, "naval-leo.json", uniqueName("naval-leo-workbench"));
  const created = await request.post("/api/scenarios", { data: JSON.parse(fs.readFileSync(file, "utf8")) });
  expect(created.status(), await created.text()).toBe(201);
  const sid = (await created.json()).id as string;
  const r = await request.post(`/api/scenarios/${sid}/comparisons`, { data: { strategies: ["sptcp", "mptcp"], engine: "fluid" } });
  expect(r.status(), await r.text()).toBe(202);
  const cid = (await r.json()).id as string;
  await expect
    .poll(async () => (await (await request.get(`/api/scenarios/${sid}/comparisons/${cid}`)).json()).status, { timeout: 120_000 })
    .toBe("succeeded");
  stored = { sid, cid };
  return stored;
}

async function open(page: Page, sid: string, cid: string): Promise<void> {
  await page.goto(`/scenarios/${sid}/comparisons/${cid}`);
  await expect(page.getByTestId("chart-sptcp")).toBeVisible({ timeout: 30_000 });
}

/** The time each view shows: the routes' label, the map's output, and where the charts' rules stand (null: none). */
async function times(page: Page) {
  const routes = page.getByRole("region", { name: "Routes and link utilisation" });
  const label = (await routes.locator('label[for="ro-time"]').textContent()) ?? "";
  const map = (await page.getByLabel("Map time", { exact: true }).textContent()) ?? "";
  const rules = await page.getByTestId("hover-rule").count();
  return { routes: Number(/Time: ([\d.]+) s/.exec(label)?.[1]), map: Number(/([\d.]+) s/.exec(map)?.[1]), rules };
}

test("one playback: the map's slider, the routes' slider, a chart's hover and Play move the charts, the routes and the map together", async ({ page, request }, testInfo) => {
  const { sid, cid } = await leoComparison(request, testInfo);
  await open(page, sid, cid);
  const map = page.getByRole("region", { name: /^Map of / });
  await expect(map).toBeVisible();

  // the map's slider moves the routes' time and draws the charts' rule
  await page.getByLabel("Map time (s)").fill("300");
  await expect.poll(() => times(page)).toEqual({ routes: 300, map: 300, rules: 2 });
  await expect(map).toHaveAccessibleName(/ at 300 s$/);

  // the routes' slider moves the map
  await page.getByLabel(/^Time:/).fill("600");
  await expect.poll(() => times(page)).toEqual({ routes: 600, map: 600, rules: 2 });
  await expect(page.getByRole("region", { name: /^Map of .* at 600 s$/ })).toBeVisible();

  // hovering a chart moves the routes and the map to the hovered time; leaving it goes back to 600 s
  const svg = page.getByTestId("chart-sptcp").locator("svg.chart-svg");
  await svg.scrollIntoViewIfNeeded();
  const box = (await svg.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.5);
  await expect(page.getByLabel("Map time", { exact: true })).not.toHaveText("600 s");
  const hovered = await times(page);
  expect(hovered.routes).toBe(hovered.map);
  expect(hovered.routes).toBeLessThan(600);
  await page.mouse.move(box.x + box.width * 0.3, box.y - 200);
  await expect.poll(() => times(page)).toEqual({ routes: 600, map: 600, rules: 2 });

  // Play on the charts' bar advances all of them; Pause on the map's bar stops all of them
  const bars = page.getByTestId("playback-bar");
  await expect(bars).toHaveCount(3);
  await page.getByLabel("Map time (s)").fill("100");
  await expect.poll(() => times(page)).toEqual({ routes: 100, map: 100, rules: 2 });
  await bars.first().getByRole("button", { name: "Play" }).click();
  await expect.poll(async () => (await times(page)).map, { timeout: 10_000 }).toBeGreaterThan(120);
  await page.getByRole("region", { name: "On the map" }).getByRole("button", { name: "Pause" }).click();
  const paused = await times(page);
  expect(paused.routes).toBe(paused.map);
  expect(paused.map).toBeGreaterThan(120);
  expect(paused.map).toBeLessThan(900);
  await page.waitForTimeout(300);
  expect(await times(page)).toEqual(paused);
  const shown = await bars.evaluateAll((els) => els.map((e) => e.getAttribute("data-time")));
  expect(new Set(shown).size, `every bar at one time: ${shown}`).toBe(1);
  await snap(page, testInfo, "01-shared-playback");
});

test("at 1024×768 the first throughput chart is above the fold; at 1440×900 the results and the routes' topology are in view together", async ({ page, request }, testInfo) => {
  const { sid, cid } = await leoComparison(request, testInfo);
  await page.setViewportSize({ width: 1024, height: 768 });
  await open(page, sid, cid);
  const first = page.getByTestId("chart-sptcp");
  const b = (await first.boundingBox())!;
  expect(await page.evaluate(() => window.scrollY)).toBe(0);
  expect(b.y, "chart top").toBeGreaterThanOrEqual(0);
  expect(b.y + b.height, `chart bottom ${b.y + b.height} px within 768`).toBeLessThanOrEqual(768);
  await snap(page, testInfo, "02-1024");

  await page.setViewportSize({ width: 1440, height: 900 });
  await open(page, sid, cid);
  const chart = (await page.getByTestId("chart-sptcp").boundingBox())!;
  const topo = page.getByRole("region", { name: "Routes and link utilisation" }).getByTestId("route-map");
  await expect(topo).toBeVisible();
  const t = (await topo.boundingBox())!;
  expect(chart.y + chart.height, "chart bottom within 900").toBeLessThanOrEqual(900);
  // at least half of the routes' drawing is in view without scrolling
  const visible = Math.min(900, t.y + t.height) - Math.max(0, t.y);
  expect(visible, `routes drawing ${t.y}..${t.y + t.height} px`).toBeGreaterThanOrEqual(t.height / 2);
  await snap(page, testInfo, "03-1440");
});
