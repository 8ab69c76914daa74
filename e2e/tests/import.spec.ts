import { expect, test } from "@playwright/test";
import { snap, uniqueName, writeScenario } from "./helpers";

test("an invalid scenario shows each error with its field path", async ({ page }, testInfo) => {
  const name = uniqueName("invalid");
  const file = writeScenario(testInfo, "naval-direct-move.json", name, (doc) => {
    doc.links[0].dst = "x";
  });
  await page.goto("/");
  await page.getByLabel("Import scenario file").setInputFiles(file);
  const alert = page.getByRole("alert").filter({ hasText: "not imported" });
  await expect(alert).toContainText("links.0.dst: unknown node 'x'");
  await snap(page, testInfo, "01-invalid");
  // nothing was stored
  await expect(page.getByRole("link", { name, exact: true })).toHaveCount(0);
});
