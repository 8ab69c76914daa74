/**
 * A voice call added in the editor and compared on the fluid engine: the flow's kind chosen in the flows table
 * (its rate then follows from the codec, the codec's settings below the row, RFC 4594's EF named, the server's refusal
 * of a G.729A packet interval shown on its field), saved, compared
 * sptcp vs mptcp from the scenario page's Compare dialog, then the delay, jitter, loss and MOS charts beside the
 * throughput charts and the quality summary, with the figures worked out by hand; the scenario's queueing section
 * opened on the way (strict priority with edited classes, then back to fifo); axe-core on both pages.
 *
 * The call has its own 10 Mbit/s, 5 ms link (a rated TCP flow uses the other one), so nothing queues in front of
 * it: G.711 every 20 ms sends 160 + 40 bytes every 20 ms (80 kbit/s), one-way delay 5 ms + 200·8 bit / 10 Mbit/s
 * = 5.16 ms, and with 20 ms of packetisation, the 40 ms playout buffer and no loss the E-model gives R 91.4, MOS 4.37
 * (docs/traffic.md).
 */
import { expect, test } from "@playwright/test";
import { seriousAxeViolations, snap, uniqueName } from "./helpers";

const scenario = (name: string) => ({
  name,
  nodes: [
    { id: "h1", kind: "host", position: { x_m: 0, y_m: 0 } },
    { id: "h2", kind: "host", position: { x_m: 100, y_m: 0 } },
    { id: "h3", kind: "host", position: { x_m: 0, y_m: 100 } },
  ],
  links: [
    { id: "h1-h2", src: "h1", dst: "h2", bandwidth_mbps: 10, delay_ms: 5, queue_packets: 100 },
    { id: "h1-h3", src: "h1", dst: "h3", bandwidth_mbps: 10, delay_ms: 5, queue_packets: 100 },
  ],
  flows: [{ id: "f1", src: "h1", dst: "h3", rate_mbps: 2 }],
  run: { duration_s: 10, interval_s: 1, seed: 1 },
});

