/** Two finished comparisons side by side: same axes in every chart; chart export. */
import * as fs from "node:fs";
import { expect, test } from "@playwright/test";
import { snap, uniqueName, writeScenario } from "./helpers";

test("compare two finished comparisons side by side with the same axes", async ({ page, request }, testInfo) => {
  const name = uniqueName("naval-side-by-side");
  const file = writeScenario(testInfo, "naval-direct-move.json", name);
  const sid = (await (await request.post("/api/scenarios", { data: JSON.parse(fs.readFileSync(file, "utf8")) })).json()).id;
  const ids: string[] = [];
  for (const strategies of [["sptcp", "mptcp"], ["mptcp"]]) {
    const r = await request.post(`/api/scenarios/${sid}/comparisons`, { data: { strategies, engine: "fluid" } });
    expect(r.status(), await r.text()).toBe(202);
    ids.push((await r.json()).id);
  }
  for (const cid of ids) {
    await expect
      .poll(async () => (await (await request.get(`/api/scenarios/${sid}/comparisons/${cid}`)).json()).status, { timeout: 90_000 })
      .toBe("succeeded");
  }
  await page.goto(`/scenarios/${sid}`);
  for (const cid of ids) await page.getByTestId(`select-comparison-${cid}`).check();
  await page.getByRole("button", { name: "Side by side" }).click();
  await expect(page.getByRole("heading", { name: "Comparisons side by side" })).toBeVisible();
  await expect(page).toHaveTitle(`Side by side · ${name} · Subflow`);
  for (const cid of ids) await expect(page.getByTestId(`column-${cid}`)).toBeVisible();
  // the same y ticks in every timeline, whichever comparison it belongs to
  const ticks = async (testId: string) => page.getByTestId(testId).locator("svg.chart-svg text.tick").allInnerTexts();
  const a = await ticks(`chart-${ids[0]}-mptcp`);
  const b = await ticks(`chart-${ids[1]}-mptcp`);
  const c = await ticks(`chart-${ids[0]}-sptcp`);
  expect(a.length).toBeGreaterThan(4);
  expect(b).toEqual(a);
  expect(c).toEqual(a);
  await snap(page, testInfo, "01-side-by-side");
  // SVG and PNG export of a chart
  for (const kind of ["SVG", "PNG"]) {
    const download = page.waitForEvent("download");
    await page.getByTestId(`chart-${ids[1]}-mptcp`).getByRole("button", { name: kind }).click();
    const d = await download;
    // named by the scenario, the strategies and the start time, never by a database id
    const fname = d.suggestedFilename();
    expect(fname.startsWith(name.toLowerCase().replace(/[^a-z0-9._]+/g, "-").slice(0, 30))).toBe(true);
    expect(fname).toMatch(new RegExp(`-mptcp-\\d{4}-\\d{2}-\\d{2}-\\d{2}-\\d{2}-mptcp\\.${kind.toLowerCase()}$`));
    expect(fname).not.toContain(ids[1]);
    const p = await d.path();
    const head = fs.readFileSync(p!).subarray(0, 8);
    if (kind === "PNG") expect(head.subarray(1, 4).toString()).toBe("PNG");
    else expect(fs.readFileSync(p!, "utf8")).toContain("<svg");
  }
});
