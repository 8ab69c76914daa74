/**
 * Results that tell the truth: the routes view over time, chart sizes, text, zoom,
 * legends, exports and accessibility of the comparison page.
 */
import * as fs from "node:fs";
import { expect, test, type APIRequestContext, type Page, type TestInfo } from "@playwright/test";
import { snap, uniqueName, writeScenario } from "./helpers";

/** Store naval-direct-move, compare `strategies` on the fluid engine and wait until it succeeded. */
async function navalComparison(request: APIRequestContext, testInfo: TestInfo, strategies: string[]): Promise<{ sid: string; cid: string }> {
  const file = writeScenario(testInfo, "naval-direct-move.json", uniqueName("naval-results"));
  const created = await request.post("/api/scenarios", { data: JSON.parse(fs.readFileSync(file, "utf8")) });
  expect(created.status(), await created.text()).toBe(201);
  const sid = (await created.json()).id as string;
  const r = await request.post(`/api/scenarios/${sid}/comparisons`, { data: { strategies, engine: "fluid" } });
  expect(r.status(), await r.text()).toBe(202);
  const cid = (await r.json()).id as string;
  await expect
    .poll(async () => (await (await request.get(`/api/scenarios/${sid}/comparisons/${cid}`)).json()).status, { timeout: 90_000 })
    .toBe("succeeded");
  return { sid, cid };
}

async function openComparison(page: Page, sid: string, cid: string): Promise<void> {
  await page.goto(`/scenarios/${sid}/comparisons/${cid}`);
  await expect(page.getByTestId("chart-sptcp")).toBeVisible({ timeout: 30_000 });
}

test("the routes view at 30 s shows sptcp on SATCOM and the stations where they are then", async ({ page, request }, testInfo) => {
  const { sid, cid } = await navalComparison(request, testInfo, ["sptcp", "mptcp"]);
  await openComparison(page, sid, cid);
  const routes = page.getByRole("region", { name: "Routes and link utilisation" });
  await routes.scrollIntoViewIfNeeded();
  await routes.getByLabel("Strategy").selectOption("sptcp");
  const graph = routes.getByTestId("topology");
  await expect(graph).toHaveAttribute("data-rendered", "true");
  const sta1At = () => page.evaluate(() => (window as unknown as { __subflowCy: { getElementById: (id: string) => { position: () => { x: number; y: number } } } }).__subflowCy.getElementById("sta1").position());
  const start = await sta1At();

  await routes.getByLabel(/^Time:/).fill("30");
  await expect(routes.getByText(/^Time: 30 s/)).toBeVisible();
  const active = routes.getByRole("list", { name: "Active subflows" });
  for (const f of ["f1", "f2"]) {
    const item = active.locator(`li[data-subflow="${f}/tcp"]`);
    await expect(item).toHaveAttribute("data-path", `sta${f.slice(1)} satcom ship`);
  }
  await expect(active).not.toContainText("uav");
  // the station moved along its trajectory between 0 and 30 s
  await expect.poll(async () => {
    const p = await sta1At();
    return Math.hypot(p.x - start.x, p.y - start.y);
  }).toBeGreaterThan(5);
  await snap(page, testInfo, "routes-30s");

  // after the handover (63 s) it is on the UAV
  await routes.getByLabel(/^Time:/).fill("80");
  await expect(active.locator('li[data-subflow="f1/tcp"]')).toHaveAttribute("data-path", "sta1 uav ship");
  // the wireless hop station → access point is drawn too, labelled with what crosses it
  const air = () => page.evaluate(() => {
    const e = (window as unknown as { __subflowCy: { getElementById: (id: string) => { empty: () => boolean; data: (k: string) => string } } }).__subflowCy.getElementById("air:sta1:uav");
    return e.empty() ? null : e.data("label");
  });
  await expect.poll(air).toMatch(/^f1\/tcp \d+\.\d\d Mbit\/s$/);
});

/** Rendered size (CSS px) of every chart text on the page: font-size × the screen transform's scale. */
async function chartTextSizes(page: Page): Promise<{ text: string; px: number }[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll("svg.chart-svg text")).map((t) => {
      const m = (t as SVGTextElement).getScreenCTM();
      const scale = m ? Math.hypot(m.a, m.b) : 1;
      return { text: t.textContent ?? "", px: parseFloat(getComputedStyle(t).fontSize) * scale };
    }),
  );
}

