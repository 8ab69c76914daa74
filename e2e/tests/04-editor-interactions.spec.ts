/**
 * Editor interactions on the naval example: multi-select move, undo/redo,
 * keyboard delete, mobility bounds drawn as a rectangle, and the time scrubber
 * showing the association timeline.
 */
import { expect, test, type Page } from "@playwright/test";
import { snap, uniqueName, writeScenario } from "./helpers";
import * as fs from "node:fs";

type XY = { x: number; y: number };

/** Screen position of a node and its model position (cytoscape instance of the page). */
async function nodeAt(page: Page, id: string): Promise<{ screen: XY; model: XY }> {
  return page.evaluate((nid) => {
    const cy = (window as unknown as { __subflowCy: any }).__subflowCy;
    const n = cy.getElementById(nid);
    const box = cy.container().getBoundingClientRect();
    const r = n.renderedPosition();
    return { screen: { x: box.left + r.x, y: box.top + r.y }, model: { ...n.position() } };
  }, id);
}

/**
 * Click a node on the canvas (with a modifier: add it to the selection) until the canvas has it
 * selected: under load a click can land while the page is still settling after the previous step.
 */
async function clickNode(page: Page, id: string, modifier?: "Control") {
  const selected = () => page.evaluate((nid) => (window as any).__subflowCy.getElementById(nid).selected() as boolean, id);
  await expect(async () => {
    if (await selected()) return;
    const { screen } = await nodeAt(page, id);
    if (modifier) await page.keyboard.down(modifier);
    await page.mouse.click(screen.x, screen.y);
    if (modifier) await page.keyboard.up(modifier);
    await expect.poll(selected, { timeout: 2_000 }).toBe(true);
  }).toPass({ timeout: 15_000 });
}

