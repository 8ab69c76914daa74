/** The scenario list manages scenarios: search, order, project filter, duplicate and delete (asked once more). */
import * as fs from "node:fs";
import { expect, test } from "@playwright/test";
import { uniqueName, writeScenario } from "./helpers";

test("search, duplicate and delete from the scenario list", async ({ page, request }, testInfo) => {
  const name = uniqueName("list-manage");
  const file = writeScenario(testInfo, "naval-direct-move.json", name);
  const created = await request.post("/api/scenarios", { data: JSON.parse(fs.readFileSync(file, "utf8")) });
  expect(created.status()).toBe(201);

  await page.goto("/");
  await page.getByLabel("Search").fill(name);
  const rows = page.locator(".scenario-list > li");
  await expect(rows).toHaveCount(1);
  await expect(rows.first().getByRole("link", { name })).toBeVisible();

  await page.getByRole("button", { name: `Duplicate ${name}` }).click();
  await expect(page.getByRole("status").filter({ hasText: `Duplicated as “${name} (copy)”.` })).toBeVisible();
  await expect(rows).toHaveCount(2);
  // the copy is a scenario of its own, with the same document
  const list = (await (await request.get("/api/scenarios?limit=1000")).json()).data as { id: string; name: string }[];
  const copy = list.find((s) => s.name === `${name} (copy)`)!;
  const original = await (await request.get(`/api/scenarios/${(await created.json()).id}`)).json();
  const copied = await (await request.get(`/api/scenarios/${copy.id}`)).json();
  expect(copied.scenario.links).toEqual(original.scenario.links);

  // newest first: the copy was updated last
  await page.getByLabel("Order").selectOption("updated");
  await expect(rows.first().getByRole("link")).toHaveText(`${name} (copy)`);

  // delete asks once more; "Keep it" keeps it
  await page.getByRole("button", { name: `Delete ${name} (copy)…` }).click();
  const ask = page.getByRole("group", { name: `Delete ${name} (copy)?` });
  await ask.getByRole("button", { name: "Keep it" }).click();
  await expect(rows).toHaveCount(2);
  await page.getByRole("button", { name: `Delete ${name} (copy)…` }).click();
  await ask.getByRole("button", { name: "Delete", exact: true }).click();
  await expect(page.getByRole("status").filter({ hasText: `Deleted “${name} (copy)”.` })).toBeVisible();
  await expect(rows).toHaveCount(1);
  expect((await request.get(`/api/scenarios/${copy.id}`)).status()).toBe(404);

  await page.getByLabel("Search").fill(`${name} no such words`);
  await expect(rows).toHaveCount(0);
});