test("charts follow their card, keep text ≥ 11 px at 1440 and 1024 px, and name every drawn line", async ({ page, request }, testInfo) => {
  const { sid, cid } = await navalComparison(request, testInfo, ["sptcp", "mptcp", "mptcp-olia"]);
  for (const width of [1440, 1024]) {
    await page.setViewportSize({ width, height: 900 });
    await openComparison(page, sid, cid);
    await expect(page.getByTestId("chart-mptcp-olia")).toBeVisible();
    const sizes = await chartTextSizes(page);
    expect(sizes.length, "chart texts").toBeGreaterThan(30);
    const small = sizes.filter((s) => s.px < 11);
    expect(small, `chart text under 11 px at ${width} px`).toEqual([]);
    // the drawing is as wide as its card: no view box stretched to it
    for (const s of ["sptcp", "mptcp", "mptcp-olia"]) {
      const svg = page.getByTestId(`chart-${s}`).locator("svg.chart-svg");
      expect(await svg.getAttribute("viewBox")).toBeNull();
      const [w, body] = await svg.evaluate((el) => [el.getBoundingClientRect().width, el.parentElement!.clientWidth]);
      expect(Math.abs(w - body), `${s} chart width ${w} vs card ${body}`).toBeLessThanOrEqual(1);
    }
    await snap(page, testInfo, `charts-${width}`);
  }
  // the sweep-less summary charts follow the card too
  expect(await page.getByTestId("cdf-chart").locator("svg.chart-svg").getAttribute("viewBox")).toBeNull();

  // subflows: every drawn subflow has a legend entry; flows and markers have theirs
  await page.getByLabel("Show subflows").check();
  const chart = page.getByTestId("chart-mptcp");
  const drawn = await chart.locator('[data-testid^="subflow-mptcp-"] title').allTextContents();
  expect(drawn.length).toBeGreaterThanOrEqual(4);
  const legend = chart.getByRole("list", { name: "Legend, mptcp" });
  for (const name of drawn) await expect(legend).toContainText(name);
  for (const f of ["flow f1", "flow f2", "association"]) await expect(legend).toContainText(f);
  // markers are drawn in lanes above the plot, never as dashed lines across it
  const markerDash = await chart.locator("line.marker").evaluateAll((ls) => ls.map((l) => l.getAttribute("stroke-dasharray")));
  expect(markerDash.length).toBeGreaterThan(0);
  expect(markerDash.every((d) => d === null)).toBe(true);
});

