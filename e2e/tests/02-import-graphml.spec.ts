/** Must-show (4): import the Topology Zoo GEANT 2012 GraphML and see its 40 nodes drawn (on the map: it has coordinates). */
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, test } from "@playwright/test";
import { SHARED_DIR, snap, uniqueName } from "./helpers";

/** Read from the project's shared data folder (never copied into the repository). */
const GEANT = path.join(SHARED_DIR, "data", "topology-zoo", "Geant2012.graphml");

test("import Geant2012.graphml and see its 40 nodes drawn", async ({ page }, testInfo) => {
  // a missing input file or endpoint is a failure, never a skip
  expect(fs.existsSync(GEANT), `${GEANT} is not there (the shared data folder is the repository's sibling; set SUBFLOW_SHARED_DIR)`).toBe(true);

  const name = uniqueName("geant2012");
  await page.goto("/");
  await page.getByLabel("Name for the imported scenario").fill(name);
  await page.getByLabel("Import scenario file").setInputFiles(GEANT);
  const rejected = page.getByRole("alert");
  await expect(page.getByRole("status").filter({ hasText: "Imported" }).or(rejected)).toBeVisible();
  // a refused import (no POST /api/imports, a 4xx/5xx) fails here with the server's message
  await expect(rejected, "POST /api/imports refused the GraphML file").toHaveCount(0);
  await expect(page.getByRole("status")).toContainText(`Imported ${name}`);
  await snap(page, testInfo, "01-imported");
  await page.getByRole("status").getByRole("link", { name }).click();
  // GEANT's nodes carry Latitude/Longitude: the scenario is geographic and opens on the map
  const map = page.getByRole("region", { name: `Map of ${name}` });
  await expect(map).toHaveAttribute("data-basemap", "ready");
  await expect(map).toHaveAttribute("data-node-count", "40");
  // drawn: 40 node markers, all inside the view after fitting (read through the e2e hook of the Leaflet map)
  const drawn = await page.evaluate(() => {
    const hook = (window as unknown as { __subflowMap?: any }).__subflowMap;
    const view = hook.map.getBounds();
    const nodes = Object.values(hook.nodes()) as [number, number][];
    return { nodes: nodes.length, inside: nodes.filter((p) => view.contains(p)).length };
  });
  expect(drawn).toEqual({ nodes: 40, inside: 40 });
  await snap(page, testInfo, "02-drawn");
});
