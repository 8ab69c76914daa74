/**
 * Must-show (1)–(3): build a scenario from scratch on the canvas, save, reload
 * and find it unchanged; run sptcp vs mptcp on it and check charts, markers and
 * summary against the REST result; an invalid loss (150 %) is reported at the
 * field and nothing is saved.
 */
import { expect, test, type Locator, type Page } from "@playwright/test";
import { snap, uniqueName } from "./helpers";

test.describe.configure({ mode: "serial" });

const name = uniqueName("drawn");
let scenarioId = "";

/** Centre of the canvas plus an offset in pixels (a new scenario shows 2 m per pixel around (0, 0)). */
async function canvasPoint(canvas: Locator, dx: number, dy: number) {
  const box = (await canvas.boundingBox())!;
  return { x: box.x + box.width / 2 + dx, y: box.y + box.height / 2 + dy };
}

async function clickCanvas(page: Page, canvas: Locator, dx: number, dy: number) {
  const p = await canvasPoint(canvas, dx, dy);
  await page.mouse.click(p.x, p.y);
}

async function dragOnCanvas(page: Page, canvas: Locator, from: [number, number], to: [number, number]) {
  const a = await canvasPoint(canvas, ...from);
  const b = await canvasPoint(canvas, ...to);
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 8 });
  await page.mouse.move(b.x, b.y, { steps: 8 });
  await page.mouse.up();
}

// pixel offsets from the canvas centre (2 m per pixel, y up in metres)
const H1: [number, number] = [-320, -160];
const H2: [number, number] = [-320, 120];
const SW: [number, number] = [-160, -20];
const AP: [number, number] = [100, 0];
const PATH: [number, number][] = [
  [-200, 150],
  [100, 150],
  [400, 150],
];

