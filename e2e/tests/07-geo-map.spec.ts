/**
 * Geographic scenarios on the map: place nodes on the map, drag one, draw a UAV
 * loiter, import a GPX track (a file written here with known positions), run a comparison and
 * scrub the time on the results' map: positions and coverage move.
 *
 * Positions are read from the drawn map through the e2e build's test hook `window.__subflowMap`
 * (markers and range circles as Leaflet draws them) and checked against REST. Distances are
 * checked against a haversine written here (an independent validator of Leaflet's).
 */
import * as fs from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { snap, uniqueName } from "./helpers";

type LL = [number, number];

/** Great-circle distance on the mean Earth radius (metres): the validator of the page's distances. */
function haversine(a: LL, b: LL): number {
  const r = Math.PI / 180;
  const dLat = (b[0] - a[0]) * r;
  const dLon = (b[1] - a[1]) * r;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a[0] * r) * Math.cos(b[0] * r) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371008.8 * Math.asin(Math.sqrt(h));
}

const hookNodes = (page: Page) => page.evaluate(() => (window as any).__subflowMap.nodes() as Record<string, LL>);
const hookRanges = (page: Page) => page.evaluate(() => (window as any).__subflowMap.ranges() as Record<string, [number, number, number]>);

/** Page coordinates of a latitude/longitude on the map. */
async function screenOf(page: Page, at: LL): Promise<{ x: number; y: number }> {
  return page.evaluate((ll) => {
    const m = (window as any).__subflowMap.map;
    const p = m.latLngToContainerPoint(ll);
    const box = m.getContainer().getBoundingClientRect();
    return { x: box.left + p.x, y: box.top + p.y };
  }, at);
}

async function clickAt(page: Page, at: LL) {
  const p = await screenOf(page, at);
  await page.mouse.click(p.x, p.y);
}

async function selectNode(page: Page, id: string, heading: string) {
  await expect(async () => {
    await page.locator(`.geo-map [data-node-id="${id}"]`).click();
    await expect(page.getByRole("heading", { name: heading })).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 15_000 });
}

const near = (a: LL, b: LL, tol: number) => Math.abs(a[0] - b[0]) <= tol && Math.abs(a[1] - b[1]) <= tol;

const SHORE: LL = [50.7, -1.2];
const UAV: LL = [50.55, -1.0];
const SHIP: LL = [50.5, -1.1];
const LOITER: LL = [50.56, -0.98];
/** The ship's GPX fixes: [lat, lon, seconds after the first]. */
const FIXES: [number, number, number][] = [
  [50.5, -1.1, 0],
  [50.52, -0.95, 40],
  [50.54, -0.85, 80],
];

let scenarioId = "";

