// @vitest-environment happy-dom
/**
 * One project's page against a fake fetch: an owner adds a member by username with a role (one POST),
 * changes a role (PUT), is told why a removal is refused (the API's 409) and sees an unknown username
 * named at the username field (the 422's loc); a viewer sees the members and roles with no control;
 * a project you are not a member of shows the API's "not found".
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { MemberPublic, ProjectPublic } from "../../api/types";
import { installFakeFetch } from "../../testing/fakeFetch";
import { button, choose, click, control, fakeUser, renderPage, submit, type, type RenderedPage } from "../../testing/renderPage";
import { ProjectView } from "./ProjectView";

const project = (role: ProjectPublic["role"]): ProjectPublic => ({ id: "p1", name: "trials", description: "sea", role, created_at: "2026-11-28T10:00:00Z" });
const owner: MemberPublic = { user_id: "u-own", username: "olga", role: "owner" };

let page: RenderedPage;
afterEach(() => {
  page.unmount();
  vi.unstubAllGlobals();
});

const show = (_role: ProjectPublic["role"]) => renderPage(<ProjectView />, fakeUser({ is_admin: false }), "/projects/p1", "/projects/:id");

describe("ProjectView", () => {
  it("lets an owner add a member by username, change the role and read why a removal is refused", async () => {
    let members: MemberPublic[] = [owner];
    const fake = installFakeFetch({
      "GET /api/projects/p1": () => [200, project("owner")],
      "GET /api/projects/p1/members": () => [200, { data: members, count: members.length }],
      "POST /api/projects/p1/members": (req) => {
        const b = req.body as { username: string; role: MemberPublic["role"] };
        if (b.username === "nobody") return [422, { detail: [{ loc: ["body", "username"], msg: "no user named 'nobody'", type: "unknown_user" }] }];
        members = [...members, { user_id: "u-bob", username: b.username, role: b.role }];
        return [200, members.at(-1)];
      },
      "PUT /api/projects/p1/members/u-bob": (req) => {
        members = members.map((m) => (m.user_id === "u-bob" ? { ...m, role: (req.body as { role: MemberPublic["role"] }).role } : m));
        return [200, members.find((m) => m.user_id === "u-bob")];
      },
      "DELETE /api/projects/p1/members/u-own": () => [409, { detail: "the project would have no owner" }],
    });
    page = await show("owner");
    expect(document.title).toBe("trials · Projects · Subflow");
    expect(page.host.querySelector('[aria-current="page"]')!.textContent).toBe("trials");

    await type(control(page.host, "Username"), "nobody");
    await submit(page.host, "Add a member");
    const name = control(page.host, "Username");
    expect(name.getAttribute("aria-invalid")).toBe("true");
    expect(document.getElementById(name.getAttribute("aria-describedby")!)!.textContent).toBe("no user named 'nobody'");

    await type(control(page.host, "Username"), "bob");
    await choose(control<HTMLSelectElement>(page.host, "Role"), "editor");
    await submit(page.host, "Add a member");
    expect(fake.requests.filter((r) => r.method === "POST").at(-1)!.body).toEqual({ username: "bob", role: "editor" });
    expect(control<HTMLSelectElement>(page.host, "Role of bob").value).toBe("editor");
    expect(control(page.host, "Username").value).toBe("");

    await choose(control<HTMLSelectElement>(page.host, "Role of bob"), "viewer");
    expect(fake.requests.find((r) => r.method === "PUT")!.body).toEqual({ role: "viewer" });
    expect(control<HTMLSelectElement>(page.host, "Role of bob").value).toBe("viewer");

    await click(button(page.host, "Remove olga"));
    expect(page.host.querySelector("[role=alert]")!.textContent).toContain("the project would have no owner");
    expect(fake.writes()).toEqual([
      "POST /api/projects/p1/members",
      "POST /api/projects/p1/members",
      "PUT /api/projects/p1/members/u-bob",
      "DELETE /api/projects/p1/members/u-own",
    ]);
  });

  it("renames a project (owner) and names a refused delete's reason", async () => {
    const fake = installFakeFetch({
      "GET /api/projects/p1": () => [200, project("owner")],
      "GET /api/projects/p1/members": () => [200, { data: [owner], count: 1 }],
      "PATCH /api/projects/p1": (req) => [200, { ...project("owner"), ...(req.body as object) }],
      "DELETE /api/projects/p1": () => [409, { detail: "project 'trials' holds 2 scenario(s); delete or move them first" }],
    });
    page = await show("owner");
    await type(control(page.host, "Name"), "sea trials");
    await submit(page.host, "Project settings");
    expect(fake.requests.find((r) => r.method === "PATCH")!.body).toEqual({ name: "sea trials", description: "sea" });
    await click(button(page.host, "Delete project…"));
    await click(button(page.host, "Delete project"));
    expect(page.host.querySelector("[role=alert]")!.textContent).toContain("holds 2 scenario(s)");
  });

  it("shows a viewer the members and roles without any control", async () => {
    const fake = installFakeFetch({
      "GET /api/projects/p1": () => [200, project("viewer")],
      "GET /api/projects/p1/members": () => [200, { data: [owner, { user_id: "u-v", username: "vic", role: "viewer" }], count: 2 }],
    });
    page = await show("viewer");
    expect(page.host.querySelector("[data-testid=member-vic]")!.textContent).toBe("vicviewer");
    expect(page.host.querySelectorAll("select, form, button")).toHaveLength(0);
    expect(fake.writes()).toEqual([]);
  });

  it("shows the API's not-found for a project you are not a member of", async () => {
    installFakeFetch({
      "GET /api/projects/p1": () => [404, { detail: "project 'p1' not found" }],
      "GET /api/projects/p1/members": () => [404, { detail: "project 'p1' not found" }],
    });
    page = await show("viewer");
    expect(page.host.querySelector("[role=alert]")!.textContent).toContain("project 'p1' not found");
    expect(page.host.querySelector("table")).toBeNull();
  });
});