test("build a scenario from scratch, save, reload: unchanged", async ({ page }, testInfo) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (err) => pageErrors.push(err.message));
  await page.goto("/");
  await page.getByRole("link", { name: "New scenario" }).click();
  await expect(page).toHaveURL(/\/scenarios\/new$/);
  const canvas = page.getByRole("img", { name: "Topology of New scenario" });
  await expect(canvas).toHaveAttribute("data-rendered", "true");
  await expect(page.getByRole("note", { name: /^Scale: / })).toBeVisible();
  await page.getByLabel("Name", { exact: true }).fill(name);

  // nodes: two hosts, a switch, an access point (tools of the toolbar, then a click on the canvas)
  const tools = page.getByRole("toolbar", { name: "Editing tools" });
  for (const [tool, at] of [
    ["Add host", H1],
    ["Add host", H2],
    ["Add switch", SW],
    ["Add access point", AP],
  ] as const) {
    await tools.getByRole("button", { name: tool }).click();
    await clickCanvas(page, canvas, ...at);
  }
  await expect(canvas).toHaveAttribute("data-node-count", "4");
  // the access point is selected: its radio range
  await expect(page.getByRole("heading", { name: "Access point ap1" })).toBeVisible();
  await page.getByLabel("Range (m)").fill("400");
  await page.getByLabel("Association delay (s)").fill("1");
  // air rate vs distance: 54 Mbit/s up to 100 m, 6 Mbit/s up to the 400 m edge
  await page.getByRole("button", { name: "Add rate step" }).click();
  await page.getByRole("button", { name: "Add rate step" }).click();
  const rates = page.getByRole("table", { name: "Rate vs distance" });
  await expect(rates.getByRole("row")).toHaveCount(3);
  await rates.getByLabel("Rate step 2 distance (m)").fill("400");
  await rates.getByLabel("Rate step 2 rate (Mbit/s)").fill("6");
  await rates.getByLabel("Rate step 2 rate (Mbit/s)").press("Enter");
  await snap(page, testInfo, "01-access-point");

  // a station with a 3-point waypoint path drawn on the canvas at 20 m/s
  await tools.getByRole("button", { name: "Add station" }).click();
  await clickCanvas(page, canvas, ...PATH[0]!);
  await expect(page.getByRole("heading", { name: "Station sta1" })).toBeVisible();
  await page.getByLabel("Mobility model").selectOption("waypoints");
  await page.getByLabel("Drawing speed (m/s)").fill("20");
  await page.getByRole("button", { name: "Draw path" }).click();
  // the path starts where the station is (PATH[0]); the clicks add the next points
  for (const p of PATH.slice(1)) await clickCanvas(page, canvas, ...p);
  await page.getByRole("button", { name: "Finish path" }).click();
  const waypoints = page.getByRole("table", { name: "Waypoints" });
  await expect(waypoints.getByRole("row")).toHaveCount(4);
  // 600 m per leg at 20 m/s (clicks land within a pixel, 2 m, of the intended point)
  await expect(waypoints.getByLabel("Waypoint 3 time (s)")).toHaveValue(/^(59|60)(\.\d+)?$/);
  await snap(page, testInfo, "01-nodes-and-path");

  // wired links by dragging from node to node
  await tools.getByRole("button", { name: "Draw links" }).click();
  await dragOnCanvas(page, canvas, H1, SW);
  await dragOnCanvas(page, canvas, H2, SW);
  await dragOnCanvas(page, canvas, SW, AP);
  await expect(canvas).toHaveAttribute("data-link-count", "3");
  await tools.getByRole("button", { name: "Select" }).click();

  // link parameters: click the first link on the canvas
  await clickCanvas(page, canvas, (H1[0] + SW[0]) / 2, (H1[1] + SW[1]) / 2);
  await expect(page.getByRole("heading", { name: "Link l1" })).toBeVisible();
  await page.getByLabel("Bandwidth (Mbit/s)").fill("20");
  await page.getByLabel("Delay (ms)").fill("15");
  await page.getByLabel("Loss (%)").fill("0.5");
  await page.getByLabel("Jitter (ms)").fill("2");
  await page.getByLabel("Queue (packets)").fill("50");
  await snap(page, testInfo, "02-link");

  // one flow: station → first host, 2 Mbit/s
  await page.getByRole("button", { name: "Add flow" }).click();
  const flows = page.getByRole("table", { name: "Flows" });
  await expect(flows.getByLabel("Flow f1 source")).toHaveValue("sta1");
  await expect(flows.getByLabel("Flow f1 destination")).toHaveValue("h1");
  await flows.getByLabel("Flow f1 bulk transfer").uncheck();
  await flows.getByLabel("Flow f1 rate (Mbit/s)").fill("2");
  await flows.getByLabel("Flow f1 rate (Mbit/s)").press("Enter");
  await expect(page.getByTestId("counts")).toHaveText("5 nodes · 3 links · 1 flows");
  await expect(page.getByTestId("unsaved")).toBeVisible();

  // the access point's backhaul fails at 20 s and is back at 30 s
  const events = page.getByRole("table", { name: "Link events" });
  for (const [n, t, state] of [
    [1, "20", "down"],
    [2, "30", "up"],
  ] as const) {
    await page.getByRole("button", { name: "Add link event" }).click();
    await events.getByLabel(`Link event ${n} link`).selectOption("l3");
    await events.getByLabel(`Link event ${n} state`).selectOption(state);
    await events.getByLabel(`Link event ${n} time (s)`).fill(t);
    await events.getByLabel(`Link event ${n} time (s)`).press("Enter");
  }
  await expect(events.getByRole("row")).toHaveCount(3);
  await snap(page, testInfo, "03-built");

  // save: the page becomes the stored scenario
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page).toHaveURL(/\/scenarios\/[0-9a-f-]{36}$/);
  scenarioId = new URL(page.url()).pathname.split("/").pop()!;
  await expect(page.getByRole("heading", { level: 1 })).toContainText(name);
  await expect(page.getByTestId("unsaved")).toHaveCount(0);

  const stored = await (await page.request.get(`/api/scenarios/${scenarioId}`)).json();
  const doc = stored.scenario;
  const kinds = doc.nodes.map((n: { kind: string }) => n.kind).sort();
  expect(kinds).toEqual(["access_point", "host", "host", "station", "switch"]);
  const sta = doc.nodes.find((n: { id: string }) => n.id === "sta1");
  expect(sta.mobility.model).toBe("waypoints");
  const pts = sta.mobility.points as { t_s: number; x_m: number; y_m: number }[];
  expect(pts).toHaveLength(3);
  [0, 30, 60].forEach((t, i) => expect(Math.abs(pts[i]!.t_s - t)).toBeLessThan(0.3));
  [-400, 200, 800].forEach((x, i) => expect(Math.abs(pts[i]!.x_m - x)).toBeLessThan(3));
  // planar (schema version 2 stores the unused lat_deg/lon_deg as null and alt_m 0)
  expect(sta.position).toMatchObject({ x_m: pts[0]!.x_m, y_m: pts[0]!.y_m });
  expect(sta.position.lat_deg ?? null).toBeNull();
  const ap = doc.nodes.find((n: { id: string }) => n.id === "ap1");
  expect(ap.range_m).toBe(400);
  expect(ap.rate_table).toEqual([
    { distance_m: 100, bandwidth_mbps: 54 },
    { distance_m: 400, bandwidth_mbps: 6 },
  ]);
  expect(doc.link_events).toEqual([
    { t_s: 20, link: "l3", state: "down" },
    { t_s: 30, link: "l3", state: "up" },
  ]);
  expect(doc.links.map((l: { src: string; dst: string }) => `${l.src}-${l.dst}`)).toEqual(["h1-sw1", "h2-sw1", "sw1-ap1"]);
  expect(doc.links[0]).toMatchObject({ bandwidth_mbps: 20, delay_ms: 15, loss: 0.005, jitter_ms: 2, queue_packets: 50 });
  expect(doc.flows).toEqual([expect.objectContaining({ id: "f1", src: "sta1", dst: "h1", rate_mbps: 2, start_s: 0, stop_s: null })]);

  // reload: the same document, drawn again
  await page.reload();
  await expect(page.getByRole("heading", { level: 1 })).toContainText(name);
  const again = page.getByRole("img", { name: `Topology of ${name}` });
  await expect(again).toHaveAttribute("data-rendered", "true");
  await expect(again).toHaveAttribute("data-node-count", "5");
  await expect(again).toHaveAttribute("data-link-count", "3");
  await expect(page.getByTestId("counts")).toHaveText("5 nodes · 3 links · 1 flows");
  await expect(page.getByTestId("unsaved")).toHaveCount(0);
  await page.getByText(/^Elements \(/).click();
  await page.getByRole("list", { name: "Links" }).getByRole("button", { name: "l1" }).click();
  await expect(page.getByLabel("Bandwidth (Mbit/s)")).toHaveValue("20");
  await expect(page.getByLabel("Loss (%)")).toHaveValue("0.5");
  await expect(page.getByRole("table", { name: "Flows" }).getByLabel("Flow f1 rate (Mbit/s)")).toHaveValue("2");
  const eventsAgain = page.getByRole("table", { name: "Link events" });
  await expect(eventsAgain.getByLabel("Link event 2 time (s)")).toHaveValue("30");
  await expect(eventsAgain.getByLabel("Link event 2 state")).toHaveValue("up");
  await expect(eventsAgain.getByLabel("Link event 1 link")).toHaveValue("l3");
  const reread = await (await page.request.get(`/api/scenarios/${scenarioId}`)).json();
  expect(reread.version).toBe(stored.version);
  expect(reread.scenario).toEqual(doc);
  await snap(page, testInfo, "04-reloaded");
  expect(pageErrors, "uncaught errors in the page").toEqual([]);
});