test("place nodes on the map, drag one, draw a UAV loiter, import a GPX track", async ({ page, request }, testInfo) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (err) => pageErrors.push(err.message));
  await page.goto("/scenarios/new");
  await page.getByRole("button", { name: "Place on a map" }).click();
  const map = page.getByRole("region", { name: "Map of New scenario" });
  await expect(map).toHaveAttribute("data-basemap", "ready");
  await page.evaluate(() => (window as any).__subflowMap.map.setView([50.6, -1.05], 10, { animate: false }));
  await map.evaluate((el) => el.scrollIntoView({ block: "center" }));

  // place a shore host, a UAV access point and a ship (station) by clicking the map
  for (const [tool, at] of [
    ["Add host", SHORE],
    ["Add access point", UAV],
    ["Add station", SHIP],
  ] as const) {
    await page.getByRole("button", { name: tool, exact: true }).click();
    await clickAt(page, at);
  }
  await expect(map).toHaveAttribute("data-node-count", "3");
  const placed = await hookNodes(page);
  // a click lands on a pixel (~0.0014° of longitude at zoom 10 here): within 3 pixels
  for (const [id, at] of [["h1", SHORE], ["ap1", UAV], ["sta1", SHIP]] as const) expect(near(placed[id]!, at, 0.004), `${id}: ${JSON.stringify(placed)}`).toBe(true);
  // the offline basemap is drawn: Natural Earth land on a canvas
  expect(await page.evaluate(() => (window as any).__subflowMap.basemapReady())).toBe(true);

  // the access point covers the ship: a 15 km radio range, drawn as a circle around it
  await selectNode(page, "ap1", "Access point ap1");
  await page.getByLabel("Range (m)").fill("15000");
  await expect.poll(async () => (await hookRanges(page)).ap1?.[2]).toBe(15000);

  // a wired link shore–UAV (link tool: one node, then the other); its length in m and NM
  await page.getByRole("button", { name: "Draw links" }).click();
  await page.locator('.geo-map [data-node-id="ap1"]').click();
  await page.locator('.geo-map [data-node-id="h1"]').click();
  await expect(page.getByTestId("counts")).toContainText("1 links");
  const distance = page.getByTestId("geo-distance");
  await expect(distance).toContainText("NM");
  const shown = Number(await distance.getAttribute("data-metres"));
  expect(Math.abs(shown - haversine(placed.h1!, placed.ap1!)) / shown).toBeLessThan(0.005);
  await expect(distance).toContainText(`${Number((shown / 1852).toFixed(3))} NM`);
  await page.getByRole("button", { name: "Add flow" }).click();
  await snap(page, testInfo, "01-placed");

  // name it (nothing selected: the scenario's panel), save: the stored document is geographic, positions as drawn
  await page.getByRole("button", { name: "Select", exact: true }).click();
  await clickAt(page, [50.8, -0.7]);
  await expect(page.getByRole("heading", { name: "Scenario", exact: true })).toBeVisible();
  await page.getByLabel("Name", { exact: true }).fill(uniqueName("geo-map"));
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page).toHaveURL(/\/scenarios\/(?!new$)[^/]+$/);
  scenarioId = new URL(page.url()).pathname.split("/").pop()!;
  let stored = (await (await request.get(`/api/scenarios/${scenarioId}`)).json()).scenario;
  const pos = (id: string): LL => {
    const n = stored.nodes.find((x: { id: string }) => x.id === id);
    return [n.position.lat_deg, n.position.lon_deg];
  };
  expect(near(pos("h1"), placed.h1!, 1e-6)).toBe(true);
  expect(near(pos("sta1"), placed.sta1!, 1e-6)).toBe(true);
  expect(stored.schema_version).toBe(2);
  expect(stored.nodes.every((n: { position: { x_m?: number } }) => n.position.x_m === undefined || n.position.x_m === null)).toBe(true);

  // drag the shore host: the stored position is where the marker was dropped
  const map2 = page.getByRole("region", { name: /^Map of / });
  await expect(map2).toHaveAttribute("data-basemap", "ready");
  const from = await screenOf(page, pos("h1"));
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(from.x + 40, from.y + 20, { steps: 5 });
  await page.mouse.move(from.x + 80, from.y + 40, { steps: 5 });
  await page.mouse.up();
  await expect(page.getByTestId("unsaved")).toBeVisible();
  const dragged = (await hookNodes(page)).h1!;
  expect(near(dragged, pos("h1"), 0.001)).toBe(false);
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved version 2" })).toBeVisible();
  stored = (await (await request.get(`/api/scenarios/${scenarioId}`)).json()).scenario;
  expect(near(pos("h1"), dragged, 1e-6), `${pos("h1")} vs ${dragged}`).toBe(true);
  // south-east of where it was
  expect(pos("h1")[0]).toBeLessThan(placed.h1![0]);
  expect(pos("h1")[1]).toBeGreaterThan(placed.h1![1]);

  // a UAV loiter for the access point: centre picked on the map, radius and speed typed
  await selectNode(page, "ap1", "Access point ap1");
  await page.getByRole("button", { name: "Draw loiter" }).click();
  await clickAt(page, LOITER);
  await expect(page.getByLabel("Mobility model")).toHaveValue("loiter");
  await page.getByLabel("Loiter radius (m)").fill("2000");
  await page.getByLabel("Loiter speed (m/s)").fill("40");
  await page.getByLabel("Pattern").selectOption("circle");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved version 3" })).toBeVisible();
  stored = (await (await request.get(`/api/scenarios/${scenarioId}`)).json()).scenario;
  const ap = stored.nodes.find((n: { id: string }) => n.id === "ap1");
  expect(ap.mobility).toMatchObject({ model: "loiter", radius_m: 2000, speed_mps: 40, pattern: "circle" });
  expect(near([ap.mobility.center.lat_deg, ap.mobility.center.lon_deg], LOITER, 0.004)).toBe(true);
  await snap(page, testInfo, "02-loiter");

  // a GPX track for the ship, written here with known fixes
  const t0 = Date.UTC(2026, 0, 1, 8, 0, 0);
  const gpx = `<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="subflow-e2e" xmlns="http://www.topografix.com/GPX/1/1">
  <trk><name>ship</name><trkseg>
${FIXES.map(([lat, lon, s]) => `    <trkpt lat="${lat}" lon="${lon}"><time>${new Date(t0 + s * 1000).toISOString()}</time></trkpt>`).join("\n")}
  </trkseg></trk>
</gpx>
`;
  const file = testInfo.outputPath("ship.gpx");
  fs.mkdirSync(testInfo.outputDir, { recursive: true });
  fs.writeFileSync(file, gpx);
  await selectNode(page, "sta1", "Station sta1");
  await page.getByLabel("Track format").selectOption("gpx");
  await page.getByLabel("Track file for sta1").setInputFiles(file);
  await expect(page.getByRole("status").filter({ hasText: "Imported ship.gpx" })).toBeVisible();
  stored = (await (await request.get(`/api/scenarios/${scenarioId}`)).json()).scenario;
  const ship = stored.nodes.find((n: { id: string }) => n.id === "sta1");
  expect(ship.mobility.model).toBe("waypoints");
  for (const [lat, lon, s] of FIXES) {
    const p = ship.mobility.points.find((w: { t_s: number }) => Math.abs(w.t_s - s) < 1e-6);
    expect(p, `a waypoint at ${s} s`).toBeTruthy();
    expect(near([p.lat_deg, p.lon_deg], [lat, lon], 1e-6), `${s} s: ${JSON.stringify(p)}`).toBe(true);
  }
  // the imported track is drawn
  await expect(page.locator(".geo-map path.geo-waypoints")).toHaveCount(1);

  // the editor's scrubber moves the nodes on the map
  const scrubber = page.getByRole("region", { name: "Mobility over time" });
  await scrubber.getByLabel("Show").check();
  await scrubber.getByLabel("Time (s)").fill("40");
  await expect.poll(async () => near((await hookNodes(page)).sta1!, [FIXES[1]![0], FIXES[1]![1]], 1e-3)).toBe(true);
  await snap(page, testInfo, "03-track");
  expect(pageErrors, "uncaught errors in the page").toEqual([]);
});

