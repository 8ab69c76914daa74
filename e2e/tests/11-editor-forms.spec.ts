/**
 * Forms that speak the user's units and names, save-time warnings,
 * tools that stay on, click-click links, keyboard shortcuts with a `?` help dialog, the Compare
 * dialog over the editor, the start page's import box, the inspector at 1024×768, and axe-core on
 * the scenario list and the editor.
 */
import * as fs from "node:fs";
import { expect, test, type APIRequestContext, type Locator, type Page } from "@playwright/test";
import { seriousAxeViolations, snap, uniqueName, writeScenario } from "./helpers";

/** The naval example with a lonely "Buoy" host (no link: a flow to it never has a path). */
async function navalWithBuoy(request: APIRequestContext, testInfo: Parameters<typeof writeScenario>[0]): Promise<{ sid: string; name: string }> {
  const name = uniqueName("forms");
  const file = writeScenario(testInfo, "naval-direct-move.json", name, (doc) => {
    doc.nodes.push({ id: "buoy", kind: "host", label: "Buoy", position: { x_m: 500, y_m: 300 } });
  });
  const created = await request.post("/api/scenarios", { data: JSON.parse(fs.readFileSync(file, "utf8")) });
  expect(created.status()).toBe(201);
  return { sid: (await created.json()).id as string, name };
}

/** Centre of the canvas plus an offset in pixels. */
async function canvasPoint(canvas: Locator, dx: number, dy: number) {
  const box = (await canvas.boundingBox())!;
  return { x: box.x + box.width / 2 + dx, y: box.y + box.height / 2 + dy };
}

/** Screen position of a node (cytoscape instance of the page, e2e build). */
async function nodeScreen(page: Page, id: string) {
  return page.evaluate((nid) => {
    const cy = (window as unknown as { __subflowCy: any }).__subflowCy;
    const box = cy.container().getBoundingClientRect();
    const r = cy.getElementById(nid).renderedPosition();
    return { x: box.left + r.x, y: box.top + r.y };
  }, id);
}

