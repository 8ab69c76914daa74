/** Must-show (4): import the Topology Zoo GEANT 2012 GraphML and see its 40 nodes drawn. */
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, test } from "@playwright/test";
import { REPO_ROOT, snap, uniqueName } from "./helpers";

/** Read from the repository's sibling `shared/` (never copied into the repository). */
const GEANT = path.resolve(REPO_ROOT, "..", "shared", "data", "topology-zoo", "Geant2012.graphml");

test("import Geant2012.graphml and see its 40 nodes drawn", async ({ page }, testInfo) => {
  test.skip(!fs.existsSync(GEANT), `${GEANT} is not there (the shared data folder is a sibling of the repository)`);
  const probe = await page.request.post("/api/imports", { multipart: {} });
  test.skip(probe.status() === 404 || probe.status() === 405, "the server has no POST /api/imports yet (answered " + probe.status() + ")");

  const name = uniqueName("geant2012");
  await page.goto("/");
  await page.getByLabel("Name for the imported scenario").fill(name);
  await page.getByLabel("Import scenario file").setInputFiles(GEANT);
  await expect(page.getByRole("status")).toContainText(`Imported ${name}`);
  await snap(page, testInfo, "01-imported");
  await page.getByRole("status").getByRole("link", { name }).click();
  const topology = page.getByRole("img", { name: `Topology of ${name}` });
  await expect(topology).toHaveAttribute("data-rendered", "true");
  await expect(topology).toHaveAttribute("data-node-count", "40");
  // drawn: the cytoscape instance holds 40 scenario nodes, all inside the view after fitting
  const drawn = await page.evaluate(() => {
    const cy = (window as unknown as { __subflowCy?: any }).__subflowCy;
    const nodes = cy.nodes(".node");
    const ext = cy.extent();
    const inside = nodes.filter((n: any) => {
      const p = n.position();
      return p.x >= ext.x1 && p.x <= ext.x2 && p.y >= ext.y1 && p.y <= ext.y2;
    });
    return { nodes: nodes.length, inside: inside.length };
  });
  expect(drawn).toEqual({ nodes: 40, inside: 40 });
  await snap(page, testInfo, "02-drawn");
});