test("a voice call added in the editor: its delay and MOS beside the throughput after a fluid comparison", async ({ page, request }, testInfo) => {
  test.setTimeout(240_000);
  const pageErrors: string[] = [];
  page.on("pageerror", (err) => pageErrors.push(err.message));
  const created = await request.post("/api/scenarios", { data: scenario(uniqueName("voice-call")) });
  expect(created.status(), await created.text()).toBe(201);
  const sid = (await created.json()).id as string;

  // the editor: a second flow, h1 → h2, made a voice call
  await page.goto(`/scenarios/${sid}`);
  await page.getByRole("button", { name: "Add flow" }).click();
  const flows = page.getByRole("table", { name: "Flows" });
  await expect(flows.getByLabel("Flow f2 source")).toHaveValue("h1");
  await expect(flows.getByLabel("Flow f2 destination")).toHaveValue("h2");
  await flows.getByLabel("Flow f2 kind").selectOption("voice");
  await expect(flows.getByLabel("Flow f2 rate (Mbit/s)")).toHaveCount(0);
  await expect(flows.getByTestId("flow-row-1")).toContainText("from the codec");
  await expect(flows.getByTestId("flow-row-1")).toContainText("RFC 4594: EF");
  const voice = flows.getByRole("group", { name: "Flow f2 voice settings" });
  await expect(voice.getByLabel("Codec")).toHaveValue("g711");
  await expect(voice.getByLabel("Packet interval (ms)")).toHaveValue("20");
  await expect(voice).toContainText("80.000 kbit/s on the wire");
  await expect(flows.getByLabel("Flow f2 DSCP")).toHaveValue("BE"); // named, not chosen: the class stays the user's
  await snap(page, testInfo, "01-voice-flow");

  // the scenario's queueing section: a discipline with edited classes (checked by axe), then back to fifo, so that
  // the call's figures below are one FIFO's
  const inspector = page.locator(".inspector");
  await inspector.getByLabel("Link queues").selectOption("strict_priority");
  await inspector.getByLabel("RFC 8325 default classes (voice, video, best effort, background)").uncheck();
  const classes = inspector.getByRole("table", { name: "Traffic classes" });
  await expect(classes.getByLabel("Class 1 DSCP classes")).toHaveValue("EF, CS6");
  await expect(classes.getByLabel("Class video priority")).toHaveValue("1");
  await classes.scrollIntoViewIfNeeded();
  await snap(page, testInfo, "02-queueing");
  {
    const { bad } = await seriousAxeViolations(page);
    expect(bad, JSON.stringify(bad, null, 2)).toEqual([]);
  }
  await inspector.getByLabel("RFC 8325 default classes (voice, video, best effort, background)").check();
  await inspector.getByLabel("Link queues").selectOption("fifo");
  await expect(classes).toHaveCount(0);

  // the server's check of the codec, on its field: G.729A packs whole 10 ms frames, so 25 ms is refused
  await voice.getByLabel("Codec").selectOption("g729a");
  await voice.getByLabel("Packet interval (ms)").fill("25");
  await page.getByRole("button", { name: "Save" }).click();
  const interval = voice.getByLabel("Packet interval (ms)");
  await expect(interval).toHaveAttribute("aria-invalid", "true");
  await expect(voice).toContainText("g729a packs whole 10 ms frames");
  await voice.getByLabel("Codec").selectOption("g711");
  await interval.fill("20");
  await expect(interval).not.toHaveAttribute("aria-invalid", "true");

  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved version 2" })).toBeVisible();
  const stored = await (await request.get(`/api/scenarios/${sid}`)).json();
  expect(stored.scenario.flows[1]).toMatchObject({ id: "f2", src: "h1", dst: "h2", kind: "voice", rate_mbps: null });

  // a fluid comparison from the scenario page
  await page.getByRole("button", { name: "Compare" }).click();
  const dialog = page.getByRole("dialog", { name: "Compare strategies" });
  await dialog.getByLabel("Engine").selectOption("fluid");
  await dialog.getByRole("button", { name: "Run" }).click();
  await expect(page).toHaveURL(/\/comparisons\/[^/]+$/);
  await expect(page.getByTestId("comparison-status").filter({ hasText: /succeeded|failed|cancelled/ })).toBeVisible({ timeout: 180_000 });
  await expect(page.getByTestId("comparison-status")).toHaveText("succeeded");

  // the quality charts in the throughput charts' grid: the call (and no line of the TCP flow)
  await expect(page.getByTestId("chart-sptcp")).toBeVisible();
  const charts = page.locator(".charts");
  const delay = charts.getByTestId("quality-delay");
  await expect(delay.getByRole("heading", { name: "One-way delay" })).toBeVisible();
  await expect(delay.locator('path[data-series="sptcp/f2/delay_ms"]')).toHaveCount(1);
  await expect(delay.locator('path[data-series^="sptcp/f1/"]')).toHaveCount(0);
  const mos = charts.getByTestId("quality-mos");
  await expect(mos.locator('path[data-series="sptcp/f2/mos"]')).toHaveCount(1);
  await expect(mos.getByTestId("quality-mos-reference")).toHaveCount(1);
  await expect(charts.getByTestId("quality-jitter")).toBeVisible();
  await expect(charts.getByTestId("quality-loss")).toBeVisible();

  // the summary: 5.16 ms, no loss, MOS 4.37 for each strategy (one path for a voice call)
  for (const s of ["sptcp", "mptcp"]) {
    const row = page.getByTestId(`quality-${s}/f2`);
    await expect(row.locator('[data-col="meanDelayMs"]')).toHaveText("5.16");
    await expect(row.locator('[data-col="loss"]')).toHaveText("0.00");
    await expect(row.locator('[data-col="meanMos"]')).toHaveText("4.37");
  }
  await expect(page.getByTestId("quality-sptcp/f1")).toHaveCount(0);
  await mos.scrollIntoViewIfNeeded();
  await snap(page, testInfo, "03-quality-charts");

  const { bad } = await seriousAxeViolations(page);
  expect(bad, JSON.stringify(bad, null, 2)).toEqual([]);
  expect(pageErrors, "uncaught errors in the page").toEqual([]);
});