test("server errors in the user's units and names, cleared once fixed; save-time warnings", async ({ page, request }, testInfo) => {
  const { sid } = await navalWithBuoy(request, testInfo);
  await page.goto(`/scenarios/${sid}`);
  await expect(page.getByTestId("topology")).toHaveAttribute("data-rendered", "true");
  await expect(page.getByTestId("save-warnings")).toHaveCount(0);

  // a duration over the limit: the limit with its unit, at the field and in the banner
  const duration = page.getByLabel("Duration (s)");
  await duration.fill("90000");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  const banner = page.getByRole("alert").filter({ hasText: "Not saved" });
  await expect(banner).toContainText("must be ≤ 86,400 s");
  await expect(banner).not.toContainText("body");
  await expect(duration).toHaveAttribute("aria-invalid", "true");
  await expect(duration).toHaveAccessibleDescription("must be ≤ 86,400 s");
  // corrected: the field's error and the banner go at once, before saving again
  await duration.fill("100");
  await expect(duration).not.toHaveAttribute("aria-invalid", "true");
  await expect(banner).toHaveCount(0);

  // a link bandwidth of 0: refused at the field by the model's bound, with the unit, and Save refused naming it
  await page.getByText(/^Elements \(/).click();
  await page.getByRole("list", { name: "Links" }).getByRole("button", { name: "uav-ship" }).click();
  await expect(page.getByText("UAV access point (uav) ↔ Ship (server) (ship) (full duplex")).toBeVisible();
  const bandwidth = page.getByLabel("Bandwidth (Mbit/s)");
  await bandwidth.fill("0");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(banner).toContainText("Bandwidth (Mbit/s): 0 must be > 0 Mbit/s");
  await expect(banner).not.toContainText("links.3");
  await expect(bandwidth).toHaveAccessibleDescription("must be > 0 Mbit/s");
  await snap(page, testInfo, "01-named-error");
  await bandwidth.fill("1");
  await expect(bandwidth).not.toHaveAttribute("aria-invalid", "true");
  await expect(banner).toHaveCount(0);

  // a flow to the unconnected buoy, offered by its label: saved, with a warning (not an error)
  await page.getByRole("button", { name: "Add flow" }).click();
  const flows = page.getByRole("table", { name: "Flows" });
  await flows.getByLabel("Flow f3 source").selectOption({ label: "Buoy (buoy)" });
  await flows.getByLabel("Flow f3 destination").selectOption("ship");

  // sta1 on a drawn path longer than the run: the row says so before saving
  const canvas = page.getByTestId("topology");
  await canvas.evaluate((el) => el.scrollIntoView({ block: "center" }));
  // cytoscape re-reads the container's place on the page on the (next frame's) scroll event
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const user1 = await nodeScreen(page, "sta1");
  await page.mouse.click(user1.x, user1.y);
  await expect(page.getByRole("heading", { name: "Station sta1 · User 1" })).toBeVisible();
  await page.getByLabel("Mobility model").selectOption("waypoints");
  await page.getByRole("button", { name: "Draw path" }).click();
  const waypoints = page.getByRole("table", { name: "Waypoints" });
  // the path starts where the station is
  await expect(waypoints.getByRole("row")).toHaveCount(2);
  await expect(waypoints.getByLabel("Waypoint 1 x (m)")).toHaveValue("100");
  await canvas.evaluate((el) => el.scrollIntoView({ block: "center" }));
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const p = await canvasPoint(canvas, 60, 40);
  await page.mouse.click(p.x, p.y);
  await expect(waypoints.getByRole("row")).toHaveCount(3);
  await page.getByRole("button", { name: "Finish path" }).click();
  const t2 = waypoints.getByLabel("Waypoint 2 time (s)");
  await t2.fill("169");
  await t2.press("Enter");
  await expect(page.getByTestId("waypoint-clock-1")).toHaveText("2 min 49 s");
  await expect(page.getByTestId("waypoint-beyond-1")).toHaveText("Waypoint 2 is after the run’s end (1 min 40 s): the path from here on is never travelled.");

  await page.keyboard.press("Control+s");
  await expect(page.getByRole("status").filter({ hasText: /^Saved version/ })).toBeVisible();
  const warnings = page.getByTestId("save-warnings");
  await expect(warnings).toContainText("Flow f3 (buoy → ship) has no path at any time of the run.");
  await expect(warnings).toContainText("The path of sta1 ends at 169 s, after the run's 100 s");
  await expect(page.getByRole("alert")).toHaveCount(0);
  await snap(page, testInfo, "02-warnings");
  const stored = await (await request.get(`/api/scenarios/${sid}`)).json();
  expect(stored.scenario.flows[2]).toMatchObject({ id: "f3", src: "buoy", dst: "ship" });
  expect(stored.scenario.links[3].bandwidth_mbps).toBe(1);
});

test("tools stay on, click-click links, keyboard shortcuts and their ? dialog", async ({ page }, testInfo) => {
  await page.goto("/");
  // the import box holds its own name field; "New scenario" is outside it
  const importBox = page.getByRole("region", { name: "Import a scenario" });
  await expect(importBox.getByLabel("Name for the imported scenario")).toBeVisible();
  await expect(importBox.getByText("Import scenario file")).toBeVisible();
  await expect(importBox.getByRole("link", { name: "New scenario" })).toHaveCount(0);
  await page.getByRole("link", { name: "New scenario" }).click();
  const canvas = page.getByRole("img", { name: "Topology of New scenario" });
  await expect(canvas).toHaveAttribute("data-rendered", "true");
  await page.getByLabel("Name", { exact: true }).fill(uniqueName("keys"));

  // "1": Add host; three clicks place three hosts, the tool stays on until Esc
  await canvas.click({ position: { x: 5, y: 5 } }); // focus the page, not a text field
  await page.keyboard.press("Escape");
  await page.keyboard.press("1");
  await expect(canvas).toHaveAttribute("data-tool", "add");
  for (const dx of [-200, 0, 200]) {
    const p = await canvasPoint(canvas, dx, 0);
    await page.mouse.click(p.x, p.y);
  }
  await expect(canvas).toHaveAttribute("data-node-count", "3");
  await expect(canvas).toHaveAttribute("data-tool", "add");
  await page.keyboard.press("Escape");
  await expect(canvas).toHaveAttribute("data-tool", "select");

  // "L": links by click on a node, then click on another
  await page.keyboard.press("l");
  await expect(canvas).toHaveAttribute("data-tool", "link");
  for (const [a, b] of [["h1", "h2"], ["h2", "h3"]] as const) {
    const pa = await nodeScreen(page, a);
    await page.mouse.click(pa.x, pa.y);
    const pb = await nodeScreen(page, b);
    await page.mouse.click(pb.x, pb.y);
  }
  await expect(canvas).toHaveAttribute("data-link-count", "2");
  await expect(canvas).toHaveAttribute("data-tool", "link");
  await page.keyboard.press("Escape");

  // "?": the shortcuts dialog, focus inside, Esc closes it
  await page.keyboard.press("?");
  const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
  await expect(help).toBeVisible();
  await expect(help.getByRole("button", { name: "Close" })).toBeFocused();
  for (const action of ["Undo", "Save", "Select tool"]) await expect(help.getByRole("cell", { name: action, exact: true })).toBeVisible();
  await snap(page, testInfo, "01-shortcuts");
  const axe = await seriousAxeViolations(page);
  await testInfo.attach("axe-shortcuts", { body: JSON.stringify(axe.all, null, 2), contentType: "application/json" });
  expect(axe.bad).toEqual([]);
  await page.keyboard.press("Escape");
  await expect(help).toHaveCount(0);

  // Ctrl+Z undoes the last link; Ctrl+S saves (a new scenario gets its address)
  await page.keyboard.press("Control+z");
  await expect(canvas).toHaveAttribute("data-link-count", "1");
  await page.keyboard.press("Control+s");
  await expect(page).toHaveURL(/\/scenarios\/(?!new)[^/]+$/);
  await expect(page.getByTestId("topology")).toHaveAttribute("data-link-count", "1");
});

test("the Compare dialog opens over the editor; at 1024×768 the inspector stays beside the canvas", async ({ page, request }, testInfo) => {
  const { sid } = await navalWithBuoy(request, testInfo);
  await page.setViewportSize({ width: 1024, height: 768 });
  await page.goto(`/scenarios/${sid}`);
  const canvas = page.getByTestId("topology");
  await expect(canvas).toHaveAttribute("data-rendered", "true");
  const before = (await canvas.boundingBox())!;
  await page.getByRole("button", { name: "Compare" }).click();
  const dialog = page.getByRole("dialog", { name: "Compare strategies" });
  await expect(dialog).toBeVisible();
  await expect(dialog).toHaveAttribute("aria-modal", "true");
  await expect(dialog.getByRole("button", { name: "Run" })).toBeInViewport();
  // the editor did not move
  expect((await canvas.boundingBox())!.y).toBeCloseTo(before.y, 0);
  await snap(page, testInfo, "01-compare-dialog");
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);

  // select a node on the canvas: its inspector is beside the canvas and in view
  const p = await nodeScreen(page, "ship");
  await page.mouse.click(p.x, p.y);
  const heading = page.getByRole("heading", { name: "Host ship · Ship (server)" });
  await expect(heading).toBeInViewport();
  const inspector = (await heading.boundingBox())!;
  const c = (await canvas.boundingBox())!;
  expect(inspector.x).toBeGreaterThan(c.x + c.width - 1);
  await snap(page, testInfo, "02-inspector-1024");
});

test("the scenario list and the editor have no serious or critical accessibility violations (axe-core)", async ({ page, request }, testInfo) => {
  const { sid } = await navalWithBuoy(request, testInfo);
  await page.goto("/");
  await expect(page.getByRole("list", { name: "Scenarios" })).toBeVisible();
  const list = await seriousAxeViolations(page);
  await testInfo.attach("axe-list", { body: JSON.stringify(list.all, null, 2), contentType: "application/json" });
  expect(list.bad).toEqual([]);

  await page.goto(`/scenarios/${sid}`);
  const editorCanvas = page.getByTestId("topology");
  await expect(editorCanvas).toHaveAttribute("data-rendered", "true");
  await editorCanvas.evaluate((el) => el.scrollIntoView({ block: "center" }));
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const p = await nodeScreen(page, "uav");
  await page.mouse.click(p.x, p.y);
  await expect(page.getByRole("heading", { name: /^Access point uav/ })).toBeVisible();
  const editor = await seriousAxeViolations(page);
  await testInfo.attach("axe-editor", { body: JSON.stringify(editor.all, null, 2), contentType: "application/json" });
  expect(editor.bad).toEqual([]);
});
