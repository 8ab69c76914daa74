import { expect, test } from "@playwright/test";
import { snap, uniqueName, writeScenario } from "./helpers";

const STRATEGIES = ["sptcp", "mptcp"] as const;
const FLOWS = ["f1", "f2"] as const;

test("import the naval scenario, compare sptcp and mptcp, read charts and summary", async ({ page }, testInfo) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (err) => pageErrors.push(err.message));
  const name = uniqueName("naval-direct-move");
  const file = writeScenario(testInfo, "naval-direct-move.json", name);

  // 1. scenario list
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Scenarios", level: 1 })).toBeVisible();
  await snap(page, testInfo, "01-list");

  // 2. import through the file input
  await page.getByLabel("Import scenario file").setInputFiles(file);
  await expect(page.getByRole("status")).toContainText(`Imported ${name}`);
  const listed = page.getByRole("list", { name: "Scenarios" }).getByRole("link", { name, exact: true });
  await expect(listed).toBeVisible();
  await snap(page, testInfo, "02-imported");

  // 3. open it: the topology is drawn
  await listed.click();
  await expect(page).toHaveURL(/\/scenarios\/[^/]+$/);
  await expect(page.getByRole("heading", { level: 1 })).toContainText(name);
  const topology = page.getByRole("img", { name: `Topology of ${name}` });
  await expect(topology).toBeVisible();
  await expect(topology).toHaveAttribute("data-rendered", "true");
  const canvas = topology.locator("canvas").first();
  await expect(canvas).toBeVisible();
  // something was painted: some canvas layer has non-transparent pixels
  await expect
    .poll(
      () =>
        topology.evaluate((el) =>
          Array.from(el.querySelectorAll("canvas")).some((c) => {
            const ctx = c.getContext("2d");
            if (!ctx || c.width === 0 || c.height === 0) return false;
            const data = ctx.getImageData(0, 0, c.width, c.height).data;
            for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) return true;
            return false;
          }),
        ),
      { message: "the topology canvas has drawn pixels" },
    )
    .toBe(true);
  await expect(page.getByRole("list", { name: "Legend" })).toContainText("Access point");
  await snap(page, testInfo, "03-scenario");

  // 4. compare: sptcp and mptcp are preselected
  await page.getByRole("button", { name: "Compare" }).click();
  const picker = page.getByRole("dialog", { name: "Compare strategies" });
  await expect(picker).toBeVisible();
  for (const s of STRATEGIES) await expect(picker.getByRole("checkbox", { name: s, exact: true })).toBeChecked();
  await snap(page, testInfo, "04-picker");
  await picker.getByRole("button", { name: "Run" }).click();

  // 5. comparison view: progress, then charts (up to 90 s)
  await expect(page).toHaveURL(/\/scenarios\/[^/]+\/comparisons\/[^/]+$/);
  await snap(page, testInfo, "05-comparison-started");
  const failed = page.getByRole("alert").filter({ hasText: "The comparison failed" });
  await expect(page.getByTestId("chart-sptcp").or(failed)).toBeVisible({ timeout: 90_000 });
  await expect(failed).toHaveCount(0);
  await expect(page.getByTestId("chart-mptcp")).toBeVisible({ timeout: 90_000 });
  await expect(page.getByRole("progressbar")).toHaveCount(0);

  for (const s of STRATEGIES) {
    const chart = page.getByTestId(`chart-${s}`);
    await expect(chart.getByRole("heading", { name: s, exact: true })).toBeVisible();
    for (const f of FLOWS) {
      const line = chart.getByTestId(`line-${s}-${f}`);
      await expect(line).toHaveCount(1);
      await expect(line).toHaveAttribute("d", /^M[^ML]+(L[^ML]+){10,}$/);
      await expect(chart.getByRole("list", { name: `Legend, ${s}` })).toContainText(`flow ${f}`);
    }
  }
  await snap(page, testInfo, "06-results");

  // 6. summary table
  const table = page.getByTestId("summary-table");
  await expect(table).toBeVisible();
  const cell = (s: string, f: string, col: string) => table.getByTestId(`summary-${s}-${f}`).locator(`[data-col="${col}"]`);
  const num = async (s: string, f: string, col: string) => Number(await cell(s, f, col).innerText());
  for (const f of FLOWS) {
    expect(await num("sptcp", f, "longest_zero_s"), `sptcp ${f} longest_zero_s`).toBeGreaterThanOrEqual(2);
    expect(await num("mptcp", f, "zero_s"), `mptcp ${f} zero_s`).toBe(0);
  }
  for (const s of STRATEGIES) await expect(table.getByTestId(`summary-${s}-all`).locator('[data-col="jain_index"]')).toHaveText(/^\d\.\d{3}$/);

  // 7. the table agrees with the REST resource
  const [, scenarioId, comparisonId] = /\/scenarios\/([^/]+)\/comparisons\/([^/]+)$/.exec(new URL(page.url()).pathname)!;
  const res = await page.request.get(`/api/scenarios/${scenarioId}/comparisons/${comparisonId}`);
  expect(res.ok()).toBe(true);
  const body = await res.json();
  expect(body.status).toBe("succeeded");
  const restF1 = body.result.strategies.sptcp.summary.flows.find((x: { id: string }) => x.id === "f1");
  await expect(cell("sptcp", "f1", "mean_mbps")).toHaveText(Number(restF1.mean_mbps).toFixed(3));

  await table.scrollIntoViewIfNeeded();
  await snap(page, testInfo, "07-summary");
  expect(pageErrors, "uncaught errors in the page").toEqual([]);
});
