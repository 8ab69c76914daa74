/**
 * Admin and owner screens in the browser, on the real API:
 *
 * 1. the walk: the admin creates a project and a user, adds the user to the project with a role (by
 *    username), the user signs in and sees the project but no admin link (and the API's refusal on an
 *    admin page opened directly); the admin lets the user run the root engines, creates and revokes a
 *    token, and finds each of these actions in the audit log;
 * 2. the authorization matrix of the screens, one test per caller — admin, project owner, editor,
 *    viewer, outsider (member of nothing) — mirroring the API's (tests/integration/test_authorization.py:
 *    users and audit admin_only, a project member_read, its members owner_only, tokens signed_in);
 * 3. axe-core on every new page.
 */
import { expect, test, type APIRequestContext, type Browser, type Page } from "@playwright/test";
import { adminCredentials, seriousAxeViolations, snap, uniqueName } from "./helpers";

const ADMIN_REFUSAL = "only an admin may do this";

async function signIn(browser: Browser, username: string, password: string): Promise<Page> {
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  await page.goto("/");
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("account-name")).toHaveText(username);
  return page;
}

async function newUser(request: APIRequestContext, prefix: string): Promise<{ id: string; username: string; password: string }> {
  const username = `${prefix}-${Date.now()}-${Math.floor(Math.random() * 1e4)}`;
  const password = `pw-${Math.random().toString(36).slice(2)}-x`;
  const r = await request.post("/api/users", { data: { username, password } });
  expect(r.status()).toBe(201);
  return { id: (await r.json()).id, username, password };
}

