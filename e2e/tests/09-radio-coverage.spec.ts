/**
 * Radio from propagation in the editor: open the UAV relay-chain example, see the
 * coverage heat map and its legend (Mbit/s), scrub the time and see the map follow, and read an
 * access point's radio in the inspector. The grid drawn is checked against `POST /api/coverage`
 * (the page draws what the backend computed; the backend's grid is tested against Friis and the
 * 802.11 sensitivity tables in tests/unit/backend/test_radio_api.py).
 */
import * as fs from "node:fs";
import { expect, test } from "@playwright/test";
import { snap, uniqueName, writeScenario } from "./helpers";

test("coverage heat map, its legend and the radio inspector", async ({ page, request }, testInfo) => {
  const name = uniqueName("uav-relay");
  const file = writeScenario(testInfo, "uav-relay-chain.json", name);
  const doc = JSON.parse(fs.readFileSync(file, "utf8"));
  const created = await request.post("/api/scenarios", { data: doc });
  expect(created.status()).toBe(201);
  const sid = (await created.json()).id;
  await page.goto(`/scenarios/${sid}`);
  await expect(page.getByRole("img", { name: `Topology of ${name}` })).toHaveAttribute("data-rendered", "true");

  const coverage = page.getByRole("region", { name: /Coverage at/ });
  await expect(coverage.getByRole("heading", { name: "Coverage at 0 s" })).toBeVisible();
  const heat = coverage.getByRole("img", { name: "Coverage heat map at 0 s" });
  await expect(heat).toHaveAttribute("data-cells", "48");
  const legend = coverage.getByRole("list", { name: "Coverage legend (Mbit/s)" });
  // the 802.11n MCS 0-7 rates (20 MHz, one stream) and "out of range"
  await expect(legend.getByRole("listitem")).toHaveText([
    "6.5 Mbit/s", "13 Mbit/s", "19.5 Mbit/s", "26 Mbit/s", "39 Mbit/s", "52 Mbit/s", "58.5 Mbit/s", "65 Mbit/s", "out of range",
  ]);

  // the drawn cells: as many coloured cells as the REST grid has cells in range
  const grid = await (await request.post("/api/coverage?t_s=0&cells=48", { data: doc })).json();
  const inRange = (grid.rates_mbps as number[][]).flat().filter((r) => r > 0).length;
  expect(inRange).toBeGreaterThan(100);
  const painted = await heat.evaluate((el: HTMLCanvasElement) => {
    const ctx = el.getContext("2d")!;
    const cell = el.width / 48;
    let n = 0;
    for (let j = 0; j < 48; j++) {
      for (let i = 0; i < 48; i++) {
        const px = ctx.getImageData(Math.floor((i + 0.5) * cell), Math.floor((j + 0.5) * cell), 1, 1).data;
        if (px[3]! > 0) n++;
      }
    }
    return n;
  });
  // access point markers and labels cover a few cells too; every covered cell is painted
  expect(painted).toBeGreaterThanOrEqual(inRange);
  expect(painted).toBeLessThan(inRange + 40);
  await snap(page, testInfo, "01-coverage");

  // the heat map follows the scrubbed time
  const scrubber = page.getByRole("region", { name: "Mobility over time" });
  await scrubber.getByLabel("Show").check();
  await scrubber.getByLabel("Time (s)").fill("40");
  await expect(coverage.getByRole("heading", { name: "Coverage at 40 s" })).toBeVisible();
  await expect(coverage.getByRole("img", { name: "Coverage heat map at 40 s" })).toBeVisible();

  // the inspector shows the access point's radio
  await page.locator("details.element-list summary").click();
  await page.getByRole("list", { name: "Nodes" }).getByRole("button", { name: "uav2" }).click();
  await expect(page.getByRole("heading", { name: /uav2/ })).toBeVisible();
  await expect(page.getByLabel("Transmit power (dBm)")).toHaveValue("20");
  // uav2 names its channel (44); the frequency follows from it (5000 + 5 × 44 MHz)
  await expect(page.getByLabel("Channel", { exact: true })).toHaveValue("44");
  await expect(page.getByLabel("Frequency (MHz)")).toHaveValue("5220");
  await expect(page.getByLabel("PHY")).toHaveValue("n");
  await expect(page.getByLabel("Uplink (access point)")).toHaveValue("uav1");
  await snap(page, testInfo, "02-radio-inspector");
});