test("multi-select move, undo/redo, keyboard delete, bounds and the time scrubber", async ({ page, request }, testInfo) => {
  const name = uniqueName("naval-edit");
  const file = writeScenario(testInfo, "naval-direct-move.json", name);
  const created = await request.post("/api/scenarios", { data: JSON.parse(fs.readFileSync(file, "utf8")) });
  expect(created.status()).toBe(201);
  const sid = (await created.json()).id;
  await page.goto(`/scenarios/${sid}`);
  const canvas = page.getByRole("img", { name: `Topology of ${name}` });
  await expect(canvas).toHaveAttribute("data-rendered", "true");

  // time scrubber: before 60 s the users are out of the UAV's range, after 63 s associated
  const scrubber = page.getByRole("region", { name: "Mobility over time" });
  await scrubber.getByLabel("Show").check();
  const time = scrubber.getByLabel("Time (s)");
  const assoc = scrubber.getByRole("list", { name: "Associations at this time" });
  await time.fill("30");
  await expect(assoc.locator('[data-station="sta1"]')).toContainText("no access point");
  await time.fill("61");
  await expect(assoc.locator('[data-station="sta1"]')).toContainText("uav (associating)");
  await time.fill("70");
  await expect(assoc.locator('[data-station="sta1"]')).toContainText("uav (associated)");
  await expect.poll(() => page.evaluate(() => (window as any).__subflowCy.elements("edge.assoc").length)).toBe(2);
  // the network window of the scrubbed time is the timeline's (REST), and "Next change" jumps to the next one
  const tl = await request.post("/api/timeline", { data: JSON.parse(fs.readFileSync(file, "utf8")) });
  expect(tl.status()).toBe(200);
  const windows: [number, number][] = (await tl.json()).windows;
  const k = windows.findIndex(([a, b]) => a <= 70 && 70 < b);
  expect(k).toBeGreaterThan(0);
  const win = scrubber.getByTestId("network-window");
  await expect(win).toHaveAttribute("data-index", String(k));
  await expect(win).toHaveAttribute("data-start", String(windows[k][0]));
  await expect(win).toContainText(`Network window ${k + 1} of ${windows.length}`);
  await win.getByRole("button", { name: "Previous change" }).click();
  await expect(win).toHaveAttribute("data-index", String(k - 1));
  await snap(page, testInfo, "01-scrubber");
  await scrubber.getByLabel("Show").uncheck();

  // select ship and satcom (ctrl-click), drag one: both move by the same offset
  await canvas.evaluate((el) => el.scrollIntoView({ block: "center" }));
  // cytoscape re-reads the container's place on the page on the (next frame's) scroll event
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  // (screen positions are read right before each gesture: the side panel changes the page height)
  let ship0 = await nodeAt(page, "ship");
  await clickNode(page, "ship");
  await expect(page.getByRole("heading", { name: "Host ship" })).toBeVisible();
  const sat0 = await nodeAt(page, "satcom");
  await clickNode(page, "satcom", "Control");
  await expect(page.getByRole("heading", { name: "2 elements selected" })).toBeVisible();
  ship0 = await nodeAt(page, "ship");
  await page.mouse.move(ship0.screen.x, ship0.screen.y);
  await page.mouse.down();
  await page.mouse.move(ship0.screen.x + 30, ship0.screen.y + 40, { steps: 6 });
  await page.mouse.move(ship0.screen.x + 60, ship0.screen.y + 80, { steps: 6 });
  await page.mouse.up();
  await expect(page.getByTestId("unsaved")).toBeVisible();
  const ship1 = await nodeAt(page, "ship");
  const sat1 = await nodeAt(page, "satcom");
  const d = { x: ship1.model.x - ship0.model.x, y: ship1.model.y - ship0.model.y };
  expect(Math.abs(d.x)).toBeGreaterThan(1);
  expect(sat1.model.x - sat0.model.x).toBeCloseTo(d.x, 0);
  expect(sat1.model.y - sat0.model.y).toBeCloseTo(d.y, 0);
  await snap(page, testInfo, "02-moved");

  // undo puts both back; redo moves them again
  await page.getByRole("button", { name: "Undo" }).click();
  await expect.poll(async () => (await nodeAt(page, "satcom")).model.x).toBeCloseTo(sat0.model.x, 0);
  await page.getByRole("button", { name: "Redo" }).click();
  await expect.poll(async () => (await nodeAt(page, "satcom")).model.x).toBeCloseTo(sat1.model.x, 0);

  // keyboard delete of a station takes its links and flows with it; Ctrl+Z brings them back
  const box = (await canvas.boundingBox())!;
  await page.mouse.click(box.x + 5, box.y + 5);
  await expect(page.getByRole("heading", { name: "Scenario", exact: true })).toBeVisible();
  await clickNode(page, "sta2");
  await expect(page.getByRole("heading", { name: "Station sta2" })).toBeVisible();
  const counts = page.getByTestId("counts");
  const before = await counts.innerText();
  await page.keyboard.press("Delete");
  await expect(canvas).toHaveAttribute("data-node-count", "4");
  await expect(counts).not.toHaveText(before);
  await page.keyboard.press("Control+z");
  await expect(counts).toHaveText(before);

  // random walk with bounds drawn as a rectangle around the station
  await clickNode(page, "sta1");
  let sta1 = await nodeAt(page, "sta1");
  await expect(page.getByRole("heading", { name: "Station sta1" })).toBeVisible();
  await page.getByLabel("Mobility model").selectOption("random_walk");
  await page.getByRole("button", { name: "Draw bounds" }).click();
  await expect(page.getByRole("button", { name: "Stop drawing bounds" })).toBeVisible();
  sta1 = await nodeAt(page, "sta1");
  await page.mouse.move(sta1.screen.x - 40, sta1.screen.y - 30);
  await page.mouse.down();
  await page.mouse.move(sta1.screen.x + 10, sta1.screen.y + 10, { steps: 5 });
  await page.mouse.move(sta1.screen.x + 60, sta1.screen.y + 40, { steps: 5 });
  await page.mouse.up();
  await expect(page.getByRole("button", { name: "Draw bounds" })).toBeVisible();
  const xmin = Number(await page.getByLabel("Bounds x min (m)").inputValue());
  const xmax = Number(await page.getByLabel("Bounds x max (m)").inputValue());
  const ymin = Number(await page.getByLabel("Bounds y min (m)").inputValue());
  const ymax = Number(await page.getByLabel("Bounds y max (m)").inputValue());
  expect(xmin).toBeLessThan(100);
  expect(xmax).toBeGreaterThan(100);
  expect(ymin).toBeLessThan(0);
  expect(ymax).toBeGreaterThan(0);
  await expect.poll(() => page.evaluate(() => (window as any).__subflowCy.getElementById("bounds:sta1").length)).toBe(1);
  await snap(page, testInfo, "03-bounds");

  // the edited document is valid: saving works and bumps the version
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved version 2" })).toBeVisible();
  const stored = await (await request.get(`/api/scenarios/${sid}`)).json();
  const st = stored.scenario.nodes.find((n: { id: string }) => n.id === "sta1");
  expect(st.mobility).toMatchObject({ model: "random_walk", bounds: { x_min_m: xmin, x_max_m: xmax, y_min_m: ymin, y_max_m: ymax } });

  // export: the stored document as JSON
  const probe = await request.get(`/api/scenarios/${sid}/export?format=json`);
  expect(probe.status(), `GET /api/scenarios/{id}/export?format=json: ${await probe.text()}`).toBe(200);
  await page.getByText("Export", { exact: true }).click();
  const download = page.waitForEvent("download");
  await page.getByRole("link", { name: "Scenario JSON" }).click();
  const exported = JSON.parse(fs.readFileSync((await (await download).path())!, "utf8"));
  expect(exported.nodes.map((n: { id: string }) => n.id)).toEqual(stored.scenario.nodes.map((n: { id: string }) => n.id));
});
