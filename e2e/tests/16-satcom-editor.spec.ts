/**
 * The editor's SATCOM side on naval-leo (geographic, a GEO and three LEO satellites on TLEs): the access report
 * (passes per terminal by label), the satellites' ground tracks on the map (read through the e2e hook
 * `window.__subflowMap`), a TLE line refused at its field for a bad checksum, the server's 422 for a TLE epoch far
 * from the run on its line, a valid set pasted, a GEO
 * satellite moved by its longitude (the ship's GEO elevation follows, against the spherical-Earth formula, and the
 * stored document has it), a
 * SATCOM link's delay "from the orbit" with its budget section, and axe-core on the editor.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { REPO_ROOT, seriousAxeViolations, snap, uniqueName, writeScenario } from "./helpers";

/** The ISS element set of Wikipedia's "Two-line element set" article: valid lines, epoch 2008-09-20. */
const ISS1 = "1 25544U 98067A   08264.51782528 -.00002182  00000-0 -11606-4 0  2927";
const ISS2 = "2 25544  51.6416 247.4627 0006703 130.5360 325.0288 15.72125391563537";

const groundTracks = (page: Page) => page.evaluate(() => (window as any).__subflowMap.groundTracks() as Record<string, number>);

/** Nothing selected (a click on an empty corner of the map): the scenario's panel. */
async function selectNothing(page: Page) {
  const box = (await page.getByTestId("geo-map").boundingBox())!;
  await page.mouse.click(box.x + box.width - 40, box.y + 60);
  await expect(page.getByRole("heading", { name: "Scenario", exact: true })).toBeVisible();
}