test("run a comparison on the geographic scenario and scrub the time: positions and coverage move", async ({ page }, testInfo) => {
  expect(scenarioId, "the scenario saved by the first test").not.toBe("");
  const pageErrors: string[] = [];
  page.on("pageerror", (err) => pageErrors.push(err.message));
  await page.goto(`/scenarios/${scenarioId}`);
  await page.getByRole("button", { name: "Compare" }).click();
  const dialog = page.getByRole("dialog", { name: "Compare strategies" });
  await dialog.getByRole("button", { name: "Run" }).click();
  await expect(page).toHaveURL(/\/comparisons\/[^/]+$/);
  const failed = page.getByRole("alert").filter({ hasText: "The comparison failed" });
  await expect(page.getByTestId("comparison-status").filter({ hasText: /succeeded|failed|cancelled/ })).toBeVisible({ timeout: 120_000 });
  await expect(failed).toHaveCount(0);
  await expect(page.getByTestId("comparison-status")).toHaveText("succeeded");

  const map = page.getByRole("region", { name: /^Map of / });
  await expect(map).toHaveAttribute("data-basemap", "ready");
  await map.evaluate((el) => el.scrollIntoView({ block: "center" }));
  const time = page.getByLabel("Map time (s)");
  const at = async (t: number) => {
    await time.fill(String(t));
    await expect(page.getByRole("region", { name: new RegExp(`^Map of .* at ${t} s$`) })).toBeVisible();
    return { nodes: await hookNodes(page), ranges: await hookRanges(page) };
  };

  // the ship follows its GPX fixes
  for (const [lat, lon, s] of FIXES.slice(0, 2)) {
    const { nodes } = await at(s);
    expect(near(nodes.sta1!, [lat, lon], 1e-3), `ship at ${s} s: ${nodes.sta1}`).toBe(true);
  }
  // the UAV flies its 2 km loiter circle at 40 m/s and its coverage circle goes with it
  const stored = (await (await page.request.get(`/api/scenarios/${scenarioId}`)).json()).scenario;
  const c = stored.nodes.find((n: { id: string }) => n.id === "ap1").mobility.center;
  const a = await at(10);
  const b = await at(30);
  await snap(page, testInfo, "01-results-map");
  for (const s of [a, b]) {
    expect(s.ranges.ap1!.slice(0, 2)).toEqual(s.nodes.ap1);
    expect(s.ranges.ap1![2]).toBe(15000);
    const r = haversine(s.nodes.ap1!, [c.lat_deg, c.lon_deg]);
    expect(Math.abs(r - 2000) / 2000, `radius ${r} m`).toBeLessThan(0.01);
  }
  // 20 s at 40 m/s = 800 m along the circle (a chord of 2·2000·sin(0.2) = 795 m)
  const moved = haversine(a.nodes.ap1!, b.nodes.ap1!);
  expect(Math.abs(moved - 2 * 2000 * Math.sin(800 / 2000 / 2)) / moved).toBeLessThan(0.02);
  expect(near(a.ranges.ap1!.slice(0, 2) as LL, b.ranges.ap1!.slice(0, 2) as LL, 1e-4)).toBe(false);
  // computed tracks are drawn as lines (the ship and the UAV)
  await expect(page.locator(".geo-map path.geo-track")).toHaveCount(2);
  expect(pageErrors, "uncaught errors in the page").toEqual([]);
});
