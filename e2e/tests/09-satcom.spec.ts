/**
 * SATCOM from orbits in the editor: the time scrubber of examples/naval-leo.json shows, per
 * ground terminal, the satellite in use and its one-way delay, and the LEO delay chart. The expected
 * satellites and delays come from `POST /api/timeline` (the domain library), read here through REST and
 * compared with what the page shows at the same times: before and after ship1's first LEO handover.
 */
import * as fs from "node:fs";
import { expect, test } from "@playwright/test";
import { snap, uniqueName, writeScenario } from "./helpers";

test("the time scrubber shows the satellite in use and its delay, across a LEO handover", async ({ page, request }, testInfo) => {
  const name = uniqueName("naval-leo");
  const doc = JSON.parse(fs.readFileSync(writeScenario(testInfo, "naval-leo.json", name), "utf8"));
  const created = await request.post("/api/scenarios", { data: doc });
  expect(created.status()).toBe(201);
  const sid = (await created.json()).id;
  const tl = await request.post("/api/timeline", { data: doc });
  expect(tl.status()).toBe(200);
  const uses = ((await tl.json()).satcom as any[]).filter((u) => u.terminal === "ship1" && u.satellite !== "geosat");
  expect(uses.length).toBeGreaterThanOrEqual(2);
  const [first, second] = uses.sort((a, b) => a.t_start_s - b.t_start_s);

  await page.goto(`/scenarios/${sid}`);
  // the first view fits the ground nodes (the Dover Strait), not the GEO satellite's point over the equator
  await expect(page.locator(".geo-map").first()).toBeVisible();
  await expect.poll(() => page.evaluate(() => Boolean((window as any).__subflowMap?.map))).toBe(true);
  const view = await page.evaluate(() => {
    const b = (window as any).__subflowMap.map.getBounds();
    return { s: b.getSouth(), n: b.getNorth() };
  });
  const ground = doc.nodes.filter((n: any) => n.kind !== "satellite" && n.position?.lat_deg !== undefined).map((n: any) => n.position.lat_deg);
  expect(view.s).toBeGreaterThan(Math.min(...ground) - 5);
  expect(view.n).toBeLessThan(Math.max(...ground) + 5);
  const scrubber = page.getByRole("region", { name: "Mobility over time" });
  await scrubber.getByLabel("Show").check();
  const satcom = scrubber.getByRole("list", { name: "SATCOM at this time" });
  const time = scrubber.getByLabel("Time (s)");
  for (const [use, t] of [[first, Math.floor(first.t_end_s) - 5], [second, Math.ceil(second.t_start_s) + 5]] as const) {
    await time.fill(String(t));
    const row = satcom.locator('[data-terminal="ship1"]');
    await expect(row).toContainText(`${use.satellite}, `);
    await expect(row).toContainText("geosat, 128.");
    const shown = Number((await row.textContent())!.match(new RegExp(`${use.satellite}, ([0-9.]+) ms`))![1]);
    const pts = use.delay_ms as [number, number][];
    const lo = Math.min(...pts.map((p) => p[1]));
    const hi = Math.max(...pts.map((p) => p[1]));
    expect(shown).toBeGreaterThanOrEqual(lo - 0.05);
    expect(shown).toBeLessThanOrEqual(hi + 0.05);
  }
  // the run's end (900 s) is part of the run: the GEO satellite in use 0–900 s is still shown then
  await time.fill(String(doc.run.duration_s));
  await expect(satcom.locator('[data-terminal="ship1"]')).toContainText("geosat, 128.");
  await expect(satcom.locator('[data-terminal="ship1"]')).not.toContainText("no satellite in view");
  const chart = scrubber.getByRole("img", { name: /LEO SATCOM one-way delay/ });
  await expect(chart).toBeVisible();
  await expect(chart.locator(`polyline[data-satellite="${second.satellite}"]`).first()).toBeAttached();
  // the chart has its axes with units, and beside it each terminal's handover times (REST's uses' starts)
  await expect(chart.locator('[data-axis="y-label"]')).toHaveText("ms");
  await expect(chart.locator('[data-axis="x-label"]')).toHaveText("time (s)");
  await expect(chart.locator('[data-axis="x-max"]')).toHaveText(String(doc.run.duration_s));
  const handovers = scrubber.getByRole("list", { name: "SATCOM handovers" });
  for (const u of uses.filter((u) => u.t_start_s > 0)) {
    await expect(handovers.locator(`li[data-terminal="ship1"][data-t="${u.t_start_s}"]`)).toContainText(`${u.satellite}`);
  }
  await snap(page, testInfo, "01-satcom");
});

test("a comparison on naval-leo draws its subflows' routes on the map", async ({ page, request }, testInfo) => {
  const doc = JSON.parse(fs.readFileSync(writeScenario(testInfo, "naval-leo.json", uniqueName("naval-leo-routes")), "utf8"));
  const created = await request.post("/api/scenarios", { data: doc });
  expect(created.status()).toBe(201);
  const sid = (await created.json()).id;
  await page.goto(`/scenarios/${sid}`);
  await page.getByRole("button", { name: "Compare" }).click();
  await page.getByRole("dialog", { name: "Compare strategies" }).getByRole("button", { name: "Run" }).click();
  await expect(page).toHaveURL(/\/comparisons\/[^/]+$/);
  await expect(page.getByTestId("comparison-status")).toHaveText("succeeded", { timeout: 120_000 });
  const routes = page.getByRole("region", { name: "Routes and link utilisation" });
  await routes.scrollIntoViewIfNeeded();
  // a geographic scenario's routes are drawn on its map (the planar canvas had no place for lat/lon nodes)
  await expect(routes.getByRole("region", { name: /on the map$/ })).toBeVisible();
  const active = routes.getByRole("list", { name: "Active subflows" }).locator("li[data-path]");
  await expect(active.first()).toBeVisible();
  const paths = await active.evaluateAll((lis) => lis.map((li) => li.getAttribute("data-path")!.split(" ")));
  const byPair = new Map<string, string>();
  for (const l of doc.links as { id: string; src: string; dst: string }[]) byPair.set([l.src, l.dst].sort().join("|"), l.id);
  const want = new Set<string>();
  for (const p of paths) for (let i = 1; i < p.length; i++) {
    const id = byPair.get([p[i - 1]!, p[i]!].sort().join("|"));
    if (id) want.add(id);
  }
  expect(want.size).toBeGreaterThan(0);
  const drawn = () => page.evaluate(() => {
    const styles = (window as any).__subflowRouteMap.linkStyles() as Record<string, { label: string | null }>;
    return Object.entries(styles).filter(([, s]) => s.label !== null).map(([id]) => id).sort();
  });
  await expect.poll(drawn).toEqual([...want].sort());
  await snap(page, testInfo, "02-routes-on-the-map");
});