async function selectElement(page: Page, list: "Nodes" | "Links", id: string) {
  // the scenario panel lists the elements (the LEO markers overlap on the map)
  await selectNothing(page);
  await page.getByText(/^Elements \(/).click();
  await page.getByRole("list", { name: list }).getByRole("button", { name: id, exact: true }).click();
}

/**
 * Elevation of a geostationary satellite at longitude `satLon` seen from (`lat`, `lon`), degrees: spherical Earth,
 * cos γ = cos φ cos Δλ, tan ε = (cos γ − R_E / R_GEO) / sin γ (Maral & Bousquet, Satellite Communications Systems,
 * 5th ed., §8.3.3; R_E = 6378.137 km, R_GEO = 42,164 km).
 */
function geoElevationDeg(lat: number, lon: number, satLon: number): number {
  const rad = Math.PI / 180;
  const cosG = Math.cos(lat * rad) * Math.cos((satLon - lon) * rad);
  return Math.atan((cosG - 6378.137 / 42164) / Math.sqrt(1 - cosG * cosG)) / rad;
}

/** The ship's pass of `satellite` (its row in the access table of ship1). */
const passRow = (page: Page, satellite: string) => page.locator(`table.access-table[data-terminal="ship1"] tr[data-satellite="${satellite}"]`).first();

test("naval-leo: access report, ground tracks, TLE and GEO longitude edited, budget section on a SATCOM link", async ({ page, request }, testInfo) => {
  const name = uniqueName("satcom-editor");
  const file = writeScenario(testInfo, "naval-leo.json", name);
  const created = await request.post("/api/scenarios", { data: JSON.parse(fs.readFileSync(file, "utf8")) });
  expect(created.status()).toBe(201);
  const sid = (await created.json()).id as string;

  await page.goto(`/scenarios/${sid}`);
  await expect(page.getByTestId("geo-map")).toBeVisible();

  // the access report: per terminal by label, at least one pass with rise, set and max elevation
  const report = page.getByTestId("access-report");
  await expect(report.getByRole("heading", { name: "Satellite access" })).toBeVisible();
  await report.getByRole("checkbox", { name: "Compute" }).check(); // off until asked for: it costs the server seconds
  await expect(report.locator("caption", { hasText: "Ship 1 (12 kn, south-west lane)" })).toBeVisible({ timeout: 60_000 });
  expect(await report.getByTestId("access-pass").count()).toBeGreaterThanOrEqual(1);
  const geoRow = passRow(page, "geosat");
  await expect(geoRow).toContainText("GEO SATCOM (5°E)");
  await expect(geoRow.locator("td").first()).toHaveText("12:00:00"); // the GEO satellite is up from the start
  const elevation = async (satellite: string) => Number(((await passRow(page, satellite).getByTestId("max-elevation").innerText()).match(/([\d.]+)°/) ?? [])[1]);
  const geoElevation = await elevation("geosat");
  // ship1 starts at 51.085°N 1.6°E; GEO at 5°E: 31.4° by the spherical-Earth formula (the ship moves ~6 km, the
  // ellipsoid adds ~0.1°)
  expect(Math.abs(geoElevation - geoElevationDeg(51.085, 1.6, 5))).toBeLessThan(0.5);

  // ground tracks: one polyline per LEO satellite (a GEO one stays on its point: nothing to draw)
  await expect.poll(async () => Object.keys(await groundTracks(page)).sort(), { timeout: 30_000 }).toEqual(["leo-p1s2", "leo-p1s3", "leo-p6s2"]);
  expect(await page.locator("path.geo-ground-track").count()).toBeGreaterThanOrEqual(3);
  // the map zooms out from the strait to the tracks (thousands of km)
  const zoom = () => page.evaluate(() => (window as any).__subflowMap.map.getZoom() as number);
  const before = await zoom();
  await report.getByRole("button", { name: "Show the ground tracks on the map" }).click();
  await expect.poll(zoom).toBeLessThan(before - 3);
  await snap(page, testInfo, "01-access-and-tracks");

  // a satellite's TLE: a bad checksum refused at the field, named; a valid set pasted fills both lines
  await selectElement(page, "Nodes", "leo-p1s3");
  await expect(page.getByRole("heading", { name: /^Satellite leo-p1s3/ })).toBeVisible();
  const line2 = page.getByLabel("TLE line 2");
  const good2 = await line2.inputValue();
  const bad2 = `${good2.slice(0, 68)}${(Number(good2[68]) + 1) % 10}`;
  await line2.fill(bad2);
  await expect(line2).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByText(/TLE line 2: bad TLE checksum \(column 69 is/)).toBeVisible();
  await snap(page, testInfo, "02-tle-refused");
  const walker = fs.readFileSync(path.join(REPO_ROOT, "examples", "tles", "walker-53-48-6-1.tle"), "utf8").split("\n");
  const p1s1 = walker.slice(0, 3).join("\n"); // LEO-P1S1: name and two lines
  await page.getByLabel("TLE line 1").fill(p1s1);
  await expect(page.getByLabel("TLE line 1")).toHaveValue(walker[1]!);
  await expect(line2).toHaveValue(walker[2]!);
  await expect(line2).not.toHaveAttribute("aria-invalid", "true");

  // a set the client accepts but the server refuses (an epoch 18 years before the run): its 422 on line 1
  await page.getByLabel("TLE line 1").fill(`${ISS1}\n${ISS2}`);
  await expect(line2).toHaveValue(ISS2);
  await page.getByRole("button", { name: "Save", exact: true }).click();
  const banner = page.getByRole("alert").filter({ hasText: "Not saved" });
  await expect(banner).toContainText("TLE epoch");
  await expect(page.getByLabel("TLE line 1")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByText(/TLE line 1: the TLE epoch is [\d.]+ days from satcom.start_utc/)).toBeVisible();
  await expect(line2).not.toHaveAttribute("aria-invalid", "true");
  await page.getByLabel("TLE line 1").fill(p1s1);
  await expect(page.getByLabel("TLE line 1")).not.toHaveAttribute("aria-invalid", "true");
  await expect(banner).toHaveCount(0);

  // the GEO satellite moved from 5°E to 40°E: the ship sees it lower
  await selectElement(page, "Nodes", "geosat");
  await expect(page.getByLabel("Orbit source")).toHaveValue("geostationary");
  await page.getByLabel("Longitude of the sub-satellite point (°)").fill("40");
  const expected = geoElevationDeg(51.085, 1.6, 40); // 21.4°
  await expect.poll(async () => Math.abs((await elevation("geosat")) - expected), { timeout: 60_000 }).toBeLessThan(0.5);
  await snap(page, testInfo, "03-geo-moved");

  // a SATCOM link: its delay from the orbit (no 1 ms default), a budget section
  await selectElement(page, "Links", "ship1-leo-p1s2");
  await expect(page.getByTestId("orbit-delay")).toContainText("from the orbit of LEO-P1S2");
  // its one-way delay over the uses (the link adds none): between the zenith (1,200 km / c = 4.0 ms) and the 10°
  // mask: slant range √(r² − (R cos 10°)²) − R sin 10° with r = 7,578 km (the TLE's mean motion) and R = 6,365 km
  // (the ellipsoid at 51°N) ≈ 3,154 km → 10.5 ms
  const [lo, hi] = ((await page.getByTestId("orbit-delay").innerText()).match(/one way ([\d.]+)–([\d.]+) ms/) ?? []).slice(1).map(Number);
  expect(lo).toBeGreaterThanOrEqual(4.0);
  expect(hi).toBeLessThanOrEqual(10.6);
  expect(hi).toBeGreaterThan(lo!);
  await expect(page.getByRole("group", { name: "Link budget" })).toBeVisible();
  await expect(page.getByLabel("Extra delay (modem, processing) (ms)")).toBeVisible();
  await page.getByRole("button", { name: "Add link budget" }).click();
  await expect(page.getByLabel("Terminal EIRP (dBW)")).toHaveValue("50");
  await snap(page, testInfo, "04-link-budget");
  await page.getByRole("button", { name: "Remove link budget" }).click();
  // a ground link has neither
  await selectElement(page, "Links", "teleport-shore");
  await expect(page.getByTestId("orbit-delay")).toHaveCount(0);
  await expect(page.getByRole("group", { name: "Link budget" })).toHaveCount(0);

  // saved: the stored document has the new orbit and TLE
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText(/^Saved version/)).toBeVisible();
  const stored = await (await request.get(`/api/scenarios/${sid}`)).json();
  const nodes = stored.scenario.nodes as any[];
  expect(nodes.find((n) => n.id === "geosat").ephemeris).toEqual({ model: "geostationary", lon_deg: 40 });
  expect(nodes.find((n) => n.id === "leo-p1s3").ephemeris.line1).toBe(walker[1]);

  // the scenario's SATCOM settings and axe-core with the access report and the satellite inspector shown
  await selectNothing(page);
  await expect(page.getByRole("group", { name: "SATCOM (orbits)" })).toBeVisible();
  await expect(page.getByLabel("Elevation mask (°)")).toHaveValue("10");
  await selectElement(page, "Nodes", "leo-p1s2");
  const axe = await seriousAxeViolations(page);
  await testInfo.attach("axe-satcom-editor", { body: JSON.stringify(axe.all, null, 2), contentType: "application/json" });
  expect(axe.bad).toEqual([]);
});