const MARKER_KINDS = ["handover_start", "association", "rto", "route_change", "route_lost"];

test("run sptcp vs mptcp on the drawn scenario: charts, markers and summary agree with REST", async ({ page }, testInfo) => {
  expect(scenarioId, "the scenario saved by the first test").not.toBe("");
  const pageErrors: string[] = [];
  page.on("pageerror", (err) => pageErrors.push(err.message));
  await page.goto(`/scenarios/${scenarioId}`);
  await page.getByRole("button", { name: "Compare" }).click();
  const dialog = page.getByRole("dialog", { name: "Compare strategies" });
  for (const s of ["sptcp", "mptcp"]) await expect(dialog.getByRole("checkbox", { name: s, exact: true })).toBeChecked();
  await expect(dialog.getByLabel("Engine")).toHaveValue("fluid");
  await snap(page, testInfo, "01-run-panel");
  await dialog.getByRole("button", { name: "Run" }).click();
  await expect(page).toHaveURL(/\/comparisons\/[^/]+$/);
  const failed = page.getByRole("alert").filter({ hasText: "The comparison failed" });
  await expect(page.getByTestId("chart-sptcp").or(failed)).toBeVisible({ timeout: 90_000 });
  await expect(failed).toHaveCount(0);
  await expect(page.getByTestId("comparison-status")).toHaveText("succeeded");

  const cid = new URL(page.url()).pathname.split("/").pop()!;
  const body = await (await page.request.get(`/api/scenarios/${scenarioId}/comparisons/${cid}`)).json();
  expect(body.status).toBe("succeeded");
  for (const s of ["sptcp", "mptcp"]) {
    const r = body.result.strategies[s];
    const chart = page.getByTestId(`chart-${s}`);
    // one line per flow with every sample
    const line = chart.getByTestId(`line-${s}-f1`);
    await expect(line).toHaveAttribute("data-samples", String(r.flows[0].t_s.length));
    await expect(line).toHaveAttribute("d", /^M[^ML]+(L[^ML]+){10,}$/);
    // markers: handovers, RTOs, route changes, once per time/kind/node
    const expected = new Set(
      r.events.filter((e: { kind: string }) => MARKER_KINDS.includes(e.kind)).map((e: { t_s: number; kind: string; node?: string }) => `${e.t_s}|${e.kind}|${e.node ?? ""}`),
    );
    await expect(chart.locator("line.marker")).toHaveCount(expected.size);
    // the station enters the access point's range while moving: a handover at t > 0
    const assoc = r.events.filter((e: { kind: string; t_s: number }) => e.kind === "association" && e.t_s > 0);
    expect(assoc.length, `${s} has an association event`).toBeGreaterThan(0);
    await expect(chart.locator(`line.marker[data-kind="association"][data-t="${assoc[0].t_s}"]`)).toHaveCount(1);
    // summary: table, bars and Jain's index from the result's summary
    const sum = r.summary;
    await expect(page.getByTestId(`summary-${s}-f1`).locator('[data-col="mean_mbps"]')).toHaveText(Number(sum.flows[0].mean_mbps).toFixed(3));
    await expect(page.getByTestId(`summary-${s}-all`).locator('[data-col="jain_index"]')).toHaveText(Number(sum.jain_index).toFixed(3));
    const bar = page.getByTestId(`bar-${s}`);
    await expect(bar).toHaveAttribute("data-mean", String(sum.mean_mbps));
    await expect(bar).toHaveAttribute("data-jain", String(sum.jain_index));
    await expect(page.getByTestId(`cdf-${s}`)).toHaveAttribute("data-flows", String(sum.flows.length));
  }
  // shared hover: one rule in every chart, values of both strategies in the readout
  const svg = page.getByTestId("chart-sptcp").locator("svg.chart-svg");
  const box = (await svg.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.4);
  await expect(page.getByTestId("hover-rule")).toHaveCount(2);
  await expect(page.getByTestId("hover-readout")).toContainText("sptcp:");
  await expect(page.getByTestId("hover-readout")).toContainText("mptcp:");
  await snap(page, testInfo, "02-results");
  // subflows toggle
  await page.getByLabel("Show subflows").check();
  await expect(page.getByTestId("chart-mptcp").locator('[data-testid^="subflow-mptcp-"]').first()).toBeVisible();
  // CSV export of a chart
  const download = page.waitForEvent("download");
  await page.getByTestId("chart-sptcp").getByRole("button", { name: "CSV" }).click();
  const csv = await (await download).path();
  expect(csv).toBeTruthy();
  await page.getByRole("heading", { name: "Routes and link utilisation" }).scrollIntoViewIfNeeded();
  await snap(page, testInfo, "03-routes");
  expect(pageErrors, "uncaught errors in the page").toEqual([]);
});