test("zoom, pan and brush the time axis of every chart at once; read values at the cursor", async ({ page, request }, testInfo) => {
  const { sid, cid } = await navalComparison(request, testInfo, ["sptcp", "mptcp"]);
  await openComparison(page, sid, cid);
  const win = (s: string) => page.getByTestId(`chart-${s}`).locator("svg.chart-svg").getAttribute("data-window");
  expect(await win("sptcp")).toBe("0 99");
  // ctrl + wheel over the sptcp chart zooms both charts around the cursor
  const target = page.getByTestId("chart-sptcp").locator("rect.hover-target");
  const box = (await target.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
  // the plain wheel scrolls the page, not the time axis; ctrl + wheel zooms
  await page.mouse.wheel(0, -200);
  await page.waitForTimeout(200);
  expect(await win("sptcp")).toBe("0 99");
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
  await page.keyboard.down("Control");
  for (let i = 0; i < 5; i++) await page.mouse.wheel(0, -200);
  await page.keyboard.up("Control");
  const span = async () => {
    const [a, b] = (await win("sptcp"))!.split(" ").map(Number);
    return b! - a!;
  };
  await expect.poll(span).toBeLessThan(60);
  const zoomed = (await win("sptcp"))!.split(" ").map(Number);
  expect(await win("mptcp")).toBe(await win("sptcp"));
  await expect(page.getByTestId("time-window")).toContainText("–");
  // drag pans (to earlier times)
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.7, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
  const panned = (await win("mptcp"))!.split(" ").map(Number);
  expect(panned[0]!).toBeLessThan(zoomed[0]!);
  expect(panned[1]! - panned[0]!).toBeCloseTo(zoomed[1]! - zoomed[0]!, 3);
  expect(await win("sptcp")).toBe(await win("mptcp"));
  await snap(page, testInfo, "zoomed");
  // the brush: choose 55–70 s on the overview
  await page.getByRole("button", { name: "Whole run" }).click();
  await expect.poll(() => win("sptcp")).toBe("0 99");
  const brush = page.getByTestId("time-brush").locator("g.brush rect.overlay");
  const bb = (await brush.boundingBox())!;
  await page.mouse.move(bb.x + (bb.width * 55) / 99, bb.y + bb.height / 2);
  await page.mouse.down();
  await page.mouse.move(bb.x + (bb.width * 70) / 99, bb.y + bb.height / 2, { steps: 4 });
  await page.mouse.up();
  await expect.poll(async () => (await win("mptcp"))!.split(" ").map((v) => Math.round(Number(v)))).toEqual([55, 70]);
  // the stall of sptcp at 60–64 s now spans many pixels
  // hover readout at the cursor, with every strategy's values
  const mx = box.x + box.width * 0.5;
  const my = box.y + box.height * 0.4;
  await page.mouse.move(mx, my);
  const readout = page.getByTestId("hover-readout");
  await expect(readout).toHaveCount(1);
  await expect(readout).toContainText("sptcp:");
  await expect(readout).toContainText("mptcp:");
  const rb = (await readout.boundingBox())!;
  expect(Math.min(Math.abs(rb.x - mx), Math.abs(rb.x + rb.width - mx)), "readout beside the cursor").toBeLessThan(40);
  expect(Math.abs(rb.y - my)).toBeLessThan(40);
  await snap(page, testInfo, "brushed-hover");
});

/** Texts of an exported SVG, drawn on a page of its own, that stick out of the picture. */
async function textsOutside(page: Page, svgText: string): Promise<string[]> {
  const exportPage = await page.context().newPage();
  await exportPage.setContent(svgText.replace(/^<\?xml[^>]*>\s*/, ""));
  const outside = await exportPage.evaluate(() => {
    const root = document.querySelector("svg")!;
    const r = root.getBoundingClientRect();
    return Array.from(root.querySelectorAll("text"))
      .map((t) => ({ text: t.textContent ?? "", b: t.getBoundingClientRect() }))
      .filter(({ b }) => b.left < r.left - 0.5 || b.right > r.right + 0.5 || b.top < r.top - 0.5 || b.bottom > r.bottom + 0.5)
      .map((x) => x.text);
  });
  await exportPage.close();
  return outside;
}

/** Width and height of a PNG file (IHDR). */
function pngSize(file: string): { w: number; h: number } {
  const b = fs.readFileSync(file);
  expect(b.subarray(1, 4).toString()).toBe("PNG");
  return { w: b.readUInt32BE(16), h: b.readUInt32BE(20) };
}

test("exported charts carry their title and legend; the Mininet-WiFi export runs the chosen strategy", async ({ page, request }, testInfo) => {
  const { sid, cid } = await navalComparison(request, testInfo, ["sptcp", "mptcp"]);
  await openComparison(page, sid, cid);
  const chart = page.getByTestId("chart-mptcp");
  const svgBox = (await chart.locator("svg.chart-svg").boundingBox())!;
  let download = page.waitForEvent("download");
  await chart.getByRole("button", { name: "SVG" }).click();
  const svgText = fs.readFileSync((await (await download).path())!, "utf8");
  expect(svgText).toContain("Throughput per flow — mptcp");
  for (const label of ["flow f1", "flow f2", "association"]) expect(svgText).toContain(`>${label}</text>`);
  download = page.waitForEvent("download");
  await chart.getByRole("button", { name: "PNG" }).click();
  const png = pngSize((await (await download).path())!);
  // rendered at 2×: the chart plus the title above and the legend below it
  expect(png.w).toBe(2 * (Math.round(svgBox.width) + 32));
  expect(png.h).toBeGreaterThan(2 * (Math.round(svgBox.height) + 30 + 20));
  expect(await textsOutside(page, svgText)).toEqual([]);

  // Mininet-WiFi: the user picks the strategy
  await page.goto(`/scenarios/${sid}`);
  await page.getByText("Export", { exact: true }).click();
  await page.getByLabel("Mininet-WiFi strategy").selectOption("mptcp");
  download = page.waitForEvent("download");
  await page.getByRole("link", { name: "Mininet-WiFi script (mptcp)" }).click();
  const d = await download;
  const script = fs.readFileSync((await d.path())!, "utf8");
  expect(script).toContain("mptcp");
  const sp = await request.get(`/api/scenarios/${sid}/export?format=mininet-wifi&strategy=sptcp`);
  expect(script).not.toEqual(await sp.text());
});

test("the comparison page has no serious or critical accessibility violations (axe-core)", async ({ page, request }, testInfo) => {
  const { AxeBuilder } = await import("@axe-core/playwright");
  const { sid, cid } = await navalComparison(request, testInfo, ["sptcp", "mptcp"]);
  await openComparison(page, sid, cid);
  await expect(page.getByRole("region", { name: "Routes and link utilisation" }).getByTestId("topology")).toHaveAttribute("data-rendered", "true");
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")) }));
  await testInfo.attach("axe", { body: JSON.stringify(results.violations, null, 2), contentType: "application/json" });
  expect(bad).toEqual([]);
});

test("a sweep says which point the per-flow charts show, names its parameter with unit, and shows every strategy's 95 % band", async ({ page, request }, testInfo) => {
  const file = writeScenario(testInfo, "naval-direct-move.json", uniqueName("naval-sweep"));
  const created = await request.post("/api/scenarios", { data: JSON.parse(fs.readFileSync(file, "utf8")) });
  const sid = (await created.json()).id as string;
  const r = await request.post(`/api/scenarios/${sid}/comparisons`, {
    data: { strategies: ["sptcp", "mptcp"], engine: "fluid", repetitions: 2, sweep: { parameter: "nodes.uav.range_m", values: [200, 400] } },
  });
  expect(r.status(), await r.text()).toBe(202);
  const cid = (await r.json()).id as string;
  await expect
    .poll(async () => (await (await request.get(`/api/scenarios/${sid}/comparisons/${cid}`)).json()).status, { timeout: 120_000 })
    .toBe("succeeded");
  const body = await (await request.get(`/api/scenarios/${sid}/comparisons/${cid}`)).json();
  await page.goto(`/scenarios/${sid}/comparisons/${cid}`);
  const chart = page.getByTestId("sweep-chart");
  await expect(chart).toBeVisible({ timeout: 30_000 });
  // the parameter as a planner reads it, with its unit; never the raw path
  await expect(chart.getByRole("heading")).toHaveText("Mean throughput vs Access point uav range, m");
  await expect(chart.locator("svg.chart-svg")).not.toContainText("nodes.uav.range_m");
  // which run the per-flow charts show
  await expect(page.getByTestId("shown-run")).toContainText("sweep point 1 of 2");
  await expect(page.getByTestId("shown-run")).toContainText("Access point uav range, m = 200, repetition 1 of 2");
  // every strategy's band is drawn, outlined, and has its CI bars at every point
  for (const s of ["sptcp", "mptcp"]) {
    const band = chart.getByTestId(`sweep-band-${s}`);
    await expect(band).toHaveAttribute("d", /^M.+Z$/);
    expect(Number(await band.getAttribute("fill-opacity"))).toBeGreaterThan(0);
    await expect(band).toHaveAttribute("stroke", /^#/);
    await expect(chart.getByTestId(`sweep-${s}`).locator("line.ci-bar")).toHaveCount(2);
    await expect(chart.getByRole("list", { name: /^Legend/ })).toContainText(`${s} 95 % CI`);
  }
  // pick the second point: its statistics
  const picker = page.getByLabel("Sweep point", { exact: true });
  await picker.selectOption({ index: 1 });
  const row = page.getByTestId("sweep-point").locator('tr[data-strategy="mptcp"]');
  await expect(row.locator("td").nth(1)).toHaveText(Number(body.result.sweep.points[1].strategies.mptcp.mean_mbps).toFixed(3));
  await snap(page, testInfo, "sweep");
  // the per-flow charts and the summary of the second point: its stored run (REST), not the first's
  const run1 = await (await request.get(`/api/scenarios/${sid}/comparisons/${cid}/sweep-points/1`)).json();
  expect(run1.value).toBe(400);
  await page.getByLabel("Per-flow charts of").selectOption({ label: "point 2 of 2: Access point uav range, m = 400" });
  await expect(page.getByTestId("shown-run")).toContainText("sweep point 2 of 2");
  await expect(page.getByTestId("shown-run")).toContainText("Access point uav range, m = 400");
  const f1 = run1.strategies.mptcp.summary.flows.find((f: { id: string }) => f.id === "f1");
  await expect(page.getByTestId("summary-mptcp-f1").locator('td[data-col="mean_mbps"]')).toHaveText(Number(f1.mean_mbps).toFixed(3));
  await expect(page.getByTestId("chart-mptcp")).toBeVisible();
  // the exported sweep chart keeps its last x label inside the picture
  for (const width of [1440, 1024]) {
    await page.setViewportSize({ width, height: 900 });
    const download = page.waitForEvent("download");
    await chart.getByRole("button", { name: "SVG" }).click();
    const svgText = fs.readFileSync((await (await download).path())!, "utf8");
    expect(svgText).toContain("Mean throughput vs Access point uav range, m");
    expect(await textsOutside(page, svgText), `texts outside the exported sweep chart at ${width} px`).toEqual([]);
    // and the chart is no taller than its fixed height at any width
    expect((await chart.locator("svg.chart-svg").boundingBox())!.height).toBeLessThanOrEqual(300);
  }
});
