/**
 * The analysis page: the failure table's worst row checked against REST and drawn on the
 * topology; a capacity search finding the UAV backhaul a stated demand needs (progress as runs
 * done / total, the trace chart); a 2-D sweep drawn as a heatmap with each cell's CI.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { REPO_ROOT, snap, uniqueName } from "./helpers";

async function createScenario(request: APIRequestContext, example: string, base: string, edit?: (doc: any) => void): Promise<string> {
  const doc = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "examples", example), "utf8"));
  doc.name = uniqueName(base);
  edit?.(doc);
  const created = await request.post("/api/scenarios", { data: doc });
  expect(created.status(), await created.text()).toBe(201);
  return (await created.json()).id as string;
}

test("failure table: worst row as REST says, shown on the topology", async ({ page, request }, testInfo) => {
  // s1 → s10 asks 3.5 Gbit/s over s1's four 1 Gbit/s links: every one of them matters
  const sid = await createScenario(request, "hsln-10node.json", "failures", (doc) => { doc.flows[0].rate_mbps = 3500; });
  const rest = await request.post(`/api/scenarios/${sid}/failures`, { data: { metric: "delay", nodes: true } });
  expect(rest.status(), await rest.text()).toBe(200);
  const report = await rest.json();
  const worst = report.cases[0];
  expect(worst.lost_mbps).toBeGreaterThan(0);

  await page.goto(`/scenarios/${sid}/analysis`);
  await page.getByLabel("Routing metric").selectOption("delay");
  await page.getByLabel("Also fail each node").check();
  await page.getByRole("button", { name: "Analyse failures" }).click();
  const refused = page.getByRole("alert");
  const table = page.getByTestId("failure-table");
  await expect(table.or(refused)).toBeVisible({ timeout: 30_000 });
  if (await refused.isVisible()) throw new Error(`the server refused the analysis: ${await refused.innerText()}`);
  const rows = table.getByTestId("failure-row");
  await expect(rows).toHaveCount(report.cases.length);
  const first = rows.first();
  await expect(first).toHaveAttribute("data-kind", worst.kind);
  await expect(first).toHaveAttribute("data-element", worst.element);
  expect(Number(await first.getAttribute("data-lost"))).toBeCloseTo(worst.lost_mbps, 9);
  // the analysis covers the whole run and each row says when its failure was analysed (its worst time)
  expect(report.t_s).toBeNull();
  await expect(first.getByTestId("failure-at")).toHaveText(worst.t_s.toFixed(1));
  await expect(table.locator("caption")).toContainText("over the whole run");
  // worst first: the lost demand never grows down the table
  const lost = await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute("data-lost"))));
  expect(lost).toEqual([...lost].sort((a, b) => b - a));
  // the selected (worst) failure is drawn: its links dashed red on the one cytoscape instance
  await expect.poll(() => page.evaluate(() =>
    (window as any).__subflowCy.elements("edge.failed").map((e: any) => String(e.id()).replace(/^link:/, "")).sort()))
    .toEqual([...worst.links].sort());
  await snap(page, testInfo, "01-failures");
  // another row: the overlay follows
  const other = report.cases.find((c: any) => c.kind === "link" && c.element !== worst.element);
  await table.locator(`tr[data-kind="link"][data-element="${other.element}"]`).click();
  await expect.poll(() => page.evaluate(() =>
    (window as any).__subflowCy.elements("edge.failed").map((e: any) => String(e.id()).replace(/^link:/, "")))).toEqual([other.element]);
});

test("capacity search: the UAV backhaul two 2.5 Mbit/s users need", async ({ page, request }, testInfo) => {
  const sid = await createScenario(request, "uav-backhaul-planning.json", "capacity");
  await page.goto(`/scenarios/${sid}/analysis`);
  await page.getByLabel("Parameter", { exact: true }).selectOption("links.uav-ship.bandwidth_mbps");
  await page.getByLabel("From (Mbit/s)", { exact: true }).fill("0.5");
  await page.getByLabel("To (Mbit/s)", { exact: true }).fill("10");
  await page.getByLabel("Every flow's mean ≥ (Mbit/s)").fill("2.5");
  await page.getByLabel("Repetitions per step").fill("1");
  await page.getByLabel("Tolerance").fill("0.25");
  await page.getByRole("button", { name: "Find capacity" }).click();
  const refused = page.getByRole("alert");
  await expect(page.getByTestId("runs-progress").first().or(refused)).toBeVisible({ timeout: 15_000 });
  if (await refused.isVisible()) throw new Error(`the server refused the search: ${await refused.innerText()}`);
  const answer = page.getByTestId("capacity-answer-text");
  await expect(answer).toBeVisible({ timeout: 120_000 });
  await expect(answer).toHaveAttribute("data-status", "found");
  // no window asked: the whole run was judged, and the answer says so
  const duration = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "examples", "uav-backhaul-planning.json"), "utf8")).run.duration_s;
  await expect(answer).toContainText(`Each flow judged over 0–${duration} s of the run.`);
  const value = Number(await answer.getAttribute("data-value"));
  // SATCOM 2 Mbit/s + UAV backhaul B carry (2 + B)·1448/1514 of goodput; 2 × 2.5 Mbit/s needs B ≥ 3.228
  expect(value).toBeGreaterThanOrEqual(5 * 1514 / 1448 - 2);
  expect(value).toBeLessThanOrEqual(4.5);
  const steps = page.getByTestId("capacity-step");
  expect(await steps.count()).toBeGreaterThanOrEqual(4);
  // every drawn step is judged by its own worst flow against the target
  const judged = await steps.evaluateAll((gs) => gs.map((g) => ({ mean: Number(g.getAttribute("data-mean")), passed: g.getAttribute("data-passed") })));
  for (const { mean, passed } of judged) expect(passed).toBe(mean >= 2.5 ? "true" : "false");
  // runs done / total: once finished, the runs made (one per step here)
  const n = await steps.count();
  await expect(page.getByTestId("runs-count").first()).toHaveText(`${n} / ${n} runs`);
  await snap(page, testInfo, "02-capacity");
});

test("2-D sweep heatmap: one cell per pair with mean ± CI as REST stores it", async ({ page, request }, testInfo) => {
  const sid = await createScenario(request, "uav-backhaul-planning.json", "grid");
  await page.goto(`/scenarios/${sid}/analysis`);
  await page.getByLabel("Parameter (x)").selectOption("links.uav-ship.bandwidth_mbps");
  await page.getByLabel("Values (x)").fill("1, 4");
  await page.getByLabel("Parameter (y)").selectOption("links.satcom-ship.bandwidth_mbps");
  await page.getByLabel("Values (y)").fill("1, 3");
  // strategies from the server's list, parameters by the names planners read
  await page.getByLabel("Strategy").last().selectOption("mptcp");
  await expect(page.getByLabel("Parameter (x)").locator("option:checked")).toHaveText("Link uav-ship (uav–ship) bandwidth, Mbit/s");
  await page.getByLabel("Repetitions", { exact: true }).fill("2");
  await page.getByRole("button", { name: "Run the grid" }).click();
  const refused = page.getByRole("alert");
  const heat = page.getByTestId("sweep-heatmap");
  await expect(page.getByTestId("runs-progress").last().or(refused)).toBeVisible({ timeout: 15_000 });
  if (await refused.isVisible()) throw new Error(`the server refused the sweep: ${await refused.innerText()}`);
  await expect(heat).toBeVisible({ timeout: 180_000 });
  await expect(page.getByTestId("runs-count").last()).toHaveText("8 / 8 runs");
  const cells = heat.getByTestId("heat-cell");
  await expect(cells).toHaveCount(4);
  const href = await page.getByRole("link", { name: "Open the comparison" }).getAttribute("href");
  const cid = href!.split("/").pop()!;
  const body = await (await request.get(`/api/scenarios/${sid}/comparisons/${cid}`)).json();
  expect(body.status).toBe("succeeded");
  for (const p of body.result.sweep.points) {
    const cell = heat.locator(`[data-testid="heat-cell"][data-x="${p.value}"][data-y="${p.value_y}"]`);
    await expect(cell).toHaveCount(1);
    expect(Number(await cell.getAttribute("data-mean"))).toBeCloseTo(p.strategies.mptcp.mean_mbps, 9);
    expect(Number(await cell.getAttribute("data-ci"))).toBeCloseTo(p.strategies.mptcp.ci95_mbps, 9);
    await expect(cell).toContainText("±");
  }
  await snap(page, testInfo, "03-heatmap");
});

test("shared-risk groups: losing every SATCOM link at once on naval-leo, as REST reports it", async ({ page, request }) => {
  const sid = await createScenario(request, "naval-leo.json", "shared-risk");
  const rest = await request.post(`/api/scenarios/${sid}/failures`, { data: { metric: "delay", shared_risk: true } });
  expect(rest.status(), await rest.text()).toBe(200);
  const satcom = (await rest.json()).cases.find((c: any) => c.kind === "group" && c.element === "satcom");
  expect(satcom.flows_cut).toBe(2); // at the start neither ship has the UAV: SATCOM is all they have
  await page.goto(`/scenarios/${sid}/analysis`);
  await page.getByLabel("Routing metric").selectOption("delay");
  await page.getByLabel("Shared-risk groups (all SATCOM, each constellation)").check();
  await page.getByRole("button", { name: "Analyse failures" }).click();
  const row = page.getByTestId("failure-table").locator('tr[data-kind="group"][data-element="satcom"]');
  await expect(row).toBeVisible({ timeout: 30_000 });
  expect(Number(await row.getAttribute("data-lost"))).toBeCloseTo(satcom.lost_mbps, 9);
  await expect(row.getByTestId("failure-at")).toHaveText(satcom.t_s.toFixed(1));
});