test("an invalid loss (150 %) is refused at the field, in percent, and nothing is stored", async ({ page }, testInfo) => {
  expect(scenarioId, "the scenario saved by the first test").not.toBe("");
  const before = await (await page.request.get(`/api/scenarios/${scenarioId}`)).json();
  await page.goto(`/scenarios/${scenarioId}`);
  await page.getByText(/^Elements \(/).click();
  await page.getByRole("list", { name: "Links" }).getByRole("button", { name: "l1" }).click();
  const loss = page.getByLabel("Loss (%)");
  await loss.fill("150");
  await expect(loss).toHaveAttribute("aria-invalid", "true");
  await expect(loss).toHaveAccessibleDescription("must be < 100 %");
  // refused before it reaches the document: nothing to save
  await expect(page.getByTestId("unsaved")).toHaveCount(0);
  await snap(page, testInfo, "01-loss-error");
  const after = await (await page.request.get(`/api/scenarios/${scenarioId}`)).json();
  expect(after.version).toBe(before.version);
  expect(after.scenario.links[0].loss).toBe(before.scenario.links[0].loss);
  // a value in range clears the message at once and is stored as a fraction on save
  await loss.fill("0.8");
  await expect(loss).not.toHaveAttribute("aria-invalid", "true");
  await expect(page.getByTestId("unsaved")).toBeVisible();

  // leaving asks first; staying keeps the edit
  await page.getByRole("navigation", { name: "Breadcrumb" }).getByRole("link", { name: "Scenarios" }).click();
  const dialog = page.getByRole("alertdialog", { name: "Unsaved changes" });
  await expect(dialog).toBeVisible();
  await snap(page, testInfo, "02-leave-warning");
  await dialog.getByRole("button", { name: "Stay" }).click();
  await expect(loss).toHaveValue("0.8");
  // undo puts the stored value back
  await page.getByRole("button", { name: "Undo" }).click();
  await expect(loss).toHaveValue("0.5");
});