test("admin creates a project, adds a member with a role, toggles can_run_linux, creates and revokes a token, and reads it all in the audit log", async ({ page, browser, request }, testInfo) => {
  const admin = adminCredentials().username;
  const projectName = uniqueName("admin walk");
  const member = `member-${Date.now()}`;
  const password = `pw-${Math.random().toString(36).slice(2)}-x`;

  // the project, from the navigation
  await page.goto("/");
  const nav = page.getByRole("navigation", { name: "Main" });
  await nav.getByRole("link", { name: "Projects" }).click();
  await expect(page).toHaveTitle("Projects · Subflow");
  const newProject = page.getByRole("form", { name: "New project" });
  await newProject.getByLabel("Name").fill(projectName);
  await newProject.getByRole("button", { name: "Create project" }).click();
  await expect(page.getByRole("status")).toContainText(`Created project ${projectName}`);

  // the user, on the Users page (an admin link)
  await nav.getByRole("link", { name: "Users" }).click();
  await expect(page.getByRole("heading", { name: "Users" })).toBeVisible();
  const newUserForm = page.getByRole("form", { name: "New user" });
  await newUserForm.getByLabel("Username").fill(member);
  await newUserForm.getByLabel("Password").fill("short");
  await newUserForm.getByRole("button", { name: "Create user" }).click();
  // the API's refusal, named at the field
  await expect(newUserForm.getByLabel("Password")).toHaveAttribute("aria-invalid", "true");
  await expect(newUserForm.getByRole("alert")).toContainText("password");
  await newUserForm.getByLabel("Password").fill(password);
  await newUserForm.getByRole("button", { name: "Create user" }).click();
  await expect(page.getByRole("table", { name: "Users" }).getByRole("rowheader", { name: member })).toBeVisible();

  // the member, by username, with the role editor
  await nav.getByRole("link", { name: "Projects" }).click();
  await page.getByRole("table", { name: "Your projects" }).getByRole("link", { name: projectName }).click();
  await expect(page).toHaveTitle(`${projectName} · Projects · Subflow`);
  const add = page.getByRole("form", { name: "Add a member" });
  await add.getByLabel("Username").fill(`nobody-${Date.now()}`);
  await add.getByRole("button", { name: "Add member" }).click();
  await expect(add.getByRole("alert")).toContainText("no user named");
  await add.getByLabel("Username").fill(member);
  await add.getByLabel("Role", { exact: true }).selectOption("editor");
  await add.getByRole("button", { name: "Add member" }).click();
  await expect(page.getByLabel(`Role of ${member}`)).toHaveValue("editor");
  await snap(page, testInfo, "01-members");

  // the member sees the project (as editor), no admin link, and the API's refusal on an admin page
  const theirs = await signIn(browser, member, password);
  const theirNav = theirs.getByRole("navigation", { name: "Main" });
  await expect(theirNav.getByRole("link", { name: "Projects" })).toBeVisible();
  await expect(theirNav.getByRole("link", { name: "Users" })).toHaveCount(0);
  await expect(theirNav.getByRole("link", { name: "Audit log" })).toHaveCount(0);
  await theirNav.getByRole("link", { name: "Projects" }).click();
  await expect(theirs.getByTestId(`project-${projectName}`)).toContainText("editor");
  await theirs.goto("/admin/users");
  await expect(theirs.getByRole("alert")).toContainText(ADMIN_REFUSAL);
  await expect(theirs.getByRole("table")).toHaveCount(0);
  await snap(theirs, testInfo, "02-member-refused");
  await theirs.context().close();

  // can_run_linux, on the Users page
  await nav.getByRole("link", { name: "Users" }).click();
  const linux = page.getByLabel(`May run root engines (linux, mininet-wifi): ${member}`);
  await expect(linux).not.toBeChecked();
  await linux.check();
  await expect(page.getByRole("status")).toContainText(`${member}: may run root engines`);
  await expect(linux).toBeChecked();
  const users = await (await request.get("/api/users?limit=1000")).json();
  expect(users.data.find((u: any) => u.username === member).can_run_linux).toBe(true);

  // a token, from the navigation: created (shown once), then revoked
  await nav.getByRole("link", { name: "API tokens" }).click();
  const tokenName = uniqueName("walk token");
  const tokenForm = page.getByRole("form", { name: "New API token" });
  await tokenForm.getByLabel("Name").fill(tokenName);
  await tokenForm.getByRole("button", { name: "Create token" }).click();
  await expect(page.getByTestId("new-token")).toHaveText(/^sft_/);
  const row = page.getByRole("table", { name: "Your API tokens" }).getByRole("row").filter({ hasText: tokenName });
  await row.getByRole("button", { name: "Revoke" }).click();
  await expect(row).toHaveCount(0);

  // the audit log: each action, filtered to the admin
  await nav.getByRole("link", { name: "Audit log" }).click();
  await expect(page).toHaveTitle("Audit log · Admin · Subflow");
  const filter = page.getByRole("search", { name: "Filter the audit log" });
  await filter.getByLabel("Username").fill(admin);
  await filter.getByRole("button", { name: "Filter" }).click();
  const log = page.getByRole("table", { name: "Audit log" });
  for (const [action, detail] of [
    ["project_create", `name=${projectName}`],
    ["user_create", ""],
    ["member_set", `role=editor, user=${member}`],
    ["user_update", "can_run_linux=true"],
    ["token_create", `name=${tokenName}`],
    ["token_revoke", `name=${tokenName}`],
  ]) {
    await expect(log.getByRole("row").filter({ hasText: action }).filter({ hasText: detail }).first()).toBeVisible();
  }
  await filter.getByLabel("Action").fill("member_set");
  await filter.getByRole("button", { name: "Filter" }).click();
  await expect(log.getByRole("row").filter({ hasText: "token_create" })).toHaveCount(0);
  await expect(log.getByRole("row").filter({ hasText: `user=${member}` }).first()).toBeVisible();
  await snap(page, testInfo, "03-audit");
});

// ------------------------------------------------------------------ the authorization matrix of the screens

type Caller = "admin" | "owner" | "editor" | "viewer" | "outsider";

/** What each screen shows each caller: the API's matrix (admin_only, member_read, owner_only, signed_in). */
const MATRIX: Record<Caller, { adminLinks: boolean; adminPages: "shown" | "refused"; project: "owner" | "editor" | "viewer" | "not found"; manageMembers: boolean }> = {
  admin: { adminLinks: true, adminPages: "shown", project: "owner", manageMembers: true },
  owner: { adminLinks: false, adminPages: "refused", project: "owner", manageMembers: true },
  editor: { adminLinks: false, adminPages: "refused", project: "editor", manageMembers: false },
  viewer: { adminLinks: false, adminPages: "refused", project: "viewer", manageMembers: false },
  outsider: { adminLinks: false, adminPages: "refused", project: "not found", manageMembers: false },
};

