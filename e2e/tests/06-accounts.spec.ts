/**
 * Accounts in the browser: two tabs saving the same scenario (the second is told and keeps its
 * edits as a new scenario) and restoring an old version; a viewer who sees only their project and
 * is refused an edit; a personal API token made in the UI.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { REPO_ROOT, snap, uniqueName } from "./helpers";

function naval(name: string): any {
  const doc = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "examples", "naval-direct-move.json"), "utf8"));
  doc.name = name;
  return doc;
}

async function setLoss(page: Page, percent: string) {
  await page.getByText(/^Elements \(/).click();
  await page.getByRole("list", { name: "Links" }).getByRole("button", { name: "satcom-ship" }).click();
  await page.getByLabel("Loss (%)").fill(percent);
}

test("two tabs save the same scenario: the second is told and keeps its edits as a new scenario", async ({ page, request }, testInfo) => {
  const name = uniqueName("conflict");
  const created = await request.post("/api/scenarios", { data: naval(name) });
  expect(created.status()).toBe(201);
  const sid = (await created.json()).id as string;

  const tabA = page;
  const tabB = await page.context().newPage();
  await tabA.goto(`/scenarios/${sid}`);
  await tabB.goto(`/scenarios/${sid}`);
  await setLoss(tabA, "1");
  await setLoss(tabB, "2");

  await tabA.getByRole("button", { name: "Save" }).click();
  await expect(tabA.getByText("Saved version 2.")).toBeVisible();
  await tabB.getByRole("button", { name: "Save" }).click();
  await expect(tabB.getByRole("alert").filter({ hasText: "Not saved" })).toContainText("Someone else saved this scenario");
  await snap(tabB, testInfo, "01-conflict");

  const stored = await (await request.get(`/api/scenarios/${sid}`)).json();
  expect(stored.version).toBe(2);
  expect(stored.scenario.links.find((l: any) => l.id === "satcom-ship").loss).toBeCloseTo(0.01, 9);

  await tabB.getByRole("button", { name: "Save my edits as a new scenario" }).click();
  await expect(tabB).not.toHaveURL(new RegExp(`/scenarios/${sid}$`));
  const copyId = decodeURIComponent(tabB.url().split("/scenarios/")[1]);
  const copy = await (await request.get(`/api/scenarios/${copyId}`)).json();
  expect(copy.name).toContain(`${name} (copy`);
  expect(copy.scenario.links.find((l: any) => l.id === "satcom-ship").loss).toBeCloseTo(0.02, 9);
  // the first tab's version is untouched, and the history has both versions
  const versions = await (await request.get(`/api/scenarios/${sid}/versions`)).json();
  expect(versions.data.map((v: any) => v.version)).toEqual([2, 1]);
  await tabB.close();

  // restore version 1 from the editor's version list: a new version 3 with version 1's document
  await tabA.reload();
  const list = tabA.getByRole("list", { name: "Versions" });
  await expect(list.getByRole("listitem")).toHaveCount(2);
  await list.getByRole("button", { name: "Restore v1" }).click();
  await expect(tabA.getByText("Restored version 1 as version 3.")).toBeVisible();
  await expect(list.getByRole("listitem")).toHaveCount(3);
  await snap(tabA, testInfo, "02-restored");
  // checked through REST with the page's own session (its cookie), not the spec's request context
  const v1 = await (await tabA.request.get(`/api/scenarios/${sid}/versions/1`)).json();
  const nowResponse = await tabA.request.get(`/api/scenarios/${sid}`);
  expect(nowResponse.status()).toBe(200);
  const now = await nowResponse.json();
  expect(now.version).toBe(3);
  expect(now.scenario).toEqual(v1.scenario);

  // the versions panel's diff: v2 (loss 1 %) → v3 (= v1) names the field the restore changed back
  await list.getByRole("button", { name: "Changes since v2" }).click();
  const changes = tabA.getByRole("list", { name: "Changes from v2 to v3" });
  await expect(changes.getByRole("listitem").filter({ hasText: /^links\[satcom-ship\]\.loss: 0\.01\d* → / })).toHaveCount(1);
  await snap(tabA, testInfo, "03-changes");
  // and v1 → v3: nothing, the current document is version 1's
  await list.getByRole("button", { name: "Changes since v1" }).click();
  await expect(tabA.getByText("Changes from v1 to v3: none")).toBeVisible();
});

test("a viewer sees only their project's scenarios and is refused an edit", async ({ browser, request }, testInfo) => {
  const username = `viewer-${Date.now()}`;
  const password = `pw-${Math.random().toString(36).slice(2)}-x`;
  const user = await request.post("/api/users", { data: { username, password } });
  expect(user.status()).toBe(201);
  const project = await request.post("/api/projects", { data: { name: uniqueName("viewer project") } });
  expect(project.status()).toBe(201);
  const pid = (await project.json()).id as string;
  const uid = (await user.json()).id as string;
  expect((await request.put(`/api/projects/${pid}/members/${uid}`, { data: { role: "viewer" } })).status()).toBe(200);
  const name = uniqueName("viewed");
  const created = await request.post(`/api/scenarios?project_id=${pid}`, { data: naval(name) });
  expect(created.status()).toBe(201);
  const sid = (await created.json()).id as string;

  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  await page.goto("/");
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("account-name")).toHaveText(username);
  const list = page.getByRole("list", { name: "Scenarios" });
  await expect(list.getByRole("link", { name, exact: true })).toBeVisible();
  await expect(list.getByRole("link")).toHaveCount(1); // not the examples of the default project
  await snap(page, testInfo, "01-viewer-list");

  await list.getByRole("link", { name, exact: true }).click();
  await setLoss(page, "3");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Not saved" })).toContainText("viewer");
  await snap(page, testInfo, "02-viewer-refused");
  const stored = await (await request.get(`/api/scenarios/${sid}`)).json();
  expect(stored.version).toBe(1);

  // signing out shows the sign-in page again
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("heading", { name: "Sign in to Subflow" })).toBeVisible();
  await context.close();
});

test("a personal API token created in the UI works once copied and stops when revoked", async ({ page, playwright }, testInfo) => {
  await page.goto("/");
  await page.getByTestId("account-name").click();
  await expect(page.getByRole("heading", { name: "API tokens" })).toBeVisible();
  const name = uniqueName("ui token");
  const form = page.getByRole("form", { name: "New API token" });
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Scope").selectOption("read");
  await form.getByRole("button", { name: "Create token" }).click();
  const token = (await page.getByTestId("new-token").textContent())?.trim() ?? "";
  expect(token).toMatch(/^sft_/);
  const row = page.getByRole("table", { name: "Your API tokens" }).getByRole("row").filter({ hasText: name });
  await expect(row).toContainText("read");
  await snap(page, testInfo, "01-token-created");

  // a client without the browser's cookie, with the token only
  const api = await playwright.request.newContext({ storageState: { cookies: [], origins: [] } });
  const auth = { Authorization: `Bearer ${token}` };
  expect((await api.get("/api/users/me")).status()).toBe(401);
  expect((await api.get("/api/users/me", { headers: auth })).status()).toBe(200);
  expect((await api.post("/api/projects", { headers: auth, data: { name: uniqueName("nope") } })).status()).toBe(403);
  await row.getByRole("button", { name: "Revoke" }).click();
  await expect(row).toHaveCount(0);
  expect((await api.get("/api/users/me", { headers: auth })).status()).toBe(401);
  await api.dispose();
});
