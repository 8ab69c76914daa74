/**
 * A rain fade on the comparison page (naval-geo-rain-fade: a ship with Ka and Ku GEO links whose budgets follow a
 * rain cell): stored, compared sptcp vs mptcp (fluid) from the scenario page's Compare dialog, then the "SATCOM
 * capacity" chart beside the throughput charts: a step line per budgeted link and direction, the Ka uplink's
 * MODCOD stepping down inside the fade (120–240 s) and back, the chart's rule following the page's playback time,
 * and axe-core on the page (no serious or critical violations).
 */
import * as fs from "node:fs";
import { expect, test } from "@playwright/test";
import { seriousAxeViolations, snap, uniqueName, writeScenario } from "./helpers";

test("a rain fade: the SATCOM capacity chart steps the MODCOD down inside the fade beside the strategies' throughput", async ({ page, request }, testInfo) => {
  test.setTimeout(240_000);
  const pageErrors: string[] = [];
  page.on("pageerror", (err) => pageErrors.push(err.message));

  const file = writeScenario(testInfo, "naval-geo-rain-fade.json", uniqueName("naval-geo-rain-fade"));
  const created = await request.post("/api/scenarios", { data: JSON.parse(fs.readFileSync(file, "utf8")) });
  expect(created.status(), await created.text()).toBe(201);
  const sid = (await created.json()).id as string;

  // a fluid comparison, sptcp vs mptcp, from the scenario page
  await page.goto(`/scenarios/${sid}`);
  await page.getByRole("button", { name: "Compare" }).click();
  const dialog = page.getByRole("dialog", { name: "Compare strategies" });
  await expect(dialog.getByRole("checkbox", { name: "sptcp", exact: true })).toBeChecked();
  await expect(dialog.getByRole("checkbox", { name: "mptcp", exact: true })).toBeChecked();
  await expect(dialog.locator(".strategy-options input:checked")).toHaveCount(2);
  await dialog.getByLabel("Engine").selectOption("fluid");
  await dialog.getByRole("button", { name: "Run" }).click();
  await expect(page).toHaveURL(/\/comparisons\/[^/]+$/);
  await expect(page.getByTestId("comparison-status").filter({ hasText: /succeeded|failed|cancelled/ })).toBeVisible({ timeout: 180_000 });
  await expect(page.getByTestId("comparison-status")).toHaveText("succeeded");
  const cid = /\/comparisons\/([^/]+)$/.exec(page.url())![1]!;
  const run = await (await request.get(`/api/scenarios/${sid}/comparisons/${cid}`)).json();
  expect(run.strategies).toEqual(["sptcp", "mptcp"]);
  expect(run.engine ?? "fluid").toBe("fluid");

  // the capacity chart, in the throughput charts' grid, named by label
  await expect(page.getByTestId("chart-sptcp")).toBeVisible();
  const chart = page.getByTestId("satcom-capacity");
  await expect(chart).toBeVisible({ timeout: 30_000 });
  await expect(page.locator(".charts").getByTestId("satcom-capacity")).toHaveCount(1);
  await expect(chart.getByRole("heading", { name: "SATCOM capacity" })).toBeVisible();
  const legend = chart.getByRole("list", { name: "Legend, SATCOM capacity" });
  await expect(legend).toContainText("Ship (10 kn, north-east) → Ka-band GEO (9°E) ↑");
  await expect(legend).toContainText("Ship (10 kn, north-east) → Ku-band GEO (5°E) ↓");
  await expect(chart.locator("g[data-series]")).toHaveCount(8); // 4 budgeted links × 2 directions

  // the Ka uplink steps down inside the fade: lower capacity, lower MODCOD, drawn lower
  const steps = await chart.locator('g[data-series="ship1-ka:up"] [data-testid="capacity-step"]').evaluateAll((els) =>
    els.map((el) => ({
      t0: Number(el.getAttribute("data-t0")),
      mbps: Number(el.getAttribute("data-mbps")),
      modcod: el.getAttribute("data-modcod"),
      y: Number(/^M[\d.]+,([\d.]+)/.exec(el.getAttribute("d") ?? "")?.[1]),
      title: el.querySelector("title")?.textContent ?? "",
    })),
  );
  const before = steps.find((s) => s.t0 === 0)!;
  const inFade = steps.filter((s) => s.t0 >= 120 && s.t0 < 240);
  expect(inFade.length).toBeGreaterThan(0);
  const deepest = inFade.reduce((a, b) => (b.mbps < a.mbps ? b : a));
  expect(deepest.mbps).toBeLessThan(before.mbps);
  expect(deepest.modcod).not.toBe(before.modcod);
  expect(deepest.y).toBeGreaterThan(before.y);
  expect(deepest.title).toContain(deepest.modcod!);
  expect(steps.at(-1)!.mbps).toBe(before.mbps); // back to clear sky after the cell

  // the page's one playback time: the map's slider inside the fade moves the chart's rule and its readout
  await page.getByLabel("Map time (s)").fill(String(deepest.t0 + 1));
  await expect(chart.getByTestId("capacity-rule")).toHaveCount(1);
  await expect(chart.getByTestId("capacity-readout").locator('td[data-series="ship1-ka:up"]')).toContainText(deepest.modcod!);
  await expect(page.getByTestId("hover-rule")).toHaveCount(2); // the throughput charts' rules at the same time
  await chart.scrollIntoViewIfNeeded();
  await snap(page, testInfo, "01-capacity-in-fade");

  const { bad } = await seriousAxeViolations(page);
  expect(bad, JSON.stringify(bad, null, 2)).toEqual([]);
  expect(pageErrors, "uncaught errors in the page").toEqual([]);
});