test.describe("the screens follow the API's authorization matrix", () => {
  let projectId = "";
  let projectName = "";
  const creds: Partial<Record<Caller, { username: string; password: string }>> = {};

  test.beforeAll(async ({ playwright }) => {
    const { username, password } = adminCredentials();
    const request = await playwright.request.newContext({ baseURL: test.info().project.use.baseURL, storageState: test.info().project.use.storageState as string });
    projectName = uniqueName("matrix");
    const p = await request.post("/api/projects", { data: { name: projectName } });
    expect(p.status()).toBe(201);
    projectId = (await p.json()).id;
    creds.admin = { username, password };
    for (const role of ["owner", "editor", "viewer", "outsider"] as const) {
      const u = await newUser(request, role);
      creds[role] = u;
      if (role !== "outsider") expect((await request.put(`/api/projects/${projectId}/members/${u.id}`, { data: { role } })).status()).toBe(200);
    }
    await request.dispose();
  });

  for (const caller of Object.keys(MATRIX) as Caller[]) {
    test(`${caller}`, async ({ browser }, testInfo) => {
      const want = MATRIX[caller];
      const page = await signIn(browser, creds[caller]!.username, creds[caller]!.password);
      const nav = page.getByRole("navigation", { name: "Main" });
      for (const link of ["Scenarios", "Projects", "API tokens"]) await expect(nav.getByRole("link", { name: link })).toBeVisible();
      for (const link of ["Users", "Audit log"]) await expect(nav.getByRole("link", { name: link })).toHaveCount(want.adminLinks ? 1 : 0);

      // GET /api/users and GET /api/audit: admin_only
      for (const [path, table] of [["/admin/users", "Users"], ["/admin/audit", "Audit log"]]) {
        await page.goto(path);
        if (want.adminPages === "shown") await expect(page.getByRole("table", { name: table })).toBeVisible();
        else {
          await expect(page.getByRole("alert")).toContainText(ADMIN_REFUSAL);
          await expect(page.getByRole("table")).toHaveCount(0);
        }
      }

      // GET /api/projects: yours with your role; GET /api/projects/{id}: member_read
      await page.goto("/projects");
      const listed = page.getByTestId(`project-${projectName}`);
      if (want.project === "not found") await expect(listed).toHaveCount(0);
      else await expect(listed).toContainText(want.project);
      await page.goto(`/projects/${projectId}`);
      if (want.project === "not found") {
        await expect(page.getByRole("alert")).toContainText("not found");
        await expect(page.getByRole("table")).toHaveCount(0);
      } else {
        await expect(page.getByRole("table", { name: "Members" })).toBeVisible();
        // PUT/POST/DELETE .../members: owner_only — the controls are there only for owners (and admins)
        await expect(page.getByRole("form", { name: "Add a member" })).toHaveCount(want.manageMembers ? 1 : 0);
        await expect(page.getByRole("form", { name: "Project settings" })).toHaveCount(want.manageMembers ? 1 : 0);
        await expect(page.getByLabel(`Role of ${creds.viewer!.username}`)).toHaveCount(want.manageMembers ? 1 : 0);
      }

      // GET /api/users/me/tokens: signed_in
      await nav.getByRole("link", { name: "API tokens" }).click();
      await expect(page.getByRole("form", { name: "New API token" })).toBeVisible();
      await snap(page, testInfo, `matrix-${caller}`);
      await page.context().close();
    });
  }
});

test("the projects, project, users, audit and tokens pages have no serious or critical accessibility violations (axe-core)", async ({ page, request }, testInfo) => {
  const p = await request.post("/api/projects", { data: { name: uniqueName("axe") } });
  expect(p.status()).toBe(201);
  const pid = (await p.json()).id as string;
  for (const [path, ready] of [
    ["/projects", "Your projects"],
    [`/projects/${pid}`, "Members"],
    ["/admin/users", "Users"],
    ["/admin/audit", "Audit log"],
  ] as const) {
    await page.goto(path);
    await expect(page.getByRole("table", { name: ready })).toBeVisible();
    const axe = await seriousAxeViolations(page);
    await testInfo.attach(`axe-${path}`, { body: JSON.stringify(axe.all, null, 2), contentType: "application/json" });
    expect(axe.bad, path).toEqual([]);
  }
  await page.goto("/account");
  await expect(page.getByRole("form", { name: "New API token" })).toBeVisible();
  const axe = await seriousAxeViolations(page);
  expect(axe.bad, "/account").toEqual([]);
});
