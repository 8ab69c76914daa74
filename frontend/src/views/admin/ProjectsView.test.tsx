// @vitest-environment happy-dom
/**
 * The projects page against a fake fetch: your projects with your role, each linking to its page; a
 * new project POSTed with its name and description, the list read again; a taken name refused with
 * the API's 409 message.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ProjectPublic } from "../../api/types";
import { installFakeFetch } from "../../testing/fakeFetch";
import { control, fakeUser, renderPage, submit, type, type RenderedPage } from "../../testing/renderPage";
import { ProjectsView } from "./ProjectsView";

const p = (name: string, role: ProjectPublic["role"]): ProjectPublic => ({ id: `p-${name}`, name, description: "", role, created_at: "2026-11-28T10:00:00Z" });

let page: RenderedPage;
afterEach(() => {
  page.unmount();
  vi.unstubAllGlobals();
});

describe("ProjectsView", () => {
  it("lists your projects with your role and creates one", async () => {
    let list = [p("alpha", "viewer")];
    const fake = installFakeFetch({
      "GET /api/projects": () => [200, { data: list, count: list.length }],
      "POST /api/projects": (req) => {
        const made = p((req.body as { name: string }).name, "owner");
        list = [...list, made];
        return [201, made];
      },
    });
    page = await renderPage(<ProjectsView />, fakeUser({ is_admin: false }));
    expect(document.title).toBe("Projects · Subflow");
    const row = page.host.querySelector("[data-testid=project-alpha]")!;
    expect(row.querySelector("a")!.getAttribute("href")).toBe("/projects/p-alpha");
    expect(row.textContent).toContain("viewer");
    await type(control(page.host, "Name"), "beta");
    await type(control(page.host, "Description"), "trials");
    await submit(page.host, "New project");
    expect(fake.requests.find((r) => r.method === "POST")!.body).toEqual({ name: "beta", description: "trials" });
    expect(page.host.querySelector("[data-testid=project-beta]")!.textContent).toContain("owner");
    expect(page.host.querySelector("[role=status]")!.textContent).toContain("beta");
  });

  it("shows the API's message for a name in use", async () => {
    installFakeFetch({
      "GET /api/projects": () => [200, { data: [], count: 0 }],
      "POST /api/projects": () => [409, { detail: "a project named 'alpha' already exists" }],
    });
    page = await renderPage(<ProjectsView />, fakeUser());
    expect(page.host.textContent).toContain("You are a member of no project yet.");
    await type(control(page.host, "Name"), "alpha");
    await submit(page.host, "New project");
    expect(page.host.querySelector("[role=alert]")!.textContent).toContain("a project named 'alpha' already exists");
  });
});
