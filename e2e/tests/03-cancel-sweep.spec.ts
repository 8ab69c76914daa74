/** Must-show (5): start a parameter sweep from the run panel, watch it run, cancel it. */
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, test } from "@playwright/test";
import { REPO_ROOT, snap, uniqueName } from "./helpers";

test("cancel a running sweep", async ({ page, request }, testInfo) => {
  // a long scenario: the naval example over 20 minutes of simulated time
  const doc = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "examples", "naval-direct-move.json"), "utf8"));
  doc.name = uniqueName("sweep-to-cancel");
  doc.run = { ...(doc.run ?? {}), duration_s: 1200, interval_s: 0.1 };
  const created = await request.post("/api/scenarios", { data: doc });
  expect(created.status(), await created.text()).toBe(201);
  const sid = (await created.json()).id as string;

  await page.goto(`/scenarios/${sid}`);
  await page.getByRole("button", { name: "Compare" }).click();
  const dialog = page.getByRole("dialog", { name: "Compare strategies" });
  await dialog.getByLabel("Sweep a parameter").check();
  await dialog.getByLabel("Parameter", { exact: true }).selectOption("nodes.uav.range_m");
  await dialog.getByLabel("Values (m)", { exact: true }).fill("100, 200, 300, 400, 500, 600, 700, 800");
  await dialog.getByLabel("Repetitions").fill("3");
  await snap(page, testInfo, "01-sweep-form");
  await dialog.getByRole("button", { name: "Run" }).click();

  const rejected = dialog.getByRole("alert");
  await expect(page.getByTestId("comparison-status").or(rejected)).toBeVisible({ timeout: 15_000 });
  // a refused sweep (422 etc.) is a failure with the server's message, never a skip
  if (await rejected.isVisible()) throw new Error(`the server refused the sweep: ${await rejected.innerText()}`);
  await expect(page).toHaveURL(/\/comparisons\/[^/]+$/);
  const cid = new URL(page.url()).pathname.split("/").pop()!;
  await expect(page.getByRole("progressbar", { name: "Comparison progress" })).toBeVisible();
  await expect(page.getByTestId("comparison-status")).toHaveText(/queued|running/);
  await snap(page, testInfo, "02-running");

  await page.getByRole("button", { name: "Cancel comparison" }).click();
  const notCancelled = page.getByRole("alert").filter({ hasText: "Not cancelled" });
  await expect(page.getByTestId("comparison-status").filter({ hasText: "cancelled" }).or(notCancelled)).toBeVisible({ timeout: 60_000 });
  if (await notCancelled.isVisible()) throw new Error(`the server refused the cancel: ${await notCancelled.innerText()}`);
  await expect(page.getByTestId("comparison-status")).toHaveText("cancelled", { timeout: 60_000 });
  await expect(page.getByRole("progressbar")).toHaveCount(0);
  await expect(page.getByRole("status").filter({ hasText: "cancelled" })).toBeVisible();
  const body = await (await request.get(`/api/scenarios/${sid}/comparisons/${cid}`)).json();
  expect(body.status).toBe("cancelled");
  await snap(page, testInfo, "03-cancelled");
});

test("a finished sweep is drawn: one line per strategy with its 95 % CI band", async ({ page, request }, testInfo) => {
  const doc = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "examples", "naval-direct-move.json"), "utf8"));
  doc.name = uniqueName("sweep-done");
  const created = await request.post("/api/scenarios", { data: doc });
  expect(created.status(), await created.text()).toBe(201);
  const sid = (await created.json()).id as string;
  const r = await request.post(`/api/scenarios/${sid}/comparisons`, {
    data: { strategies: ["sptcp", "mptcp"], engine: "fluid", repetitions: 2, sweep: { parameter: "nodes.uav.range_m", values: [200, 300, 400] } },
  });
  expect(r.status(), `POST /comparisons with a sweep: ${await r.text()}`).toBe(202);
  const cid = (await r.json()).id as string;
  await page.goto(`/scenarios/${sid}/comparisons/${cid}`);
  const chart = page.getByTestId("sweep-chart");
  await expect(chart).toBeVisible({ timeout: 120_000 });
  const body = await (await request.get(`/api/scenarios/${sid}/comparisons/${cid}`)).json();
  const points = body.result.sweep.points as { value: number; strategies: Record<string, { mean_mbps: number }> }[];
  for (const s of ["sptcp", "mptcp"]) {
    const line = chart.getByTestId(`sweep-${s}`);
    await expect(line.locator("circle")).toHaveCount(points.length);
    for (const [i, p] of points.entries()) {
      await expect(line.locator("circle").nth(i).locator("title")).toContainText(`${s} at ${p.value}: ${p.strategies[s]!.mean_mbps.toFixed(3)} Mbit/s`);
    }
  }
  await chart.scrollIntoViewIfNeeded();
  await snap(page, testInfo, "01-sweep-chart");
});
