/**
 * Keyboard and identity basics: the sign-in form takes typing at once, a skip link leads past the top bar,
 * the focus indicator has at least 3:1 contrast with the page (WCAG 2.2 SC 1.4.11, relative luminance
 * and contrast ratio as WCAG 2.2 defines them, computed here from the browser's computed colours), and each
 * page has a tab title of its own.
 */
import * as fs from "node:fs";
import { expect, test } from "@playwright/test";
import { uniqueName, writeScenario } from "./helpers";

/** WCAG 2.2 relative luminance of an sRGB colour "rgb(r, g, b)". */
function luminance(css: string): number {
  const [r, g, b] = (css.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map(Number).map((v) => {
    const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

test("the sign-in form has the username focused", async ({ browser }) => {
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  await page.goto("/");
  await expect(page.getByLabel("Username")).toBeFocused();
  await expect(page).toHaveTitle("Subflow");
  await context.close();
});

test("a skip link, a focus ring of at least 3:1, and a title per page", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Scenarios", exact: true })).toBeVisible();
  await expect(page).toHaveTitle("Scenarios · Subflow");
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to content" });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press("Enter");
  await expect(page.locator("main#main")).toBeFocused();
  // the next Tab lands inside the content, past the top bar
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => !!document.activeElement?.closest("main"))).toBe(true);

  const button = page.getByRole("link", { name: "New scenario" }).first();
  await button.focus();
  await page.keyboard.press("Shift+Tab");
  await page.keyboard.press("Tab"); // focus by keyboard, so :focus-visible applies
  const style = await page.evaluate(() => {
    const el = document.activeElement as HTMLElement;
    const cs = getComputedStyle(el);
    return { outline: cs.outlineColor, width: parseFloat(cs.outlineWidth), style: cs.outlineStyle,
             page: [document.querySelector("main")!, document.body, document.documentElement]
               .map((e) => getComputedStyle(e).backgroundColor)
               .find((c) => c && c !== "rgba(0, 0, 0, 0)") ?? "rgb(255, 255, 255)" };
  });
  expect(style.style).toBe("solid");
  expect(style.width).toBeGreaterThanOrEqual(2);
  expect(contrast(style.outline, style.page)).toBeGreaterThanOrEqual(3);
  // the previous ring colour (#93c5fd) fails the same check
  expect(contrast("rgb(147, 197, 253)", "rgb(255, 255, 255)")).toBeLessThan(3);
});

test("a topology built without a pointer: add a node, connect it, set a field, save", async ({ page, request }) => {
  const doc = {
    name: `keyboard-built e2e ${Date.now()}-${Math.floor(Math.random() * 1e4)}`,
    nodes: [{ id: "h1", kind: "host", label: "Shore", position: { x_m: 0, y_m: 0 } }],
    links: [],
    flows: [],
  };
  const created = await request.post("/api/scenarios", { data: doc });
  expect(created.status(), await created.text()).toBe(201);
  const sid = (await created.json()).id as string;
  await page.goto(`/scenarios/${sid}`);
  await expect(page.getByTestId("topology")).toHaveAttribute("data-rendered", "true");
  await page.locator("main#main").focus();
  await page.keyboard.press("4"); // the switch tool
  await page.keyboard.press("n"); // placed beside the topology's centre, and selected
  await expect(page.getByRole("heading", { name: /^Switch/ })).toBeVisible();
  const connect = page.getByLabel("Connect to");
  await connect.focus();
  await page.keyboard.press("ArrowDown"); // "Shore (h1)", the only other node
  await expect(connect).toHaveValue("h1");
  await page.keyboard.press("Tab");
  await expect(page.locator(".connect-to").getByRole("button", { name: "Add link" })).toBeFocused();
  await page.keyboard.press("Enter");
  // the new link is selected: its bandwidth field is set by typing
  const bw = page.getByLabel("Bandwidth (Mbit/s)");
  await bw.focus();
  await page.keyboard.press("Control+a");
  await page.keyboard.type("25");
  await page.keyboard.press("Control+s");
  await expect(page.getByRole("status").filter({ hasText: /^Saved version 2/ })).toBeVisible();
  const stored = (await (await request.get(`/api/scenarios/${sid}`)).json()).scenario;
  expect(stored.nodes.map((n: { kind: string }) => n.kind)).toEqual(["host", "switch"]);
  expect(stored.links).toHaveLength(1);
  expect(stored.links[0]).toMatchObject({ src: stored.nodes[1].id, dst: "h1", bandwidth_mbps: 25 });
});

test("at 1024 × 768 the editor never scrolls sideways; the flows table scrolls in its card", async ({ page, request }, testInfo) => {
  await page.setViewportSize({ width: 1024, height: 768 });
  const file = writeScenario(testInfo, "naval-direct-move.json", uniqueName("layout-1024"));
  const created = await request.post("/api/scenarios", { data: JSON.parse(fs.readFileSync(file, "utf8")) });
  expect(created.status(), await created.text()).toBe(201);
  await page.goto(`/scenarios/${(await created.json()).id}`);
  await expect(page.getByTestId("topology")).toHaveAttribute("data-rendered", "true");
  const flows = page.getByRole("region", { name: "Flows table" });
  await flows.scrollIntoViewIfNeeded();
  const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, view: window.innerWidth }));
  expect(widths.page).toBeLessThanOrEqual(widths.view);
  // every column is reachable: the last header cell lies inside the scrollable region's content
  const inside = await flows.evaluate((el) => {
    const last = el.querySelector("thead th:last-child")!.getBoundingClientRect();
    const box = el.getBoundingClientRect();
    return last.right <= box.left + el.scrollWidth + 1;
  });
  expect(inside).toBe(true);
});

test("checkboxes sit on their label's line", async ({ page, request }, testInfo) => {
  const file = writeScenario(testInfo, "naval-direct-move.json", uniqueName("checkbox-line"));
  const created = await request.post("/api/scenarios", { data: JSON.parse(fs.readFileSync(file, "utf8")) });
  await page.goto(`/scenarios/${(await created.json()).id}`);
  await page.getByRole("button", { name: "Compare" }).click();
  const dialog = page.getByRole("dialog", { name: "Compare strategies" });
  await expect(dialog.getByRole("checkbox", { name: "mptcp", exact: true })).toBeVisible(); // the strategies, from the server
  const boxes = dialog.locator('input[type="checkbox"]');
  expect(await boxes.count()).toBeGreaterThan(2);
  for (const box of await boxes.all()) {
    // the checkbox and its label text share a line: the box's vertical centre lies within the label's text line
    const r = await box.evaluate((el) => {
      const label = el.closest("label");
      if (!label) return null;
      const b = el.getBoundingClientRect();
      const l = label.getBoundingClientRect();
      return { boxMid: b.top + b.height / 2, labelTop: l.top, labelBottom: l.bottom, labelHeight: l.height, boxWidth: b.width };
    });
    if (!r) continue;
    // not a full-width box on a line of its own above the text: narrow, on the label's first line
    expect(r.boxWidth).toBeLessThan(40);
    expect(r.boxMid).toBeGreaterThanOrEqual(r.labelTop);
    expect(r.boxMid - r.labelTop).toBeLessThan(24);
  }
});
